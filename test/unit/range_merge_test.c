/*
 * range_merge_test.c
 *	  Unit test of the merge engine's merge of ranges (keymerge.h
 *	  cd_range_merge_next), against an independent truth: the same sets as
 *	  arrays of bits, combined bit by bit.
 *
 * Random sets of keys in a window of the 64-bit space (at 0, in the middle
 * and ending at the largest key, so that ranges touch both extremes) are
 * handed out by sources as maximal ranges, or, every other case, as ranges
 * cut at random places (adjacent ranges not joined, as the contract of a
 * source allows), of all densities: single keys, long runs, empty sets.
 * Each pair is merged keeping each class combination a caller uses (union,
 * intersection, difference) and every other one, and the results must be
 * exactly the bits' combination in ascending order, as maximal ranges when
 * the inputs' are or keep holds several classes; a union of the result
 * with a third set (the union aggregate's chain of sources) and a rewind
 * must give the same again.
 *
 * Built and run by test/drivers/15-set-keys.sh against the server headers
 * (no server function is called).
 */
#include "postgres.h"

#include <stdio.h>
#include <stdlib.h>

#include "keymerge.h"

#include "unit_common.h"

/* the C library's, not the server's (this program links no server code) */
#undef printf
#undef snprintf

#define SPAN 1500				/* keys of the window */

/* a source over an array of ranges */
typedef struct ArraySource
{
	CDRangeSource src;
	uint64		first[SPAN];
	uint64		last[SPAN];
	int			n;
	int			i;
} ArraySource;

/* the array's next range, if any */
static bool
array_next(CDRangeSource *s, uint64 *first, uint64 *last)
{
	ArraySource *a = (ArraySource *) s;
	bool		more = a->i < a->n;

	if (more)
	{
		*first = a->first[a->i];
		*last = a->last[a->i++];
	}
	return more;
}

static void
array_rewind(CDRangeSource *s)
{
	((ArraySource *) s)->i = 0;
}

/*
 * A merge as a source, as dset_ops.c makes one, of any keep: here a
 * variable, so that the engine's code for every combination is run.
 */
typedef struct KeepMerge
{
	CDRangeMerge m;
	int			keep;
} KeepMerge;

static bool keep_next(CDRangeSource *s, uint64 *first, uint64 *last);

static CDRangeSource *
keep_merge(KeepMerge *k, int keep, CDRangeSource *a, CDRangeSource *b)
{
	k->keep = keep;
	cd_range_merge_init(&k->m, keep_next, a, b);
	return &k->m.src;
}

static bool
keep_next(CDRangeSource *s, uint64 *first, uint64 *last)
{
	KeepMerge  *k = (KeepMerge *) s;

	return cd_range_merge_next(&k->m.a, &k->m.b, k->keep, first, last);
}

/* random bits of the window at a given density, as ranges cut if cut */
static void
random_set(bool *bits, ArraySource *s, uint64 base, bool cut)
{
	int			density = (int) (next_random() % 7);
	int			runlen = 1 + (int) (next_random() % 40);
	int			k;

	/* runs of random lengths, present or not */
	k = 0;
	while (k < SPAN)
	{
		int			len = 1 + (int) (next_random() % runlen);
		bool		on = density > 0 && (int) (next_random() % 6) < density;
		int			e;

		for (e = k; e < k + len && e < SPAN; e++)
			bits[e] = on;
		k = e;
	}
	/* as ranges, each maximal one cut at random */
	s->src.next = array_next;
	s->src.rewind = array_rewind;
	s->n = 0;
	s->i = 0;
	k = 0;
	while (k < SPAN)
	{
		int			e;

		if (!bits[k])
		{
			k++;
			continue;
		}
		e = k;
		while (e + 1 < SPAN && bits[e + 1] && (!cut || next_random() % 5 != 0))
			e++;
		s->first[s->n] = base + k;
		s->last[s->n] = base + e;
		s->n++;
		k = e + 1;
	}
}

