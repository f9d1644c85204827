/*-------------------------------------------------------------------------
 *
 * dset_ops.c
 *	  Stored sets: union, intersection, difference, containment, overlap,
 *	  and the comparison and hash functions of the btree and hash operator
 *	  classes.
 *
 * Two forms of the algebra.  Sets of fixed-width keys are read in place
 * as runs of consecutive keys (dset.h's sources), merged run by run by the
 * merge engine (keymerge.h cd_range_merge_next) and counted or encoded as
 * the merge produces them: a set of runs costs its runs, never its values,
 * and memory is the result's.  Sets cheap to decode (dset_decode_cheap)
 * and byte keys are decoded into sorted arrays (DSKeys), merged in one
 * pass (the engine's keep_upto for fixed-width keys), or, when one is much
 * shorter than the
 * other, by a galloping search of the longer one for each key of the
 * shorter; byte keys of a result point into the inputs' memory.
 *
 * Comparison and hashing are those of the stored bytes, which are
 * canonical (dset.h): equal sets have equal bytes.  The btree order is
 * therefore a total order consistent with "=", not an order of the values.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "common/hashfn.h"
#include "miscadmin.h"
#include "utils/builtins.h"

#include "dset.h"
#include "keymerge.h"

/* one array is "much shorter" when this many times shorter: gallop */
#define GALLOP_RATIO	32

static void
copy_key(DSKeys *out, uint32 o, const DSKeys *in, uint32 i)
{
	if (out->width > 0)
		dsk_put(out, o, dsk_get(in, i));
	else
	{
		out->ptr[o] = in->ptr[i];
		out->len[o] = in->len[i];
	}
}

