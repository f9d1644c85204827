/*-------------------------------------------------------------------------
 *
 * keyunion.c
 *	  The union of sorted, distinct streams of fixed-width keys (keyunion.h).
 *
 * Each node of the tree merges two streams through buffers of one batch,
 * without a branch per key: the smaller head goes out, and each side
 * advances when its head is not greater than the other's, so equal heads
 * go out once.  Between refills the loop runs as many steps as every buffer
 * allows (at most one key of each side is taken per step).
 *
 * A count (cd_key_union_count) merges up to three streams in one loop
 * without writing anything: one step per key of the union, each side whose
 * head is the smallest advancing.  A parallel leader counts its own keys
 * and two workers' this way.  Each side reads several batches ahead, so
 * that the loop runs at least a batch of steps between two refills (with
 * one batch a side, the loop ended every few dozen keys, at a mispredicted
 * branch; bench/README.md).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"

#include "keyunion.h"

typedef struct CDKeyUnionNode
{
	CDKeyReader r;				/* this node's stream; source is the node */
	CDKeyReader *a;
	CDKeyReader *b;
	uint32		ia,				/* abuf: keys [ia, na) not taken yet */
				na,
				ib,				/* bbuf: keys [ib, nb) */
				nb;
	bool		a_done;
	bool		b_done;
	uint64		abuf[CD_KEY_BATCH];
	uint64		bbuf[CD_KEY_BATCH];
} CDKeyUnionNode;

static uint32
union_next(CDKeyReader *r, uint64 *dst, uint32 max)
{
	CDKeyUnionNode *u = (CDKeyUnionNode *) r->source;
	uint32		n = 0;

	while (n < max)
	{
		uint32		steps;

		if (u->ia == u->na && !u->a_done)
		{
			u->na = u->a->next_fixed(u->a, u->abuf, CD_KEY_BATCH);
			u->ia = 0;
			u->a_done = (u->na == 0);
		}
		if (u->ib == u->nb && !u->b_done)
		{
			u->nb = u->b->next_fixed(u->b, u->bbuf, CD_KEY_BATCH);
			u->ib = 0;
			u->b_done = (u->nb == 0);
		}
		if (u->ia == u->na || u->ib == u->nb)
		{
			/* one side is done: the rest of the other, as it is */
			const uint64 *src;
			uint32		k;

			if (u->ia < u->na)
			{
				k = Min(u->na - u->ia, max - n);
				src = u->abuf + u->ia;
				u->ia += k;
			}
			else if (u->ib < u->nb)
			{
				k = Min(u->nb - u->ib, max - n);
				src = u->bbuf + u->ib;
				u->ib += k;
			}
			else
				break;			/* both are done */
			memcpy(dst + n, src, k * sizeof(uint64));
			n += k;
			continue;
		}

		steps = Min(Min(u->na - u->ia, u->nb - u->ib), max - n);
		cd_key_merge_steps(u->abuf, &u->ia, u->bbuf, &u->ib, dst, &n, steps);
	}
	r->pos += n;
	return n;
}

static CDKeyReader *
union_of(CDKeyReader **in, int n)
{
	CDKeyUnionNode *u;
	Size		count;

	Assert(n >= 1);
	if (n == 1)
		return in[0];
	u = palloc0(sizeof(CDKeyUnionNode));
	u->a = union_of(in, n / 2);
	u->b = union_of(in + n / 2, n - n / 2);
	count = (Size) u->a->count + u->b->count;
	cd_key_reader_init(&u->r, u, (uint32) Min(count, PG_UINT32_MAX),
					   union_next, NULL);
	return &u->r;
}

CDKeyReader *
cd_key_union(CDKeyReader **in, int n)
{
	return union_of(in, n);
}

void
cd_key_union_free(CDKeyReader *r)
{
	CDKeyUnionNode *u;

	if (r->next_fixed != union_next)
		return;					/* one of the readers given */
	u = (CDKeyUnionNode *) r->source;
	cd_key_union_free(u->a);
	cd_key_union_free(u->b);
	pfree(u);
}

