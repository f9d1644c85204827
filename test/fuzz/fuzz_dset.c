/*
 * fuzz_dset.c
 *	  libFuzzer harness for the stored-set format (distinct_set, src/dset.h)
 *	  and the set algebra on its keys.
 *
 * Each input is fed to dset_decode() as the bytes of a stored set.  Most
 * inputs must be refused with an ERROR of an expected SQLSTATE (caught here;
 * the contexts are reset).  An input that is accepted must be a valid set:
 *   - as many keys as the header's count (dset_count), strictly increasing,
 *     each one its type's encoding gives;
 *   - dset_encode() gives the input back, byte for byte (canonical), or
 *     the same keys in the other layout (binary input refuses those);
 *   - its keys read in place (dset_key_range, dset_foreach_key) are the
 *     decoded ones; on any input, reading in place stays in bounds;
 *   - with a second run B derived from the input (repeated keys, overlaps,
 *     runs of consecutive keys), union, intersection and difference both
 *     ways equal reference results computed here with qsort and bsearch,
 *     containment and overlap agree with them, and every result survives
 *     encode -> decode -> encode unchanged.
 * Any ERROR after a successful decode aborts (a bug).
 *
 * The stub catalog (pgstub.c) has fixed-width types only: this covers the
 * header, the type references and both layouts of fixed-width keys (blocks
 * and runs); byte keys are covered by the regression tests.
 *
 * With CD_FUZZ_WRITE_CORPUS=DIR set, it writes a seed corpus of valid
 * stored sets into DIR and exits.
 *
 * Built by test/fuzz/build.sh (HARNESS dset) against the server headers and
 * pgstub.c.
 */
#include "postgres.h"

#include <stdio.h>
#include <stdlib.h>

#include "access/transam.h"
#include "catalog/pg_type.h"
#include "fmgr.h"

#include "dset.h"
#include "key.h"
#include "pgstub.h"

#define CHECK(cond, what) \
	do { if (!(cond)) { fprintf(stderr, "fuzz_dset: check failed: %s (%s:%d)\n", what, __FILE__, __LINE__); abort(); } } while (0)

static uint64
xorshift(uint64 *s)
{
	uint64		x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64		x = *(const uint64 *) a;
	uint64		y = *(const uint64 *) b;

	return (x > y) - (x < y);
}

static uint64
canonical(const CDKeyType *kt, uint64 raw)
{
	if (kt->width < 8)
		raw &= (UINT64CONST(1) << (8 * kt->width)) - 1;
	return cd_key_encode(kt, cd_key_decode(kt, raw));
}

/* sort and deduplicate; returns the new length */
static size_t
sort_unique(uint64 *v, size_t n)
{
	size_t		m = 0;

	qsort(v, n, sizeof(uint64), cmp_u64);
	for (size_t i = 0; i < n; i++)
		if (m == 0 || v[m - 1] != v[i])
			v[m++] = v[i];
	return m;
}

static bool
has(const uint64 *v, size_t n, uint64 key)
{
	return bsearch(&key, v, n, sizeof(uint64), cmp_u64) != NULL;
}

static void
check_run(const DSKeys *k, const uint64 *expect, size_t n, const char *what)
{
	CHECK(k->n == n, what);
	for (size_t i = 0; i < n; i++)
		CHECK(dsk_get(k, (uint32) i) == expect[i], what);
}

static void
to_run(DSKeys *k, const CDKeyType *kt, const uint64 *v, size_t n)
{
	dsk_alloc(k, kt, (uint32) n);
	for (size_t i = 0; i < n; i++)
		dsk_put(k, (uint32) i, v[i]);
	k->n = (uint32) n;
}

/* encode, decode, encode: the same bytes and keys */
static void
round_trip(FunctionCallInfo fcinfo, const CDKeyType *kt, const DSKeys *k,
		   const char *what)
{
	bytea	   *e1 = dset_encode(kt, k);
	DSKeys		d;
	bytea	   *e2;

	CHECK(dset_decode(fcinfo, e1, &d) != NULL, what);
	CHECK(d.n == k->n && dset_count(e1) == k->n, what);
	for (uint32 i = 0; i < k->n; i++)
		CHECK(dsk_get(&d, i) == dsk_get(k, i), what);
	e2 = dset_encode(kt, &d);
	CHECK(VARSIZE(e1) == VARSIZE(e2) && memcmp(e1, e2, VARSIZE(e1)) == 0, what);
}

