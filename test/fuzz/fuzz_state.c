/*
 * fuzz_state.c
 *	  libFuzzer harness for decoding and merging count_distinct states.
 *
 * Each input is fed to deserialization (cd_state_read_header and
 * cd_set_deserialize) as the bytes of a serialized state.
 * Most inputs must be refused with an ERROR (caught here; everything that
 * was allocated is freed, like a memory context reset).  An input that is
 * accepted must be a valid set, and then:
 *   - its keys are strictly increasing and as many as the header says;
 *   - serialize() gives the input back, byte for byte;
 *   - a second set B, built with cd_fixed_add_key() (cd_packed_add_key() once
 *     it is large) from keys derived from the
 *     input (repeated keys, overlaps with A, enough keys for the radix sort),
 *     is merged with A both ways (cd_set_merge) and the result equals a
 *     reference merge computed here with qsort;
 *   - the union survives serialize -> deserialize -> serialize unchanged;
 *   - once everything is pfree'd, no chunk is left behind.
 * Any ERROR after a successful decode aborts (a bug).
 *
 * With CD_FUZZ_WRITE_CORPUS=DIR set, it writes a seed corpus of valid
 * states (every supported type, several sizes) into DIR and exits.
 *
 * Built by test/fuzz/build.sh against the server headers and pgstub.c.
 */
#include "postgres.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "catalog/pg_type.h"
#include "fmgr.h"

#include "key.h"
#include "registry.h"
#include "serialize.h"
#include "fixedset.h"
#include "registry.h"
#include "serialize.h"
#include "set.h"
#include "pgstub.h"

/*
 * The header of the serialized form (serialize.c): 4 bytes, the type
 * reference (1 and a 4-byte OID, or 2 and schema and name, NUL-terminated),
 * the collation reference (0 here: none), then n.  Returns the header's size
 * (n is in its last 4 bytes), or 0 if data holds no complete header.
 */
static size_t
header_size(const uint8_t *data, size_t size)
{
	size_t		pos = 4;

	if (pos >= size)
		return 0;
	if (data[pos] == 1)
		pos += 5;
	else if (data[pos] == 2)
	{
		pos++;
		for (int i = 0; i < 2; i++)
		{
			const uint8_t *nul;

			if (pos >= size)
				return 0;
			nul = memchr(data + pos, 0, size - pos);
			if (nul == NULL)
				return 0;
			pos = nul - data + 1;
		}
	}
	else
		return 0;
	pos++;						/* the collation reference */
	return pos + 4 <= size ? pos + 4 : 0;
}

#define CHECK(cond, what) \
	do { if (!(cond)) { fprintf(stderr, "fuzz_state: check failed: %s (%s:%d)\n", what, __FILE__, __LINE__); abort(); } } while (0)

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

/*
 * The packed fixed-width keys (keypack.h), decoded independently and
 * slowly, bit by bit: blocks of up to 128 keys, each a full big-endian key,
 * then (more keys) a bit width b and the gaps minus one, b bits each, least
 * significant bit first, zero-padded to a byte.  True if the bytes are
 * exactly n keys in that form.
 */
static bool
ref_unpack(const uint8_t *p, size_t len, int width, size_t n, uint64 *out)
{
	size_t		pos = 0;

	for (size_t start = 0; start < n; start += 128)
	{
		size_t		m = n - start < 128 ? n - start : 128;
		uint64		k = 0;
		size_t		bitpos;
		int			b;

		if (pos + width > len)
			return false;
		for (int j = 0; j < width; j++)
			k = (k << 8) | p[pos++];
		out[start] = k;
		if (m == 1)
			continue;
		if (pos >= len)
			return false;
		b = p[pos++];
		if (b > 64 || pos + ((m - 1) * b + 7) / 8 > len)
			return false;
		bitpos = pos * 8;
		for (size_t i = 1; i < m; i++)
		{
			uint64		v = 0;

			for (int bit = 0; bit < b; bit++, bitpos++)
				if (p[bitpos / 8] & (1 << (bitpos % 8)))
					v |= UINT64CONST(1) << bit;
			k = k + v + 1;
			out[start + i] = k;
		}
		pos += ((m - 1) * b + 7) / 8;
	}
	return pos == len;
}

/* the set's keys, read through its reader, are exactly expect[0 .. n-1] */
static void
check_set(CDSet *s, const uint64 *expect, size_t n, const char *what)
{
	CDKeyReader r;
	uint64		batch[CD_KEY_BATCH];
	uint32		m;
	size_t		i = 0;

	CHECK(cd_set_count(s) == n, what);
	cd_set_compact(s);
	CHECK(s->nsorted == n && s->nall == n, what);
	cd_set_ops(s)->reader(s, &r);
	while ((m = r.next_fixed(&r, batch, CD_KEY_BATCH)) > 0)
	{
		CHECK(i + m <= n, what);
		for (uint32 j = 0; j < m; j++, i++)
			CHECK(batch[j] == expect[i], what);
	}
	CHECK(i == n, what);
}

