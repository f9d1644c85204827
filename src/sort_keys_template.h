/*-------------------------------------------------------------------------
 *
 * sort_keys_template.h
 *	  Sorting code for one key width, included once per width by sort.c.
 *
 * The includer defines:
 *	  CDS_KEY	- the key type (uint8, uint16, uint32 or uint64)
 *	  CDS_NAME(x) - makes a width-specific name from x
 *
 * Large arrays use an LSD radix sort on bytes, which skips every byte position
 * where all keys agree (so 8-byte keys holding small ranges cost no more
 * than 4-byte ones); very large arrays of 4- and 8-byte keys on digits of
 * CD_RADIX_WIDE_BITS bits, and arrays larger than the CPU's caches first by
 * one MSD pass into buckets that fit in them (sort.c says why).  Small arrays
 * use PostgreSQL's lib/sort_template.h quicksort with an inlined comparison,
 * which beats the radix sort's fixed cost of clearing and summing its
 * histograms.
 *
 *-------------------------------------------------------------------------
 */

#define ST_SORT CDS_NAME(qsort)
#define ST_ELEMENT_TYPE CDS_KEY
#define ST_COMPARE(a, b) ((*(a) > *(b)) - (*(a) < *(b)))
#define ST_SCOPE static
#define ST_DEFINE
#include "lib/sort_template.h"

/* digits of a key of bits bits each */
#define CDS_NDIGITS(bits) ((int) ((8 * sizeof(CDS_KEY) + (bits) - 1) / (bits)))

/*
 * LSD radix sort on digits of bits bits (8, CD_RADIX_WIDE_BITS or
 * CD_RADIX_BUCKET_BITS; a constant at each call, so each is compiled on its
 * own), with room for CDS_NDIGITS(bits) histograms of 2^bits counts in
 * counts.  Returns where the sorted keys ended up.
 */
static pg_attribute_always_inline CDS_KEY *
CDS_NAME(radix_sort_digits) (CDS_KEY *keys, CDS_KEY *scratch, size_t n,
							 int bits, uint32 *counts)
{
	int			ndigits = CDS_NDIGITS(bits);
	size_t		ncounts = (size_t) 1 << bits;
	CDS_KEY		mask = (CDS_KEY) (ncounts - 1);
	CDS_KEY    *src = keys;
	CDS_KEY    *dst = scratch;
	size_t		i;
	int			b;

	Assert(n <= PG_UINT32_MAX);
	memset(counts, 0, ndigits * ncounts * sizeof(uint32));

	/* one pass for all the histograms */
	for (i = 0; i < n; i++)
	{
		CDS_KEY		k = keys[i];

		for (b = 0; b < ndigits; b++)
			counts[b * ncounts + ((k >> (bits * b)) & mask)]++;
	}
	CHECK_FOR_INTERRUPTS();

	for (b = 0; b < ndigits; b++)
	{
		uint32	   *count = counts + b * ncounts;
		uint32		sum = 0;
		CDS_KEY    *tmp;
		size_t		d;

		/* all keys share this digit: the pass would not move anything */
		if (count[(keys[0] >> (bits * b)) & mask] == n)
			continue;

		for (d = 0; d < ncounts; d++)
		{
			uint32		c = count[d];

			count[d] = sum;
			sum += c;
		}

		for (i = 0; i < n; i++)
		{
			CDS_KEY		k = src[i];

			dst[count[(k >> (bits * b)) & mask]++] = k;
		}

		tmp = src;
		src = dst;
		dst = tmp;
		CHECK_FOR_INTERRUPTS();
	}
	return src;
}

static CDS_KEY *
CDS_NAME(radix_sort) (CDS_KEY *keys, CDS_KEY *scratch, size_t n)
{
	uint32		counts[CDS_NDIGITS(8) << CD_RADIX_WIDE_BITS];

	StaticAssertStmt(CDS_NDIGITS(8) << 8 <= lengthof(counts) &&
					 CDS_NDIGITS(CD_RADIX_WIDE_BITS) << CD_RADIX_WIDE_BITS <= lengthof(counts),
					 "radix sort histograms do not fit");

	/* wider digits save passes only for keys of 4 and 8 bytes */
	if (sizeof(CDS_KEY) >= 4 && n >= CD_RADIX_WIDE_MIN_KEYS)
		return CDS_NAME(radix_sort_digits) (keys, scratch, n, CD_RADIX_WIDE_BITS,
											counts);
	return CDS_NAME(radix_sort_digits) (keys, scratch, n, 8, counts);
}

/*
 * Arrays of CD_RADIX_MSD_MIN_BYTES or more: one MSD pass on the top
 * CD_RADIX_MSD_BITS of the bits where the keys differ, from keys to scratch,
 * then each bucket, which fits in the caches, by the LSD sort on digits of
 * CD_RADIX_BUCKET_BITS (its top digits, which the bucket's keys share, cost
 * only their histogram).  Keys that fall in few buckets (8-byte keys of
 * small values of both signs differ from their sign bit down) are left to
 * the LSD sort alone.  Returns where the sorted keys ended up.
 */
