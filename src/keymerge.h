/*-------------------------------------------------------------------------
 *
 * keymerge.h
 *	  The merge engine's kernels (merge_template.h) for each key width:
 *	  branch-free steps of a union, forward or backward, of a merge that
 *	  keeps some classes of keys (intersection, difference, containment,
 *	  overlap), and of a two- or three-way count, over sorted, strictly
 *	  increasing integer keys.
 *
 * Every sorted merge of fixed-width keys, and of byte keys by their 8-byte
 * prefixes, runs its inner loop through these: the fixed-width set's
 * in-place merge (set_keys_template.h), the packed set's merge of blocks
 * and the union of its held states (packedset.c, keyunion.c), the
 * front-coded set's count of keys of one length (frontset.c), and the
 * stored sets' merges of decoded arrays (dset_ops.c merge_keys: union,
 * intersection, difference, containment, overlap).  Names are
 * cd_merge_<kernel>_u8 .. _u64.
 *
 * Below them, the merge of ranges of consecutive keys (runs) read from two
 * sources, keeping the same classes: every merge of runs (the stored sets'
 * union, intersection and difference of sets read in place, dset_ops.c
 * dset_merge, and so the union aggregate's merges of stored sequences and
 * of its bitmap, dset_agg.c) steps through cd_range_merge_next.
 *
 *-------------------------------------------------------------------------
 */
#ifndef CD_KEYMERGE_H
#define CD_KEYMERGE_H

#include "postgres.h"

#define CDM_KEY uint8
#define CDM_NAME(x) cd_merge_##x##_u8
#include "merge_template.h"

#define CDM_KEY uint16
#define CDM_NAME(x) cd_merge_##x##_u16
#include "merge_template.h"

#define CDM_KEY uint32
#define CDM_NAME(x) cd_merge_##x##_u32
#include "merge_template.h"

#define CDM_KEY uint64
#define CDM_NAME(x) cd_merge_##x##_u64
#include "merge_template.h"

/*
 * A source of ranges of consecutive fixed-width keys (first .. last,
 * inclusive), as 64-bit integers whatever the width: disjoint and in
 * ascending order, not necessarily maximal (adjacent ranges are joined by
 * whoever needs maximal ones); rewind starts it over.  A source checks
 * for interrupts as it reads.
 */
typedef struct CDRangeSource CDRangeSource;
struct CDRangeSource
{
	bool		(*next) (CDRangeSource *s, uint64 *first, uint64 *last);
	void		(*rewind) (CDRangeSource *s);
};

/*
 * A merge's view of one input (peek and advance): the source's current
 * range, less what the merge has taken of it, when have.
 */
typedef struct CDRangeHead
{
	CDRangeSource *src;
	bool		have;
	uint64		first;
	uint64		last;
} CDRangeHead;

/* the source's next range as the head */
static inline void
cd_range_advance(CDRangeHead *h)
{
	h->have = h->src->next(h->src, &h->first, &h->last);
}

/* h reads src from its start */
static inline void
cd_range_start(CDRangeHead *h, CDRangeSource *src)
{
	h->src = src;
	src->rewind(src);
	cd_range_advance(h);
}

/*
 * A merge of two sources as a source itself, of the result's ranges: its
 * next is the caller's, which calls cd_range_merge_next on a and b with a
 * constant keep.
 */
typedef struct CDRangeMerge
{
	CDRangeSource src;
	CDRangeHead a;
	CDRangeHead b;
} CDRangeMerge;

static inline void
cd_range_merge_rewind(CDRangeSource *s)
{
	CDRangeMerge *m = (CDRangeMerge *) s;

	cd_range_start(&m->a, m->a.src);
	cd_range_start(&m->b, m->b.src);
}

/* m merges a and b (from their start) through next */
static inline void
cd_range_merge_init(CDRangeMerge *m,
					bool (*next) (CDRangeSource *s, uint64 *first, uint64 *last),
					CDRangeSource *a, CDRangeSource *b)
{
	m->src.next = next;
	m->src.rewind = cd_range_merge_rewind;
	cd_range_start(&m->a, a);
	cd_range_start(&m->b, b);
}

/*
 * The piece of h's head from its first key to upto at the most, taken: h
 * is advanced if the piece ends its range, else cut after it.
 */
static pg_attribute_always_inline void
cd_range_cut(CDRangeHead *h, uint64 upto, uint64 *first, uint64 *last)
{
	*first = h->first;
	*last = Min(h->last, upto);
	if (h->last == *last)
		cd_range_advance(h);
	else
		h->first = *last + 1;
}

