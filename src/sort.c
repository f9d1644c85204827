/*-------------------------------------------------------------------------
 *
 * sort.c
 *	  Sorting what the sets hold (see sort.h): fixed-width keys by radix
 *	  sort or quicksort, specialized per key width; variable-size keys and
 *	  Datums by PostgreSQL's sort_template.h.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"

#include "key.h"
#include "sort.h"

/*
 * Below this many keys the quicksort wins over the radix sort (whose
 * histograms cost a fixed 1-8 kB to clear and sum).
 *
 * Measured (PostgreSQL 15, 2 cores, 10M rows in one group, 3 interleaved
 * rounds, median): count_distinct(int4) 2084 ms with the radix sort vs
 * 3601 ms with lib/sort_template.h's quicksort for every run; int8 2218 ms
 * vs 3888 ms.  (Build with -DCD_RADIX_MIN_KEYS=4000000000 to repeat.)
 * Lowering this from 512 to 64 (tails of sets of about 500-8000 keys):
 * 10k groups of 1000 int4, 10M rows, 5 interleaved runs, median 2241 ->
 * 2111 ms (count(v): 1436 ms).
 */
#ifndef CD_RADIX_MIN_KEYS
#define CD_RADIX_MIN_KEYS	64
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
 * SortSupport (the type's comparator).
 */
#define ST_SORT cd_sort_varitems_bytes
#define ST_ELEMENT_TYPE CDVarItem
#define ST_COMPARE(a, b) cd_compare_bytes_abbrev((a)->key, (a)->len, (a)->prefix, \
												 (b)->key, (b)->len, (b)->prefix)
#define ST_CHECK_FOR_INTERRUPTS
#define ST_SCOPE
#define ST_DEFINE
#include "lib/sort_template.h"

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
