/*-------------------------------------------------------------------------
 *
 * sort.c
 *	  Sorting what the sets hold (see sort.h): fixed-width keys by radix
 *	  sort or quicksort, specialized per key width; byte keys by a radix
 *	  sort on their prefixes, then PostgreSQL's sort_template.h, which
 *	  sorts the other variable-size keys and Datums.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"

#include "key.h"
#include "sort.h"

/*
 * The radix sort is ours rather than lib/sort_template.h's quicksort
 * because it is measurably faster on fixed-width keys: one group of 10M
 * int4, the whole query 1.7x faster (bench/README.md, "Measurements behind
 * the code"; build with -DCD_RADIX_MIN_KEYS=4000000000 to repeat).  Below
 * this many keys the quicksort wins (the radix sort's histograms cost a
 * fixed 1-8 kB to clear and sum).
 */
#ifndef CD_RADIX_MIN_KEYS
#define CD_RADIX_MIN_KEYS	64
#endif

/*
 * From this many keys, 4- and 8-byte keys are sorted on 11-bit digits: 3
 * passes instead of 4 for 4-byte keys, 6 instead of 8 for 8-byte ones, for
 * histograms of 8 kB a digit.  The large tails of packed sets are sorted
 * this way (callgrind, one group of 2M random int4 in a packed set: the
 * radix sort's instructions 194M -> 106M; bench/README.md).  Build with
 * -DCD_RADIX_WIDE_MIN_KEYS=4000000000 to sort on bytes only.
 */
#define CD_RADIX_WIDE_BITS	11
#ifndef CD_RADIX_WIDE_MIN_KEYS
#define CD_RADIX_WIDE_MIN_KEYS	65536
#endif

#define CDS_KEY uint8
#define CDS_NAME(x) cd_##x##_u8
#include "sort_keys_template.h"

#define CDS_KEY uint16
#define CDS_NAME(x) cd_##x##_u16
#include "sort_keys_template.h"

#define CDS_KEY uint32
#define CDS_NAME(x) cd_##x##_u32
#include "sort_keys_template.h"

#define CDS_KEY uint64
#define CDS_NAME(x) cd_##x##_u64
#include "sort_keys_template.h"

void *
cd_sort_keys(void *keys, void *scratch, size_t n, int width)
{
	switch (width)
	{
		case 1:
			return cd_sort_u8(keys, scratch, n);
		case 2:
			return cd_sort_u16(keys, scratch, n);
		case 4:
			return cd_sort_u32(keys, scratch, n);
		case 8:
			return cd_sort_u64(keys, scratch, n);
	}
	elog(ERROR, "invalid key width %d", width);
	pg_unreachable();
}

/*
 * Variable-size keys: PostgreSQL's sort_template.h, with the comparison
 * inlined (bytes, on an 8-byte abbreviated key first) or through
 * SortSupport (the type's comparator); byte keys through a radix sort
 * first.
 */
#define ST_SORT quicksort_varitems_bytes
#define ST_ELEMENT_TYPE CDVarItem
#define ST_COMPARE(a, b) cd_compare_bytes_abbrev((a)->key, (a)->len, (a)->prefix, \
												 (b)->key, (b)->len, (b)->prefix)
#define ST_CHECK_FOR_INTERRUPTS
#define ST_SCOPE static
#define ST_DEFINE
#include "lib/sort_template.h"

/*
 * Byte keys are sorted by an MSD radix sort on the bytes of their 8-byte
 * prefixes (in place, "American flag": an item moves once per byte), down
 * to buckets of fewer than CD_VARRADIX_MIN_ITEMS items or to equal
 * prefixes, which the quicksort above finishes on the whole keys.  It is
 * ours because it is measurably faster than sort_template.h's quicksort
 * alone: one group of 1M random to_hex() text (up to 8 bytes), the query
 * 215 -> 176 ms, of 1M uuid 213 -> 155 ms (bench/README.md, "Measurements
 * behind the code"; build with -DCD_VARRADIX_MIN_ITEMS=4000000000 to
 * repeat; cut-offs of 24 and 256 items measured slower than 64).
 */
#ifndef CD_VARRADIX_MIN_ITEMS
#define CD_VARRADIX_MIN_ITEMS	64
#endif

/*
 * Items that share their first 8 bytes are sorted on the next 8 (their
 * prefixes taken again from there, for this sort only), down to this many
 * bytes of the keys: keys with long common prefixes (URLs, paths) are
 * radix-sorted too (one group of 1M URL-like texts, a 34-byte prefix, in a
 * front-coded set: 488-545 -> 373-436 ms, the quicksort's memcmp calls 41%
 * of the time before).
 */
