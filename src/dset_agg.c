/*-------------------------------------------------------------------------
 *
 * dset_agg.c
 *	  Stored sets: the aggregates.
 *
 * distinct_set_agg(anyelement) runs on count_distinct's own transition,
 * combine, serialize and deserialize functions (its state is a
 * count_distinct set); only its final function is here.
 *
 * distinct_set_union_agg(distinct_set) keeps sorted arrays of keys on a
 * stack whose sizes decrease from the bottom up: each new set is pushed,
 * and the top two are merged while the upper one is at least as large as
 * the one below (as a binary counter carries).  Every key then takes part
 * in O(log k) merges for k sets, never the O(k) of merging each set into
 * one growing array.  Byte keys, and fixed-width keys cheap to decode
 * (dset_decode_cheap), are kept as decoded arrays (each owning its keys, so
 * that merged inputs are freed); other fixed-width keys (runs of
 * consecutive keys above all) as stored sequences (dset.h DSStored, as a
 * stored set holds its keys) on a second stack, merged run by run into a
 * stored sequence again, sized by their bytes: memory of the order of
 * their encoded size, whatever their number of values.  Both merges are
 * the merge engine's (keymerge.h, through dset_ops.c).
 *
 * Fixed-width keys whose range is dense go into a bitmap instead, read
 * straight from the stored bytes: while the bitmap of their range takes no
 * more bytes than the keys it holds nor more than 4 times their sets'
 * encoded bytes (for 30 daily sets of 1M users out of 20M: 2.5 MB against
 * 4 MB of keys a set).  Each key then costs one bit set.  The union is that
 * of the bitmap and the stacks, merged run by run into the encoder, which
 * counts the result before writing it (ERROR 54000 over the limits of a
 * stored set); the counting forms count the same merge, exactly past 2^32.
 *
 * distinct_set_intersect_agg(distinct_set) keeps one set (an array or a
 * stored sequence), which only shrinks: each set costs a merge with it.
 *
 * Both serialize their state as a stored set (dset.h) and run in parallel.
 * Their counting forms (distinct_set_union_cardinality_agg, ...: what
 * cardinality() of them is planned as, dset_plan.c) share the state and
 * count it instead of encoding it.  Over sliding window frames the union
 * keeps a count per key (the last section of this file).
 *
 * The support functions take their states as "internal", which no SQL
 * value is: only an aggregate passes them, and only a superuser may define
 * one, possibly mixing support functions of different state kinds (this
 * file's, count_distinct's or another extension's).  So every function
 * here, on every call, first refuses to run outside an aggregate (0A000),
 * then checks that each state argument is of its kind (42804) before it
 * reads anything else of it: the union's and the intersection's states
 * (which share a struct but not its invariants) and the moving union's
 * start with a magic number of their own (odd, so that no state starting
 * with a pointer matches it), a count_distinct set with a key type the
 * registry gave out for sets only (cd_registry_is_set_keytype), a
 * count_distinct moving state with its own magic number (cdmov_is_state).
 * Each check is one comparison of the state's first word.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "miscadmin.h"
#include "port/pg_bitutils.h"
#include "utils/memutils.h"

#include "dset.h"
#include "errors.h"
#include "moving.h"
#include "registry.h"
#include "set_header.h"

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

/*
 * The first word of each state of this file: odd, so that no state whose
 * first word is a pointer (a count_distinct set: set_header.h) matches,
 * and other than CD_MOVING_MAGIC (moving.h).
 */
#define DSET_UNION_MAGIC		UINT64CONST(0xD15E7A60C0DE5501)
#define DSET_INTERSECT_MAGIC	UINT64CONST(0xD15E7A60C0DE1A03)
#define DSET_MOVING_MAGIC		UINT64CONST(0xD15E7A60C0DE3A05)

/* ERROR: called from SQL or a function, not by an aggregate */
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
	CDSet	   *set;
	DSKeys		keys;

	(void) aggregate_context(fcinfo);
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	set = (CDSet *) PG_GETARG_POINTER(0);
	if (unlikely(!cd_registry_is_set_keytype(set->kt)))
		cd_error_wrong_state(fcinfo, "a count_distinct set");
	dsk_from_state(&keys, set);
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
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	if (unlikely(!cdmov_is_state(PG_GETARG_POINTER(0))))
		cd_error_wrong_state(fcinfo, "a count_distinct moving-aggregate state");
	if (!dsk_from_moving(&keys, PG_GETARG_POINTER(0)))
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

/* stored keys (dset.h) that a state owns: p.data is mem */
typedef struct DSStoredCopy
{
	DSStored	p;
	char	   *mem;
} DSStoredCopy;

