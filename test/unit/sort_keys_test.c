/*
 * sort_keys_test.c
 *	  Unit test of the fixed-width key sort (src/sort.c, cd_sort_keys) for
 *	  keys of 4 and 8 bytes, and of the sort of byte keys of one length
 *	  (cd_sort_unique_records), against an independent truth: the C
 *	  library's qsort (and a plain dedup).
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

/*
 * Byte keys of one length (cd_sort_unique_records): the distinct keys, in
 * memcmp order, must be exactly those of qsort + a plain dedup.
 */
enum rshape
{
	R_RANDOM,					/* random bytes (uuid) */
	R_HEX,						/* hex digits (md5 text) */
	R_COMMON_START,				/* 12 equal bytes, then random ones */
	R_FEW,						/* 300 values */
	R_EQUAL,					/* one value */
	R_COUNTER,					/* a big-endian counter, descending */
	R_LAST_BYTE,				/* differing only in the last byte */
	R_HALF_HOT,					/* half of them one value, top bit set */
	R_FEW_STARTS,				/* 300 first 8 bytes, then random ones */
	R_ONE_RARE,					/* hex digits, but one key (not sampled) 'z' */
	NRSHAPES
};

static const char *const rshape_names[NRSHAPES] = {
	"random bytes", "hex digits", "12-byte common start", "300 values",
	"all equal", "descending counter", "only the last byte differs",
	"half one value", "300 starts of 8 bytes", "hex digits and one rare byte"
};

static size_t record_len;

static int
cmp_record(const void *a, const void *b)
{
	return memcmp(a, b, record_len);
}

static void
fill_record(enum rshape shape, unsigned char *k, size_t len, size_t i,
			size_t n, const unsigned char *values)
{
	size_t		j;

	switch (shape)
	{
		case R_RANDOM:
			for (j = 0; j < len; j++)
				k[j] = (unsigned char) next_random();
			return;
		case R_HEX:
			for (j = 0; j < len; j++)
				k[j] = "0123456789abcdef"[next_random() & 15];
			return;
		case R_COMMON_START:
			for (j = 0; j < len; j++)
				k[j] = j < 12 ? 'x' : (unsigned char) next_random();
			return;
		case R_FEW:
			memcpy(k, values + (next_random() % 300) * len, len);
			return;
		case R_EQUAL:
			memcpy(k, values, len);
			return;
		case R_COUNTER:
			for (j = 0; j < len; j++)
				k[len - 1 - j] = j < sizeof(size_t) ? (unsigned char) ((n - i) >> (8 * j)) : 0;
			return;
		case R_LAST_BYTE:
			memset(k, 0x5A, len);
			if (len > 0)
				k[len - 1] = (unsigned char) next_random();
			return;
		case R_HALF_HOT:
			if (next_random() & 1)
				memcpy(k, values, len);
			else
				for (j = 0; j < len; j++)
					k[j] = (unsigned char) next_random();
			if (len > 0)
				k[0] |= 0x80;
			return;
		case R_FEW_STARTS:
			memcpy(k, values + (next_random() % 300) * len, len);
			for (j = sizeof(uint64); j < len; j++)
				k[j] = (unsigned char) next_random();
			return;
		case R_ONE_RARE:
			/*
			 * i = 64k + 7 is never among the keys whose byte values choose
			 * the buckets (every n / 4096th) in these sizes: its first
			 * byte is a value they lack
			 */
			for (j = 0; j < len; j++)
				k[j] = "0123456789abcdef"[next_random() & 15];
			if (len > 0 && i == (n / 2) - (n / 2) % 64 + 7)
				k[0] = 'z';
			return;
		case NRSHAPES:
			break;
	}
	abort();
}

static void
one_record_case(enum rshape shape, size_t len, size_t n)
{
	/* records with a 1-byte header, as in a set's tail */
	size_t		stride = len + 1;
	unsigned char *src = malloc(n * stride + 1);
	unsigned char *want = malloc(n * len + 1);
	char	   *got = malloc(n * len + 1);
	unsigned char *values = malloc(300 * len + 1);
	size_t		nwant = 0;
	size_t		ngot;
	size_t		i;

	for (i = 0; i < 300 * len; i++)
		values[i] = (unsigned char) next_random();
	for (i = 0; i < n; i++)
	{
		src[i * stride] = (unsigned char) len;
		fill_record(shape, src + i * stride + 1, len, i, n, values);
		memcpy(want + i * len, src + i * stride + 1, len);
	}
	record_len = len;
	if (len > 0)
		qsort(want, n, len, cmp_record);
	for (i = 0; i < n; i++)
	{
		if (nwant > 0 && memcmp(want + (nwant - 1) * len, want + i * len, len) == 0)
			continue;
		memmove(want + nwant * len, want + i * len, len);
		nwant++;
	}
	ngot = cd_sort_unique_records((const char *) src + 1, n, stride, len, got);
	if (ngot == nwant && memcmp(got, want, nwant * len) == 0)
		passed++;
	else
	{
		failed++;
		printf("FAIL: records of %zu bytes, %s, %zu keys: %zu distinct, want %zu (or not in memcmp order)\n",
			   len, rshape_names[shape], n, ngot, nwant);
	}
	free(src);
	free(want);
	free(got);
	free(values);
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
	{
		static const size_t lens[] = {0, 1, 3, 7, 8, 9, 16, 32, 160};
		static const size_t rsizes[] = {1, 2, 63, 1000, 70000, 0};

		for (int l = 0; l < (int) lengthof(lens); l++)
			for (int shape = 0; shape < NRSHAPES; shape++)
			{
				for (int s = 0; rsizes[s] > 0; s++)
					one_record_case((enum rshape) shape, lens[l], rsizes[s]);
				/* past 2^11 buckets of CD_RECORD_BUCKET keys */
				if (lens[l] == 16 || lens[l] == 32)
					one_record_case((enum rshape) shape, lens[l], largest);
			}
	}
	printf("%s: fixed-width key sort and byte keys of one length, %ld cases passed, %ld failed\n",
		   failed ? "FAIL" : "ok", passed, failed);
	printf("%d passed, %d failed\n", failed ? 0 : 1, failed ? 1 : 0);
	return failed > 0;
}