/* what dset_foreach_key passes, against the decoded keys (if any) */
typedef struct InPlace
{
	const uint64 *expect;
	size_t		n;
	size_t		seen;
	bool		same;
} InPlace;

static void
count_keys(const uint64 *keys, uint32 m, void *arg)
{
	InPlace    *ip = (InPlace *) arg;

	if (ip->seen == 0)
		ip->same = true;
	if (m == 0 || m > DSET_BLOCK)
		ip->same = false;
	for (uint32 j = 0; j < m; j++)
	{
		if (ip->expect != NULL && (ip->seen >= ip->n || ip->expect[ip->seen] != keys[j]))
			ip->same = false;
		ip->seen++;
	}
}

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int			LLVMFuzzerInitialize(int *argc, char ***argv);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sigjmp_buf	jb;
	FmgrInfo	flinfo;
	LOCAL_FCINFO(fcinfo, 2);
	bytea	   *ds;
	bytea	   *again;
	DSKeys		a,
				b,
				r;
	const CDKeyType *kt;
	uint64	   *av;
	uint64	   *bv;
	uint64	   *ref;
	size_t		n,
				nb,
				nref;
	uint64		seed;

	CurrentMemoryContext = stub_cxt_query;
	memset(&flinfo, 0, sizeof(flinfo));
	flinfo.fn_mcxt = stub_cxt_fn;
	fcinfo->flinfo = &flinfo;
	fcinfo->context = NULL;
	fcinfo->resultinfo = NULL;
	fcinfo->fncollation = InvalidOid;

	ds = palloc(VARHDRSZ + size);
	SET_VARSIZE(ds, VARHDRSZ + size);
	memcpy(VARDATA(ds), data, size);

	stub_error_jmp = &jb;
	if (sigsetjmp(jb, 0) != 0)
	{
		/* refused: fine, but only with an ordinary error code */
		stub_error_jmp = NULL;
		CHECK(stub_last_sqlstate == ERRCODE_INVALID_BINARY_REPRESENTATION ||
			  stub_last_sqlstate == ERRCODE_PROTOCOL_VIOLATION ||
			  stub_last_sqlstate == ERRCODE_UNDEFINED_OBJECT ||
			  stub_last_sqlstate == ERRCODE_FEATURE_NOT_SUPPORTED ||
			  stub_last_sqlstate == ERRCODE_UNDEFINED_FUNCTION ||
			  stub_last_sqlstate == ERRCODE_PROGRAM_LIMIT_EXCEEDED ||
			  stub_last_sqlstate == ERRCODE_OUT_OF_MEMORY,
			  "refused with an unexpected SQLSTATE");
		stub_reset(stub_cxt_query);
		stub_reset(stub_cxt_fn);
		return 0;
	}
	/*
	 * Reading keys in place (dset_key_range, dset_foreach_key) is meant for
	 * stored values, but must stay in bounds on any bytes: try it first
	 * (an ERROR is fine here).
	 */
	{
		DSHeader	h;

		(void) dset_header(fcinfo, ds, &h);
		if (h.kt->width > 0 && h.n > 0 && h.n <= 100000)
		{
			uint64		first,
						last;
			InPlace		ip = {0};

			uint64		bits[64] = {0};

			dset_key_range(ds, &h, &first, &last);
			dset_foreach_key(ds, &h, count_keys, &ip);
			/* a bitmap of 4096 keys from the first: the rest ignored */
			dset_or_bits(ds, &h, bits, first, 4096);
		}
	}
	flinfo.fn_extra = NULL;
	stub_reset(stub_cxt_fn);
	kt = dset_decode(fcinfo, ds, &a);
	stub_error_jmp = NULL;		/* from here on, an ERROR is a bug */

	/* the accepted set */
	n = a.n;
	CHECK(dset_count(ds) == n, "count in the header");
	CHECK(a.width == kt->width && a.width > 0, "the stub types are all fixed-width");
	av = malloc(sizeof(uint64) * (n + 1));
	for (size_t i = 0; i < n; i++)
	{
		av[i] = dsk_get(&a, (uint32) i);
		CHECK(canonical(kt, av[i]) == av[i], "accepted a non-canonical key");
		CHECK(dsk_key_is_canonical(kt, av[i]), "dsk_key_is_canonical");
		CHECK(i == 0 || av[i - 1] < av[i], "accepted keys that are not strictly increasing");
	}
	/*
	 * Decoding does not check that the layout is the shorter one, nor that
	 * a built-in element type goes by its OID (the type reference at offset
	 * 8: 1 and the OID, or 2 and schema and name), and it reads a domain by
	 * name as sets of 4.2.0 hold it, which encoding writes by OID (3):
	 * binary input encodes again and refuses what does not come back the
	 * same (dset_io.c), as here.  Such input must still decode to a valid
	 * set.
	 */
	again = dset_encode(kt, &a);
	if (VARSIZE(again) != VARSIZE(ds) || memcmp(again, ds, VARSIZE(ds)) != 0)
	{
		CHECK((data[3] & DSET_FLAG_RUNS) != ((const uint8_t *) VARDATA(again))[3] ||
			  (size > 8 && data[8] == 2),
			  "accepted bytes that encode differently in the same layout");
		free(av);
		stub_reset(stub_cxt_query);
		stub_reset(stub_cxt_fn);
		return 0;
	}

	/* the keys read in place are the decoded ones */
	if (n > 0)
	{
		DSHeader	h;
		uint64		first,
					last;
		InPlace		ip = {0};

		(void) dset_header(fcinfo, ds, &h);
		dset_key_range(ds, &h, &first, &last);
		CHECK(first == av[0] && last == av[n - 1], "dset_key_range");
		ip.expect = av;
		ip.n = n;
		dset_foreach_key(ds, &h, count_keys, &ip);
		CHECK(ip.seen == n && ip.same, "dset_foreach_key");

		/* dset_or_bits: the keys within 4096 of a base at or below the first */
		{
			uint64		bits[64] = {0};
			uint64		base = av[0] - Min(av[0], (uint64) (data[0] & 0x3F));
			size_t		inside = 0;
			size_t		set = 0;

			dset_or_bits(ds, &h, bits, base, 4096);
			for (size_t i = 0; i < n; i++)
				if (av[i] - base < 4096)
				{
					inside++;
					CHECK((bits[(av[i] - base) >> 6] >> ((av[i] - base) & 63)) & 1,
						  "dset_or_bits: a key's bit not set");
				}
			for (int w = 0; w < 64; w++)
				set += __builtin_popcountll(bits[w]);
			CHECK(set == inside, "dset_or_bits: bits of keys not in the set");
		}
	}

	/* B: keys derived from the input, with repeats, overlaps and runs */
	seed = 0x9E3779B97F4A7C15;
	for (size_t i = 0; i < size; i++)
		seed = (seed ^ data[i]) * 0x100000001B3;
	if (seed == 0)
		seed = 1;
	nb = (size_t) (seed % 4) == 0 ? 0 : (size_t) (xorshift(&seed) % (2 * n + 300));
	bv = malloc(sizeof(uint64) * (nb + 1));
	{
		uint64		mask = (xorshift(&seed) & 1) ? 0xFF : ~UINT64CONST(0);

		for (size_t i = 0; i < nb; i++)
		{
			uint64		x = xorshift(&seed);

			if (n > 0 && (x & 3) == 0)
				bv[i] = av[x % n];	/* in A */
			else if ((x & 3) == 1 && i > 0)
				bv[i] = canonical(kt, bv[i - 1] + 1);	/* a run */
			else if ((x & 7) == 2 && i > 0)
				bv[i] = bv[(x >> 8) % i];	/* a repeat */
			else
				bv[i] = canonical(kt, (x >> 3) & mask);
		}
	}
	nb = sort_unique(bv, nb);
	to_run(&b, kt, bv, nb);
	round_trip(fcinfo, kt, &b, "B round trip");

	ref = malloc(sizeof(uint64) * (n + nb + 1));

	/* union */
	memcpy(ref, av, sizeof(uint64) * n);
	memcpy(ref + n, bv, sizeof(uint64) * nb);
	nref = sort_unique(ref, n + nb);
	dsk_union(&r, &a, &b);
	check_run(&r, ref, nref, "A | B");
	round_trip(fcinfo, kt, &r, "A | B round trip");
	dsk_union(&r, &b, &a);
	check_run(&r, ref, nref, "B | A");

	/* intersection */
	nref = 0;
	for (size_t i = 0; i < n; i++)
		if (has(bv, nb, av[i]))
			ref[nref++] = av[i];
	dsk_intersect(&r, &a, &b);
	check_run(&r, ref, nref, "A & B");
	round_trip(fcinfo, kt, &r, "A & B round trip");
	dsk_intersect(&r, &b, &a);
	check_run(&r, ref, nref, "B & A");
	CHECK(dsk_overlaps(&a, &b) == (nref > 0), "A && B");
	CHECK(dsk_overlaps(&b, &a) == (nref > 0), "B && A");
	CHECK(dsk_contains_all(&a, &b) == (nref == nb), "A @> B");
	CHECK(dsk_contains_all(&b, &a) == (nref == n), "B @> A");

	/* differences */
	nref = 0;
	for (size_t i = 0; i < n; i++)
		if (!has(bv, nb, av[i]))
			ref[nref++] = av[i];
	dsk_difference(&r, &a, &b);
	check_run(&r, ref, nref, "A - B");
	round_trip(fcinfo, kt, &r, "A - B round trip");
	nref = 0;
	for (size_t i = 0; i < nb; i++)
		if (!has(av, n, bv[i]))
			ref[nref++] = bv[i];
	dsk_difference(&r, &b, &a);
	check_run(&r, ref, nref, "B - A");

	free(av);
	free(bv);
	free(ref);
	stub_reset(stub_cxt_query);
	stub_reset(stub_cxt_fn);
	return 0;
}