/* add a key to a fixed-width set of either kind (it may become packed) */
static CDSet *
add_key(CDSet *s, uint64 key, CDAlloc *alloc)
{
	if (s->kind == CD_SET_FIXED)
		return cd_fixed_add_key(s, key, alloc);
	return cd_packed_add_key(s, key);
}

/* free a set and, for a packed one, its buffers */
static void
free_set(CDSet *s)
{
	if (s->kind == CD_SET_PACKED)
		cd_packed_free(s);
	else
		pfree(s);
}

/* a state's bytes to a set, as the deserialization function does */
static CDSet *
deserialize(const char *data, Size len)
{
	StringInfoData buf;
	CDStateHeader h;
	const CDKeyType *kt;

	CDSet	   *set;

	cd_state_read_header(&buf, data, len, NULL, &h);
	kt = cd_registry_keytype(stub_agg_fcinfo(), h.typid, h.collation);
	set = cd_set_deserialize(&buf, &h, kt, NULL);
	/*
	 * A large state's keys are checked when first read (packedset.h:
	 * cd_packed_from_state), as a combine or final function reads them:
	 * here, where an ERROR is a refusal.
	 */
	(void) cd_set_count(set);
	return set;
}

static bytea *
serialize(CDSet *set)
{
	return cd_set_serialize(set, NULL);
}

/* decode bytes that must be valid (an ERROR aborts) */
static CDSet *
must_deserialize(const char *data, Size len)
{
	return deserialize(data, len);
}

/*
 * Where the harness's sets live: chunks in the query context, either as
 * under sorted aggregation (power-of-two growth) or as under hash
 * aggregation (fine-grained growth, new sets in slots).
 */