#define CD_VARRADIX_MAX_DEPTH	64

/* byte `level` (0: the most significant) of an item's prefix */
#define prefix_byte(item, level) \
	((uint8) ((item)->prefix >> (56 - 8 * (level))))

/*
 * Sort items, whose keys share their first depth bytes, on byte `level`
 * of their prefixes (the 8 key bytes from depth) and on; sets *deepened if
 * some prefixes were taken from a depth past 0.
 */
static void
radix_sort_varitems(CDVarItem *items, size_t n, int level, Size depth,
					bool *deepened)
{
	size_t		count[256];
	size_t		next[256];
	size_t		start;
	int			b;

	/* skip the bytes all the items share */
	for (;;)
	{
		size_t		i;

		if (n >= CD_VARRADIX_MIN_ITEMS && level == (int) sizeof(uint64) &&
			depth + sizeof(uint64) < CD_VARRADIX_MAX_DEPTH)
		{
			/* equal prefixes: the next 8 bytes */
			depth += sizeof(uint64);
			for (i = 0; i < n; i++)
				items[i].prefix = items[i].len > depth ?
					cd_bytes_prefix(items[i].key + depth, items[i].len - depth) : 0;
			*deepened = true;
			level = 0;
		}
		if (n < CD_VARRADIX_MIN_ITEMS || level == (int) sizeof(uint64))
		{
			quicksort_varitems_bytes(items, n);
			return;
		}
		memset(count, 0, sizeof(count));
		for (i = 0; i < n; i++)
			count[prefix_byte(&items[i], level)]++;
		if (count[prefix_byte(&items[0], level)] < n)
			break;
		level++;
	}

	/* move each item into its bucket: cycles of swaps, in place */
	start = 0;
	for (b = 0; b < 256; b++)
	{
		next[b] = start;
		start += count[b];
	}
	start = 0;
	for (b = 0; b < 256; b++)
	{
		size_t		end = start + count[b];

		while (next[b] < end)
		{
			CDVarItem	v = items[next[b]];
			int			d = prefix_byte(&v, level);

			while (d != b)
			{
				CDVarItem	t = items[next[d]];

				items[next[d]++] = v;
				v = t;
				d = prefix_byte(&v, level);
			}
			items[next[b]++] = v;
		}
		start = end;
	}
	CHECK_FOR_INTERRUPTS();

	/* each bucket on the next byte */
	start = 0;
	for (b = 0; b < 256; b++)
	{
		if (count[b] > 1)
			radix_sort_varitems(items + start, count[b], level + 1, depth,
								deepened);
		start += count[b];
	}
}

void
cd_sort_varitems_bytes(CDVarItem *items, size_t n)
{
	bool		deepened = false;
	size_t		i;

	radix_sort_varitems(items, n, 0, 0, &deepened);
	/* the callers compare on the prefixes of the keys' first bytes */
	if (deepened)
	{
		for (i = 0; i < n; i++)
			items[i].prefix = cd_bytes_prefix(items[i].key, items[i].len);
	}
}

#define ST_SORT cd_sort_varitems_ssup
#define ST_ELEMENT_TYPE CDVarItem
#define ST_COMPARE(a, b, ssup) ApplySortComparator((a)->datum, false, (b)->datum, false, ssup)
#define ST_COMPARE_ARG_TYPE SortSupportData
#define ST_CHECK_FOR_INTERRUPTS
#define ST_SCOPE
#define ST_DEFINE
#include "lib/sort_template.h"

#define ST_SORT cd_sort_varitems_abbrev
#define ST_ELEMENT_TYPE CDVarItem
#define ST_COMPARE(a, b, ssup) cd_compare_varitems_abbrev(a, b, ssup)
#define ST_COMPARE_ARG_TYPE SortSupportData
#define ST_CHECK_FOR_INTERRUPTS
#define ST_SCOPE
#define ST_DEFINE
#include "lib/sort_template.h"

#define ST_SORT cd_sort_datums
#define ST_ELEMENT_TYPE Datum
#define ST_COMPARE(a, b, ssup) ApplySortComparator(*(a), false, *(b), false, ssup)
#define ST_COMPARE_ARG_TYPE SortSupportData
#define ST_CHECK_FOR_INTERRUPTS
#define ST_SCOPE
#define ST_DEFINE
#include "lib/sort_template.h"