static CDS_KEY *
CDS_NAME(radix_sort_msd) (CDS_KEY *keys, CDS_KEY *scratch, size_t n)
{
	uint32		start[(1 << CD_RADIX_MSD_BITS) + 1];
	uint32		next[1 << CD_RADIX_MSD_BITS];
	uint32		small[CDS_NDIGITS(8) << 8];
	uint32	   *counts;
	CDS_KEY		first = keys[0];
	CDS_KEY		differ = 0;
	CDS_KEY		above = 0;
	size_t		nsample = 0;
	int			shift;
	size_t		i;
	int			d;

	Assert(n <= PG_UINT32_MAX);

	/*
	 * The bits where the keys differ, and how the buckets fill, from a
	 * sample: an extra pass over all the keys would cost as much as the
	 * buckets gain on 8-byte keys that end up in few buckets.  A key that
	 * differs above the sampled bits is caught in the histogram's pass.
	 */
	for (i = 0; i < n; i += CD_RADIX_MSD_SAMPLE)
		differ |= keys[i] ^ first;
	if (differ == 0)
		return CDS_NAME(radix_sort) (keys, scratch, n);
	shift = Max(pg_leftmost_one_pos64((uint64) differ) + 1 - CD_RADIX_MSD_BITS, 0);
	memset(next, 0, sizeof(next));
	for (i = 0; i < n; i += CD_RADIX_MSD_SAMPLE)
	{
		next[(keys[i] >> shift) & ((1 << CD_RADIX_MSD_BITS) - 1)]++;
		nsample++;
	}
	for (d = 0; d < (1 << CD_RADIX_MSD_BITS); d++)
		if (next[d] > nsample / CD_RADIX_MSD_SKEW)
			return CDS_NAME(radix_sort) (keys, scratch, n);

	memset(next, 0, sizeof(next));
	for (i = 0; i < n; i++)
	{
		CDS_KEY		k = keys[i];

		/* two shifts: shift + CD_RADIX_MSD_BITS may be the key's width */
		above |= ((k ^ first) >> shift) >> CD_RADIX_MSD_BITS;
		next[(k >> shift) & ((1 << CD_RADIX_MSD_BITS) - 1)]++;
	}
	if (above != 0)
		return CDS_NAME(radix_sort) (keys, scratch, n);
	start[0] = 0;
	for (d = 0; d < (1 << CD_RADIX_MSD_BITS); d++)
	{
		/* a bucket that would not fit in the caches either */
		if (next[d] > n / CD_RADIX_MSD_SKEW)
			return CDS_NAME(radix_sort) (keys, scratch, n);
		start[d + 1] = start[d] + next[d];
		next[d] = start[d];
	}
	for (i = 0; i < n; i++)
	{
		CDS_KEY		k = keys[i];

		scratch[next[(k >> shift) & ((1 << CD_RADIX_MSD_BITS) - 1)]++] = k;
	}
	CHECK_FOR_INTERRUPTS();

	counts = palloc(sizeof(uint32) *
					(CDS_NDIGITS(CD_RADIX_BUCKET_BITS) << CD_RADIX_BUCKET_BITS));
	for (d = 0; d < (1 << CD_RADIX_MSD_BITS); d++)
	{
		CDS_KEY    *bucket = scratch + start[d];
		size_t		m = start[d + 1] - start[d];
		CDS_KEY    *sorted;

		if (m < CD_RADIX_MIN_KEYS)
		{
			CDS_NAME(qsort) (bucket, m);
			continue;
		}
		/* a small bucket would mostly clear the wide histograms */
		if (m < ((size_t) 1 << CD_RADIX_BUCKET_BITS))
			sorted = CDS_NAME(radix_sort_digits) (bucket, keys + start[d], m,
												  8, small);
		else
			sorted = CDS_NAME(radix_sort_digits) (bucket, keys + start[d], m,
												  CD_RADIX_BUCKET_BITS, counts);
		if (sorted != bucket)
			memcpy(bucket, sorted, m * sizeof(CDS_KEY));
	}
	pfree(counts);
	return scratch;
}

static CDS_KEY *
CDS_NAME(sort) (CDS_KEY *keys, CDS_KEY *scratch, size_t n)
{
	if (n < CD_RADIX_MIN_KEYS || n > PG_UINT32_MAX)
	{
		CDS_NAME(qsort) (keys, n);
		return keys;
	}
	if (sizeof(CDS_KEY) >= 4 && n * sizeof(CDS_KEY) >= CD_RADIX_MSD_MIN_BYTES)
		return CDS_NAME(radix_sort_msd) (keys, scratch, n);
	return CDS_NAME(radix_sort) (keys, scratch, n);
}

#undef CDS_NDIGITS
#undef CDS_KEY
#undef CDS_NAME