static CDAlloc *
harness_alloc(bool fine_grained)
{
	static CDAlloc alloc;

	memset(&alloc, 0, sizeof(alloc));
	/* slots (left behind when a set grows) go with the per-input reset */
	alloc.aggcontext = stub_cxt_fn;
	alloc.mcxt = stub_cxt_query;
	alloc.fine_grained = fine_grained;
	alloc.use_slots = fine_grained;	/* as under hash aggregation */
	return &alloc;
}

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int			LLVMFuzzerInitialize(int *argc, char ***argv);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sigjmp_buf	jb;
	CDAlloc    *alloc;
	CDSet	   *volatile a = NULL;
	CDSet	   *b;
	CDSet	   *u1;
	CDSet	   *u2;
	CDSet	   *a2;
	bool		a2_consumed;
	CDSet	   *r;
	bytea	   *ser;
	bytea	   *ser2;
	uint64	   *ref;
	uint64	   *bkeys;
	uint64		seed;
	size_t		n;
	size_t		nb;
	size_t		nref;
	size_t		i;
	size_t		HDR;

	CurrentMemoryContext = stub_cxt_query;

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
	a = deserialize((const char *) data, size);
	stub_error_jmp = NULL;		/* from here on, an ERROR is a bug */

	/* the accepted state */
	HDR = header_size(data, size);
	CHECK(HDR > 0, "accepted a state shorter than its header");
	n = ((size_t) data[HDR - 4] << 24) | ((size_t) data[HDR - 3] << 16) |
		((size_t) data[HDR - 2] << 8) | data[HDR - 1];
	CHECK(a->kt->width > 0, "the stub types are all fixed-width");
	CHECK(data[HDR - 5] == 0, "accepted a collation for a fixed-width key");
	CHECK(a->kt->width == data[2] && (int) a->kt->encoding == data[1], "header fields");
	ref = malloc(sizeof(uint64) * (n + 1));
	CHECK(ref_unpack(data + HDR, size - HDR, a->kt->width, n, ref), "accepted keys the reference decoder refuses");
	for (i = 0; i < n; i++)
	{
		CHECK(canonical(a->kt, ref[i]) == ref[i], "accepted a non-canonical key");
		CHECK(i == 0 || ref[i - 1] < ref[i], "accepted keys that are not strictly increasing");
	}
	check_set(a, ref, n, "decoded set");

	/* round trip */
	ser = serialize(a);
	CHECK(VARSIZE(ser) - VARHDRSZ == size, "re-serialized length");
	CHECK(memcmp(VARDATA(ser), data, size) == 0, "re-serialized bytes");
	pfree(ser);

	/* B: keys derived from the input, with repeated keys and overlaps */
	seed = 0x9E3779B97F4A7C15;
	for (i = 0; i < size; i++)
		seed = (seed ^ data[i]) * 0x100000001B3;
	if (seed == 0)
		seed = 1;
	nb = (size_t) (seed % 3) == 0 ? 0 : (size_t) (xorshift(&seed) % (4 * n + 2000));
	bkeys = malloc(sizeof(uint64) * (nb + 1));
	{
		uint64		mask = (xorshift(&seed) & 1) ? 0xFF : ~UINT64CONST(0);

		for (i = 0; i < nb; i++)
		{
			uint64		x = xorshift(&seed);

			if (n > 0 && (x & 3) == 0)
				bkeys[i] = ref[x % n];	/* already in A */
			else if ((x & 3) == 1 && i > 0)
				bkeys[i] = bkeys[i - 1 - (x >> 8) % i];	/* a duplicate */
			else
				bkeys[i] = canonical(a->kt, (x >> 2) & mask);
		}
	}
	alloc = harness_alloc((seed & 4) != 0);
	b = cd_set_create(a->kt, alloc);
	for (i = 0; i < nb; i++)
		b = add_key(b, bkeys[i], alloc);

	/* the reference union */
	ref = realloc(ref, sizeof(uint64) * (n + nb + 1));
	memcpy(ref + n, bkeys, sizeof(uint64) * nb);
	qsort(ref, n + nb, sizeof(uint64), cmp_u64);
	nref = 0;
	for (i = 0; i < n + nb; i++)
		if (nref == 0 || ref[nref - 1] != ref[i])
			ref[nref++] = ref[i];

	u1 = cd_set_merge(cd_set_copy(a, stub_cxt_query), b, alloc);
	check_set(u1, ref, nref, "union A+B");
	/*
	 * as a combine function merges a deserialized state, which a large one
	 * is consumed by (packedset.h: runs), so not a itself
	 */
	a2 = must_deserialize((const char *) data, size);
	a2_consumed = cd_packed_takeable(a2);
	u2 = cd_set_merge(cd_set_copy(b, stub_cxt_query), a2, alloc);
	check_set(u2, ref, nref, "union B+A");

	/* the union survives a round trip */
	ser = serialize(u1);
	r = must_deserialize(VARDATA(ser), VARSIZE(ser) - VARHDRSZ);
	check_set(r, ref, nref, "union after a round trip");
	ser2 = serialize(r);
	CHECK(VARSIZE(ser) == VARSIZE(ser2) && memcmp(ser, ser2, VARSIZE(ser)) == 0,
		  "union serialized twice");

	pfree(ser);
	pfree(ser2);
	free_set(r);
	free_set(u1);
	free_set(u2);
	free_set(b);
	free_set(a);
	if (!a2_consumed)
		free_set(a2);
	CHECK(stub_live_chunks(stub_cxt_query) == 0, "chunks left behind");
	stub_reset(stub_cxt_fn);
	free(ref);
	free(bkeys);
	return 0;
}

/* CD_FUZZ_WRITE_CORPUS=DIR: valid states for every supported type */
static void
write_corpus(const char *dir)
{
	static const size_t sizes[] = {0, 1, 2, 7, 100, 700};
	uint64		seed = 42;
	int			nfiles = 0;

	for (const StubType *t = stub_type_list(); t->typid != InvalidOid; t++)
	{
		for (size_t si = 0; si < lengthof(sizes); si++)
		{
			/* keep the corpus small: the largest size for a few types */
			if (sizes[si] > 100 && t->typid != INT4OID && t->typid != FLOAT8OID &&
				t->typid != CHAROID)
				continue;
			sigjmp_buf	jb;
			CDKeyType	kt;
			CDSet	   *s;
			bytea	   *ser;
			char		path[1024];
			FILE	   *f;

			stub_error_jmp = &jb;
			if (sigsetjmp(jb, 0) != 0)
			{
				stub_error_jmp = NULL;
				stub_reset(stub_cxt_query);
				break;			/* an unsupported type */
			}
			cd_keytype_init(&kt, t->typid, InvalidOid, stub_cxt_fn);
			stub_error_jmp = NULL;
			s = cd_set_create(&kt, harness_alloc(si % 2));
			for (size_t i = 0; i < sizes[si]; i++)
				s = add_key(s, canonical(&kt, xorshift(&seed) >> (si % 2 ? 0 : 40)),
							  harness_alloc(si % 2));
			ser = serialize(s);
			snprintf(path, sizeof(path), "%s/state-%u-%zu", dir, t->typid, sizes[si]);
			f = fopen(path, "wb");
			CHECK(f != NULL, "open corpus file");
			fwrite(VARDATA(ser), 1, VARSIZE(ser) - VARHDRSZ, f);
			fclose(f);
			nfiles++;
			stub_reset(stub_cxt_query);
		}
	}

	/*
	 * A state large enough to be decoded into a packed set (packedset.h),
	 * yet short: 30000 int4 keys in runs of consecutive keys, the blocks of
	 * a run one byte each
	 */
	{
		CDKeyType	kt;
		CDSet	   *s;
		bytea	   *ser;
		char		path[1024];
		FILE	   *f;
		uint64		key = 1000;

		cd_keytype_init(&kt, INT4OID, InvalidOid, stub_cxt_fn);
		s = cd_set_create(&kt, harness_alloc(false));
		for (size_t i = 0; i < 30000; i++)
		{
			s = add_key(s, key, harness_alloc(false));
			key += (i % 1000 == 999) ? 1 + xorshift(&seed) % 5000 : 1;
		}
		ser = serialize(s);
		snprintf(path, sizeof(path), "%s/state-%u-runs-30000", dir, INT4OID);
		f = fopen(path, "wb");
		CHECK(f != NULL, "open corpus file");
		fwrite(VARDATA(ser), 1, VARSIZE(ser) - VARHDRSZ, f);
		fclose(f);
		nfiles++;
		stub_reset(stub_cxt_query);
		stub_reset(stub_cxt_fn);
	}
	printf("wrote %d states to %s\n", nfiles, dir);
}

