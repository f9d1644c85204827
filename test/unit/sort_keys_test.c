/*
 * sort_keys_test.c
 *	  Unit test of the fixed-width key sort (src/sort.c, cd_sort_keys) for
 *	  keys of 4 and 8 bytes, against an independent truth: the C library's
 *	  qsort.
 *
 * Sizes go from below the radix sort's cut-off to past the size where runs
 * take one MSD pass into buckets first (CD_RADIX_MSD_MIN_BYTES; the driver
 * also builds this with a small one, so that many cases take that path),
 * on keys that fill the buckets evenly, fall in few of them (a hot key,
 * 8-byte keys of small values of both signs, a narrow range), differ above
 * the bits the MSD pass samples in a single key, are all equal, or come in
 * order.  The sorted keys, duplicates kept, must be exactly qsort's.
 *
 * Built by test/drivers/15-set-keys.sh against the server headers and the
 * fuzz harness's stubs of the server functions (test/fuzz/pgstub.c): no
 * server needed.
 */
#include "postgres.h"

#include <stdio.h>
#include <stdlib.h>

#include "sort.h"
#include "pgstub.h"
#include "unit_common.h"

static long passed = 0;
static long failed = 0;

enum shape
{
	UNIFORM,					/* random over the whole width */
	NARROW,						/* random in 20 bits, above a random base */
	SIGNED_SMALL,				/* int4 values as int8 keys, both signs */
	HOT_HALF,					/* half of the keys one value */
	ONE_HIGH,					/* 24 bits, but one key (not sampled) above */
	ALL_EQUAL,
	ASCENDING,
	DESCENDING,
	FEW_VALUES,					/* 300 random values over the width */
	NSHAPES
};

static const char *const shape_names[NSHAPES] = {
	"uniform", "narrow", "int4 values as int8 keys", "half one value",
	"one key above the rest", "all equal", "ascending", "descending",
	"300 values"
};

static uint64
key_of(enum shape shape, size_t i, size_t n, int width, uint64 base,
	   const uint64 *values)
{
	uint64		mask = width == 4 ? PG_UINT32_MAX : PG_UINT64_MAX;
	uint64		r = next_random();

	switch (shape)
	{
		case UNIFORM:
			return r & mask;
		case NARROW:
			return (base + (r & 0xFFFFF)) & mask;
		case SIGNED_SMALL:
			return ((uint64) (int64) (int32) r ^ (UINT64CONST(1) << (8 * width - 1))) & mask;
		case HOT_HALF:
			return (r & 1) ? base & mask : (r >> 1) & mask;
		case ONE_HIGH:
			/*
			 * i = 16k + 7 is never in the MSD pass's sample; the key's low
			 * bits put it in the first bucket, its top bit last
			 */
			if (i == (n / 2) - (n / 2) % 64 + 7)
				return (UINT64CONST(1) << (8 * width - 1)) | (r & 0xFFFF);
			return r & 0xFFFFFF;
		case ALL_EQUAL:
			return base & mask;
		case ASCENDING:
			return ((uint64) i * 2654435761U) & mask;
		case DESCENDING:
			return ((uint64) (n - i) * 2654435761U) & mask;
		case FEW_VALUES:
			return values[r % 300] & mask;
		case NSHAPES:
			break;
	}
	abort();
}

static void
one_case(enum shape shape, int width, size_t n)
{
	void	   *keys = malloc(n * width + 1);
	void	   *scratch = malloc(n * width + 1);
	void	   *want = malloc(n * width + 1);
	uint64		base = next_random();
	uint64		values[300];
	void	   *got;

	for (int v = 0; v < 300; v++)
		values[v] = next_random();
	for (size_t i = 0; i < n; i++)
	{
		uint64		k = key_of(shape, i, n, width, base, values);

		if (width == 4)
			((uint32 *) keys)[i] = (uint32) k;
		else
			((uint64 *) keys)[i] = k;
	}
	memcpy(want, keys, n * width);
	qsort(want, n, width, width == 4 ? cmp_u32 : cmp_u64);
	got = cd_sort_keys(keys, scratch, n, width);
	if ((got == keys || got == scratch) && memcmp(got, want, n * width) == 0)
		passed++;
	else
	{
		failed++;
		printf("FAIL: %s, width %d, %zu keys: not sorted as qsort sorts them\n",
			   shape_names[shape], width, n);
	}
	free(keys);
	free(scratch);
	free(want);
	stub_reset(stub_cxt_query);
}

int
main(int argc, char **argv)
{
	/* keys of the largest case: past the default MSD size for 4-byte keys */
	size_t		largest = argc > 1 ? (size_t) atol(argv[1]) : 1200000;
	static const size_t sizes[] = {
		1, 63, 64, 1000, 65535, 65536, 100000, 300000, 600000, 0
	};

	rng = 0x9E3779B97F4A7C15ULL;
	stub_init();
	CurrentMemoryContext = stub_cxt_query;
	for (int width = 4; width <= 8; width += 4)
		for (int shape = 0; shape < NSHAPES; shape++)
		{
			for (int s = 0; sizes[s] > 0 && sizes[s] < largest; s++)
				one_case((enum shape) shape, width, sizes[s]);
			one_case((enum shape) shape, width, largest);
		}
	printf("%s: fixed-width key sort, %ld cases passed, %ld failed\n",
		   failed ? "FAIL" : "ok", passed, failed);
	printf("%d passed, %d failed\n", failed ? 0 : 1, failed ? 1 : 0);
	return failed > 0;
}
