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
 * than 4-byte ones).  Small runs use PostgreSQL's lib/sort_template.h
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

static CDS_KEY *
CDS_NAME(radix_sort) (CDS_KEY *keys, CDS_KEY *scratch, size_t n)
{
	size_t		counts[sizeof(CDS_KEY)][256];
	CDS_KEY    *src = keys;
	CDS_KEY    *dst = scratch;
	size_t		i;
	int			b;

	memset(counts, 0, sizeof(counts));

	/* one pass for all the histograms */
	for (i = 0; i < n; i++)
	{
		CDS_KEY		k = keys[i];

		for (b = 0; b < (int) sizeof(CDS_KEY); b++)
			counts[b][(k >> (8 * b)) & 0xFF]++;
	}
	CHECK_FOR_INTERRUPTS();

	for (b = 0; b < (int) sizeof(CDS_KEY); b++)
	{
		size_t	   *count = counts[b];
		size_t		sum = 0;
		CDS_KEY    *tmp;
		int			d;

		/* all keys share this byte: the pass would not move anything */
		if (count[(keys[0] >> (8 * b)) & 0xFF] == n)
			continue;

		for (d = 0; d < 256; d++)
		{
			size_t		c = count[d];

			count[d] = sum;
			sum += c;
		}

		for (i = 0; i < n; i++)
		{
			CDS_KEY		k = src[i];

			dst[count[(k >> (8 * b)) & 0xFF]++] = k;
		}

		tmp = src;
		src = dst;
		dst = tmp;
		CHECK_FOR_INTERRUPTS();
	}
	return src;
}

static CDS_KEY *
CDS_NAME(sort) (CDS_KEY *keys, CDS_KEY *scratch, size_t n)
{
	if (n < CD_RADIX_MIN_KEYS)
	{
		CDS_NAME(qsort) (keys, n);
		return keys;
	}
	return CDS_NAME(radix_sort) (keys, scratch, n);
}

#undef CDS_KEY
#undef CDS_NAME
