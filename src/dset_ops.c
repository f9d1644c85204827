/*-------------------------------------------------------------------------
 *
 * dset_ops.c
 *	  Stored sets: union, intersection, difference, containment, overlap,
 *	  and the comparison and hash functions of the btree and hash operator
 *	  classes.
 *
 * The algebra works on sorted runs of keys (DSKeys): merges in one pass,
 * or, when one run is much shorter than the other, a galloping search of
 * the longer one for each key of the shorter.  Byte keys of a result point
 * into the inputs' memory.
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

/* one run is "much shorter" when this many times shorter: gallop */
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

/* the union of two runs of fixed-width keys of type T, into out */
#define UNION_FIXED(T) \
	do { \
		const T    *x = (const T *) a->fixed; \
		const T    *y = (const T *) b->fixed; \
		T		   *z = (T *) out->fixed; \
		uint32		na = a->n, nb = b->n; \
		\
		while (i < na && j < nb) \
		{ \
			T			u = x[i], v = y[j]; \
			\
			z[o++] = u <= v ? u : v; \
			i += u <= v; \
			j += v <= u; \
			if ((o & 0xFFFFF) == 0) \
				CHECK_FOR_INTERRUPTS(); \
		} \
		while (i < na) \
			z[o++] = x[i++]; \
		while (j < nb) \
			z[o++] = y[j++]; \
	} while (0)

void
dsk_union(DSKeys *out, const DSKeys *a, const DSKeys *b)
{
	uint32		i = 0,
				j = 0,
				o = 0;

	if ((uint64) a->n + b->n > PG_UINT32_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("distinct_set too large"),
				 errdetail("A distinct_set holds at most %u values.", PG_UINT32_MAX)));
	dsk_alloc(out, a->kt, a->n + b->n);
	switch (a->width)
	{
		case 1:
			UNION_FIXED(uint8);
			break;
		case 2:
			UNION_FIXED(uint16);
			break;
		case 4:
			UNION_FIXED(uint32);
			break;
		case 8:
			UNION_FIXED(uint64);
			break;
		default:
			while (i < a->n && j < b->n)
			{
				int			c = dsk_cmp(a, i, b, j);

				if (c <= 0)
				{
					copy_key(out, o++, a, i++);
					if (c == 0)
						j++;
				}
				else
					copy_key(out, o++, b, j++);
				if ((o & 0xFFFFF) == 0)
					CHECK_FOR_INTERRUPTS();
			}
			while (i < a->n)
				copy_key(out, o++, a, i++);
			while (j < b->n)
				copy_key(out, o++, b, j++);
			break;
	}
	out->n = o;
}

void
dsk_intersect(DSKeys *out, const DSKeys *a, const DSKeys *b)
{
	uint32		i = 0,
				j = 0,
				o = 0;

	dsk_alloc(out, a->kt, Min(a->n, b->n));
	if ((uint64) a->n * GALLOP_RATIO < b->n)
	{
		/* keys of the short run a, searched in b */
		for (i = 0; i < a->n && j < b->n; i++)
		{
			j = dsk_lower_bound(b, j, a, i);
			if (j < b->n && dsk_cmp(b, j, a, i) == 0)
				copy_key(out, o++, a, i);
			if ((i & 0xFFFF) == 0xFFFF)
				CHECK_FOR_INTERRUPTS();
		}
	}
	else if ((uint64) b->n * GALLOP_RATIO < a->n)
	{
		for (j = 0; j < b->n && i < a->n; j++)
		{
			i = dsk_lower_bound(a, i, b, j);
			if (i < a->n && dsk_cmp(a, i, b, j) == 0)
				copy_key(out, o++, a, i);
			if ((j & 0xFFFF) == 0xFFFF)
				CHECK_FOR_INTERRUPTS();
		}
	}
	else
	{
		while (i < a->n && j < b->n)
		{
			int			c = dsk_cmp(a, i, b, j);

			if (c == 0)
			{
				copy_key(out, o++, a, i);
				i++;
				j++;
			}
			else if (c < 0)
				i++;
			else
				j++;
			if (((i + j) & 0xFFFFF) == 0)
				CHECK_FOR_INTERRUPTS();
		}
	}
	out->n = o;
}