/*
 * The next range of the keys of a and b of the classes in keep (all three:
 * union, CD_MERGE_BOTH: intersection, CD_MERGE_A: difference), false after
 * the last.  The keys from the lower head on are cut in pieces of one class
 * each: in a only up to b's head or a's end, in both up to the nearer end,
 * in b only up to a's head or b's end; a head a piece ends is advanced, one
 * it does not is cut after it (at most once before an advance).  Pieces of
 * other classes are skipped, and the merge stops when what is left of the
 * inputs holds no class in keep (an intersection when either input ends, a
 * difference when a does).  With more than one class in keep, the kept
 * pieces that adjoin are joined (pieces of a and of b, and of an input's
 * adjacent ranges), so each range is maximal; with one, the ranges are
 * maximal when the inputs' are (two pieces of one class adjoin only where
 * an input's ranges do).  A union (all three) is not cut in pieces: it
 * takes the lower head's range whole and every range of either input that
 * overlaps or adjoins it, so its ranges are maximal too.
 *
 * keep is a constant at each call: inlined, only its own classes' tests
 * and pieces remain.  Each input range is read at most once; a call costs
 * the pieces it takes, each a few comparisons.
 */
static pg_attribute_always_inline bool
cd_range_merge_next(CDRangeHead *a, CDRangeHead *b, int keep,
					uint64 *first, uint64 *last)
{
	uint64		f = 0;
	uint64		l = 0;
	bool		found = false;

	if (keep == CD_MERGE_ALL)
	{
		if (a->have && (!b->have || a->first <= b->first))
		{
			f = a->first;
			l = a->last;
			cd_range_advance(a);
		}
		else if (b->have)
		{
			f = b->first;
			l = b->last;
			cd_range_advance(b);
		}
		else
			return false;
		/* and every range of either input that overlaps or adjoins f .. l */
		for (;;)
		{
			if (a->have && (a->first <= l || a->first - l == 1))
			{
				l = Max(l, a->last);
				cd_range_advance(a);
			}
			else if (b->have && (b->first <= l || b->first - l == 1))
			{
				l = Max(l, b->last);
				cd_range_advance(b);
			}
			else
				break;
		}
		*first = f;
		*last = l;
		return true;
	}

	for (;;)
	{
		uint64		pf;
		uint64		pl;
		int			cls;

		if (a->have && b->have)
		{
			uint64		x = a->first;
			uint64		y = b->first;

			/* a piece of a class not kept: skipped at once */
			if (!(keep & CD_MERGE_A) && x < y)
			{
				if (a->last < y)
				{
					cd_range_advance(a);
					continue;
				}
				a->first = x = y;
			}
			if (!(keep & CD_MERGE_B) && y < x)
			{
				if (b->last < x)
				{
					cd_range_advance(b);
					continue;
				}
				b->first = y = x;
			}
			if (x != y)
			{
				cls = x < y ? CD_MERGE_A : CD_MERGE_B;
				cd_range_cut(x < y ? a : b, Max(x, y) - 1, &pf, &pl);
			}
			else
			{
				cls = CD_MERGE_BOTH;
				cd_range_cut(a, b->last, &pf, &pl);
				cd_range_cut(b, pl, &pf, &pl);
			}
		}
		else if (a->have || b->have)
		{
			cls = a->have ? CD_MERGE_A : CD_MERGE_B;
			if (!(keep & cls))
				break;			/* nothing left of a class in keep */
			cd_range_cut(a->have ? a : b, PG_UINT64_MAX, &pf, &pl);
		}
		else
			break;
		if (!(keep & cls))
			continue;
		if (!found)
		{
			f = pf;
			l = pl;
			found = true;
			/* one class: the pieces that could adjoin come from one input */
			if ((keep & (keep - 1)) == 0)
				break;
		}
		else
		{
			Assert(pf - l == 1);
			l = pl;
		}
		/* several classes: join the next piece if kept and adjoining */
		if (!(a->have && a->first - l == 1 &&
			  (keep & (b->have && b->first == a->first ? CD_MERGE_BOTH : CD_MERGE_A))) &&
			!(b->have && b->first - l == 1 &&
			  (keep & (a->have && a->first == b->first ? CD_MERGE_BOTH : CD_MERGE_B))))
			break;
	}
	if (!found)
		return false;
	*first = f;
	*last = l;
	return true;
}

#endif							/* CD_KEYMERGE_H */
