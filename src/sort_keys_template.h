/*-------------------------------------------------------------------------
 *
 * sort_keys_template.h
 *	  Sorting code for one key width, included once per width by sort.c.
 *
 * The includer defines:
 *	  CDS_KEY	- the key type (uint8, uint16, uint32 or uint64)
 *	  CDS_NAME(x) - makes a width-specific name from x
 *
 * Large runs use an LSD radix sort on bytes, which skips every byte position
 * where all keys agree (so 8-byte keys holding small ranges cost no more
 * than 4-byte ones); very large runs of 4- and 8-byte keys on digits of
 * CD_RADIX_WIDE_BITS bits (sort.c says why).  Small runs use PostgreSQL's lib/sort_template.h
 * quicksort with an inlined comparison, which beats the radix sort's fixed
 * cost of clearing and summing its histograms.
 *
 *-------------------------------------------------------------------------
 */

#define ST_SORT CDS_NAME(qsort)
#define ST_ELEMENT_TYPE CDS_KEY
#define ST_COMPARE(a, b) ((*(a) > *(b)) - (*(a) < *(b)))
#define ST_SCOPE static
#define ST_DEFINE
#include "lib/sort_template.h"

/*
 * LSD radix sort on digits of bits bits (8 or CD_RADIX_WIDE_BITS; a
 * constant at each call, so each is compiled on its own).  Returns where
 * the sorted keys ended up.
 */
static pg_attribute_always_inline CDS_KEY *
CDS_NAME(radix_sort_digits) (CDS_KEY *keys, CDS_KEY *scratch, size_t n,
							 int bits)
{
#define CDS_NDIGITS(bits) ((int) ((8 * sizeof(CDS_KEY) + (bits) - 1) / (bits)))
	uint32		counts[CDS_NDIGITS(8)][1 << CD_RADIX_WIDE_BITS];
	int			ndigits = CDS_NDIGITS(bits);
	size_t		ncounts = (size_t) 1 << bits;
	CDS_KEY		mask = (CDS_KEY) (ncounts - 1);
	CDS_KEY    *src = keys;
	CDS_KEY    *dst = scratch;
	size_t		i;
	int			b;

	Assert(n <= PG_UINT32_MAX);
	for (b = 0; b < ndigits; b++)
		memset(counts[b], 0, ncounts * sizeof(uint32));

	/* one pass for all the histograms */
	for (i = 0; i < n; i++)
	{
		CDS_KEY		k = keys[i];

		for (b = 0; b < ndigits; b++)
			counts[b][(k >> (bits * b)) & mask]++;
	}
	CHECK_FOR_INTERRUPTS();

	for (b = 0; b < ndigits; b++)
	{
		uint32	   *count = counts[b];
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
#undef CDS_NDIGITS
}

static CDS_KEY *
CDS_NAME(radix_sort) (CDS_KEY *keys, CDS_KEY *scratch, size_t n)
{
	/* wider digits save passes only for keys of 4 and 8 bytes */
	if (sizeof(CDS_KEY) >= 4 && n >= CD_RADIX_WIDE_MIN_KEYS)
		return CDS_NAME(radix_sort_digits) (keys, scratch, n, CD_RADIX_WIDE_BITS);
	return CDS_NAME(radix_sort_digits) (keys, scratch, n, 8);
}

static CDS_KEY *
CDS_NAME(sort) (CDS_KEY *keys, CDS_KEY *scratch, size_t n)
{
	if (n < CD_RADIX_MIN_KEYS || n > PG_UINT32_MAX)
	{
		CDS_NAME(qsort) (keys, n);
		return keys;
	}
	return CDS_NAME(radix_sort) (keys, scratch, n);
}

#undef CDS_KEY
#undef CDS_NAME