/*
 * The source's ranges must be the keys of want, ascending, and if maximal,
 * its maximal ranges; also after a rewind.
 */
static bool
check(CDRangeSource *src, const bool *want, uint64 base, bool maximal,
	  const char *what)
{
	int			pass;

	for (pass = 0; pass < 2; pass++)
	{
		uint64		f;
		uint64		l;
		int			k = 0;

		if (pass == 1)
			src->rewind(src);
		while (src->next(src, &f, &l))
		{
			int			from = (int) (f - base);
			int			to = (int) (l - base);
			int			e;

			if (f < base || l < f || to >= SPAN || from < k)
			{
				printf("FAIL: %s: range %d .. %d out of order\n", what, from, to);
				return false;
			}
			for (e = k; e < from; e++)
				if (want[e])
				{
					printf("FAIL: %s: key %d missing\n", what, e);
					return false;
				}
			if (maximal && from > 0 && from == k && want[from - 1])
			{
				printf("FAIL: %s: range at %d not maximal\n", what, from);
				return false;
			}
			for (e = from; e <= to; e++)
				if (!want[e])
				{
					printf("FAIL: %s: key %d not in the result\n", what, e);
					return false;
				}
			if (maximal && to + 1 < SPAN && want[to + 1])
			{
				printf("FAIL: %s: range ending at %d not maximal\n", what, to);
				return false;
			}
			k = to + 1;
		}
		for (; k < SPAN; k++)
			if (want[k])
			{
				printf("FAIL: %s: key %d missing at the end\n", what, k);
				return false;
			}
	}
	return true;
}

static ArraySource sa,
			sb,
			sc;

int
main(int argc, char **argv)
{
	long		cases = argc > 1 ? atol(argv[1]) : 400;
	long		passed = 0,
				failed = 0;
	long		c;
	static const uint64 bases[] = {0, UINT64CONST(1) << 40,
	PG_UINT64_MAX - SPAN + 1};

	for (c = 0; c < cases; c++)
	{
		uint64		base = bases[c % 3];
		bool		a[SPAN],
					b[SPAN],
					d[SPAN],
					want[SPAN],
					want2[SPAN];
		int			keep;
		bool		ok = true;
		bool		cut = c % 2 == 1;	/* every other case, ranges cut */

		random_set(a, &sa, base, cut);
		random_set(b, &sb, base, cut);
		random_set(d, &sc, base, cut);
		for (keep = 1; keep <= CD_MERGE_ALL && ok; keep++)
		{
			KeepMerge	m;
			KeepMerge	m2;
			char		what[64];
			int			k;

			for (k = 0; k < SPAN; k++)
				want[k] = ((keep & CD_MERGE_A) && a[k] && !b[k]) ||
					((keep & CD_MERGE_BOTH) && a[k] && b[k]) ||
					((keep & CD_MERGE_B) && !a[k] && b[k]);
			snprintf(what, sizeof(what), "case %ld keep %d", c, keep);
			/* maximal: from maximal inputs, or joined (several classes) */
			ok = check(keep_merge(&m, keep, &sa.src, &sb.src), want, base,
					   !cut || (keep & (keep - 1)) != 0, what);
			/* the result merged again, with a third set: (a ? b) | d */
			if (ok)
			{
				for (k = 0; k < SPAN; k++)
					want2[k] = want[k] || d[k];
				(void) keep_merge(&m2, CD_MERGE_ALL,
								  keep_merge(&m, keep, &sa.src, &sb.src),
								  &sc.src);
				snprintf(what, sizeof(what), "case %ld keep %d, then | d", c, keep);
				ok = check(&m2.m.src, want2, base, true, what);
			}
		}
		if (ok)
			passed++;
		else
			failed++;
	}
	if (failed == 0)
		printf("ok: range merge, %ld cases of three sets, every class combination\n",
			   passed);
	printf("%ld passed, %ld failed\n", passed, failed);
	return failed > 0;
}
