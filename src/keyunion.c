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