void
dsk_difference(DSKeys *out, const DSKeys *a, const DSKeys *b)
{
	uint32		i = 0,
				j = 0,
				o = 0;

	dsk_alloc(out, a->kt, a->n);
	for (i = 0; i < a->n; i++)
	{
		if (j < b->n)
		{
			j = (uint64) b->n > (uint64) a->n * GALLOP_RATIO ?
				dsk_lower_bound(b, j, a, i) : j;
			while (j < b->n && dsk_cmp(b, j, a, i) < 0)
				j++;
			if (j < b->n && dsk_cmp(b, j, a, i) == 0)
				continue;
		}
		copy_key(out, o++, a, i);
		if ((i & 0xFFFFF) == 0xFFFFF)
			CHECK_FOR_INTERRUPTS();
	}
	out->n = o;
}

bool
dsk_contains_all(const DSKeys *a, const DSKeys *b)
{
	uint32		i = 0,
				j;

	if (b->n > a->n)
		return false;
	for (j = 0; j < b->n; j++)
	{
		if ((uint64) a->n > (uint64) b->n * GALLOP_RATIO)
			i = dsk_lower_bound(a, i, b, j);
		else
			while (i < a->n && dsk_cmp(a, i, b, j) < 0)
				i++;
		if (i >= a->n || dsk_cmp(a, i, b, j) != 0)
			return false;
		i++;
		if ((j & 0xFFFFF) == 0xFFFFF)
			CHECK_FOR_INTERRUPTS();
	}
	return true;
}