typedef struct DSAggState
{
	uint64		magic;			/* DSET_UNION_MAGIC or DSET_INTERSECT_MAGIC */
	const CDKeyType *kt;		/* from the query's registry */
	MemoryContext mcxt;			/* the aggregate context: the keys live here */

	/*
	 * Byte keys, and fixed-width keys cheap to decode: sorted arrays, each
	 * owning its keys (union: a stack; intersection: one array).  Other
	 * fixed-width keys: stored sequences (union: a stack; intersection:
	 * one), and for the union a bitmap of a dense range (lo a multiple of
	 * 64), made from sets of bm_keys keys in all (the sum of their counts:
	 * an upper bound of its distinct keys) and bm_bytes encoded bytes.  The
	 * union is that of the bitmap and the stacks.  An intersection state
	 * holds exactly one array or one stored sequence, and no bitmap.
	 */
	int			narrays;
	int			maxarrays;
	DSKeys	   *arrays;
	int			nseqs;
	int			maxseqs;
	DSStoredCopy *seqs;
	DSBitmap	bm;
	uint64		bm_keys;
	uint64		bm_bytes;
} DSAggState;

static DSAggState *
new_state(MemoryContext aggcontext, uint64 magic, const CDKeyType *kt)
{
	DSAggState *s = MemoryContextAllocZero(aggcontext, sizeof(DSAggState));

	s->magic = magic;
	s->kt = kt;
	s->mcxt = aggcontext;
	s->maxarrays = 8;
	s->arrays = MemoryContextAlloc(aggcontext, s->maxarrays * sizeof(DSKeys));
	s->maxseqs = 8;
	s->seqs = MemoryContextAlloc(aggcontext, s->maxseqs * sizeof(DSStoredCopy));
	return s;
}

/*
 * State argument argno: NULL, or a state whose magic number is magic
 * (ERROR if it is another state, named by kind).
 */
static inline DSAggState *
agg_state_arg(FunctionCallInfo fcinfo, int argno, uint64 magic,
			  const char *kind)
{
	DSAggState *s;

	if (PG_ARGISNULL(argno))
		return NULL;
	s = (DSAggState *) PG_GETARG_POINTER(argno);
	if (unlikely(s->magic != magic))
		cd_error_wrong_state(fcinfo, kind);
	return s;
}

#define union_arg(fcinfo, argno) \
	agg_state_arg(fcinfo, argno, DSET_UNION_MAGIC, "a distinct_set union state")
#define intersect_arg(fcinfo, argno) \
	agg_state_arg(fcinfo, argno, DSET_INTERSECT_MAGIC, \
				  "a distinct_set intersection state")

/*
 * A copy of byte keys k in CurrentMemoryContext, owning its bytes (one
 * array of them: dsk_free frees it), so that the inputs it came from can
 * be freed.
 */
static void
copy_bytes_keys(DSKeys *dst, const DSKeys *k)
{
	Size		total = 0;
	char	   *arena;
	uint32		i;

	Assert(k->width == 0);
	for (i = 0; i < k->n; i++)
		total += k->len[i];
	dsk_alloc(dst, k->kt, k->n);
	arena = MemoryContextAllocHuge(CurrentMemoryContext, Max(total, 1));
	dst->owner = arena;
	for (i = 0; i < k->n; i++)
	{
		memcpy(arena, k->ptr[i], k->len[i]);
		dst->ptr[i] = arena;
		dst->len[i] = k->len[i];
		arena += k->len[i];
		if ((i & 0xFFFF) == 0xFFFF)
			CHECK_FOR_INTERRUPTS();
	}
	dst->n = k->n;
}

/*
 * Decode a stored set into the state's context as an array that owns its keys
 * (byte keys: decoded in a context of their own first, which is freed).
 */