/*
 * CD_FUZZ_LIMITS=1: states too large for PostgreSQL's 1 GB limit on a
 * serialized state, or for an array, must be refused with SQLSTATE 54000
 * before anything is allocated or decoded (the stub refuses requests over
 * 64 MB with 53200, which fails the check).  The synthetic sets' keys are
 * untouched anonymous memory (zeros: read as gaps of 2^64 - 1, the widest
 * packing), so a set of gigabytes costs no RAM.
 */
static void
check_limits(void)
{
	static const struct
	{
		Oid			typid;
		uint32		n;
		bool		as_array;
	}			cases[] = {
		{INT4OID, 300000000, false},	/* 1.2 GB of keys */
		{INT8OID, 140000000, false},	/* 1.1 GB */
		{INT8OID, 536870912, false},	/* 4 GB: wraps a 32-bit size */
		{INT4OID, 140000000, true},	/* more than MaxArraySize elements */
		{INT2OID, 4000000000u, true},	/* far more */
	};

	for (size_t i = 0; i < lengthof(cases); i++)
	{
		sigjmp_buf	jb;
		const CDKeyType *kt;
		CDFixedSet *set;
		size_t		maplen;
		uint32		n;

		CurrentMemoryContext = stub_cxt_query;
		kt = cd_registry_keytype(stub_agg_fcinfo(), cases[i].typid, InvalidOid);
		/* the keys: untouched anonymous memory, all zero, costs no RAM */
		maplen = CD_FIXED_HEADER_SIZE + (size_t) cases[i].n * kt->width;
		set = mmap(NULL, maplen, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		CHECK(set != MAP_FAILED, "mmap");
		set->kt = kt;
		set->kind = CD_SET_FIXED;
		set->extra = kt->width;
		set->flags = 0;
		set->nall = set->nsorted = set->capacity = cases[i].n;

		stub_error_jmp = &jb;
		if (sigsetjmp(jb, 0) == 0)
		{
			if (cases[i].as_array)
				(void) cd_set_output_datums((CDSet *) set, &n);
			else
				(void) serialize((CDSet *) set);
			stub_error_jmp = NULL;
			CHECK(false, "a state over the limit was not refused");
		}
		stub_error_jmp = NULL;
		if (stub_last_sqlstate != ERRCODE_PROGRAM_LIMIT_EXCEEDED)
			fprintf(stderr, "case %zu: SQLSTATE code %d\n", i,
					stub_last_sqlstate);
		CHECK(stub_last_sqlstate == ERRCODE_PROGRAM_LIMIT_EXCEEDED,
			  "a state over the limit was refused with the wrong SQLSTATE");
		printf("ok: %u keys of type %u refused as %s (54000)\n", cases[i].n,
			   cases[i].typid, cases[i].as_array ? "an array" : "a serialized state");
		munmap(set, maplen);
		stub_reset(stub_cxt_query);
		stub_reset(stub_cxt_fn);
	}
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *dir = getenv("CD_FUZZ_WRITE_CORPUS");
	const char *limits = getenv("CD_FUZZ_LIMITS");

	stub_init();
	if (limits != NULL && *limits != '\0')
	{
		check_limits();
		exit(0);
	}
	if (dir != NULL && *dir != '\0')
	{
		write_corpus(dir);
		exit(0);
	}
	return 0;
}
