/*-------------------------------------------------------------------------
 *
 * dset_agg.c
 *	  Stored sets: the aggregates.
 *
 * distinct_set_agg(anyelement) runs on count_distinct's own transition,
 * combine, serialize and deserialize functions (its state is a
 * count_distinct set); only its final function is here.
 *
 * distinct_set_union_agg(distinct_set) keeps sorted runs of keys on a
 * stack whose sizes decrease from the bottom up: each new set is pushed,
 * and the top two runs are merged while the upper one is at least as large
 * as the one below (as a binary counter carries).  Every key then takes
 * part in O(log k) merges for k sets, never the O(k) of merging each set
 * into one growing run.
 *
 * Fixed-width keys whose range is dense go into a bitmap instead: when the
 * bitmap of the range of all keys so far takes no more bytes than the keys
 * themselves (for 30 daily sets of 1M users out of 20M: 2.5 MB against 4 MB
 * a set).  Each key then costs one bit set;
 * the result is read out of the bitmap in order.  A set that widens the
 * range beyond that turns the bitmap back into a run.
 *
 * distinct_set_intersect_agg(distinct_set) keeps one run, which only
 * shrinks: each set costs a merge with it (or a galloping search when one
 * is much shorter).
 *
 * Both serialize their state as a stored set (dset.h) and run in parallel.
 * Their counting forms (distinct_set_union_cardinality_agg, ...: what
 * cardinality() of them is planned as, dset_plan.c) share the state and
 * count it instead of encoding it.  Over sliding window frames the union
 * keeps a count per key (the last section of this file).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "miscadmin.h"
#include "port/pg_bitutils.h"
#include "utils/memutils.h"

#include "dset.h"

PG_FUNCTION_INFO_V1(distinct_set_agg_final);
PG_FUNCTION_INFO_V1(distinct_set_agg_moving_final);
PG_FUNCTION_INFO_V1(distinct_set_union_append);
PG_FUNCTION_INFO_V1(distinct_set_union_combine);
PG_FUNCTION_INFO_V1(distinct_set_union_final);
PG_FUNCTION_INFO_V1(distinct_set_union_count_final);
PG_FUNCTION_INFO_V1(distinct_set_intersect_append);
PG_FUNCTION_INFO_V1(distinct_set_intersect_combine);
PG_FUNCTION_INFO_V1(distinct_set_intersect_final);
PG_FUNCTION_INFO_V1(distinct_set_intersect_count_final);
PG_FUNCTION_INFO_V1(distinct_set_agg_serial);
PG_FUNCTION_INFO_V1(distinct_set_union_deserial);
PG_FUNCTION_INFO_V1(distinct_set_intersect_deserial);

static MemoryContext
aggregate_context(FunctionCallInfo fcinfo)
{
	MemoryContext aggcontext;

	if (!AggCheckCallContext(fcinfo, &aggcontext))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("distinct_set aggregate support functions can only be called as part of an aggregate")));
	return aggcontext;
}

/*
 * distinct_set_agg_final(internal) -> distinct_set
 *
 * The state is a count_distinct set (set.h); compacting it leaves it
 * equivalent (FINALFUNC_MODIFY = SHAREABLE).
 */
Datum
distinct_set_agg_final(PG_FUNCTION_ARGS)
{
	DSKeys		keys;

	(void) aggregate_context(fcinfo);
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	dsk_from_state(&keys, PG_GETARG_POINTER(0));
	PG_RETURN_BYTEA_P(dset_encode(keys.kt, &keys));
}

/*
 * distinct_set_agg_moving_final(internal) -> distinct_set
 *
 * Window frames: count_distinct's moving-aggregate state (moving.h), which
 * counts each value's rows so that rows can leave the frame; only read.
 */
Datum
distinct_set_agg_moving_final(PG_FUNCTION_ARGS)
{
	DSKeys		keys;

	(void) aggregate_context(fcinfo);
	if (PG_ARGISNULL(0) || !dsk_from_moving(&keys, PG_GETARG_POINTER(0)))
		PG_RETURN_NULL();
	PG_RETURN_BYTEA_P(dset_encode(keys.kt, &keys));
}

/* ------------------------------------------------------------------------
 * union and intersection
 * ------------------------------------------------------------------------
 */
/* a bitmap of the keys lo .. lo + 64 * nwords - 1 (bits NULL: none) */
typedef struct DSBitmap
{
	uint64	   *bits;
	uint64		lo;
	Size		nwords;
} DSBitmap;