uint32
dsk_lower_bound(const DSKeys *a, uint32 lo, const DSKeys *b, uint32 j)
{
	uint32		step = 1;
	uint32		hi;

	/* gallop: find hi with a[hi] >= b[j] */
	hi = lo;
	while (hi < a->n && dsk_cmp(a, hi, b, j) < 0)
	{
		lo = hi + 1;
		hi = (a->n - hi > step) ? hi + step : a->n;
		step *= 2;
	}
	/* binary search in [lo, hi) */
	while (lo < hi)
	{
		uint32		mid = lo + (hi - lo) / 2;

		if (dsk_cmp(a, mid, b, j) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The one merge of two sorted arrays of distinct keys (fixed-width or
 * bytes).  Each key of the merge is of one class: in a only, in both, in b
 * only (keymerge.h's CD_MERGE_*); keep says which classes the result holds
 * (union: all three, intersection: both, difference: a only).  out NULL
 * counts them instead, stopping at the first when stop_first (containment,
 * overlap).  When one array is GALLOP_RATIO times longer, the longer one is
 * searched (galloping) for each key of the shorter and what lies between
 * taken as one range, so the cost is the short array's keys times the log of
 * the gaps; otherwise one pass, through the merge engine's branch-free
 * keep_upto for fixed-width keys.  Inlined into each caller, whose
 * constant keep, stop_first and out leave only the work of its own
 * operation in the loop.
 */

/*
 * The branch-free merge of arrays of fixed-width keys of width W
 * (keymerge.h), into out or counted, checking for interrupts every 2^20
 * keys of b.
 */
#define MERGE_FIXED(W) \
	do { \
		Size		xi = i, xj = j, xo = 0; \
		uint##W    *xout = out != NULL ? (uint##W *) out->fixed + o : NULL; \
		\
		while (xi < na && xj < nb && !(stop_first && xo > 0)) \
		{ \
			cd_merge_keep_upto_u##W((const uint##W *) a->fixed, &xi, na, \
									(const uint##W *) b->fixed, &xj, \
									Min(nb, xj + ((Size) 1 << 20)), \
									xout, &xo, keep, stop_first); \
			CHECK_FOR_INTERRUPTS(); \
		} \
		i = (uint32) xi; \
		j = (uint32) xj; \
		if (out != NULL) \
			o += (uint32) xo; \
		count += xo; \
	} while (0)

/* keys [from, to) of in, of class cls: into out if kept, else counted */
static inline uint64
take_range(DSKeys *out, uint32 *o, const DSKeys *in, uint32 from, uint32 to,
		   int keep, int cls)
{
	uint32		i;

	if (!(keep & cls) || from == to)
		return 0;
	if (out == NULL)
		return to - from;
	if (out->width > 0)
	{
		memcpy((char *) out->fixed + (Size) *o * out->width,
			   (const char *) in->fixed + (Size) from * in->width,
			   (Size) (to - from) * in->width);
		*o += to - from;
	}
	else
	{
		for (i = from; i < to; i++, (*o)++)
		{
			out->ptr[*o] = in->ptr[i];
			out->len[*o] = in->len[i];
		}
	}
	return to - from;
}

/* key i of in, of class cls: the same, for one key */
static inline uint64
take_one(DSKeys *out, uint32 *o, const DSKeys *in, uint32 i, int keep,
		 int cls)
{
	if (!(keep & cls))
		return 0;
	if (out != NULL)
		copy_key(out, (*o)++, in, i);
	return 1;
}

static pg_attribute_always_inline uint64
merge_keys(DSKeys *out, const DSKeys *a, const DSKeys *b, int keep,
		   bool stop_first)
{
	uint32		na = a->n,
				nb = b->n;
	uint32		i = 0,
				j = 0,
				o = 0;
	uint64		count = 0;
	bool		gallop_a = (uint64) nb * GALLOP_RATIO < na;
	bool		gallop_b = (uint64) na * GALLOP_RATIO < nb;
	uint64		steps = 0;

	if (!gallop_a && !gallop_b)
	{
		switch (a->width)
		{
			case 1:
				MERGE_FIXED(8);
				break;
			case 2:
				MERGE_FIXED(16);
				break;
			case 4:
				MERGE_FIXED(32);
				break;
			case 8:
				MERGE_FIXED(64);
				break;
			default:
				break;
		}
	}
	while (i < na && j < nb)
	{
		int			c;

		if (stop_first && count > 0)
			return count;
		if (gallop_a)
		{
			uint32		to = dsk_lower_bound(a, i, b, j);

			count += take_range(out, &o, a, i, to, keep, CD_MERGE_A);
			i = to;
			if (i >= na)
				break;
		}
		else if (gallop_b)
		{
			uint32		to = dsk_lower_bound(b, j, a, i);

			count += take_range(out, &o, b, j, to, keep, CD_MERGE_B);
			j = to;
			if (j >= nb)
				break;
		}
		c = dsk_cmp(a, i, b, j);
		if (c == 0)
		{
			count += take_one(out, &o, a, i, keep, CD_MERGE_BOTH);
			i++;
			j++;
		}
		else if (c < 0)
		{
			count += take_one(out, &o, a, i, keep, CD_MERGE_A);
			i++;
		}
		else
		{
			count += take_one(out, &o, b, j, keep, CD_MERGE_B);
			j++;
		}
		if ((++steps & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	count += take_range(out, &o, a, i, na, keep, CD_MERGE_A);
	count += take_range(out, &o, b, j, nb, keep, CD_MERGE_B);
	if (out != NULL)
		out->n = o;
	return count;
}

#undef MERGE_FIXED

void
dsk_union(DSKeys *out, const DSKeys *a, const DSKeys *b)
{
	if ((uint64) a->n + b->n > PG_UINT32_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("distinct_set too large"),
				 errdetail("A distinct_set holds at most %u values.", PG_UINT32_MAX)));
	dsk_alloc(out, a->kt, a->n + b->n);
	(void) merge_keys(out, a, b, CD_MERGE_ALL, false);
}

void
dsk_intersect(DSKeys *out, const DSKeys *a, const DSKeys *b)
{
	dsk_alloc(out, a->kt, Min(a->n, b->n));
	(void) merge_keys(out, a, b, CD_MERGE_BOTH, false);
}

void
dsk_difference(DSKeys *out, const DSKeys *a, const DSKeys *b)
{
	dsk_alloc(out, a->kt, a->n);
	(void) merge_keys(out, a, b, CD_MERGE_A, false);
}

bool
dsk_contains_all(const DSKeys *a, const DSKeys *b)
{
	if (b->n > a->n)
		return false;
	return merge_keys(NULL, a, b, CD_MERGE_B, true) == 0;
}

bool
dsk_overlaps(const DSKeys *a, const DSKeys *b)
{
	if (a->n == 0 || b->n == 0)
		return false;
	/* disjoint ranges */
	if (dsk_cmp(a, a->n - 1, b, 0) < 0 || dsk_cmp(b, b->n - 1, a, 0) < 0)
		return false;
	return merge_keys(NULL, a, b, CD_MERGE_BOTH, true) > 0;
}

/* ------------------------------------------------------------------------
 * Set algebra on runs of fixed-width keys (dset.h): a merge of two sources
 * of runs is itself a source, so that the result is counted or encoded as
 * it is produced, never held whole; each step costs a run of an input.
 * The merge is the engine's (keymerge.h cd_range_merge_next), each
 * operation its classes of keys.
 * ------------------------------------------------------------------------
 */
static bool
union_next(DSRunSource *s, uint64 *first, uint64 *last)
{
	DSMerge    *m = (DSMerge *) s;

	return cd_range_merge_next(&m->a, &m->b, CD_MERGE_ALL, first, last);
}

static bool
intersect_next(DSRunSource *s, uint64 *first, uint64 *last)
{
	DSMerge    *m = (DSMerge *) s;

	return cd_range_merge_next(&m->a, &m->b, CD_MERGE_BOTH, first, last);
}

static bool
except_next(DSRunSource *s, uint64 *first, uint64 *last)
{
	DSMerge    *m = (DSMerge *) s;

	return cd_range_merge_next(&m->a, &m->b, CD_MERGE_A, first, last);
}

static void
keys_runs_rewind(DSRunSource *s)
{
	((DSKeysRuns *) s)->i = 0;
}

static bool
keys_runs_next(DSRunSource *s, uint64 *first, uint64 *last)
{
	DSKeysRuns *r = (DSKeysRuns *) s;
	const DSKeys *k = r->k;
	uint32		i = r->i;
	uint64		l;

	if (i >= k->n)
		return false;
	*first = l = dsk_get(k, i++);
	while (i < k->n && dsk_get(k, i) - l == 1)
		l = dsk_get(k, i++);
	*last = l;
	/* every 2^16 keys */
	if ((i >> 16) != (r->i >> 16))
		CHECK_FOR_INTERRUPTS();
	r->i = i;
	return true;
}

void
dsk_runs(DSKeysRuns *r, const DSKeys *k)
{
	Assert(k->width > 0);
	r->src.next = keys_runs_next;
	r->src.rewind = keys_runs_rewind;
	r->k = k;
	r->i = 0;
}

void
dset_merge(DSMerge *m, int op, DSRunSource *a, DSRunSource *b)
{
	cd_range_merge_init(m, op == DSET_OP_UNION ? union_next :
						op == DSET_OP_INTERSECT ? intersect_next : except_next,
						a, b);
}

/* ------------------------------------------------------------------------
 * SQL-callable functions
 * ------------------------------------------------------------------------
 */
PG_FUNCTION_INFO_V1(distinct_set_union);
PG_FUNCTION_INFO_V1(distinct_set_intersect);
PG_FUNCTION_INFO_V1(distinct_set_except);
PG_FUNCTION_INFO_V1(distinct_set_intersect_cardinality);
PG_FUNCTION_INFO_V1(distinct_set_union_cardinality);
PG_FUNCTION_INFO_V1(distinct_set_except_cardinality);
PG_FUNCTION_INFO_V1(distinct_set_contains_set);
PG_FUNCTION_INFO_V1(distinct_set_contained);
PG_FUNCTION_INFO_V1(distinct_set_overlaps);
PG_FUNCTION_INFO_V1(distinct_set_eq);
PG_FUNCTION_INFO_V1(distinct_set_ne);
PG_FUNCTION_INFO_V1(distinct_set_lt);
PG_FUNCTION_INFO_V1(distinct_set_le);
PG_FUNCTION_INFO_V1(distinct_set_gt);
PG_FUNCTION_INFO_V1(distinct_set_ge);
PG_FUNCTION_INFO_V1(distinct_set_cmp);
PG_FUNCTION_INFO_V1(distinct_set_hash);
PG_FUNCTION_INFO_V1(distinct_set_hash_extended);

/*
 * Both arguments, which must be sets of the same type: fixed-width keys
 * are read in place as runs unless both sets are cheap to decode
 * (dset_decode_cheap); those and byte keys (front coding is read from the
 * start) are decoded into a context of the call's own, freed before it
 * returns, as are detoasted copies of the arguments: a row calling several
 * operators holds one operation's memory at a time.
 */
typedef struct OpArgs
{
	bytea	   *a;
	bytea	   *b;
	DSHeader	ha;
	DSHeader	hb;
	const CDKeyType *kt;
	DSStored	pa;				/* fixed-width keys */
	DSStored	pb;
	DSStoredReader ra;
	DSStoredReader rb;
	bool		arrays;			/* byte keys, or cheap to decode: */
	MemoryContext tmp;			/* decoded here */
	DSKeys		ka;
	DSKeys		kb;
} OpArgs;

static void
op_args(FunctionCallInfo fcinfo, OpArgs *o)
{
	o->a = PG_GETARG_DSET_P(0);
	o->b = PG_GETARG_DSET_P(1);
	o->kt = dset_header(fcinfo, o->a, &o->ha);
	dset_check_same_type(o->kt, dset_header(fcinfo, o->b, &o->hb));
	o->tmp = NULL;
	o->arrays = true;
	if (o->kt->width > 0)
	{
		dset_stored_keys(o->a, &o->ha, &o->pa);
		dset_stored_keys(o->b, &o->hb, &o->pb);
		dset_stored_reader(&o->ra, &o->pa);
		dset_stored_reader(&o->rb, &o->pb);
		o->arrays = dset_decode_cheap(&o->pa) && dset_decode_cheap(&o->pb);
	}
	if (o->arrays)
	{
		MemoryContext old;

		o->tmp = AllocSetContextCreate(CurrentMemoryContext,
									   "distinct_set operation",
									   ALLOCSET_DEFAULT_SIZES);
		old = MemoryContextSwitchTo(o->tmp);
		(void) dset_decode(fcinfo, o->a, &o->ka);
		(void) dset_decode(fcinfo, o->b, &o->kb);
		MemoryContextSwitchTo(old);
	}
}

static void
op_args_free(FunctionCallInfo fcinfo, OpArgs *o)
{
	if (o->tmp != NULL)
		MemoryContextDelete(o->tmp);
	if ((Pointer) o->a != PG_GETARG_POINTER(0))
		pfree(o->a);
	if ((Pointer) o->b != PG_GETARG_POINTER(1))
		pfree(o->b);
}

/*
 * a | b, a & b, a - b as a stored set: fixed-width keys merged run by run
 * straight into the encoder (which refuses a result over the limits before
 * allocating it), so memory is the result's; byte keys merged in the
 * call's context, then encoded.
 */
static bytea *
set_op(FunctionCallInfo fcinfo, int op)
{
	OpArgs		o;
	bytea	   *result;

	op_args(fcinfo, &o);
	if (!o.arrays)
	{
		DSMerge		m;

		dset_merge(&m, op, &o.ra.src, &o.rb.src);
		result = dset_encode_runs(o.kt, &m.src);
	}
	else
	{
		DSKeys		out;
		MemoryContext old = MemoryContextSwitchTo(o.tmp);

		if (op == DSET_OP_UNION)
			dsk_union(&out, &o.ka, &o.kb);
		else if (op == DSET_OP_INTERSECT)
			dsk_intersect(&out, &o.ka, &o.kb);
		else
			dsk_difference(&out, &o.ka, &o.kb);
		MemoryContextSwitchTo(old);
		result = dset_encode(o.kt, &out);
	}
	op_args_free(fcinfo, &o);
	return result;
}

Datum
distinct_set_union(PG_FUNCTION_ARGS)
{
	PG_RETURN_BYTEA_P(set_op(fcinfo, DSET_OP_UNION));
}

Datum
distinct_set_intersect(PG_FUNCTION_ARGS)
{
	PG_RETURN_BYTEA_P(set_op(fcinfo, DSET_OP_INTERSECT));
}

Datum
distinct_set_except(PG_FUNCTION_ARGS)
{
	PG_RETURN_BYTEA_P(set_op(fcinfo, DSET_OP_EXCEPT));
}

/* count the keys whose bit is set (see intersection_size) */
typedef struct BitsProbe
{
	const uint64 *bits;
	uint64		lo;
	uint64		nbits;
	uint64		found;
} BitsProbe;

static void
probe_keys(const uint64 *keys, uint32 n, void *arg)
{
	BitsProbe  *bp = (BitsProbe *) arg;
	uint64		found = bp->found;
	uint32		i;

	for (i = 0; i < n; i++)
	{
		uint64		off = keys[i] - bp->lo;

		if (off < bp->nbits)
			found += (bp->bits[off >> 6] >> (off & 63)) & 1;
	}
	bp->found = found;
}

/*
 * A bitmap over a range of fixed-width keys may take at most this many
 * times the encoded bytes of the sets it holds (and no more than their
 * keys): a set of runs, whose keys take far more than its bytes, is
 * merged as runs instead.
 */
#define BITMAP_PER_ENCODED_BYTE	4

/*
 * The number of values two stored sets (the arguments) share, and their
 * counts.  Fixed-width keys in the blocks layout whose common range is
 * dense: the first set's keys in that range become bits, the second's are
 * looked up, both read in place (a bitmap no larger than their keys, nor
 * than 4 times their bytes, as for the union aggregate); other fixed-width
 * keys: their runs merged and counted; byte keys: both decoded and merged.
 */
static uint64
intersection_size(FunctionCallInfo fcinfo, uint64 *na, uint64 *nb)
{
	OpArgs		o;
	uint64		n;

	op_args(fcinfo, &o);
	*na = o.ha.n;
	*nb = o.hb.n;
	if (o.ha.n == 0 || o.hb.n == 0)
		n = 0;
	else if (o.kt->width > 0)
	{
		uint64		alo,
					ahi,
					blo,
					bhi,
					lo,
					hi;
		DSMerge		m;

		dset_key_range(o.a, &o.ha, &alo, &ahi);
		dset_key_range(o.b, &o.hb, &blo, &bhi);
		lo = Max(alo, blo) & ~UINT64CONST(63);
		hi = Min(ahi, bhi);
		if (Max(alo, blo) > hi)
			n = 0;
		/* (hi - lo) / 64 < 2^58: no overflow */
		else if (!o.pa.runs && !o.pb.runs &&
				 (hi - lo) / 64 + 1 <= ((uint64) o.ha.n + o.hb.n) * o.kt->width / 8 &&
				 (hi - lo) / 64 + 1 <= (uint64) (o.pa.len + o.pb.len) * BITMAP_PER_ENCODED_BYTE / 8)
		{
			Size		nwords = (Size) ((hi - lo) / 64 + 1);
			uint64	   *bits = MemoryContextAllocExtended(CurrentMemoryContext,
														  nwords * 8,
														  MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
			BitsProbe	bp = {bits, lo, (uint64) nwords * 64, 0};

			dset_or_bits(o.a, &o.ha, bits, lo, bp.nbits);
			dset_foreach_key(o.b, &o.hb, probe_keys, &bp);
			pfree(bits);
			n = bp.found;
		}
		else if (!o.arrays)
		{
			dset_merge(&m, DSET_OP_INTERSECT, &o.ra.src, &o.rb.src);
			n = dset_count_runs(&m.src);
		}
		else
		{
			DSKeys		out;
			MemoryContext old = MemoryContextSwitchTo(o.tmp);

			dsk_intersect(&out, &o.ka, &o.kb);
			MemoryContextSwitchTo(old);
			n = out.n;
		}
	}
	else
	{
		DSKeys		out;
		MemoryContext old = MemoryContextSwitchTo(o.tmp);

		dsk_intersect(&out, &o.ka, &o.kb);
		MemoryContextSwitchTo(old);
		n = out.n;
	}
	op_args_free(fcinfo, &o);
	return n;
}

/*
 * distinct_set_intersect_cardinality(a, b) -> bigint: cardinality(a & b)
 * distinct_set_union_cardinality(a, b) -> bigint: cardinality(a | b)
 * distinct_set_except_cardinality(a, b) -> bigint: cardinality(a - b)
 *
 * What cardinality() of the operators is planned as (dset_plan.c): the
 * result set is never built, so a union of more than 4294967295 values
 * (more than a stored set holds) is counted exactly.
 */
Datum
distinct_set_intersect_cardinality(PG_FUNCTION_ARGS)
{
	uint64		na,
				nb;

	PG_RETURN_INT64((int64) intersection_size(fcinfo, &na, &nb));
}

Datum
distinct_set_union_cardinality(PG_FUNCTION_ARGS)
{
	uint64		na,
				nb;
	uint64		both = intersection_size(fcinfo, &na, &nb);

	PG_RETURN_INT64((int64) (na + nb - both));
}

Datum
distinct_set_except_cardinality(PG_FUNCTION_ARGS)
{
	uint64		na,
				nb;
	uint64		both = intersection_size(fcinfo, &na, &nb);

	PG_RETURN_INT64((int64) (na - both));
}

/*
 * Does the first argument hold every value of the second (swap: the other
 * way round)?  Fixed-width keys: whether the difference has a run, found
 * without producing the rest.
 */
static bool
contains_all(FunctionCallInfo fcinfo, bool swap)
{
	OpArgs		o;
	bool		result;

	op_args(fcinfo, &o);
	if ((swap ? o.ha.n > o.hb.n : o.hb.n > o.ha.n))
		result = false;
	else if (!o.arrays)
	{
		DSMerge		m;
		uint64		f,
					l;

		if (swap)
			dset_merge(&m, DSET_OP_EXCEPT, &o.ra.src, &o.rb.src);
		else
			dset_merge(&m, DSET_OP_EXCEPT, &o.rb.src, &o.ra.src);
		result = !m.src.next(&m.src, &f, &l);
	}
	else
		result = swap ? dsk_contains_all(&o.kb, &o.ka) :
			dsk_contains_all(&o.ka, &o.kb);
	op_args_free(fcinfo, &o);
	return result;
}

Datum
distinct_set_contains_set(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(contains_all(fcinfo, false));
}

Datum
distinct_set_contained(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(contains_all(fcinfo, true));
}

Datum
distinct_set_overlaps(PG_FUNCTION_ARGS)
{
	OpArgs		o;
	bool		result;

	op_args(fcinfo, &o);
	if (!o.arrays)
	{
		DSMerge		m;
		uint64		f,
					l;

		dset_merge(&m, DSET_OP_INTERSECT, &o.ra.src, &o.rb.src);
		result = m.src.next(&m.src, &f, &l);
	}
	else
		result = dsk_overlaps(&o.ka, &o.kb);
	op_args_free(fcinfo, &o);
	PG_RETURN_BOOL(result);
}

/* the stored bytes of a and b, compared */
static int
compare_bytes(FunctionCallInfo fcinfo)
{
	bytea	   *a = PG_GETARG_BYTEA_PP(0);
	bytea	   *b = PG_GETARG_BYTEA_PP(1);
	Size		alen = VARSIZE_ANY_EXHDR(a);
	Size		blen = VARSIZE_ANY_EXHDR(b);
	int			c = memcmp(VARDATA_ANY(a), VARDATA_ANY(b), Min(alen, blen));

	PG_FREE_IF_COPY(a, 0);
	PG_FREE_IF_COPY(b, 1);
	if (c != 0)
		return c < 0 ? -1 : 1;
	return (alen > blen) - (alen < blen);
}

Datum
distinct_set_eq(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(compare_bytes(fcinfo) == 0);
}

Datum
distinct_set_ne(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(compare_bytes(fcinfo) != 0);
}

Datum
distinct_set_lt(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(compare_bytes(fcinfo) < 0);
}

Datum
distinct_set_le(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(compare_bytes(fcinfo) <= 0);
}

Datum
distinct_set_gt(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(compare_bytes(fcinfo) > 0);
}

Datum
distinct_set_ge(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(compare_bytes(fcinfo) >= 0);
}

Datum
distinct_set_cmp(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT32(compare_bytes(fcinfo));
}

Datum
distinct_set_hash(PG_FUNCTION_ARGS)
{
	bytea	   *a = PG_GETARG_BYTEA_PP(0);
	Datum		h = hash_any((const unsigned char *) VARDATA_ANY(a),
							 (int) VARSIZE_ANY_EXHDR(a));

	PG_FREE_IF_COPY(a, 0);
	return h;
}

Datum
distinct_set_hash_extended(PG_FUNCTION_ARGS)
{
	bytea	   *a = PG_GETARG_BYTEA_PP(0);
	Datum		h = hash_any_extended((const unsigned char *) VARDATA_ANY(a),
									  (int) VARSIZE_ANY_EXHDR(a),
									  PG_GETARG_INT64(1));

	PG_FREE_IF_COPY(a, 0);
	return h;
}