/* CD_FUZZ_WRITE_CORPUS=DIR: valid stored sets, both layouts */
static void
write_corpus(const char *dir)
{
	static const size_t sizes[] = {0, 1, 2, 5, 130, 600};
	uint64		seed = 42;
	int			nfiles = 0;
	FmgrInfo	flinfo;
	LOCAL_FCINFO(fcinfo, 2);

	memset(&flinfo, 0, sizeof(flinfo));
	flinfo.fn_mcxt = stub_cxt_fn;
	fcinfo->flinfo = &flinfo;
	fcinfo->context = NULL;

	for (const StubType *t = stub_type_list(); t->typid != InvalidOid; t++)
	{
		for (size_t si = 0; si < lengthof(sizes); si++)
		{
			for (int pattern = 0; pattern < 2; pattern++)
			{
				sigjmp_buf	jb;
				const CDKeyType *kt;
				uint64	   *v;
				size_t		m;
				DSKeys		k;
				bytea	   *e;
				char		path[1024];
				FILE	   *f;

				if (sizes[si] > 130 && t->typid != INT4OID && t->typid != FLOAT8OID)
					continue;
				flinfo.fn_extra = NULL;
				stub_error_jmp = &jb;
				if (sigsetjmp(jb, 0) != 0)
				{
					stub_error_jmp = NULL;
					stub_reset(stub_cxt_query);
					stub_reset(stub_cxt_fn);
					break;		/* an unsupported type */
				}
				kt = dsk_keytype(fcinfo, t->typid);
				stub_error_jmp = NULL;
				v = malloc(sizeof(uint64) * (sizes[si] + 1));
				for (size_t i = 0; i < sizes[si]; i++)
				{
					/* pattern 1: runs of consecutive keys */
					if (pattern == 1 && i > 0 && (xorshift(&seed) & 7) != 0)
						v[i] = canonical(kt, v[i - 1] + 1);
					else
						v[i] = canonical(kt, xorshift(&seed) >> (si % 2 ? 0 : 40));
				}
				m = sort_unique(v, sizes[si]);
				to_run(&k, kt, v, m);
				e = dset_encode(kt, &k);
				snprintf(path, sizeof(path), "%s/dset-%u-%zu-%d", dir, t->typid,
						 sizes[si], pattern);
				f = fopen(path, "wb");
				CHECK(f != NULL, "open corpus file");
				fwrite(VARDATA(e), 1, VARSIZE(e) - VARHDRSZ, f);
				fclose(f);
				nfiles++;
				free(v);
				stub_reset(stub_cxt_query);
				stub_reset(stub_cxt_fn);
			}
		}
	}
	printf("wrote %d stored sets to %s\n", nfiles, dir);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *dir = getenv("CD_FUZZ_WRITE_CORPUS");

	stub_init();
	if (dir != NULL && *dir != '\0')
	{
		write_corpus(dir);
		exit(0);
	}
	return 0;
}