typedef struct DSAggState
{
	const CDKeyType *kt;		/* from the query's registry */
	MemoryContext mcxt;			/* the aggregate context: runs live here */
	int			nruns;
	int			maxruns;
	DSKeys	   *runs;			/* union: a stack; intersection: one run */

	/*
	 * union of fixed-width keys in a dense range: a bitmap (lo a multiple of
	 * 64), made of held input keys in all (an upper bound of its distinct
	 * keys); no runs then
	 */
	DSBitmap	bm;
	uint64		held;
} DSAggState;

static DSAggState *
new_state(MemoryContext aggcontext, const CDKeyType *kt)
{
	DSAggState *s = MemoryContextAllocZero(aggcontext, sizeof(DSAggState));

	s->kt = kt;
	s->mcxt = aggcontext;
	s->maxruns = 8;
	s->runs = MemoryContextAlloc(aggcontext, s->maxruns * sizeof(DSKeys));
	return s;
}

/* Decode a stored set into the state's context; returns its key type. */
static const CDKeyType *
decode_into(FunctionCallInfo fcinfo, MemoryContext mcxt, Datum value,
			DSKeys *keys)
{
	MemoryContext old = MemoryContextSwitchTo(mcxt);
	bytea	   *ds = DatumGetDistinctSetP(value);
	const CDKeyType *kt = dset_decode(fcinfo, ds, keys);

	if ((Pointer) ds != DatumGetPointer(value))
		pfree(ds);
	MemoryContextSwitchTo(old);
	return kt;
}

/* Merge the top two runs of the stack. */
static void
merge_top(DSAggState *s)
{
	DSKeys	   *a = &s->runs[s->nruns - 2];
	DSKeys	   *b = &s->runs[s->nruns - 1];
	DSKeys		out;
	MemoryContext old = MemoryContextSwitchTo(s->mcxt);

	dsk_union(&out, a, b);
	/* fixed keys were copied; byte keys still point into the inputs */
	dsk_free(a);
	dsk_free(b);
	MemoryContextSwitchTo(old);
	*a = out;
	s->nruns--;
}

/* bytes of a bitmap of the keys lo .. hi */
static uint64
bitmap_bytes(uint64 lo, uint64 hi)
{
	return ((hi >> 6) - (lo >> 6) + 1) * 8;
}

/* is a bitmap of lo .. hi no larger than held keys of width bytes? */
static bool
dense_enough(uint64 lo, uint64 hi, uint64 held, int width)
{
	/* (hi >> 6) - (lo >> 6) < 2^58: no overflow */
	uint64		bytes = bitmap_bytes(lo, hi);

	return bytes <= (uint64) MaxAllocHugeSize / 2 && bytes <= held * width;
}

/* set the bits of run's keys (all within the bitmap) */
#define SET_BITS(T) \
	do { \
		const T    *x = (const T *) run->fixed; \
		\
		for (i = 0; i < run->n; i++) \
		{ \
			uint64		off = (uint64) x[i] - lo; \
			\
			bits[off >> 6] |= UINT64CONST(1) << (off & 63); \
		} \
	} while (0)

static void
bitmap_add(DSAggState *s, const DSKeys *run)
{
	uint64	   *bits = s->bm.bits;
	uint64		lo = s->bm.lo;
	uint32		i;

	switch (run->width)
	{
		case 1:
			SET_BITS(uint8);
			break;
		case 2:
			SET_BITS(uint16);
			break;
		case 4:
			SET_BITS(uint32);
			break;
		default:
			SET_BITS(uint64);
			break;
	}
	s->held += run->n;
	CHECK_FOR_INTERRUPTS();
}

#define READ_BITS(T) \
	do { \
		T		   *z = (T *) run.fixed; \
		\
		for (w = 0; w < bm->nwords; w++) \
		{ \
			uint64		word = bm->bits[w]; \
			uint64		base = bm->lo + w * 64; \
			\
			while (word != 0) \
			{ \
				z[o++] = (T) (base + pg_rightmost_one_pos64(word)); \
				word &= word - 1; \
			} \
			if ((w & 0xFFFF) == 0xFFFF) \
				CHECK_FOR_INTERRUPTS(); \
		} \
	} while (0)

/* the number of keys in a bitmap */
static uint64
bitmap_count(const DSBitmap *bm)
{
	return pg_popcount((const char *) bm->bits, bm->nwords * 8);
}