Size
cd_key_reader_drain_count(CDKeyReader *r)
{
	uint64		batch[CD_KEY_BATCH];
	Size		n = 0;
	uint32		m;
	uint32		i = 0;

	while ((m = r->next_fixed(r, batch, CD_KEY_BATCH)) > 0)
	{
		n += m;
		if ((++i & 0x3FF) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	return n;
}

/*
 * One side of a count: a reader and the keys read ahead, topped up to
 * several batches whenever fewer than one are left, so that the loop runs
 * at least a batch of steps between two top-ups.
 */
#define CD_COUNT_BUF	(4 * CD_KEY_BATCH)

typedef struct CDCountSide
{
	CDKeyReader *r;
	bool		done;			/* the reader is at its end */
	uint32		i;				/* buf: keys [i, n) not taken yet */
	uint32		n;
	uint64		buf[CD_COUNT_BUF];
} CDCountSide;

/*
 * Top up the sides with fewer than a batch of keys left, and drop those
 * with none left at their reader's end (the others move down); returns how
 * many are left.
 */
static int
count_refill(CDCountSide **side, int k)
{
	int			j = 0;
	int			s;

	for (s = 0; s < k; s++)
	{
		CDCountSide *c = side[s];

		if (c->n - c->i < CD_KEY_BATCH && !c->done)
		{
			uint32		left = c->n - c->i;

			memmove(c->buf, c->buf + c->i, left * sizeof(uint64));
			c->i = 0;
			c->n = left;
			while (c->n + CD_KEY_BATCH <= CD_COUNT_BUF)
			{
				uint32		m = c->r->next_fixed(c->r, c->buf + c->n,
												 CD_KEY_BATCH);

				if (m == 0)
				{
					c->done = true;
					break;
				}
				c->n += m;
			}
		}
		if (c->i == c->n)
			continue;			/* at its end */
		side[j++] = c;
	}
	return j;
}

Size
cd_key_union_count(CDKeyReader **in, int n)
{
	CDKeyReader *top[3];
	CDCountSide sides[3];
	CDCountSide *side[3];
	int			ntop = Min(n, 3);
	int			k;
	Size		count = 0;
	uint32		rounds = 0;

	Assert(n >= 1);
	/* more than three streams: three unions of them */
	for (k = 0; k < ntop; k++)
	{
		int			from = (int) ((long) n * k / ntop);
		int			to = (int) ((long) n * (k + 1) / ntop);

		top[k] = cd_key_union(in + from, to - from);
		sides[k].r = top[k];
		sides[k].done = false;
		sides[k].i = sides[k].n = 0;
		side[k] = &sides[k];
	}

	k = ntop;
	while ((k = count_refill(side, k)) >= 2)
	{
		/* steps that no side's batch runs out in (one key a side a step) */
		uint32		steps = side[0]->n - side[0]->i;
		Size		ia = side[0]->i,
					ib = side[1]->i;
		const uint64 *a = side[0]->buf;
		const uint64 *b = side[1]->buf;

		steps = Min(steps, side[1]->n - side[1]->i);
		if (k == 3)
		{
			Size		ic = side[2]->i;

			steps = Min(steps, side[2]->n - side[2]->i);
			cd_merge_count_steps3_u64(a, &ia, b, &ib, side[2]->buf, &ic,
									  steps, NULL);
			side[2]->i = (uint32) ic;
		}
		else
			cd_merge_count_steps2_u64(a, &ia, b, &ib, steps, NULL);
		side[0]->i = (uint32) ia;
		side[1]->i = (uint32) ib;
		count += steps;
		if ((++rounds & 0x3FF) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	if (k == 1)
		count += side[0]->n - side[0]->i +
			(side[0]->done ? 0 : cd_key_reader_drain_count(side[0]->r));

	for (k = 0; k < ntop; k++)
		cd_key_union_free(top[k]);
	return count;
}
