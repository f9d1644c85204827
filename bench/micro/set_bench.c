/*
 * set_bench.c
 *	  Times the set's own work on fixed-width keys outside the server, where
 *	  nothing else shares the process: the per-row append, compactions and
 *	  count of one group (serial), and what a parallel plan with two
 *	  workers adds (each partial state's serialization, then the leader's
 *	  deserialization, combine and count).
 *
 * Keys are bench.py's int4 values (H(i), a bijection of [0, 2^32)): all
 * distinct ("distinct"), or half of the rows one value ("hh50").  The
 * parallel case cuts the rows into 3 states, 8192 rows at a time in turn,
 * as a parallel scan hands out pages.  Each figure is the minimum of the
 * rounds (milliseconds).
 *
 * Built and run by bench/micro.sh against the server headers and the test
 * harness's stubs of the server functions (test/fuzz/pgstub.c).
 */
#include "postgres.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "catalog/pg_type.h"
#include "utils/memutils.h"

#include "alloc.h"
#include "key.h"
#include "serialize.h"
#include "set.h"
#include "pgstub.h"

#define NPARTS	3
#define CHUNK	8192

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000.0 + ts.tv_nsec / 1e6;
}

/* bench.py's H(i) */
static uint32
h1(uint64 x)
{
	return (uint32) (((x ^ (x >> 16)) * 73244475) & 0xFFFFFFFF);
}

static uint32
hash_i(uint64 i)
{
	uint64		x = h1(h1(i & 0xFFFFFFFF));

	return (uint32) (x ^ (x >> 16));
}

static CDAlloc *
bench_alloc(void)
{
	static CDAlloc alloc;

	memset(&alloc, 0, sizeof(alloc));
	alloc.aggcontext = stub_cxt_query;
	alloc.mcxt = stub_cxt_query;
	return &alloc;
}

/* a set of the rows of part (every NPARTS-th chunk; all rows: part -1) */
static CDSet *
build(const CDKeyType *kt, const int32 *v, size_t n, int part)
{
	CDAlloc    *alloc = bench_alloc();
	CDSet	   *s = cd_set_create(kt, alloc);

	for (size_t i = 0; i < n; i++)
	{
		if (part >= 0 && (int) ((i / CHUNK) % NPARTS) != part)
			continue;
		s = cd_set_add_value(s, Int32GetDatum(v[i]), alloc);
	}
	return s;
}

static void
report(const char *shape, const char *what, const double *t, int rounds)
{
	double		best = t[0];

	for (int r = 1; r < rounds; r++)
		best = Min(best, t[r]);
	printf("%-9s %-34s %8.1f ms  (", shape, what, best);
	for (int r = 0; r < rounds; r++)
		printf("%s%.1f", r ? " " : "", t[r]);
	printf(")\n");
}

static void
run_shape(const char *shape, const int32 *v, size_t n, uint32 want,
		  int rounds, const CDKeyType *kt)
{
	double		serial[64],
				ser[64],
				leader[64],
				count[64];

	for (int r = 0; r < rounds; r++)
	{
		CDSet	   *s;
		CDSet	   *part[NPARTS];
		bytea	   *state[NPARTS];
		CDSet	   *total = NULL;
		double		t0;
		uint32		c;

		/* serial: every row into one set, then its count */
		t0 = now_ms();
		s = build(kt, v, n, -1);
		c = cd_set_count(s);
		serial[r] = now_ms() - t0;
		if (c != want)
		{
			printf("FAIL: %s: serial count %u, want %u\n", shape, c, want);
			exit(1);
		}
		stub_reset(stub_cxt_query);

		/* parallel: three partial states (built untimed), serialized */
		for (int p = 0; p < NPARTS; p++)
			part[p] = build(kt, v, n, p);
		t0 = now_ms();
		for (int p = 0; p < NPARTS; p++)
			state[p] = cd_set_serialize(part[p], NULL);
		ser[r] = (now_ms() - t0) / NPARTS;

		/* the leader: each deserialized and combined, then the count */
		t0 = now_ms();
		for (int p = 0; p < NPARTS; p++)
		{
			StringInfoData buf;
			CDStateHeader h;
			CDSet	   *d;

			cd_state_read_header(&buf, VARDATA(state[p]),
								 VARSIZE(state[p]) - VARHDRSZ, NULL, &h);
			d = cd_set_deserialize(&buf, &h, kt, NULL);
			total = total ? cd_set_merge(total, d, bench_alloc()) :
				cd_set_take(d, stub_cxt_query);
		}
		leader[r] = now_ms() - t0;
		t0 = now_ms();
		c = cd_set_count(total);
		count[r] = now_ms() - t0;
		if (c != want)
		{
			printf("FAIL: %s: parallel count %u, want %u\n", shape, c, want);
			exit(1);
		}
		stub_reset(stub_cxt_query);
	}
	report(shape, "serial: append, compact, count", serial, rounds);
	report(shape, "parallel: one state serialized", ser, rounds);
	report(shape, "parallel: leader's 3 combines", leader, rounds);
	report(shape, "parallel: leader's count", count, rounds);
}

int
main(int argc, char **argv)
{
	size_t		n = argc > 1 ? (size_t) atol(argv[1]) : 10000000;
	int			rounds = argc > 2 ? atoi(argv[2]) : 5;
	int32	   *v = calloc(Max(n, 1), sizeof(int32));
	CDKeyType	kt;
	uint32		distinct = 0;

	if (v == NULL)
	{
		printf("FAIL: out of memory\n");
		return 1;
	}
	rounds = Max(1, Min(rounds, 64));
	stub_init();
	CurrentMemoryContext = stub_cxt_query;
	cd_keytype_init(&kt, INT4OID, InvalidOid, stub_cxt_fn);

	for (size_t i = 0; i < n; i++)
		v[i] = (int32) ((int64) hash_i(i) - 2147483648LL);
	run_shape("distinct", v, n, (uint32) n, rounds, &kt);

	/* half of the rows one value (bench.py's hh50) */
	for (size_t i = 0; i < n; i++)
	{
		uint32		u = hash_i(i);

		if (u % 100 < 50)
			u = 0;
		else
			distinct++;
		v[i] = (int32) ((int64) u - 2147483648LL);
	}
	run_shape("hh50", v, n, distinct + 1, rounds, &kt);
	free(v);
	return 0;
}