/* a bitmap's keys (of kt), as a new run in CurrentMemoryContext */
static void
bitmap_read(const CDKeyType *kt, const DSBitmap *bm, DSKeys *out)
{
	Size		w;
	uint32		o = 0;
	DSKeys		run;

	dsk_alloc(&run, kt, (uint32) bitmap_count(bm));
	switch (run.width)
	{
		case 1:
			READ_BITS(uint8);
			break;
		case 2:
			READ_BITS(uint16);
			break;
		case 4:
			READ_BITS(uint32);
			break;
		default:
			READ_BITS(uint64);
			break;
	}
	run.n = o;
	*out = run;
}

/* A reader of the bitmap's keys (keystream.h), for dset_encode_fixed. */
typedef struct BitmapReader
{
	CDKeyReader r;
	const uint64 *bits;
	Size		nwords;
	uint64		lo;
	Size		w;				/* the word being read ... */
	uint64		word;			/* ... and its bits not read yet */
} BitmapReader;

static uint32
bitmap_next(CDKeyReader *r, uint64 *dst, uint32 max)
{
	BitmapReader *br = (BitmapReader *) r;
	const uint64 *bits = br->bits;
	Size		nwords = br->nwords;
	Size		w = br->w;
	uint64		word = br->word;
	uint32		o = 0;

	if (r->pos == 0)
	{
		w = 0;
		word = nwords > 0 ? bits[0] : 0;
	}
	while (o < max)
	{
		while (word == 0)
		{
			if (++w >= nwords)
				goto done;
			word = bits[w];
		}
		dst[o++] = br->lo + w * 64 + pg_rightmost_one_pos64(word);
		word &= word - 1;
	}
done:
	br->w = Min(w, nwords);
	br->word = word;
	r->pos += o;
	return o;
}

/*
 * The number of maximal runs of set bits: of bits set whose lower neighbour
 * (the previous word's top bit for bit 0) is not.
 */
static uint64
bitmap_runs(const DSBitmap *bm)
{
	uint64		n = 0;
	uint64		carry = 0;
	Size		w;

	for (w = 0; w < bm->nwords; w++)
	{
		uint64		word = bm->bits[w];

		n += pg_popcount64(word & ~((word << 1) | carry));
		carry = word >> 63;
	}
	return n;
}

/* a bitmap's keys (of kt) as a stored set */
static bytea *
bitmap_encode(const CDKeyType *kt, const DSBitmap *bm)
{
	BitmapReader br;

	br.bits = bm->bits;
	br.nwords = bm->nwords;
	br.lo = bm->lo;
	br.w = 0;
	br.word = 0;
	cd_key_reader_init(&br.r, &br, (uint32) bitmap_count(bm), bitmap_next, NULL);
	return dset_encode_fixed(kt, &br.r, (int64) bitmap_runs(bm));
}

/* the bitmap's keys as the one run (in the state's context); frees it */
static void
bitmap_to_run(DSAggState *s)
{
	MemoryContext old = MemoryContextSwitchTo(s->mcxt);

	bitmap_read(s->kt, &s->bm, &s->runs[0]);
	pfree(s->bm.bits);
	s->bm.bits = NULL;
	s->nruns = 1;
	MemoryContextSwitchTo(old);
}