bool
dsk_overlaps(const DSKeys *a, const DSKeys *b)
{
	DSKeys		out;
	bool		result;

	if (a->n == 0 || b->n == 0)
		return false;
	/* disjoint ranges */
	if (dsk_cmp(a, a->n - 1, b, 0) < 0 || dsk_cmp(b, b->n - 1, a, 0) < 0)
		return false;
	dsk_intersect(&out, a, b);
	result = out.n > 0;
	dsk_free(&out);
	return result;
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

/* Decode both arguments, which must be sets of the same type. */
static const CDKeyType *
decode_pair(FunctionCallInfo fcinfo, DSKeys *a, DSKeys *b)
{
	const CDKeyType *kta = dset_decode(fcinfo, PG_GETARG_DSET_P(0), a);
	const CDKeyType *ktb = dset_decode(fcinfo, PG_GETARG_DSET_P(1), b);

	dset_check_same_type(kta, ktb);
	return kta;
}

Datum
distinct_set_union(PG_FUNCTION_ARGS)
{
	DSKeys		a,
				b,
				out;
	const CDKeyType *kt = decode_pair(fcinfo, &a, &b);

	dsk_union(&out, &a, &b);
	PG_RETURN_BYTEA_P(dset_encode(kt, &out));
}

Datum
distinct_set_intersect(PG_FUNCTION_ARGS)
{
	DSKeys		a,
				b,
				out;
	const CDKeyType *kt = decode_pair(fcinfo, &a, &b);

	dsk_intersect(&out, &a, &b);
	PG_RETURN_BYTEA_P(dset_encode(kt, &out));
}

Datum
distinct_set_except(PG_FUNCTION_ARGS)
{
	DSKeys		a,
				b,
				out;
	const CDKeyType *kt = decode_pair(fcinfo, &a, &b);

	dsk_difference(&out, &a, &b);
	PG_RETURN_BYTEA_P(dset_encode(kt, &out));
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
 * The number of values two stored sets (the arguments) share, and their
 * counts.  Fixed-width keys whose common range is dense: the first set's
 * keys in that range become bits, the second's are looked up, both read in
 * place (a bitmap no larger than their keys, as for the union aggregate);
 * anything else: both decoded and merged.
 */
static uint64
intersection_size(FunctionCallInfo fcinfo, uint32 *na, uint32 *nb)
{
	bytea	   *a = PG_GETARG_DSET_P(0);
	bytea	   *b = PG_GETARG_DSET_P(1);
	DSHeader	ha,
				hb;
	const CDKeyType *kt = dset_header(fcinfo, a, &ha);
	DSKeys		ka,
				kb,
				out;
	uint64		n;

	dset_check_same_type(kt, dset_header(fcinfo, b, &hb));
	*na = ha.n;
	*nb = hb.n;
	if (ha.n == 0 || hb.n == 0)
		return 0;
	if (kt->width > 0)
	{
		uint64		alo,
					ahi,
					blo,
					bhi,
					lo,
					hi;

		dset_key_range(a, &ha, &alo, &ahi);
		dset_key_range(b, &hb, &blo, &bhi);
		lo = Max(alo, blo) & ~UINT64CONST(63);
		hi = Min(ahi, bhi);
		if (Max(alo, blo) > hi)
			return 0;
		/* (hi - lo) / 64 < 2^58: no overflow */
		if ((hi - lo) / 64 + 1 <= ((uint64) ha.n + hb.n) * kt->width / 8 &&
			(hi - lo) / 8 < (uint64) MaxAllocHugeSize / 2)
		{
			Size		nwords = (Size) ((hi - lo) / 64 + 1);
			uint64	   *bits = MemoryContextAllocExtended(CurrentMemoryContext,
														  nwords * 8,
														  MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
			BitsProbe	bp = {bits, lo, (uint64) nwords * 64, 0};

			dset_or_bits(a, &ha, bits, lo, bp.nbits);
			dset_foreach_key(b, &hb, probe_keys, &bp);
			pfree(bits);
			return bp.found;
		}
	}
	(void) dset_decode(fcinfo, a, &ka);
	(void) dset_decode(fcinfo, b, &kb);
	dsk_intersect(&out, &ka, &kb);
	n = out.n;
	dsk_free(&out);
	dsk_free(&ka);
	dsk_free(&kb);
	return n;
}

/*
 * distinct_set_intersect_cardinality(a, b) -> bigint: cardinality(a & b)
 * distinct_set_union_cardinality(a, b) -> bigint: cardinality(a | b)
 * distinct_set_except_cardinality(a, b) -> bigint: cardinality(a - b)
 *
 * What cardinality() of the operators is planned as (dset_plan.c): the
 * result set is never built.
 */
Datum
distinct_set_intersect_cardinality(PG_FUNCTION_ARGS)
{
	uint32		na,
				nb;

	PG_RETURN_INT64((int64) intersection_size(fcinfo, &na, &nb));
}

Datum
distinct_set_union_cardinality(PG_FUNCTION_ARGS)
{
	uint32		na,
				nb;
	uint64		both = intersection_size(fcinfo, &na, &nb);

	PG_RETURN_INT64((int64) ((uint64) na + nb - both));
}

Datum
distinct_set_except_cardinality(PG_FUNCTION_ARGS)
{
	uint32		na,
				nb;
	uint64		both = intersection_size(fcinfo, &na, &nb);

	PG_RETURN_INT64((int64) (na - both));
}

Datum
distinct_set_contains_set(PG_FUNCTION_ARGS)
{
	DSKeys		a,
				b;

	(void) decode_pair(fcinfo, &a, &b);
	PG_RETURN_BOOL(dsk_contains_all(&a, &b));
}

Datum
distinct_set_contained(PG_FUNCTION_ARGS)
{
	DSKeys		a,
				b;

	(void) decode_pair(fcinfo, &a, &b);
	PG_RETURN_BOOL(dsk_contains_all(&b, &a));
}

Datum
distinct_set_overlaps(PG_FUNCTION_ARGS)
{
	DSKeys		a,
				b;

	(void) decode_pair(fcinfo, &a, &b);
	PG_RETURN_BOOL(dsk_overlaps(&a, &b));
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