static void
decode_into(FunctionCallInfo fcinfo, MemoryContext mcxt, bytea *ds,
			int keys_width, DSKeys *keys)
{
	MemoryContext tmp;
	MemoryContext old;
	DSKeys		decoded;

	if (keys_width > 0)
	{
		old = MemoryContextSwitchTo(mcxt);
		(void) dset_decode(fcinfo, ds, keys);
		MemoryContextSwitchTo(old);
		return;
	}
	tmp = AllocSetContextCreate(CurrentMemoryContext,
								"distinct_set decoding",
								ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(tmp);
	(void) dset_decode(fcinfo, ds, &decoded);
	MemoryContextSwitchTo(mcxt);
	copy_bytes_keys(keys, &decoded);
	MemoryContextSwitchTo(old);
	MemoryContextDelete(tmp);
}

/* A copy of a stored set's keys (or none: n = 0), owned by the state */
static void
copy_stored(DSAggState *s, const DSStored *p, DSStoredCopy *out)
{
	out->mem = MemoryContextAlloc(s->mcxt, Max(p->len, 1));
	memcpy(out->mem, p->data, p->len);
	out->p = *p;
	out->p.data = out->mem;
}

/* The keys of source src encoded into a new copy in the state's context */
static void
store_source(DSAggState *s, DSRunSource *src, DSStoredCopy *out)
{
	StringInfoData buf;
	MemoryContext old = MemoryContextSwitchTo(s->mcxt);

	initStringInfo(&buf);
	MemoryContextSwitchTo(old);
	dset_store_runs(&buf, s->kt->width, src, &out->p);
	out->mem = buf.data;
}

/* Merge the top two arrays of the stack. */
static void
merge_top_arrays(DSAggState *s)
{
	DSKeys	   *a = &s->arrays[s->narrays - 2];
	DSKeys	   *b = &s->arrays[s->narrays - 1];
	DSKeys		out;
	DSKeys		copy;
	MemoryContext old = MemoryContextSwitchTo(s->mcxt);

	dsk_union(&out, a, b);
	if (out.width == 0)
	{
		/* out points into a's and b's bytes: copied, then all three freed */
		copy_bytes_keys(&copy, &out);
		dsk_free(&out);
		out = copy;
	}
	dsk_free(a);
	dsk_free(b);
	MemoryContextSwitchTo(old);
	*a = out;
	s->narrays--;
}

/* Merge the top two stored sequences of the stack (fixed-width keys). */
static void
merge_top_seqs(DSAggState *s)
{
	DSStoredCopy *a = &s->seqs[s->nseqs - 2];
	DSStoredCopy *b = &s->seqs[s->nseqs - 1];
	DSStoredReader ra;
	DSStoredReader rb;
	DSMerge		m;
	DSStoredCopy out;

	dset_stored_reader(&ra, &a->p);
	dset_stored_reader(&rb, &b->p);
	dset_merge(&m, DSET_OP_UNION, &ra.src, &rb.src);
	store_source(s, &m.src, &out);
	pfree(a->mem);
	pfree(b->mem);
	*a = out;
	s->nseqs--;
}

/* bytes of a bitmap of the keys lo .. hi */
static uint64
bitmap_bytes(uint64 lo, uint64 hi)
{
	return ((hi >> 6) - (lo >> 6) + 1) * 8;
}

/*
 * A bitmap over a range of fixed-width keys takes no more bytes than the
 * keys it holds, nor more than this many times the encoded bytes of the
 * sets they come from: a set whose keys take far more than its bytes (runs
 * of consecutive keys) is merged as runs instead, in memory of the order
 * of its bytes.
 */
#define BITMAP_PER_ENCODED_BYTE	4

/*
 * Is a bitmap of lo .. hi no larger than nkeys keys of width bytes, from
 * sets of bytes encoded bytes?
 */
static bool
dense_enough(uint64 lo, uint64 hi, uint64 nkeys, uint64 bytes, int width)
{
	/* (hi >> 6) - (lo >> 6) < 2^58: no overflow */
	uint64		size = bitmap_bytes(lo, hi);

	return size <= (uint64) MaxAllocHugeSize / 2 &&
		size / width <= nkeys &&
		size / BITMAP_PER_ENCODED_BYTE <= bytes;
}

/* The maximal runs of a bitmap's set bits, as a source (dset.h). */
typedef struct BitmapRuns
{
	DSRunSource src;
	const DSBitmap *bm;
	Size		w;				/* the word being read ... */
	uint64		word;			/* ... and its bits not read yet */
} BitmapRuns;

static void
bitmap_runs_rewind(DSRunSource *s)
{
	BitmapRuns *br = (BitmapRuns *) s;

	br->w = 0;
	br->word = br->bm->nwords > 0 ? br->bm->bits[0] : 0;
}

static bool
bitmap_runs_next(DSRunSource *s, uint64 *first, uint64 *last)
{
	BitmapRuns *br = (BitmapRuns *) s;
	const uint64 *bits = br->bm->bits;
	Size		nwords = br->bm->nwords;
	uint64		lo = br->bm->lo;
	Size		w = br->w;
	uint64		word = br->word;
	uint64		zeros;
	int			b;

	while (word == 0)
	{
		if (++w >= nwords)
		{
			br->w = nwords;
			br->word = 0;
			return false;
		}
		word = bits[w];
		if ((w & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	b = pg_rightmost_one_pos64(word);
	*first = lo + (uint64) w * 64 + b;
	/* the run ends before the first clear bit above b */
	zeros = ~word & (~UINT64CONST(0) << b);
	while (zeros == 0)
	{
		if (++w >= nwords)
		{
			*last = lo + (uint64) nwords * 64 - 1;
			br->w = nwords;
			br->word = 0;
			return true;
		}
		word = bits[w];
		zeros = ~word;
		if ((w & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	b = pg_rightmost_one_pos64(zeros);
	*last = lo + (uint64) w * 64 + b - 1;
	br->w = w;
	br->word = word & (~UINT64CONST(0) << b);
	return true;
}

static void
bitmap_runs(BitmapRuns *br, const DSBitmap *bm)
{
	br->src.next = bitmap_runs_next;
	br->src.rewind = bitmap_runs_rewind;
	br->bm = bm;
	bitmap_runs_rewind(&br->src);
}

/* the number of keys in a bitmap */
static uint64
bitmap_count(const DSBitmap *bm)
{
	return pg_popcount((const char *) bm->bits, bm->nwords * 8);
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

/* The number of maximal runs of set bits. */
static uint64
bitmap_nruns(const DSBitmap *bm)
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

/*
 * a bitmap's keys (of kt) as a stored set: read key by key when it holds
 * few runs for its keys (the blocks layout is then likely), else as runs
 */
static bytea *
bitmap_encode(const CDKeyType *kt, const DSBitmap *bm)
{
	uint64		n = bitmap_count(bm);
	uint64		nruns = bitmap_nruns(bm);

	if (n > PG_UINT32_MAX || n * kt->width > DSET_MAX_DECODED)
		dset_too_large(n, kt->width);
	if (nruns * 4 >= n)
	{
		BitmapReader br;

		br.bits = bm->bits;
		br.nwords = bm->nwords;
		br.lo = bm->lo;
		br.w = 0;
		br.word = 0;
		cd_key_reader_init(&br.r, &br, (uint32) n, bitmap_next, NULL);
		return dset_encode_fixed(kt, &br.r, (int64) nruns);
	}
	else
	{
		BitmapRuns	br;

		bitmap_runs(&br, bm);
		return dset_encode_runs(kt, &br.src);
	}
}

/* widen the bitmap to cover lo .. hi (which covers its range) */
static void
bitmap_widen(DSAggState *s, uint64 lo, uint64 hi)
{
	uint64		newlo = lo & ~UINT64CONST(63);
	Size		nwords = (Size) (bitmap_bytes(lo, hi) / 8);
	uint64	   *bits;

	if (s->bm.bits != NULL && newlo == s->bm.lo && nwords == s->bm.nwords)
		return;
	bits = MemoryContextAllocExtended(s->mcxt, nwords * 8,
									  MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	if (s->bm.bits != NULL)
	{
		Assert(newlo <= s->bm.lo && nwords >= s->bm.nwords);
		memcpy(bits + (s->bm.lo - newlo) / 64, s->bm.bits, s->bm.nwords * 8);
		pfree(s->bm.bits);
	}
	s->bm.bits = bits;
	s->bm.lo = newlo;
	s->bm.nwords = nwords;
}

/*
 * Add a stored set of fixed-width keys in the blocks layout to the state's
 * bitmap (made or widened for it) straight from its bytes, without
 * decoding it; false if the bitmap would not be dense enough.
 */
static bool
add_in_place(DSAggState *s, const bytea *ds, const DSHeader *h,
			 const DSStored *p)
{
	uint64		lo;
	uint64		hi;

	if (p->runs || h->n == 0)
		return false;
	dset_key_range(ds, h, &lo, &hi);
	if (lo > hi)
		return false;
	if (s->bm.bits != NULL)
	{
		lo = Min(lo, s->bm.lo);
		hi = Max(hi, s->bm.lo + (uint64) s->bm.nwords * 64 - 1);
	}
	if (!dense_enough(lo, hi, s->bm_keys + h->n, s->bm_bytes + p->len,
					  p->width))
		return false;
	bitmap_widen(s, lo, hi);
	dset_or_bits(ds, h, s->bm.bits, s->bm.lo, (uint64) s->bm.nwords * 64);
	s->bm_keys += h->n;
	s->bm_bytes += p->len;
	return true;
}

/*
 * Push an array of keys (owning them) or a stored sequence onto the
 * union's stack, merging the top two while the upper one is at least as
 * large: as keys for arrays, as bytes for stored sequences (whose merges
 * cost their bytes, however many keys their runs hold).
 */
static void
push_array(DSAggState *s, const DSKeys *keys)
{
	if (s->narrays == s->maxarrays)
	{
		s->maxarrays *= 2;
		s->arrays = repalloc(s->arrays, s->maxarrays * sizeof(DSKeys));
	}
	s->arrays[s->narrays++] = *keys;
	while (s->narrays >= 2 &&
		   s->arrays[s->narrays - 1].n >= s->arrays[s->narrays - 2].n)
		merge_top_arrays(s);
}

static void
push_seq(DSAggState *s, const DSStoredCopy *seq)
{
	if (s->nseqs == s->maxseqs)
	{
		s->maxseqs *= 2;
		s->seqs = repalloc(s->seqs, s->maxseqs * sizeof(DSStoredCopy));
	}
	s->seqs[s->nseqs++] = *seq;
	while (s->nseqs >= 2 &&
		   s->seqs[s->nseqs - 1].p.len >= s->seqs[s->nseqs - 2].p.len)
		merge_top_seqs(s);
}

/* Merge the whole stacks into one array or stored sequence (or none). */
static void
collapse(DSAggState *s)
{
	while (s->narrays >= 2)
		merge_top_arrays(s);
	while (s->nseqs >= 2)
		merge_top_seqs(s);
}

/*
 * The union of fixed-width keys as a source: the bitmap and the collapsed
 * stack, merged (the storage is the caller's).
 */
typedef struct UnionSource
{
	BitmapRuns	br;
	DSStoredReader pr;
	DSKeysRuns	kr;
	DSMerge		m1;
	DSMerge		m2;
	DSStored	empty;
	DSRunSource *src;
	int			nsources;
} UnionSource;

static void
add_source(UnionSource *u, DSRunSource *src)
{
	if (u->nsources == 0)
		u->src = src;
	else
	{
		DSMerge    *m = u->nsources == 1 ? &u->m1 : &u->m2;

		dset_merge(m, DSET_OP_UNION, u->src, src);
		u->src = &m->src;
	}
	u->nsources++;
}

static void
union_source(DSAggState *s, UnionSource *u)
{
	collapse(s);
	u->nsources = 0;
	if (s->bm.bits != NULL)
	{
		bitmap_runs(&u->br, &s->bm);
		add_source(u, &u->br.src);
	}
	if (s->nseqs > 0)
	{
		dset_stored_reader(&u->pr, &s->seqs[0].p);
		add_source(u, &u->pr.src);
	}
	if (s->narrays > 0)
	{
		dsk_runs(&u->kr, &s->arrays[0]);
		add_source(u, &u->kr.src);
	}
	if (u->nsources == 0)
	{
		/* no keys */
		memset(&u->empty, 0, sizeof(u->empty));
		u->empty.width = s->kt->width;
		dset_stored_reader(&u->pr, &u->empty);
		add_source(u, &u->pr.src);
	}
}

/* Add the stored set ds to the union state s (NULL: a new state). */
static DSAggState *
union_add(FunctionCallInfo fcinfo, MemoryContext aggcontext, DSAggState *s,
		  bytea *ds)
{
	const CDKeyType *kt;
	DSHeader	h;

	kt = dset_header(fcinfo, ds, &h);
	if (s == NULL)
		s = new_state(aggcontext, DSET_UNION_MAGIC, kt);
	else
		dset_check_same_type(s->kt, kt);
	if (kt->width > 0)
	{
		DSStored	p;
		DSStoredCopy seq;

		dset_stored_keys(ds, &h, &p);
		/* fixed-width keys of a dense range: into the bitmap in place */
		if (add_in_place(s, ds, &h, &p))
			return s;
		if (!dset_decode_cheap(&p))
		{
			copy_stored(s, &p, &seq);
			push_seq(s, &seq);
			return s;
		}
	}
	{
		DSKeys		keys;

		decode_into(fcinfo, aggcontext, ds, kt->width, &keys);
		push_array(s, &keys);
	}
	return s;
}

/*
 * distinct_set_union_append(internal, distinct_set) -> internal
 */
Datum
distinct_set_union_append(PG_FUNCTION_ARGS)
{
	MemoryContext aggcontext = aggregate_context(fcinfo);
	DSAggState *s = union_arg(fcinfo, 0);
	bytea	   *ds;

	if (PG_ARGISNULL(1))
	{
		if (s == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(s);
	}
	ds = PG_GETARG_DSET_P(1);
	s = union_add(fcinfo, aggcontext, s, ds);
	/* a detoasted copy: freed per row */
	if ((Pointer) ds != PG_GETARG_POINTER(1))
		pfree(ds);
	PG_RETURN_POINTER(s);
}

/*
 * distinct_set_union_combine(internal, internal) -> internal
 */
Datum
distinct_set_union_combine(PG_FUNCTION_ARGS)
{
	MemoryContext aggcontext = aggregate_context(fcinfo);
	DSAggState *s1 = union_arg(fcinfo, 0);
	DSAggState *s2 = union_arg(fcinfo, 1);
	int			i;

	if (s2 == NULL)
	{
		if (s1 == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(s1);
	}
	if (s1 == NULL)
		s1 = new_state(aggcontext, DSET_UNION_MAGIC, s2->kt);
	else
		dset_check_same_type(s1->kt, s2->kt);
	/* s2 lives in aggcontext too (its deserial puts it there) */
	for (i = 0; i < s2->narrays; i++)
		push_array(s1, &s2->arrays[i]);
	s2->narrays = 0;
	for (i = 0; i < s2->nseqs; i++)
		push_seq(s1, &s2->seqs[i]);
	s2->nseqs = 0;
	if (s2->bm.bits != NULL)
	{
		if (s1->bm.bits == NULL)
		{
			s1->bm = s2->bm;
			s1->bm_keys = s2->bm_keys;
			s1->bm_bytes = s2->bm_bytes;
		}
		else
		{
			BitmapRuns	br;
			DSStoredCopy seq;

			bitmap_runs(&br, &s2->bm);
			store_source(s1, &br.src, &seq);
			pfree(s2->bm.bits);
			push_seq(s1, &seq);
		}
		s2->bm.bits = NULL;
	}
	PG_RETURN_POINTER(s1);
}

/*
 * The union as a stored set (ERROR 54000 if over the limits, before it is
 * allocated).  A bitmap is read, not changed; a stack is merged into one
 * array, which leaves the state equivalent, and later rows may still be
 * added (running window frames): READ_ONLY as far as the result goes.
 */
static bytea *
union_result(DSAggState *s)
{
	if (s->kt->width > 0)
	{
		UnionSource u;

		union_source(s, &u);
		/* one stored sequence is already in the stored layout */
		if (u.nsources == 1 && s->nseqs == 1)
			return dset_from_stored(s->kt, &s->seqs[0].p);
		if (u.nsources == 1 && s->bm.bits != NULL)
			return bitmap_encode(s->kt, &s->bm);
		if (u.nsources > 1 || s->narrays == 0)
			return dset_encode_runs(s->kt, u.src);
	}
	collapse(s);
	if (s->narrays == 0)
	{
		DSKeys		none;

		dsk_alloc(&none, s->kt, 0);
		return dset_encode(s->kt, &none);
	}
	return dset_encode(s->kt, &s->arrays[0]);
}

/*
 * The number of values of the union (the state as union_result leaves it),
 * counted run by run: exact past 2^32 values.
 */
static uint64
union_count(DSAggState *s)
{
	if (s->kt->width > 0)
	{
		UnionSource u;

		union_source(s, &u);
		if (u.nsources == 1 && s->nseqs == 1)
			return s->seqs[0].p.n;
		if (u.nsources == 1 && s->bm.bits != NULL)
			return bitmap_count(&s->bm);
		if (u.nsources > 1 || s->narrays == 0)
			return dset_count_runs(u.src);
	}
	collapse(s);
	return s->narrays > 0 ? s->arrays[0].n : 0;
}

/*
 * distinct_set_union_final(internal) -> distinct_set
 */
Datum
distinct_set_union_final(PG_FUNCTION_ARGS)
{
	DSAggState *s;

	(void) aggregate_context(fcinfo);
	s = union_arg(fcinfo, 0);
	if (s == NULL)
		PG_RETURN_NULL();
	PG_RETURN_BYTEA_P(union_result(s));
}

/* a count as bigint */
static Datum
count_datum(uint64 n)
{
	if (n > (uint64) PG_INT64_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("bigint out of range")));
	return Int64GetDatum((int64) n);
}

/*
 * distinct_set_union_count_final(internal) -> bigint
 *
 * The number of values of the union (distinct_set_union_cardinality_agg,
 * which cardinality(distinct_set_union_agg(s)) is planned as: dset_plan.c):
 * the bitmap's and the stacks' runs merged and counted, never built.
 */
Datum
distinct_set_union_count_final(PG_FUNCTION_ARGS)
{
	DSAggState *s;

	(void) aggregate_context(fcinfo);
	s = union_arg(fcinfo, 0);
	if (s == NULL)
		PG_RETURN_NULL();
	return count_datum(union_count(s));
}

/*
 * distinct_set_agg_serial(internal) -> bytea: the state, a union's or an
 * intersection's, as a stored set (so a partial union over the limits of a
 * stored set fails with 54000).  An intersection state's one sequence is
 * the union of its stack.
 */
Datum
distinct_set_agg_serial(PG_FUNCTION_ARGS)
{
	DSAggState *s;

	(void) aggregate_context(fcinfo);
	/* STRICT, but callers through fmgr (Citus) may not look */
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	s = (DSAggState *) PG_GETARG_POINTER(0);
	if (unlikely(s->magic != DSET_UNION_MAGIC &&
				 s->magic != DSET_INTERSECT_MAGIC))
		cd_error_wrong_state(fcinfo, "a distinct_set union or intersection state");
	/* types by name: the state may be read on another node (dset.h) */
	PG_RETURN_BYTEA_P(dset_portable(fcinfo, union_result(s), NULL));
}

/*
 * A state (magic: a union's or an intersection's) of the one stored set
 * ds, in the aggregate context.  partial: ds is a partial state's bytes,
 * whose stored keys are checked to be what encoding writes before they are
 * kept (a stored value's were, by its input).
 */
static DSAggState *
state_of(FunctionCallInfo fcinfo, MemoryContext aggcontext, uint64 magic,
		 bytea *ds, bool partial)
{
	DSHeader	h;
	const CDKeyType *kt = dset_header(fcinfo, ds, &h);
	DSAggState *s = new_state(aggcontext, magic, kt);

	if (kt->width > 0)
	{
		DSStored	p;

		dset_stored_keys(ds, &h, &p);
		if (!dset_decode_cheap(&p))
		{
			/*
			 * a stored sequence may be copied into a result as it is
			 * (dset_from_stored): a partial state's must be exactly what
			 * encoding writes (a stored value's is, by its input)
			 */
			if (partial)
				dset_check_stored(kt, &p);
			copy_stored(s, &p, &s->seqs[0]);
			s->nseqs = 1;
			return s;
		}
	}
	decode_into(fcinfo, aggcontext, ds, kt->width, &s->arrays[0]);
	s->narrays = 1;
	return s;
}

/*
 * The state of bytes a serial function wrote (the second argument, a dummy
 * of PostgreSQL's, is not read); NULL for NULL (STRICT, but callers
 * through fmgr may not look).
 */
static Datum
deserial(FunctionCallInfo fcinfo, uint64 magic)
{
	MemoryContext aggcontext = aggregate_context(fcinfo);

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	PG_RETURN_POINTER(state_of(fcinfo, aggcontext, magic,
							   PG_GETARG_DSET_P(0), true));
}

/*
 * distinct_set_union_deserial(bytea, internal) -> internal
 * distinct_set_intersect_deserial(bytea, internal) -> internal
 */
Datum
distinct_set_union_deserial(PG_FUNCTION_ARGS)
{
	return deserial(fcinfo, DSET_UNION_MAGIC);
}

Datum
distinct_set_intersect_deserial(PG_FUNCTION_ARGS)
{
	return deserial(fcinfo, DSET_INTERSECT_MAGIC);
}

/* The one sequence of an intersection state, as a source of runs */
typedef struct OneSource
{
	DSStoredReader pr;
	DSKeysRuns	kr;
} OneSource;

static DSRunSource *
one_source(DSAggState *s, OneSource *o)
{
	if (s->nseqs > 0)
	{
		dset_stored_reader(&o->pr, &s->seqs[0].p);
		return &o->pr.src;
	}
	dsk_runs(&o->kr, &s->arrays[0]);
	return &o->kr.src;
}

/* Free s's one sequence (an intersection state's) */
static void
free_one(DSAggState *s)
{
	if (s->nseqs > 0)
		pfree(s->seqs[0].mem);
	else
		dsk_free(&s->arrays[0]);
	s->nseqs = 0;
	s->narrays = 0;
}

/*
 * s's keys intersected with the stored set ds (t == NULL) or with the
 * state t.  Both kept as arrays (byte keys, or keys cheap to decode:
 * dset_decode_cheap): merged as arrays in a context of their own, the
 * result copied; otherwise (fixed-width keys) merged run by run into a new
 * stored sequence.
 */
static void
intersect_into(FunctionCallInfo fcinfo, DSAggState *s, bytea *ds,
			   DSAggState *t)
{
	DSHeader	h;
	DSStored	p;
	bool		arrays;

	/* an intersection state's one sequence (state_of, and below) */
	if (unlikely(s->narrays + s->nseqs != 1 ||
				 (t != NULL && t->narrays + t->nseqs != 1)))
		elog(ERROR, "distinct_set: an intersection state holds no single sequence");
	if (t == NULL)
		(void) dset_header(fcinfo, ds, &h);
	if (s->kt->width == 0)
		arrays = true;
	else if (t == NULL)
	{
		dset_stored_keys(ds, &h, &p);
		arrays = s->narrays > 0 && dset_decode_cheap(&p);
	}
	else
		arrays = s->narrays > 0 && t->narrays > 0;

	if (arrays)
	{
		MemoryContext tmp = AllocSetContextCreate(CurrentMemoryContext,
												  "distinct_set intersection",
												  ALLOCSET_DEFAULT_SIZES);
		MemoryContext old = MemoryContextSwitchTo(tmp);
		DSKeys		keys;
		DSKeys		out;

		if (t == NULL)
			(void) dset_decode(fcinfo, ds, &keys);
		dsk_intersect(&out, &s->arrays[0], t == NULL ? &keys : &t->arrays[0]);
		MemoryContextSwitchTo(s->mcxt);
		dsk_free(&s->arrays[0]);
		if (out.width == 0)
			copy_bytes_keys(&s->arrays[0], &out);
		else
		{
			dsk_alloc(&s->arrays[0], s->kt, out.n);
			memcpy(s->arrays[0].fixed, out.fixed, (Size) out.n * out.width);
			s->arrays[0].n = out.n;
		}
		MemoryContextSwitchTo(old);
		MemoryContextDelete(tmp);
	}
	else
	{
		OneSource	os;
		OneSource	ot;
		DSStoredReader rb;
		DSRunSource *b;
		DSMerge		m;
		DSStoredCopy out;

		if (t == NULL)
		{
			dset_stored_reader(&rb, &p);
			b = &rb.src;
		}
		else
			b = one_source(t, &ot);
		dset_merge(&m, DSET_OP_INTERSECT, one_source(s, &os), b);
		store_source(s, &m.src, &out);
		free_one(s);
		s->seqs[0] = out;
		s->nseqs = 1;
	}
}

/*
 * distinct_set_intersect_append(internal, distinct_set) -> internal
 */
Datum
distinct_set_intersect_append(PG_FUNCTION_ARGS)
{
	MemoryContext aggcontext = aggregate_context(fcinfo);
	DSAggState *s = intersect_arg(fcinfo, 0);
	bytea	   *ds;
	DSHeader	h;

	if (PG_ARGISNULL(1))
	{
		if (s == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(s);
	}
	ds = PG_GETARG_DSET_P(1);
	if (s == NULL)
		s = state_of(fcinfo, aggcontext, DSET_INTERSECT_MAGIC, ds, false);
	else
	{
		dset_check_same_type(s->kt, dset_header(fcinfo, ds, &h));
		intersect_into(fcinfo, s, ds, NULL);
	}
	if ((Pointer) ds != PG_GETARG_POINTER(1))
		pfree(ds);
	PG_RETURN_POINTER(s);
}

/*
 * distinct_set_intersect_combine(internal, internal) -> internal
 */
Datum
distinct_set_intersect_combine(PG_FUNCTION_ARGS)
{
	DSAggState *s1;
	DSAggState *s2;

	(void) aggregate_context(fcinfo);
	s1 = intersect_arg(fcinfo, 0);
	s2 = intersect_arg(fcinfo, 1);
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
	intersect_into(fcinfo, s1, NULL, s2);
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
	s = intersect_arg(fcinfo, 0);
	if (s == NULL)
		PG_RETURN_NULL();
	/* its one sequence: union_result reads it as it is */
	PG_RETURN_BYTEA_P(union_result(s));
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
	s = intersect_arg(fcinfo, 0);
	if (s == NULL)
		PG_RETURN_NULL();
	/* its one sequence, a stored one or an array (or none: no keys) */
	if (s->nseqs > 0)
		return count_datum(s->seqs[0].p.n);
	return count_datum(s->narrays > 0 ? s->arrays[0].n : 0);
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
	uint64		magic;			/* DSET_MOVING_MAGIC */
	const CDKeyType *kt;		/* NULL until the first set */
	MemoryContext mcxt;
	DSAggState *plain;			/* not NULL: a plain union, no counts */
	uint8	   *counts;			/* keys bm.lo .. bm.lo + 64 * bm.nwords - 1 */
	DSBitmap	bm;				/* the keys whose count is above zero */
	uint64		live;			/* how many */
	uint64		frame_keys;		/* the sum of the counts */
	uint64		frame_bytes;	/* the encoded bytes of the frame's sets */
	uint32		nsets;			/* the frame's (non-NULL) sets */
} DSMovingState;

PG_FUNCTION_INFO_V1(distinct_set_union_moving_append);
PG_FUNCTION_INFO_V1(distinct_set_union_moving_remove);
PG_FUNCTION_INFO_V1(distinct_set_union_moving_final);
PG_FUNCTION_INFO_V1(distinct_set_union_moving_count_final);

#define DSET_MOVING_MAX_SETS	255 /* what a count of one byte holds */

/* State argument 0: NULL, or a moving union's state (ERROR if another) */
static inline DSMovingState *
moving_arg(FunctionCallInfo fcinfo)
{
	DSMovingState *m;

	if (PG_ARGISNULL(0))
		return NULL;
	m = (DSMovingState *) PG_GETARG_POINTER(0);
	if (unlikely(m->magic != DSET_MOVING_MAGIC))
		cd_error_wrong_state(fcinfo, "a distinct_set moving-aggregate state");
	return m;
}

/* Turn the counts into a plain union state: its bitmap is theirs. */
static void
counts_to_plain(DSMovingState *m)
{
	m->plain = new_state(m->mcxt, DSET_UNION_MAGIC, m->kt);
	if (m->counts != NULL)
	{
		m->plain->bm = m->bm;
		m->plain->bm_keys = m->live;
		m->plain->bm_bytes = m->frame_bytes;
		pfree(m->counts);
		m->counts = NULL;
		m->bm.bits = NULL;
	}
}

/*
 * Make the counts cover lo .. hi if that is dense enough for the frame's keys
 * (plus n to come, of width bytes); false if not.
 */
static bool
counts_cover(DSMovingState *m, uint64 lo, uint64 hi, uint64 n, uint64 bytes,
			 int width)
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
		nwords * 8 > (m->frame_keys + n) * width ||
		nwords * 8 / BITMAP_PER_ENCODED_BYTE > m->frame_bytes + bytes)
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
	DSMovingState *m = moving_arg(fcinfo);
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
		m->magic = DSET_MOVING_MAGIC;
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
		if (first > last ||
			!counts_cover(m, first, last, h.n,
						  VARSIZE_ANY_EXHDR(ds) - h.start, kt->width))
			counts_to_plain(m);
	}
	if (m->plain != NULL)
		m->plain = union_add(fcinfo, aggcontext, m->plain, ds);
	else if (h.n > 0)
	{
		arg.m = m;
		arg.delta = 1;
		dset_foreach_key(ds, &h, count_keys, &arg);
		m->frame_keys += h.n;
		m->frame_bytes += VARSIZE_ANY_EXHDR(ds) - h.start;
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
	m = moving_arg(fcinfo);
	if (m == NULL)
		PG_RETURN_NULL();
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
		if (m->counts == NULL || h.n > m->frame_keys)
			elog(ERROR, "distinct_set: a set leaving the window frame was not in it");
		arg.m = m;
		arg.delta = -1;
		dset_foreach_key(ds, &h, count_keys, &arg);
		m->frame_keys -= h.n;
		m->frame_bytes -= Min(m->frame_bytes, VARSIZE_ANY_EXHDR(ds) - h.start);
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
	DSKeys		none;

	(void) aggregate_context(fcinfo);
	m = moving_arg(fcinfo);
	if (m == NULL || m->nsets == 0)
		PG_RETURN_NULL();
	if (m->plain != NULL)
		PG_RETURN_BYTEA_P(union_result(m->plain));
	if (m->counts == NULL)
	{
		dsk_alloc(&none, m->kt, 0);
		PG_RETURN_BYTEA_P(dset_encode(m->kt, &none));
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
	m = moving_arg(fcinfo);
	if (m == NULL || m->nsets == 0)
		PG_RETURN_NULL();
	if (m->plain != NULL)
		PG_RETURN_INT64((int64) union_count(m->plain));
	PG_RETURN_INT64((int64) m->live);
}