/* a new bitmap of lo .. hi holding the stack's runs (which are freed) */
static void
runs_to_bitmap(DSAggState *s, uint64 lo, uint64 hi)
{
	int			r;

	s->bm.lo = lo & ~UINT64CONST(63);
	s->bm.nwords = (Size) (bitmap_bytes(lo, hi) / 8);
	s->bm.bits = MemoryContextAllocExtended(s->mcxt, s->bm.nwords * 8,
										 MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	s->held = 0;
	for (r = 0; r < s->nruns; r++)
	{
		bitmap_add(s, &s->runs[r]);
		dsk_free(&s->runs[r]);
	}
	s->nruns = 0;
}

/* widen the bitmap to cover lo .. hi (which covers its range) */
static void
bitmap_widen(DSAggState *s, uint64 lo, uint64 hi)
{
	uint64		newlo = lo & ~UINT64CONST(63);
	Size		nwords = (Size) (bitmap_bytes(lo, hi) / 8);
	uint64	   *bits;

	if (newlo == s->bm.lo && nwords == s->bm.nwords)
		return;
	Assert(newlo <= s->bm.lo && nwords >= s->bm.nwords);
	bits = MemoryContextAllocExtended(s->mcxt, nwords * 8,
									  MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	memcpy(bits + (s->bm.lo - newlo) / 64, s->bm.bits, s->bm.nwords * 8);
	pfree(s->bm.bits);
	s->bm.bits = bits;
	s->bm.lo = newlo;
	s->bm.nwords = nwords;
}

/*
 * Should keys first .. last (n of them, of width bytes) go into the
 * state's bitmap?  If so, the bitmap is made or widened to hold them, and
 * the caller sets their bits; if not, a bitmap is turned back into a run,
 * and the caller pushes them as a run.  Only for a state that holds keys.
 */
static bool
use_bitmap(DSAggState *s, uint64 first, uint64 last, uint64 n, int width)
{
	uint64		lo = first;
	uint64		hi = last;
	uint64		held = n;
	int			r;

	if (s->bm.bits != NULL)
	{
		lo = Min(lo, s->bm.lo);
		hi = Max(hi, s->bm.lo + (uint64) s->bm.nwords * 64 - 1);
		held += s->held;
	}
	for (r = 0; r < s->nruns; r++)
	{
		if (s->runs[r].n == 0)
			continue;
		lo = Min(lo, dsk_get(&s->runs[r], 0));
		hi = Max(hi, dsk_get(&s->runs[r], s->runs[r].n - 1));
		held += s->runs[r].n;
	}
	if (dense_enough(lo, hi, held, width))
	{
		if (s->bm.bits == NULL)
			runs_to_bitmap(s, lo, hi);
		else
			bitmap_widen(s, lo, hi);
		return true;
	}
	if (s->bm.bits != NULL)
		bitmap_to_run(s);
	return false;
}

static void
push_run(DSAggState *s, const DSKeys *run)
{
	if (run->n == 0 && (s->nruns > 0 || s->bm.bits != NULL))
		return;					/* nothing to add */
	if (run->n > 0 && run->width > 0 && (s->bm.bits != NULL || s->nruns > 0) &&
		use_bitmap(s, dsk_get(run, 0), dsk_get(run, run->n - 1), run->n,
				   run->width))
	{
		bitmap_add(s, run);
		dsk_free((DSKeys *) run);
		return;
	}

	if (s->nruns == s->maxruns)
	{
		s->maxruns *= 2;
		s->runs = repalloc(s->runs, s->maxruns * sizeof(DSKeys));
	}
	s->runs[s->nruns++] = *run;
	while (s->nruns >= 2 &&
		   s->runs[s->nruns - 1].n >= s->runs[s->nruns - 2].n)
		merge_top(s);
}

/*
 * Add a stored set of fixed-width keys to a state with a bitmap (or one
 * that gets one now) straight from its bytes, without decoding it into a
 * run; false if it does not go into a bitmap.
 */
static bool
add_in_place(DSAggState *s, const bytea *ds, const DSHeader *h)
{
	uint64		first;
	uint64		last;

	if (h->kt->width == 0 || h->n == 0)
		return false;
	dset_key_range(ds, h, &first, &last);
	if (first > last || !use_bitmap(s, first, last, h->n, h->kt->width))
		return false;
	dset_or_bits(ds, h, s->bm.bits, s->bm.lo, (uint64) s->bm.nwords * 64);
	s->held += h->n;
	return true;
}

/* Merge the whole stack (or read the bitmap) into one run. */
static void
collapse(DSAggState *s)
{
	if (s->bm.bits != NULL)
		bitmap_to_run(s);
	while (s->nruns >= 2)
		merge_top(s);
}

/* Add the stored set ds to the union state s (NULL: a new state). */
static DSAggState *
union_add(FunctionCallInfo fcinfo, MemoryContext aggcontext, DSAggState *s,
		  bytea *ds)
{
	DSKeys		run;
	const CDKeyType *kt;
	DSHeader	h;
	MemoryContext old;

	kt = dset_header(fcinfo, ds, &h);
	if (s == NULL)
		s = new_state(aggcontext, kt);
	else
		dset_check_same_type(s->kt, kt);
	/* fixed-width keys of a dense range: into the bitmap in place */
	if (add_in_place(s, ds, &h))
		return s;
	old = MemoryContextSwitchTo(aggcontext);
	(void) dset_decode(fcinfo, ds, &run);
	MemoryContextSwitchTo(old);
	push_run(s, &run);
	return s;
}

/*
 * distinct_set_union_append(internal, distinct_set) -> internal
 */
Datum
distinct_set_union_append(PG_FUNCTION_ARGS)
{
	MemoryContext aggcontext = aggregate_context(fcinfo);
	DSAggState *s = PG_ARGISNULL(0) ? NULL : (DSAggState *) PG_GETARG_POINTER(0);

	if (PG_ARGISNULL(1))
	{
		if (s == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(s);
	}
	PG_RETURN_POINTER(union_add(fcinfo, aggcontext, s, PG_GETARG_DSET_P(1)));
}

/*
 * distinct_set_union_combine(internal, internal) -> internal
 */
Datum
distinct_set_union_combine(PG_FUNCTION_ARGS)
{
	MemoryContext aggcontext = aggregate_context(fcinfo);
	DSAggState *s1 = PG_ARGISNULL(0) ? NULL : (DSAggState *) PG_GETARG_POINTER(0);
	DSAggState *s2 = PG_ARGISNULL(1) ? NULL : (DSAggState *) PG_GETARG_POINTER(1);
	int			i;

	if (s2 == NULL)
	{
		if (s1 == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(s1);
	}
	if (s1 == NULL)
		s1 = new_state(aggcontext, s2->kt);
	else
		dset_check_same_type(s1->kt, s2->kt);
	/* s2's runs live in aggcontext too (its deserial puts them there) */
	collapse(s2);
	for (i = 0; i < s2->nruns; i++)
		push_run(s1, &s2->runs[i]);
	s2->nruns = 0;
	PG_RETURN_POINTER(s1);
}

/*
 * The union as a stored set.  A bitmap is read, not changed; a stack is
 * merged into one run, which leaves the state equivalent, and later rows
 * may still be added (running window frames): READ_ONLY as far as the
 * result goes.
 */
static bytea *
union_result(DSAggState *s)
{
	/* a bitmap is read, not changed: running frames keep adding to it */
	if (s->bm.bits != NULL)
		return bitmap_encode(s->kt, &s->bm);
	collapse(s);
	return dset_encode(s->kt, &s->runs[0]);
}

/* The number of values of the union (the state as union_result leaves it). */
static uint64
union_count(DSAggState *s)
{
	if (s->bm.bits != NULL)
		return bitmap_count(&s->bm);
	collapse(s);
	return s->nruns > 0 ? s->runs[0].n : 0;
}

/*
 * distinct_set_union_final(internal) -> distinct_set
 */
Datum
distinct_set_union_final(PG_FUNCTION_ARGS)
{
	(void) aggregate_context(fcinfo);
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	PG_RETURN_BYTEA_P(union_result((DSAggState *) PG_GETARG_POINTER(0)));
}

/*
 * distinct_set_union_count_final(internal) -> bigint
 *
 * The number of values of the union (distinct_set_union_cardinality_agg,
 * which cardinality(distinct_set_union_agg(s)) is planned as: dset_plan.c):
 * a bitmap's bits, or the keys of the stack merged in place as by
 * distinct_set_union_final.
 */
Datum
distinct_set_union_count_final(PG_FUNCTION_ARGS)
{
	(void) aggregate_context(fcinfo);
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	PG_RETURN_INT64((int64) union_count((DSAggState *) PG_GETARG_POINTER(0)));
}

/*
 * distinct_set_agg_serial(internal) -> bytea: the state as a stored set
 */
Datum
distinct_set_agg_serial(PG_FUNCTION_ARGS)
{
	DSAggState *s;

	(void) aggregate_context(fcinfo);
	s = (DSAggState *) PG_GETARG_POINTER(0);
	/* types by name: the state may be read on another node (dset.h) */
	PG_RETURN_BYTEA_P(dset_portable(fcinfo, union_result(s), NULL));
}

static Datum
deserial(FunctionCallInfo fcinfo)
{
	MemoryContext aggcontext = aggregate_context(fcinfo);
	DSKeys		run;
	const CDKeyType *kt;
	DSAggState *s;

	kt = decode_into(fcinfo, aggcontext, PG_GETARG_DATUM(0), &run);
	s = new_state(aggcontext, kt);
	s->runs[s->nruns++] = run;
	PG_RETURN_POINTER(s);
}

/*
 * distinct_set_union_deserial(bytea, internal) -> internal
 * distinct_set_intersect_deserial(bytea, internal) -> internal
 */
Datum
distinct_set_union_deserial(PG_FUNCTION_ARGS)
{
	return deserial(fcinfo);
}

Datum
distinct_set_intersect_deserial(PG_FUNCTION_ARGS)
{
	return deserial(fcinfo);
}

/* s's run intersected with run (whose memory the caller frees) */
static void
intersect_into(DSAggState *s, const DSKeys *run)
{
	DSKeys		out;
	MemoryContext old = MemoryContextSwitchTo(s->mcxt);

	/*
	 * out's byte keys point into the state's first set, never into run:
	 * freeing the old run frees its arrays of keys (fixed-width) or of
	 * pointers and lengths (byte keys), not the byte keys themselves
	 */
	dsk_intersect(&out, &s->runs[0], run);
	dsk_free(&s->runs[0]);
	MemoryContextSwitchTo(old);
	s->runs[0] = out;
}

/*
 * distinct_set_intersect_append(internal, distinct_set) -> internal
 */
Datum
distinct_set_intersect_append(PG_FUNCTION_ARGS)
{
	MemoryContext aggcontext = aggregate_context(fcinfo);
	DSAggState *s = PG_ARGISNULL(0) ? NULL : (DSAggState *) PG_GETARG_POINTER(0);
	DSKeys		run;
	const CDKeyType *kt;
	MemoryContext tmp;

	if (PG_ARGISNULL(1))
	{
		if (s == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(s);
	}
	if (s == NULL)
	{
		kt = decode_into(fcinfo, aggcontext, PG_GETARG_DATUM(1), &run);
		s = new_state(aggcontext, kt);
		s->runs[s->nruns++] = run;
		PG_RETURN_POINTER(s);
	}
	tmp = AllocSetContextCreate(CurrentMemoryContext, "distinct_set intersection",
								ALLOCSET_DEFAULT_SIZES);
	kt = decode_into(fcinfo, tmp, PG_GETARG_DATUM(1), &run);
	dset_check_same_type(s->kt, kt);
	intersect_into(s, &run);
	MemoryContextDelete(tmp);
	PG_RETURN_POINTER(s);
}

/*
 * distinct_set_intersect_combine(internal, internal) -> internal
 */
Datum
distinct_set_intersect_combine(PG_FUNCTION_ARGS)
{
	DSAggState *s1 = PG_ARGISNULL(0) ? NULL : (DSAggState *) PG_GETARG_POINTER(0);
	DSAggState *s2 = PG_ARGISNULL(1) ? NULL : (DSAggState *) PG_GETARG_POINTER(1);

	(void) aggregate_context(fcinfo);
	if (s2 == NULL)
	{
		if (s1 == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(s1);
	}
	/* s2 lives in the aggregate context (its deserial or transition's) */
	if (s1 == NULL)
		PG_RETURN_POINTER(s2);
	dset_check_same_type(s1->kt, s2->kt);
	intersect_into(s1, &s2->runs[0]);
	PG_RETURN_POINTER(s1);
}

/*
 * distinct_set_intersect_final(internal) -> distinct_set
 */
Datum
distinct_set_intersect_final(PG_FUNCTION_ARGS)
{
	DSAggState *s;

	(void) aggregate_context(fcinfo);
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	s = (DSAggState *) PG_GETARG_POINTER(0);
	PG_RETURN_BYTEA_P(dset_encode(s->kt, &s->runs[0]));
}

/*
 * distinct_set_intersect_count_final(internal) -> bigint
 *
 * The number of values of the intersection
 * (distinct_set_intersect_cardinality_agg: dset_plan.c).
 */
Datum
distinct_set_intersect_count_final(PG_FUNCTION_ARGS)
{
	DSAggState *s;

	(void) aggregate_context(fcinfo);
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	s = (DSAggState *) PG_GETARG_POINTER(0);
	PG_RETURN_INT64((int64) s->runs[0].n);
}

/* ------------------------------------------------------------------------
 * the union over sliding window frames (moving-aggregate mode)
 *
 * A frame that both gains and loses sets keeps, for fixed-width keys of a
 * dense range, a count per key of the range: how many of the frame's sets
 * hold it (one byte each), and a bitmap of the keys whose count is above
 * zero, which gives the frame's result.  A
 * set entering the frame adds one to its keys' counts, a set leaving takes
 * one away, so each row costs the keys of the sets that enter and leave,
 * never the whole frame; the frame's number of values is kept as it
 * changes.  "Dense": as for the union's bitmap, the range's bits take no
 * more bytes than the keys of the frame's sets, so the counts take at most
 * 8 times as many (for daily sets of 1M users out of 20M: 20 MB of counts
 * and 2.5 MB of bits, against 4 MB of keys a set).
 *
 * Anything else (byte keys, a sparse range, more than 255 sets in a frame,
 * which a byte cannot count) turns the state into a plain union state, which
 * cannot remove a set: the inverse transition then returns NULL, and
 * PostgreSQL computes that frame again from its rows.
 * ------------------------------------------------------------------------
 */
typedef struct DSMovingState
{
	const CDKeyType *kt;		/* NULL until the first set */
	MemoryContext mcxt;
	DSAggState *plain;			/* not NULL: a plain union, no counts */
	uint8	   *counts;			/* keys bm.lo .. bm.lo + 64 * bm.nwords - 1 */
	DSBitmap	bm;				/* the keys whose count is above zero */
	uint64		live;			/* how many */
	uint64		held;			/* the sum of the counts */
	uint32		nsets;			/* the frame's (non-NULL) sets */
} DSMovingState;

PG_FUNCTION_INFO_V1(distinct_set_union_moving_append);
PG_FUNCTION_INFO_V1(distinct_set_union_moving_remove);
PG_FUNCTION_INFO_V1(distinct_set_union_moving_final);
PG_FUNCTION_INFO_V1(distinct_set_union_moving_count_final);

#define DSET_MOVING_MAX_SETS	255 /* what a count of one byte holds */

/* Turn the counts into a plain union state of their keys. */
static void
counts_to_plain(DSMovingState *m)
{
	MemoryContext old = MemoryContextSwitchTo(m->mcxt);
	DSKeys		run;

	m->plain = new_state(m->mcxt, m->kt);
	if (m->counts != NULL)
	{
		bitmap_read(m->kt, &m->bm, &run);
		push_run(m->plain, &run);
		pfree(m->counts);
		pfree(m->bm.bits);
		m->counts = NULL;
		m->bm.bits = NULL;
	}
	MemoryContextSwitchTo(old);
}

/*
 * Make the counts cover lo .. hi if that is dense enough for the keys held
 * (plus n to come, of width bytes); false if not.
 */
static bool
counts_cover(DSMovingState *m, uint64 lo, uint64 hi, uint64 n, int width)
{
	uint64		newlo = lo & ~UINT64CONST(63);
	uint64		newhi = hi;
	uint64		nwords;
	uint8	   *counts;
	uint64	   *bits;

	if (m->counts != NULL)
	{
		newlo = Min(newlo, m->bm.lo);
		newhi = Max(hi, m->bm.lo + 64 * m->bm.nwords - 1);
	}
	/* (newhi - newlo) / 64 < 2^58: no overflow */
	nwords = (newhi - newlo) / 64 + 1;
	if (nwords * 64 >= (uint64) MaxAllocHugeSize / 2 ||
		nwords * 8 > (m->held + n) * width)
		return false;
	if (m->counts != NULL && newlo == m->bm.lo && nwords == m->bm.nwords)
		return true;
	counts = MemoryContextAllocExtended(m->mcxt, (Size) nwords * 64,
										MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	bits = MemoryContextAllocExtended(m->mcxt, (Size) nwords * 8,
									  MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	if (m->counts != NULL)
	{
		Size		shift = (Size) (m->bm.lo - newlo) / 64;

		memcpy(counts + shift * 64, m->counts, m->bm.nwords * 64);
		memcpy(bits + shift, m->bm.bits, m->bm.nwords * 8);
		pfree(m->counts);
		pfree(m->bm.bits);
	}
	m->counts = counts;
	m->bm.bits = bits;
	m->bm.lo = newlo;
	m->bm.nwords = (Size) nwords;
	return true;
}

typedef struct CountArg
{
	DSMovingState *m;
	int			delta;			/* +1: a set enters; -1: a set leaves */
} CountArg;

static void
count_keys(const uint64 *keys, uint32 n, void *arg)
{
	DSMovingState *m = ((CountArg *) arg)->m;
	uint8	   *counts = m->counts;
	uint64	   *bits = m->bm.bits;
	uint64		lo = m->bm.lo;
	uint64		nslots = (uint64) m->bm.nwords * 64;
	uint64		live = m->live;
	uint32		i;

	if (((CountArg *) arg)->delta > 0)
	{
		for (i = 0; i < n; i++)
		{
			uint64		off = keys[i] - lo;

			/* keys read in place are not checked: stay inside the counts */
			if (unlikely(off >= nslots))
				dset_invalid("A key is out of the set's range.");
			if (counts[off]++ == 0)
			{
				bits[off >> 6] |= UINT64CONST(1) << (off & 63);
				live++;
			}
		}
	}
	else
	{
		for (i = 0; i < n; i++)
		{
			uint64		off = keys[i] - lo;

			if (unlikely(off >= nslots || counts[off] == 0))
				elog(ERROR, "distinct_set: a set leaving the window frame was not in it");
			if (--counts[off] == 0)
			{
				bits[off >> 6] &= ~(UINT64CONST(1) << (off & 63));
				live--;
			}
		}
	}
	m->live = live;
}

/*
 * distinct_set_union_moving_append(internal, distinct_set) -> internal
 */
Datum
distinct_set_union_moving_append(PG_FUNCTION_ARGS)
{
	MemoryContext aggcontext = aggregate_context(fcinfo);
	DSMovingState *m = PG_ARGISNULL(0) ? NULL : (DSMovingState *) PG_GETARG_POINTER(0);
	bytea	   *ds;
	DSHeader	h;
	const CDKeyType *kt;
	uint64		first;
	uint64		last;
	CountArg	arg;

	/* never NULL (a moving state may not be): a state of no sets yet */
	if (m == NULL)
	{
		m = MemoryContextAllocZero(aggcontext, sizeof(DSMovingState));
		m->mcxt = aggcontext;
	}
	if (PG_ARGISNULL(1))
		PG_RETURN_POINTER(m);
	ds = PG_GETARG_DSET_P(1);
	kt = dset_header(fcinfo, ds, &h);
	if (m->kt == NULL)
		m->kt = kt;
	else
		dset_check_same_type(m->kt, kt);

	if (m->plain == NULL && h.n > 0 &&
		(kt->width == 0 || m->nsets >= DSET_MOVING_MAX_SETS))
		counts_to_plain(m);
	if (m->plain == NULL && h.n > 0)
	{
		dset_key_range(ds, &h, &first, &last);
		if (first > last || !counts_cover(m, first, last, h.n, kt->width))
			counts_to_plain(m);
	}
	if (m->plain != NULL)
		m->plain = union_add(fcinfo, aggcontext, m->plain, ds);
	else if (h.n > 0)
	{
		arg.m = m;
		arg.delta = 1;
		dset_foreach_key(ds, &h, count_keys, &arg);
		m->held += h.n;
	}
	m->nsets++;
	PG_RETURN_POINTER(m);
}

/*
 * distinct_set_union_moving_remove(internal, distinct_set) -> internal
 *
 * NULL (PostgreSQL then computes the frame again) for a plain state.
 */
Datum
distinct_set_union_moving_remove(PG_FUNCTION_ARGS)
{
	DSMovingState *m;
	bytea	   *ds;
	DSHeader	h;
	CountArg	arg;

	(void) aggregate_context(fcinfo);
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	m = (DSMovingState *) PG_GETARG_POINTER(0);
	if (PG_ARGISNULL(1))
		PG_RETURN_POINTER(m);
	if (m->plain != NULL)
		PG_RETURN_NULL();
	ds = PG_GETARG_DSET_P(1);
	if (m->kt == NULL || m->nsets == 0)
		elog(ERROR, "distinct_set: a set leaving the window frame was not in it");
	dset_check_same_type(m->kt, dset_header(fcinfo, ds, &h));
	if (h.n > 0)
	{
		if (m->counts == NULL || h.n > m->held)
			elog(ERROR, "distinct_set: a set leaving the window frame was not in it");
		arg.m = m;
		arg.delta = -1;
		dset_foreach_key(ds, &h, count_keys, &arg);
		m->held -= h.n;
	}
	m->nsets--;
	PG_RETURN_POINTER(m);
}

/*
 * distinct_set_union_moving_final(internal) -> distinct_set
 *
 * NULL for a frame without sets, as the union of no rows.
 */
Datum
distinct_set_union_moving_final(PG_FUNCTION_ARGS)
{
	DSMovingState *m;
	DSKeys		run;

	(void) aggregate_context(fcinfo);
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	m = (DSMovingState *) PG_GETARG_POINTER(0);
	if (m->nsets == 0)
		PG_RETURN_NULL();
	if (m->plain != NULL)
		PG_RETURN_BYTEA_P(union_result(m->plain));
	if (m->counts == NULL)
	{
		dsk_alloc(&run, m->kt, 0);
		PG_RETURN_BYTEA_P(dset_encode(m->kt, &run));
	}
	PG_RETURN_BYTEA_P(bitmap_encode(m->kt, &m->bm));
}

/*
 * distinct_set_union_moving_count_final(internal) -> bigint
 */
Datum
distinct_set_union_moving_count_final(PG_FUNCTION_ARGS)
{
	DSMovingState *m;

	(void) aggregate_context(fcinfo);
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	m = (DSMovingState *) PG_GETARG_POINTER(0);
	if (m->nsets == 0)
		PG_RETURN_NULL();
	if (m->plain != NULL)
		PG_RETURN_INT64((int64) union_count(m->plain));
	PG_RETURN_INT64((int64) m->live);
}
