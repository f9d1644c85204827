/*
 * fuzz_state.c
 *	  libFuzzer harness for decoding and merging count_distinct states.
 *
 * Each input is fed to deserialization (cd_state_read_header and
 * cd_set_deserialize) as the bytes of a serialized state.
 * Most inputs must be refused with an ERROR (caught here; everything that
 * was allocated is freed, like a memory context reset).  An input that is
 * accepted must be a valid set.  The stub catalog (pgstub.c) has the
 * fixed-width key types, bytea (byte keys, CD_KEY_BYTES), int4[] and
 * float8[] (array keys).
 *
 * Fixed-width keys (fuzz_fixed):
 *   - its keys, decoded again by a slow reference decoder of serialkeys.h's
 *     fixed-width form, are strictly increasing, canonical and as many as
 *     the header says, and the set holds exactly those;
 *   - serialize() gives the input back, byte for byte;
 *   - a second set B, built with cd_fixed_add_key() (cd_packed_add_key() once
 *     it is large) from keys derived from the
 *     input (repeated keys, overlaps with A, enough keys for the radix sort),
 *     is merged with A both ways (cd_set_merge) and the result equals a
 *     reference merge computed here with qsort;
 *   - the union survives serialize -> deserialize -> serialize unchanged;
 *   - once everything is pfree'd, no chunk is left behind.
 *
 * Byte keys (fuzz_bytes), the same:
 *   - a slow reference decoder of serialkeys.h's byte form (for each key the
 *     shared-prefix length and the rest's length, then the rest) must
 *     accept the keys: the first key shares nothing, each later one shares
 *     exactly its longest common prefix with the key before and is greater
 *     (byte-wise unsigned, a proper prefix first), and the bytes end with
 *     the n-th key; the set holds exactly those keys, in that order.  A
 *     refused input with a byte-key header must be one the reference
 *     decoder refuses too;
 *   - a large state (CD_FRONT_MIN_BYTES) becomes a front-coded set
 *     (frontset.h: cd_front_from_state), whose sorted part must be the
 *     input's keys as they are; a smaller one a variable-size set;
 *   - serialize() gives the input back, byte for byte;
 *   - a second set B, built through the per-row path (cd_set_add_value of
 *     bytea Datums, some with a short header) from keys derived from the
 *     input (keys of A, duplicates, new keys sharing prefixes with A's, the
 *     empty key, zero bytes, URL-like keys), sometimes large enough to
 *     become front-coded on the way, is merged with A both ways and the
 *     result equals a reference union (qsort, memcmp order, dedup); its
 *     count, its output values and its serialized keys (the reference
 *     front coding of the union) are checked too;
 *   - the union survives serialize -> deserialize -> serialize unchanged;
 *   - once everything is pfree'd, no chunk is left behind, in the query
 *     context nor in the aggregate context (where front-coded sets live).
 * Array keys (fuzz_array; key_record.c), states of int4[] and float8[]
 * (stub_enable_arrays):
 *   - every key is one a reference parser of the array key form accepts
 *     (elements, NULLs, dimensions, lower bounds; the elements' keys as
 *     encoding writes them: one zero, one NaN), and the codec decodes it
 *     into exactly that array, which it encodes back into the same bytes;
 *   - the keys are strictly increasing, and in array_cmp's order (a
 *     reference of it) on consecutive and on random pairs;
 *   - serialize() gives the input back, byte for byte;
 *   - a refused state of arrays is one the reference finds invalid too.
 * Any ERROR after a successful decode aborts (a bug).
 *
 * Built with small thresholds (build.sh: CD_FUZZ_CFLAGS, e.g.
 * -DCD_PACKED_MIN_BYTES=256 -DCD_FRONT_MIN_BYTES=256 -DCD_FRONT_ALWAYS=1),
 * inputs of a few kB reach the large-state paths: packed sets of
 * fixed-width keys (packedset.h: cd_packed_from_state) and front-coded sets
 * of byte keys.  cd_front_state_stays_front, which reads the keys before they
 * are checked, is called on every input with a byte-key header.
 *
 * With CD_FUZZ_WRITE_CORPUS=DIR set, it writes a seed corpus of valid
 * states (every supported type, several sizes) into DIR and exits.  With
 * CD_FUZZ_STATS=1, it prints at exit how many inputs took which path.
 *
 * Built by test/fuzz/build.sh against the server headers and pgstub.c.
 */
#include "postgres.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "utils/array.h"
#include "utils/float.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "blockcodec.h"
#include "errors.h"
#include "fixedset.h"
#include "frontcode.h"
#include "frontset.h"
#include "key.h"
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

/* a big-endian uint32 */
static uint32
get_u32(const uint8_t *p)
{
	return ((uint32) p[0] << 24) | ((uint32) p[1] << 16) |
		((uint32) p[2] << 8) | p[3];
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

/* a seed for the second set, from the input's bytes */
static uint64
input_seed(const uint8_t *data, size_t size)
{
	uint64		seed = 0x9E3779B97F4A7C15;

	for (size_t i = 0; i < size; i++)
		seed = (seed ^ data[i]) * 0x100000001B3;
	return seed == 0 ? 1 : seed;
}

/* which paths the inputs took (CD_FUZZ_STATS=1 prints them at exit) */
static struct
{
	long		refused;
	long		fixed;			/* accepted states of fixed-width keys */
	long		fixed_packed;	/* ... decoded into a packed set */
	long		fixed_b_packed; /* ... whose B became a packed set */
	long		bytes;			/* accepted states of byte keys */
	long		bytes_front;	/* ... decoded into a front-coded set */
	long		bytes_b_front;	/* ... whose B became front-coded */
	long		bytes_union_front;	/* ... whose union came back front-coded */
	long		bytes_refused;	/* refused, with a byte-key header */
	long		arrays;			/* accepted states of int4[] or float8[] */
	long		arrays_refused; /* refused, with such a header */
}			stats;

static void
print_stats(void)
{
	printf("stats: %ld refused; fixed-width: %ld accepted, %ld packed, "
		   "%ld with B packed; bytes: %ld accepted, %ld front-coded, "
		   "%ld with B front-coded, %ld with the union front-coded once "
		   "deserialized, %ld refused; arrays: %ld accepted, %ld refused\n",
		   stats.refused, stats.fixed, stats.fixed_packed,
		   stats.fixed_b_packed, stats.bytes, stats.bytes_front,
		   stats.bytes_b_front, stats.bytes_union_front,
		   stats.bytes_refused, stats.arrays, stats.arrays_refused);
}

/* an accepted state's set serializes back to its bytes, byte for byte */
static void
check_round_trip(CDSet *a, const uint8_t *data, size_t size)
{
	bytea	   *ser = cd_set_serialize(a, NULL);

	CHECK(VARSIZE(ser) - VARHDRSZ == size, "re-serialized length");
	CHECK(memcmp(VARDATA(ser), data, size) == 0, "re-serialized bytes");
	pfree(ser);
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

/* ----------------------------------------------------------------
 *		Fixed-width keys
 * ----------------------------------------------------------------
 */

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
 * The packed fixed-width keys (serialkeys.h), decoded independently and
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

/*
 * The trusting decoder of blocks (blockcodec.h) on keys the validating one
 * accepted gives the keys of the reference, both where the bytes allow
 * whole-word loads (a copy with slack) and where they do not (the bytes in
 * place, to their end).
 */
static bool
trusting_matches(const uint8_t *p, size_t len, int width, size_t n,
				 const uint64 *expect)
{
	const uint8 *end = p + len;
	uint64		keys[CD_BLOCK_KEYS];

	for (size_t start = 0; start < n; start += CD_BLOCK_KEYS)
	{
		uint32		m = n - start < CD_BLOCK_KEYS ? n - start : CD_BLOCK_KEYS;
		uint64		first;
		int			b;
		const uint8 *gaps;
		const uint8 *next;
		uint8	   *copy;
		size_t		bytes;

		next = cd_block_read_head(p, end, width, m, &first, &b, &gaps,
								  CD_WHAT_STATE);
		bytes = next - gaps;
		cd_block_decode_gaps(gaps, end - gaps, b, m, first, keys);
		if (memcmp(keys, expect + start, m * sizeof(uint64)) != 0)
			return false;
		copy = calloc(1, bytes + CD_BLOCK_SLACK);
		memcpy(copy, gaps, bytes);
		cd_block_decode_gaps(copy, bytes + CD_BLOCK_SLACK, b, m, first, keys);
		free(copy);
		if (memcmp(keys, expect + start, m * sizeof(uint64)) != 0)
			return false;
		p = next;
	}
	return p == end;
}

/* the set's keys, read through its reader, are exactly expect[0 .. n-1] */
static void
fixed_check_set(CDSet *s, const uint64 *expect, size_t n, const char *what)
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
fixed_add_key(CDSet *s, uint64 key, CDAlloc *alloc)
{
	if (s->kind == CD_SET_FIXED)
		return cd_fixed_add_key(s, key, alloc);
	return cd_packed_add_key(s, key);
}

/* free a fixed-width set and, for a packed one, its buffers */
static void
fixed_free_set(CDSet *s)
{
	if (s->kind == CD_SET_PACKED)
		cd_packed_free(s);
	else
		pfree(s);
}

/*
 * The checks of an accepted state of fixed-width keys: a, decoded from the
 * size bytes at data, whose header takes hdr bytes and says n keys.
 */
static void
fuzz_fixed(CDSet *a, const uint8_t *data, size_t size, size_t hdr, size_t n)
{
	CDAlloc    *alloc;
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
	size_t		nb;
	size_t		nref;
	size_t		i;

	stats.fixed++;
	stats.fixed_packed += (a->kind == CD_SET_PACKED);
	CHECK(data[hdr - 5] == 0, "accepted a collation for a fixed-width key");
	CHECK(a->kt->width == data[2] && (int) a->kt->encoding == data[1], "header fields");
	ref = malloc(sizeof(uint64) * (n + 1));
	CHECK(ref_unpack(data + hdr, size - hdr, a->kt->width, n, ref), "accepted keys the reference decoder refuses");
	CHECK(trusting_matches(data + hdr, size - hdr, a->kt->width, n, ref), "the trusting decoder reads other keys than the validating one");
	for (i = 0; i < n; i++)
	{
		CHECK(canonical(a->kt, ref[i]) == ref[i], "accepted a non-canonical key");
		CHECK(i == 0 || ref[i - 1] < ref[i], "accepted keys that are not strictly increasing");
	}
	fixed_check_set(a, ref, n, "decoded set");

	check_round_trip(a, data, size);

	/* B: keys derived from the input, with repeated keys and overlaps */
	seed = input_seed(data, size);
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
		b = fixed_add_key(b, bkeys[i], alloc);
	stats.fixed_b_packed += (b->kind == CD_SET_PACKED);

	/* the reference union */
	ref = realloc(ref, sizeof(uint64) * (n + nb + 1));
	memcpy(ref + n, bkeys, sizeof(uint64) * nb);
	qsort(ref, n + nb, sizeof(uint64), cmp_u64);
	nref = 0;
	for (i = 0; i < n + nb; i++)
		if (nref == 0 || ref[nref - 1] != ref[i])
			ref[nref++] = ref[i];

	u1 = cd_set_merge(cd_set_copy(a, stub_cxt_query), b, alloc);
	fixed_check_set(u1, ref, nref, "union A+B");
	/*
	 * as a combine function merges a deserialized state, which a large one
	 * is consumed by (packedset.h: runs), so not a itself
	 */
	a2 = must_deserialize((const char *) data, size);
	a2_consumed = cd_packed_takeable(a2);
	u2 = cd_set_merge(cd_set_copy(b, stub_cxt_query), a2, alloc);
	fixed_check_set(u2, ref, nref, "union B+A");

	/* the union survives a round trip */
	ser = serialize(u1);
	r = must_deserialize(VARDATA(ser), VARSIZE(ser) - VARHDRSZ);
	fixed_check_set(r, ref, nref, "union after a round trip");
	ser2 = serialize(r);
	CHECK(VARSIZE(ser) == VARSIZE(ser2) && memcmp(ser, ser2, VARSIZE(ser)) == 0,
		  "union serialized twice");

	pfree(ser);
	pfree(ser2);
	fixed_free_set(r);
	fixed_free_set(u1);
	fixed_free_set(u2);
	fixed_free_set(b);
	fixed_free_set(a);
	if (!a2_consumed)
		fixed_free_set(a2);
	CHECK(stub_live_chunks(stub_cxt_query) == 0, "chunks left behind");
	stub_reset(stub_cxt_fn);
	free(ref);
	free(bkeys);
}

/* ----------------------------------------------------------------
 *		Byte keys (CD_KEY_BYTES: bytea)
 * ----------------------------------------------------------------
 */

/* one byte key: len bytes at p */
typedef struct BKey
{
	const char *p;
	size_t		len;
} BKey;

/* keys one after the other (malloc'd): key i at bytes + off[i], len[i] */
typedef struct KeyList
{
	char	   *bytes;
	size_t		used;
	size_t		room;
	size_t	   *off;
	size_t	   *len;
	size_t		n;
	size_t		cap;
} KeyList;

static void
keys_init(KeyList *l)
{
	memset(l, 0, sizeof(*l));
}

static void
keys_free(KeyList *l)
{
	free(l->bytes);
	free(l->off);
	free(l->len);
	keys_init(l);
}

/*
 * Append a key: the first shared bytes of the list's key `from` (none if
 * shared is 0), then rest bytes at p (not inside the list).
 */
static void
keys_add_joined(KeyList *l, size_t from, size_t shared, const char *p,
				size_t rest)
{
	if (l->n == l->cap)
	{
		l->cap = l->cap ? 2 * l->cap : 64;
		l->off = realloc(l->off, l->cap * sizeof(size_t));
		l->len = realloc(l->len, l->cap * sizeof(size_t));
	}
	if (l->bytes == NULL || l->used + shared + rest > l->room)
	{
		l->room = Max(2 * l->room, l->used + shared + rest + 1024);
		l->bytes = realloc(l->bytes, l->room);
	}
	CHECK(l->off != NULL && l->len != NULL && l->bytes != NULL,
		  "the harness is out of memory");
	if (shared > 0)
		memcpy(l->bytes + l->used, l->bytes + l->off[from], shared);
	if (rest > 0)
		memcpy(l->bytes + l->used + shared, p, rest);
	l->off[l->n] = l->used;
	l->len[l->n] = shared + rest;
	l->used += shared + rest;
	l->n++;
}

static void
keys_add(KeyList *l, const char *p, size_t len)
{
	keys_add_joined(l, 0, 0, p, len);
}

static BKey
keys_get(const KeyList *l, size_t i)
{
	BKey		k = {l->bytes + l->off[i], l->len[i]};

	return k;
}

/* the order of byte keys: unsigned bytes, then a proper prefix first */
static int
cmp_bkey(const void *x, const void *y)
{
	const BKey *a = (const BKey *) x;
	const BKey *b = (const BKey *) y;
	size_t		n = Min(a->len, b->len);

	for (size_t i = 0; i < n; i++)
		if (a->p[i] != b->p[i])
			return (uint8) a->p[i] < (uint8) b->p[i] ? -1 : 1;
	return (a->len > b->len) - (a->len < b->len);
}

/* the keys of lists a and b (b may be NULL), sorted and distinct; *n */
static BKey *
sorted_union(const KeyList *a, const KeyList *b, size_t *n)
{
	size_t		na = a->n;
	size_t		nb = b ? b->n : 0;
	BKey	   *k = malloc(sizeof(BKey) * (na + nb + 1));
	size_t		m = 0;

	for (size_t i = 0; i < na + nb; i++)
		k[i] = i < na ? keys_get(a, i) : keys_get(b, i - na);
	qsort(k, na + nb, sizeof(BKey), cmp_bkey);
	for (size_t i = 0; i < na + nb; i++)
		if (m == 0 || cmp_bkey(&k[m - 1], &k[i]) != 0)
			k[m++] = k[i];
	*n = m;
	return k;
}

/*
 * A length in serialkeys.h's byte form: LEB128 (7 bits a byte, least
 * significant first, the high bit on all but the last byte), at most 35
 * bits, in the shortest form.
 */
static bool
ref_varint(const uint8_t *p, size_t len, size_t *pos, uint64 *v)
{
	uint64		r = 0;

	for (int i = 0; i < 5; i++)
	{
		uint8		c;

		if (*pos >= len)
			return false;
		c = p[(*pos)++];
		r |= (uint64) (c & 0x7F) << (7 * i);
		if ((c & 0x80) == 0)
		{
			if (c == 0 && i > 0)
				return false;	/* a longer form than needed */
			*v = r;
			return true;
		}
	}
	return false;				/* more than 35 bits */
}

/*
 * serialkeys.h's byte form, decoded independently and slowly: for each of n
 * keys, the length of the prefix it shares with the previous key and the
 * length of the rest, then the rest.  True if the len bytes at p are
 * exactly n keys in the canonical form: the first key shares nothing; each
 * later one shares at most the previous key's length, shares exactly its
 * longest common prefix with it (as the encoder computes it) and is greater
 * than it; nothing follows the last key.  The keys go to out.
 */
static bool
ref_unpack_bytes(const uint8_t *p, size_t len, size_t n, KeyList *out)
{
	size_t		pos = 0;

	for (size_t i = 0; i < n; i++)
	{
		uint64		shared;
		uint64		rest;
		size_t		prevlen = i > 0 ? out->len[i - 1] : 0;

		if (!ref_varint(p, len, &pos, &shared) ||
			!ref_varint(p, len, &pos, &rest))
			return false;
		if (shared > prevlen)
			return false;		/* shares more than the previous key has */
		if (rest > len - pos)
			return false;		/* runs past the end */
		keys_add_joined(out, i > 0 ? i - 1 : 0, shared,
						(const char *) p + pos, rest);
		pos += rest;
		if (i > 0)
		{
			BKey		prev = keys_get(out, i - 1);
			BKey		key = keys_get(out, i);
			size_t		lcp = 0;

			while (lcp < prev.len && lcp < key.len && prev.p[lcp] == key.p[lcp])
				lcp++;
			if (lcp != shared)
				return false;	/* not the longest shared prefix */
			if (cmp_bkey(&prev, &key) >= 0)
				return false;	/* not strictly increasing */
		}
	}
	return pos == len;
}

/*
 * The trusting front decoder (frontcode.h) on keys the validating one
 * accepted gives the keys of the reference, and ends with the bytes.
 */
static bool
front_trusting_matches(const uint8_t *p, size_t len, const KeyList *expect)
{
	CDFrontDecoder d;
	const char *k;
	Size		klen;
	size_t		i = 0;
	bool		ok = true;

	cd_front_decoder_init(&d, (const char *) p, 0, len);
	while (ok && (k = cd_front_decoder_next(&d, &klen)) != NULL)
	{
		BKey		e;

		if (i >= expect->n)
		{
			ok = false;
			break;
		}
		e = keys_get(expect, i++);
		ok = e.len == klen && memcmp(e.p, k, klen) == 0;
	}
	cd_front_decoder_free(&d);
	return ok && i == expect->n && d.pos == len;
}

static void
put_varint(char *dst, size_t *w, size_t v)
{
	while (v >= 0x80)
	{
		dst[(*w)++] = (char) (0x80 | (v & 0x7F));
		v >>= 7;
	}
	dst[(*w)++] = (char) v;
}

/*
 * The canonical front coding of the sorted distinct keys k[0 .. n-1], as
 * serialkeys.h describes it (malloc'd; *len: its length).
 */
static char *
ref_front_code(const BKey *k, size_t n, size_t *len)
{
	size_t		room = 1;
	size_t		w = 0;
	char	   *out;

	for (size_t i = 0; i < n; i++)
		room += 20 + k[i].len;
	out = malloc(room);
	CHECK(out != NULL, "the harness is out of memory");
	for (size_t i = 0; i < n; i++)
	{
		size_t		shared = 0;

		if (i > 0)
			while (shared < k[i].len && shared < k[i - 1].len &&
				   k[i].p[shared] == k[i - 1].p[shared])
				shared++;
		put_varint(out, &w, shared);
		put_varint(out, &w, k[i].len - shared);
		memcpy(out + w, k[i].p + shared, k[i].len - shared);
		w += k[i].len - shared;
	}
	*len = w;
	return out;
}

/* bytes the keys take as entries (varentry.h: a 1- or 4-byte length) */
static size_t
entry_bytes(const BKey *k, size_t n)
{
	size_t		sum = 0;

	for (size_t i = 0; i < n; i++)
		sum += (k[i].len < 128 ? 1 : 4) + k[i].len;
	return sum;
}

static MemoryContext
scratch_context(void)
{
	return AllocSetContextCreate(stub_cxt_query, "scratch",
								 ALLOCSET_SMALL_SIZES);
}

/*
 * The set holds exactly the sorted keys want[0 .. n-1]: its count, then
 * (compacted) a front-coded set's sorted part is their front coding, and
 * its reader (whose decoder lives in a scratch context) gives them in order.
 */
static void
bytes_check_set(CDSet *s, const BKey *want, size_t n, const char *what)
{
	MemoryContext scratch;
	MemoryContext old;
	CDKeyReader r;
	const char *key;
	Size		len;
	size_t		i = 0;

	CHECK(s->kind == CD_SET_VAR || s->kind == CD_SET_FRONT, what);
	CHECK(cd_set_count(s) == n, what);
	cd_set_compact(s);
	CHECK(s->nsorted == n && s->nall == n, what);
	if (s->kind == CD_SET_FRONT)
	{
		const CDFrontSet *fs = (const CDFrontSet *) s;
		size_t		clen;
		char	   *coded = ref_front_code(want, n, &clen);

		CHECK(fs->codedbytes == clen &&
			  (clen == 0 || memcmp(fs->coded, coded, clen) == 0), what);
		CHECK(fs->tailbytes == 0 && fs->rawbytes == entry_bytes(want, n), what);
		free(coded);
	}
	scratch = scratch_context();
	old = MemoryContextSwitchTo(scratch);
	cd_set_ops(s)->reader(s, &r);
	CHECK(r.count == n, what);
	while ((key = r.next_bytes(&r, &len)) != NULL)
	{
		CHECK(i < n && len == want[i].len &&
			  (len == 0 || memcmp(key, want[i].p, len) == 0), what);
		i++;
	}
	CHECK(i == n, what);
	MemoryContextSwitchTo(old);
	MemoryContextDelete(scratch);
}

/* The set's output values (cd_set_output_datums) are the keys, in order. */
static void
bytes_check_output(CDSet *s, const BKey *want, size_t n)
{
	MemoryContext scratch = scratch_context();
	MemoryContext old = MemoryContextSwitchTo(scratch);
	uint32		m;
	Datum	   *values = cd_set_output_datums(s, &m);

	CHECK(m == n, "the number of output values");
	for (uint32 i = 0; i < m; i++)
	{
		bytea	   *v = DatumGetByteaPP(values[i]);

		CHECK(VARSIZE_ANY_EXHDR(v) == want[i].len &&
			  memcmp(VARDATA_ANY(v), want[i].p, want[i].len) == 0,
			  "an output value");
	}
	MemoryContextSwitchTo(old);
	MemoryContextDelete(scratch);
}

/* free a set of byte keys of either kind, and its arrays */
static void
bytes_free_set(CDSet *s)
{
	CHECK(!(s->flags & CD_SET_IN_SLOT), "a set of byte keys in a slot");
	if (s->kind == CD_SET_FRONT)
		cd_front_free(s);
	else
		pfree(s);
}

/*
 * The keys as bytea Datums in one malloc'd arena (*arena, to free): some
 * with a short header, as values in tuples have.
 */
static Datum *
make_datums(const KeyList *l, uint64 *seed, char **arena)
{
	Datum	   *d = malloc(sizeof(Datum) * (l->n + 1));
	size_t		room = 8;
	size_t		w = 0;

	for (size_t i = 0; i < l->n; i++)
		room += MAXALIGN(VARHDRSZ + l->len[i]);
	*arena = malloc(room);
	CHECK(d != NULL && *arena != NULL, "the harness is out of memory");
	for (size_t i = 0; i < l->n; i++)
	{
		BKey		k = keys_get(l, i);
		char	   *v = *arena + w;

		if (k.len <= VARATT_SHORT_MAX - VARHDRSZ_SHORT && (xorshift(seed) & 1))
		{
			SET_VARSIZE_SHORT(v, VARHDRSZ_SHORT + k.len);
			memcpy(v + VARHDRSZ_SHORT, k.p, k.len);
		}
		else
		{
			SET_VARSIZE(v, VARHDRSZ + k.len);
			memcpy(VARDATA(v), k.p, k.len);
		}
		d[i] = PointerGetDatum(v);
		w += MAXALIGN(VARHDRSZ + k.len);
	}
	return d;
}

/* B's keys take at most this much (A's keys may be long) */
#define BYTES_B_BUDGET		((size_t) 1024 * 1024)

/*
 * Keys for B derived from A's keys a: keys of A, duplicates of B's, A's
 * keys cut short and continued (shared prefixes), the empty key, zero
 * bytes, URL-like keys and random bytes.  One input in 8 gets enough
 * URL-like keys (which share long prefixes) to make B front-coded on the
 * way (past 2 * CD_FRONT_MIN_BYTES of keys), one in 8 none.
 */
static void
derive_bytes_keys(KeyList *b, const KeyList *a, uint64 *seed)
{
	static const char alphabet[] = {0x00, 0x01, 0x7f, (char) 0x80, (char) 0xff, 'a', '/'};
	static const char *const prefixes[] = {
		"https://example.org/", "https://example.org/items/",
		"https://www.example.com/search?q=", "mailto:user"
	};
	uint64		mode = xorshift(seed) % 8;
	size_t		maxlen = 128;
	size_t		nb;
	size_t		target = 0;
	size_t		total = 0;
	uint32		counter = (uint32) xorshift(seed) % 100000;
	char	   *buf;

	for (size_t i = 0; i < a->n; i++)
		maxlen = Max(maxlen, a->len[i] + 64);
	buf = malloc(maxlen);
	CHECK(buf != NULL, "the harness is out of memory");
	if (mode == 0)
		nb = 0;
	else if (mode == 7)
	{
		nb = SIZE_MAX;
		target = 2 * (size_t) CD_FRONT_MIN_BYTES + xorshift(seed) % CD_FRONT_MIN_BYTES;
	}
	else
		nb = xorshift(seed) % (2 * a->n + 300);
	for (size_t i = 0; i < nb && total < BYTES_B_BUDGET; i++)
	{
		uint64		x = xorshift(seed);
		int			kind = (target > 0 && (x & 7) != 0) ? 6 : (int) ((x >> 3) % 8);
		size_t		len = 0;

		if (target > 0 && total >= target)
			break;
		if (a->n == 0 && (kind == 0 || kind == 1 || kind == 3))
			kind = 7;
		if (b->n == 0 && kind == 2)
			kind = 4;
		switch (kind)
		{
			case 0:
			case 1:				/* a key of A */
				{
					BKey		k = keys_get(a, (x >> 8) % a->n);

					memcpy(buf, k.p, k.len);
					len = k.len;
				}
				break;
			case 2:				/* a duplicate of one of B's */
				{
					size_t		j = (x >> 8) % b->n;

					total += b->len[j] + 1;
					keys_add_joined(b, j, b->len[j], NULL, 0);
					continue;
				}
			case 3:				/* a key of A cut short, then a few bytes */
				{
					BKey		k = keys_get(a, (x >> 8) % a->n);
					size_t		extra = xorshift(seed) % 9;

					len = xorshift(seed) % (k.len + 1);
					memcpy(buf, k.p, len);
					for (size_t j = 0; j < extra; j++)
						buf[len++] = alphabet[xorshift(seed) % lengthof(alphabet)];
				}
				break;
			case 4:				/* the empty key */
				len = 0;
				break;
			case 5:				/* zero bytes, or a key of A then one */
				if (a->n > 0 && (x & 0x100))
				{
					BKey		k = keys_get(a, (x >> 9) % a->n);

					memcpy(buf, k.p, k.len);
					len = k.len;
					buf[len++] = 0;
				}
				else
				{
					len = 1 + (x >> 9) % 4;
					memset(buf, 0, len);
				}
				break;
			case 6:				/* URL-like: long shared prefixes */
				counter += (x & 0x300) ? 1 + (x >> 10) % 7 : (uint32) (x >> 12) % 1000;
				len = snprintf(buf, maxlen, "%s%s%u",
							   prefixes[(x >> 20) % lengthof(prefixes)],
							   (x & 0x400000) ? "page/" : "",
							   counter);
				break;
			default:			/* random bytes */
				len = (x >> 8) % 17;
				for (size_t j = 0; j < len; j++)
					buf[j] = (char) xorshift(seed);
				break;
		}
		keys_add(b, buf, len);
		total += len + 1;
	}
	free(buf);
}

/*
 * A refused input with exactly the header of a state of byte keys (bytea
 * by OID, no collation): cd_front_state_stays_front, which reads a large
 * state's keys before they are checked, must survive them, and the
 * reference decoder must refuse them too (unless the refusal was for
 * memory).
 */
static void
check_refused_bytes(const uint8_t *data, size_t size)
{
	/* version 2, byte keys, width 0, no text encoding; bytea; no collation */
	static const uint8_t header[] = {2, CD_KEY_BYTES, 0, 0, 1, 0, 0, 0, BYTEAOID, 0};
	size_t		hdr = sizeof(header) + 4;
	uint32		n;
	KeyList		keys;

	if (size < hdr || memcmp(data, header, sizeof(header)) != 0)
		return;
	stats.bytes_refused++;
	n = get_u32(data + sizeof(header));
	(void) cd_front_state_stays_front((const char *) data + hdr, size - hdr, n);
	if (stub_last_sqlstate == ERRCODE_OUT_OF_MEMORY)
		return;
	keys_init(&keys);
	CHECK(!ref_unpack_bytes(data + hdr, size - hdr, n, &keys),
		  "refused a valid state of byte keys");
	keys_free(&keys);
}

/*
 * The checks of an accepted state of byte keys: a, decoded from the size
 * bytes at data, whose header takes hdr bytes and says n keys.
 */
static void
fuzz_bytes(CDSet *a, const uint8_t *data, size_t size, size_t hdr, size_t n)
{
	long		fn_chunks = stub_live_chunks(stub_cxt_fn);	/* the registry's */
	KeyList		akeys;
	KeyList		bkeys;
	BKey	   *aref;			/* A's keys, sorted and distinct */
	BKey	   *bref;			/* B's */
	BKey	   *uref;			/* the union's */
	size_t		na;
	size_t		nb;
	size_t		nu;
	Datum	   *datums;
	char	   *arena;
	uint64		seed;
	bool		front;
	CDAlloc    *alloc;
	CDSet	   *b;
	CDSet	   *u1;
	CDSet	   *u2;
	CDSet	   *a2;
	bool		a2_consumed;
	CDSet	   *r;
	bytea	   *ser;
	bytea	   *ser2;
	char	   *coded;
	size_t		clen;

	stats.bytes++;
	CHECK(a->kt->encoding == CD_KEY_BYTES && a->kt->typid == BYTEAOID,
		  "the stub's one type of byte keys is bytea");
	CHECK(data[hdr - 5] == 0, "accepted a collation for bytea");
	CHECK(data[1] == CD_KEY_BYTES && data[2] == 0 && data[3] == 0,
		  "header fields");

	/* the keys, decoded again */
	keys_init(&akeys);
	CHECK(ref_unpack_bytes(data + hdr, size - hdr, n, &akeys),
		  "accepted keys the reference decoder refuses");
	CHECK(akeys.n == n, "the number of keys");
	CHECK(front_trusting_matches(data + hdr, size - hdr, &akeys),
		  "the trusting front decoder reads other keys than the validating one");
	aref = sorted_union(&akeys, NULL, &na);
	CHECK(na == n, "accepted keys that are not distinct");
	for (size_t i = 0; i < n; i++)
	{
		BKey		k = keys_get(&akeys, i);

		CHECK(cmp_bkey(&aref[i], &k) == 0,
			  "accepted keys that are not strictly increasing");
	}

	/* a large state is front-coded (unless that is larger), a small one not */
	front = size - hdr > CD_FRONT_MIN_BYTES &&
		(CD_FRONT_ALWAYS ||
		 cd_front_state_stays_front((const char *) data + hdr, size - hdr, n));
	CHECK(a->kind == (front ? CD_SET_FRONT : CD_SET_VAR),
		  "the kind of a deserialized set");
	stats.bytes_front += front;
	bytes_check_set(a, aref, na, "decoded set");

	check_round_trip(a, data, size);

	/* B: keys derived from A's, through the per-row path */
	seed = input_seed(data, size);
	keys_init(&bkeys);
	derive_bytes_keys(&bkeys, &akeys, &seed);
	bref = sorted_union(&bkeys, NULL, &nb);
	uref = sorted_union(&akeys, &bkeys, &nu);
	datums = make_datums(&bkeys, &seed, &arena);
	alloc = harness_alloc((seed & 4) != 0);
	b = cd_set_create(a->kt, alloc);
	CHECK(b->kind == CD_SET_VAR, "a new set of byte keys is a variable-size one");
	for (size_t i = 0; i < bkeys.n; i++)
		b = cd_set_add_value(b, datums[i], alloc);
	stats.bytes_b_front += (b->kind == CD_SET_FRONT);
	{
		uint32		nall = b->nall;

		CHECK(cd_set_count(b) == nb, "the count of B");
		CHECK(b->nall == nall, "counting changed B");
	}

	/* merges both ways */
	u1 = cd_set_merge(cd_set_copy(a, stub_cxt_query), b, alloc);
	bytes_check_set(u1, uref, nu, "union A+B");
	bytes_check_set(b, bref, nb, "B after a merge");

	/*
	 * as a combine function merges a deserialized state, which a large one
	 * is consumed by (frontset.h: runs), so not a itself
	 */
	a2 = must_deserialize((const char *) data, size);
	CHECK(!cd_packed_takeable(a2), "a set of byte keys taken over as packed");
	a2_consumed = cd_front_takeable(a2);
	u2 = cd_set_merge(cd_set_copy(b, stub_cxt_query), a2, alloc);
	bytes_check_set(u2, uref, nu, "union B+A");
	if (!a2_consumed)
		bytes_check_set(a2, aref, na, "A after a merge");
	bytes_check_output(u1, uref, nu);

	/*
	 * the union serialized: the input's header with its count, then the
	 * keys' front coding; it survives a round trip
	 */
	ser = serialize(u1);
	coded = ref_front_code(uref, nu, &clen);
	CHECK(VARSIZE(ser) - VARHDRSZ == hdr + clen &&
		  memcmp(VARDATA(ser), data, hdr - 4) == 0 &&
		  get_u32((const uint8_t *) VARDATA(ser) + hdr - 4) == nu &&
		  memcmp(VARDATA(ser) + hdr, coded, clen) == 0,
		  "the union serialized");
	free(coded);
	r = must_deserialize(VARDATA(ser), VARSIZE(ser) - VARHDRSZ);
	stats.bytes_union_front += (r->kind == CD_SET_FRONT);
	bytes_check_set(r, uref, nu, "union after a round trip");
	ser2 = serialize(r);
	CHECK(VARSIZE(ser) == VARSIZE(ser2) && memcmp(ser, ser2, VARSIZE(ser)) == 0,
		  "union serialized twice");

	pfree(ser);
	pfree(ser2);
	bytes_free_set(r);
	bytes_free_set(u1);
	bytes_free_set(u2);
	bytes_free_set(b);
	bytes_free_set(a);
	if (!a2_consumed)
		bytes_free_set(a2);
	CHECK(stub_live_chunks(stub_cxt_query) == 0 &&
		  stub_cxt_query->firstchild == NULL, "chunks left behind");
	CHECK(stub_live_chunks(stub_cxt_fn) == fn_chunks,
		  "chunks left behind in the aggregate context");
	stub_reset(stub_cxt_fn);
	free(aref);
	free(bref);
	free(uref);
	free(datums);
	free(arena);
	keys_free(&akeys);
	keys_free(&bkeys);
}


static void write_state(const char *dir, const char *name, CDSet *s);

/*
 * Array keys (key_record.c) of int4[] and float8[], the stub's arrays:
 * a reference parser of the documented form (each element 0x01 and its
 * fixed-width key, big-endian, or 0x02 for NULL; 0x00; the number of
 * dimensions; the dimensions but for one dimension; the lower bounds,
 * sign bit flipped), independent of key_record.c but for the element's
 * own key (cd_key_encode / cd_key_decode).
 */
#define REF_MAXDIM 6

typedef struct RefArray
{
	int			n;
	bool	   *nulls;			/* malloc'd, n */
	Datum	   *values;			/* malloc'd, n: the element values */
	int			ndims;
	int			dims[REF_MAXDIM];
	int			lbs[REF_MAXDIM];
} RefArray;

static void
ref_array_free(RefArray *r)
{
	free(r->nulls);
	free(r->values);
}

/* parse key into r (to free); false if it is not a valid array key */
static bool
ref_array_parse(const CDKeyType *ekt, const uint8_t *k, size_t len, RefArray *r)
{
	size_t		pos = 0;
	int			width = ekt->width;
	int64		nitems = 1;

	memset(r, 0, sizeof(*r));
	r->nulls = malloc(len + 1);
	r->values = malloc((len + 1) * sizeof(Datum));
	for (;;)
	{
		if (pos >= len)
			return false;
		if (k[pos] == 0)
			break;
		if (k[pos] == 2)
		{
			r->nulls[r->n] = true;
			r->values[r->n++] = (Datum) 0;
			pos++;
			continue;
		}
		if (k[pos] != 1 || len - pos - 1 < (size_t) width)
			return false;
		{
			uint64		raw = 0;

			for (int i = 0; i < width; i++)
				raw = (raw << 8) | k[pos + 1 + i];
			/* only keys that encoding gives (float8: one zero, one NaN) */
			r->values[r->n] = cd_key_decode(ekt, raw);
			if (cd_key_encode(ekt, r->values[r->n]) != raw)
				return false;
		}
		r->nulls[r->n++] = false;
		pos += 1 + width;
	}
	pos++;
	if (pos >= len)
		return false;
	r->ndims = k[pos++];
	if (r->ndims > REF_MAXDIM || (r->ndims == 0) != (r->n == 0))
		return false;
	if (r->ndims == 1)
		r->dims[0] = r->n;
	else if (r->ndims > 1)
	{
		for (int d = 0; d < r->ndims; d++, pos += 4)
		{
			if (len - pos < 4)
				return false;
			r->dims[d] = (int) get_u32(k + pos);
			if (r->dims[d] <= 0)
				return false;
			nitems *= r->dims[d];
			if (nitems > r->n)
				return false;
		}
		if (nitems != r->n)
			return false;
	}
	for (int d = 0; d < r->ndims; d++, pos += 4)
	{
		if (len - pos < 4)
			return false;
		r->lbs[d] = (int) (get_u32(k + pos) ^ 0x80000000);
		if ((int64) r->lbs[d] + r->dims[d] - 1 > PG_INT32_MAX)
			return false;
	}
	return pos == len;
}

/* btree order of two non-NULL elements (float8: NaN after all, equal) */
static int
ref_elem_cmp(Oid elemtype, Datum a, Datum b)
{
	if (elemtype == INT4OID)
	{
		int32		x = DatumGetInt32(a);
		int32		y = DatumGetInt32(b);

		return x < y ? -1 : x > y;
	}
	else
	{
		float8		x = DatumGetFloat8(a);
		float8		y = DatumGetFloat8(b);

		if (isnan(x))
			return isnan(y) ? 0 : 1;
		if (isnan(y))
			return -1;
		return x < y ? -1 : x > y;
	}
}

/*
 * array_cmp (arrayfuncs.c): the elements in storage order (a NULL after
 * every value, two NULLs equal), then the number of elements, the number
 * of dimensions, the dimensions and the lower bounds
 */
static int
ref_array_cmp(Oid elemtype, const RefArray *a, const RefArray *b)
{
	int			n = Min(a->n, b->n);

	for (int i = 0; i < n; i++)
	{
		int			c;

		if (a->nulls[i] || b->nulls[i])
		{
			if (a->nulls[i] && b->nulls[i])
				continue;
			return a->nulls[i] ? 1 : -1;
		}
		c = ref_elem_cmp(elemtype, a->values[i], b->values[i]);
		if (c != 0)
			return c;
	}
	if (a->n != b->n)
		return a->n < b->n ? -1 : 1;
	if (a->ndims != b->ndims)
		return a->ndims < b->ndims ? -1 : 1;
	for (int d = 0; d < a->ndims; d++)
		if (a->dims[d] != b->dims[d])
			return a->dims[d] < b->dims[d] ? -1 : 1;
	for (int d = 0; d < a->ndims; d++)
		if (a->lbs[d] != b->lbs[d])
			return a->lbs[d] < b->lbs[d] ? -1 : 1;
	return 0;
}

/* the decoded ArrayType holds exactly the reference's array */
static void
check_array_value(ArrayType *arr, Oid elemtype, const RefArray *r)
{
	int16		elmlen;
	bool		elmbyval;
	char		elmalign;
	Datum	   *values;
	bool	   *nulls;
	int			n;

	CHECK(ARR_ELEMTYPE(arr) == elemtype, "the decoded array's element type");
	CHECK(ARR_NDIM(arr) == r->ndims, "the decoded array's dimensions");
	for (int d = 0; d < r->ndims; d++)
		CHECK(ARR_DIMS(arr)[d] == r->dims[d] && ARR_LBOUND(arr)[d] == r->lbs[d],
			  "the decoded array's dimensions and lower bounds");
	get_typlenbyvalalign(elemtype, &elmlen, &elmbyval, &elmalign);
	deconstruct_array(arr, elemtype, elmlen, elmbyval, elmalign, &values, &nulls, &n);
	CHECK(n == r->n, "the decoded array's number of elements");
	for (int i = 0; i < n; i++)
	{
		CHECK(nulls[i] == r->nulls[i], "the decoded array's NULL elements");
		/* bit for bit: decoding gives the canonical value */
		CHECK(nulls[i] || memcmp(&values[i], &r->values[i], sizeof(Datum)) == 0,
			  "the decoded array's elements");
	}
	pfree(values);
	pfree(nulls);
}

static const uint8_t array_headers[2][10] = {
	/* version 2, byte keys, width 0, no text encoding; the type; no collation */
	{2, CD_KEY_BYTES, 0, 0, 1, 0, 0, INT4ARRAYOID >> 8, INT4ARRAYOID & 0xFF, 0},
	{2, CD_KEY_BYTES, 0, 0, 1, 0, 0, FLOAT8ARRAYOID >> 8, FLOAT8ARRAYOID & 0xFF, 0},
};

/* the element type of a state with an array header, else InvalidOid */
static Oid
array_state_elemtype(const uint8_t *data, size_t size)
{
	if (size < sizeof(array_headers[0]) + 4)
		return InvalidOid;
	if (memcmp(data, array_headers[0], sizeof(array_headers[0])) == 0)
		return INT4OID;
	if (memcmp(data, array_headers[1], sizeof(array_headers[1])) == 0)
		return FLOAT8OID;
	return InvalidOid;
}

/*
 * Are the keys (front-coded, keypack.h) n valid array keys, strictly
 * increasing?  (The reference's verdict on a whole state of arrays.)
 */
static bool
ref_array_state_valid(const CDKeyType *ekt, const uint8_t *p, size_t len, size_t n)
{
	KeyList		keys;
	bool		ok;

	keys_init(&keys);
	ok = ref_unpack_bytes(p, len, n, &keys);
	for (size_t i = 0; ok && i < keys.n; i++)
	{
		BKey		k = keys_get(&keys, i);
		RefArray	r;

		ok = ref_array_parse(ekt, (const uint8_t *) k.p, k.len, &r);
		ref_array_free(&r);
		if (ok && i > 0)
		{
			BKey		prev = keys_get(&keys, i - 1);

			ok = cmp_bkey(&prev, &k) < 0;
		}
	}
	keys_free(&keys);
	return ok;
}

/*
 * A refused input with the header of a state of int4[] or float8[]: the
 * reference must refuse it too (unless the refusal was for memory).
 */
static void
check_refused_arrays(const uint8_t *data, size_t size)
{
	Oid			elemtype = array_state_elemtype(data, size);
	size_t		hdr = sizeof(array_headers[0]) + 4;
	CDKeyType	ekt;

	if (!OidIsValid(elemtype) || stub_last_sqlstate == ERRCODE_OUT_OF_MEMORY)
		return;
	stats.arrays_refused++;
	cd_keytype_init(&ekt, elemtype, InvalidOid, stub_cxt_query);
	CHECK(!ref_array_state_valid(&ekt, data + hdr, size - hdr,
								 get_u32(data + sizeof(array_headers[0]))),
		  "refused a valid state of array keys");
}

/*
 * The checks of an accepted state of array keys: every key is one the
 * reference parser reads, and the codec decodes it into that array
 * (decode), which encodes back into the same bytes (encode(decode(k)) =
 * k); the keys are strictly increasing in byte order and in array_cmp's
 * order (consecutive and random pairs); the set serializes back to the
 * input.
 */
static void
fuzz_array(CDSet *a, const uint8_t *data, size_t size, size_t hdr, size_t n)
{
	const CDKeyType *kt = a->kt;
	Oid			elemtype = array_state_elemtype(data, size);
	CDKeyType	ekt;
	KeyList		keys;
	RefArray   *refs;
	uint64		seed = input_seed(data, size);

	stats.arrays++;
	CHECK(OidIsValid(elemtype) && hdr == sizeof(array_headers[0]) + 4,
		  "an accepted state of byte keys has the header of int4[] or float8[]");
	CHECK(kt->encoding == CD_KEY_BYTES && kt->codec != NULL &&
		  kt->codec->typid == ANYARRAYOID, "arrays of int4 and float8 take array keys");
	cd_keytype_init(&ekt, elemtype, InvalidOid, stub_cxt_query);

	keys_init(&keys);
	CHECK(ref_unpack_bytes(data + hdr, size - hdr, n, &keys) && keys.n == n,
		  "accepted keys the reference front decoder refuses");
	refs = calloc(Max(n, 1), sizeof(RefArray));
	for (size_t i = 0; i < n; i++)
	{
		BKey		k = keys_get(&keys, i);
		Datum		v;
		Size		len;
		char	   *again;

		CHECK(ref_array_parse(&ekt, (const uint8_t *) k.p, k.len, &refs[i]),
			  "accepted an array key the reference parser refuses");
		CHECK(kt->codec->decode(kt, k.p, k.len, &v), "an accepted key does not decode");
		check_array_value((ArrayType *) DatumGetPointer(v), elemtype, &refs[i]);
		len = kt->codec->size(kt, v);
		again = palloc(Max(len, 1));
		kt->codec->write(kt, v, again);
		CHECK(len == k.len && memcmp(again, k.p, len) == 0,
			  "encode(decode(key)) is not the key");
		pfree(again);
		pfree(DatumGetPointer(v));
		if (i > 0)
		{
			BKey		prev = keys_get(&keys, i - 1);

			CHECK(cmp_bkey(&prev, &k) < 0, "accepted keys that are not strictly increasing");
			CHECK(ref_array_cmp(elemtype, &refs[i - 1], &refs[i]) < 0,
				  "key order is not array_cmp's order");
		}
	}
	/* random pairs: byte order of the keys is array_cmp's order */
	for (size_t t = 0; n > 1 && t < 64; t++)
	{
		size_t		i = xorshift(&seed) % n;
		size_t		j = xorshift(&seed) % n;
		BKey		ki = keys_get(&keys, i);
		BKey		kj = keys_get(&keys, j);
		int			c = cmp_bkey(&ki, &kj);
		int			rc = ref_array_cmp(elemtype, &refs[i], &refs[j]);

		CHECK((c > 0) == (rc > 0) && (c < 0) == (rc < 0),
			  "key order is not array_cmp's order (random pair)");
	}
	check_round_trip(a, data, size);

	for (size_t i = 0; i < n; i++)
		ref_array_free(&refs[i]);
	free(refs);
	keys_free(&keys);
	bytes_free_set(a);
	stub_reset(stub_cxt_query);
	stub_reset(stub_cxt_fn);
}

/*
 * Seeds of int4[] and float8[] states, built through the per-row path:
 * arrays of 0-3 dimensions, lower bounds other than 1, NULL elements,
 * -0.0, NaN and infinities.
 */
static int
write_array_corpus(const char *dir)
{
	static const Oid arraytypes[] = {INT4ARRAYOID, FLOAT8ARRAYOID};
	static const float8 specials[] = {0.0, -0.0, 1.5, -2.0};
	static const size_t sizes[] = {0, 1, 5, 60};
	uint64		seed = 77;
	int			nfiles = 0;

	for (size_t ti = 0; ti < lengthof(arraytypes); ti++)
	{
		for (size_t si = 0; si < lengthof(sizes); si++)
		{
			Oid			elemtype = arraytypes[ti] == INT4ARRAYOID ? INT4OID : FLOAT8OID;
			const CDKeyType *kt = cd_registry_keytype(stub_agg_fcinfo(), arraytypes[ti], InvalidOid);
			CDAlloc    *alloc = harness_alloc(si % 2);
			CDSet	   *s = cd_set_create(kt, alloc);
			char		name[64];

			for (size_t i = 0; i < sizes[si]; i++)
			{
				uint64		x = xorshift(&seed);
				int			ndims = (int) (x % 4);
				int			dims[3] = {1, 1, 1};
				int			lbs[3] = {1, 1, 1};
				int			nitems = 1;
				Datum		values[8];
				bool		nulls[8];
				ArrayType  *arr;

				for (int d = 0; d < ndims; d++)
				{
					dims[d] = 1 + (int) ((x >> (4 + 2 * d)) % 2);
					lbs[d] = (x >> (12 + d)) & 1 ? 1 : (int) ((x >> 20) % 5) - 2;
					nitems *= dims[d];
				}
				for (int e = 0; e < nitems; e++)
				{
					uint64		y = xorshift(&seed);

					nulls[e] = y % 7 == 0;
					if (elemtype == INT4OID)
						values[e] = Int32GetDatum((int32) (y >> 8) % 5 - 2);
					else if (y % 5 == 0)
						values[e] = Float8GetDatum((y >> 8) % 2 ? get_float8_nan() : get_float8_infinity());
					else
						values[e] = Float8GetDatum(specials[(y >> 8) % lengthof(specials)]);
				}
				arr = ndims == 0 ? construct_empty_array(elemtype) :
					construct_md_array(values, nulls, ndims, dims, lbs, elemtype,
									   elemtype == INT4OID ? 4 : 8, true,
									   elemtype == INT4OID ? 'i' : 'd');
				s = cd_set_add_value(s, PointerGetDatum(arr), alloc);
			}
			(void) cd_set_count(s);
			snprintf(name, sizeof(name), "state-array-%u-%zu", arraytypes[ti], sizes[si]);
			write_state(dir, name, s);
			nfiles++;
			stub_reset(stub_cxt_query);
			stub_reset(stub_cxt_fn);
		}
	}
	return nfiles;
}

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int			LLVMFuzzerInitialize(int *argc, char ***argv);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sigjmp_buf	jb;
	CDSet	   *volatile a = NULL;
	size_t		hdr;

	CurrentMemoryContext = stub_cxt_query;

	stub_error_jmp = &jb;
	if (sigsetjmp(jb, 0) != 0)
	{
		/* refused: fine, but only with an ordinary error code */
		stub_error_jmp = NULL;
		CurrentMemoryContext = stub_cxt_query;
		stats.refused++;
		CHECK(stub_last_sqlstate == ERRCODE_INVALID_BINARY_REPRESENTATION ||
			  stub_last_sqlstate == ERRCODE_PROTOCOL_VIOLATION ||
			  stub_last_sqlstate == ERRCODE_UNDEFINED_OBJECT ||
			  stub_last_sqlstate == ERRCODE_FEATURE_NOT_SUPPORTED ||
			  stub_last_sqlstate == ERRCODE_UNDEFINED_FUNCTION ||
			  stub_last_sqlstate == ERRCODE_PROGRAM_LIMIT_EXCEEDED ||
			  stub_last_sqlstate == ERRCODE_OUT_OF_MEMORY,
			  "refused with an unexpected SQLSTATE");
		check_refused_bytes(data, size);
		check_refused_arrays(data, size);
		stub_reset(stub_cxt_query);
		stub_reset(stub_cxt_fn);
		return 0;
	}
	a = deserialize((const char *) data, size);
	stub_error_jmp = NULL;		/* from here on, an ERROR is a bug */

	/* the accepted state */
	hdr = header_size(data, size);
	CHECK(hdr > 0, "accepted a state shorter than its header");
	if (a->kt->width > 0)
		fuzz_fixed(a, data, size, hdr, get_u32(data + hdr - 4));
	else if (a->kt->typid != BYTEAOID)
		fuzz_array(a, data, size, hdr, get_u32(data + hdr - 4));
	else
	{
		CHECK(a->kt->encoding == CD_KEY_BYTES, "the stub types have fixed-width or byte keys");
		fuzz_bytes(a, data, size, hdr, get_u32(data + hdr - 4));
	}
	return 0;
}

/* write the set as a state into DIR/name */
static void
write_state(const char *dir, const char *name, CDSet *s)
{
	bytea	   *ser = serialize(s);
	char		path[1024];
	FILE	   *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	CHECK(f != NULL, "open corpus file");
	fwrite(VARDATA(ser), 1, VARSIZE(ser) - VARHDRSZ, f);
	fclose(f);
}

/*
 * Seeds of byte keys (bytea), built through the per-row path: none; the
 * empty key, zero bytes and keys that are prefixes of others; URL-like keys
 * sharing long prefixes, few and many (a state of several kB, which a
 * build with small thresholds decodes into a front-coded set); random
 * bytes (front coding does not pay off); keys around 128 bytes (both sizes
 * of an entry's length) sharing prefixes, and one of 2 kB.  Returns how
 * many it wrote.
 */
static int
write_bytes_corpus(const char *dir)
{
	static const struct
	{
		const char *name;
		int			shape;
		size_t		n;
	}			seeds[] = {
		{"state-bytea-0", 0, 0},
		{"state-bytea-edges", 1, 0},
		{"state-bytea-url-40", 2, 40},
		{"state-bytea-url-1500", 2, 1500},
		{"state-bytea-random-150", 3, 150},
		{"state-bytea-long", 4, 40},
	};
	static const char *const edges[] = {
		"", "\0", "\0\0", "\0\1", "a", "a\0", "a\0\0", "ab", "\x7f", "\x80",
		"\xff", "\xff\xff"
	};
	static const size_t edge_len[] = {0, 1, 2, 2, 1, 2, 3, 2, 1, 1, 1, 2};
	uint64		seed = 4242;
	CDKeyType	kt;

	StaticAssertStmt(lengthof(edges) == lengthof(edge_len), "edge lengths");
	cd_keytype_init(&kt, BYTEAOID, InvalidOid, stub_cxt_fn);
	for (size_t si = 0; si < lengthof(seeds); si++)
	{
		KeyList		keys;
		char		buf[2048];
		Datum	   *datums;
		char	   *arena;
		CDSet	   *s;

		keys_init(&keys);
		switch (seeds[si].shape)
		{
			case 1:
				for (size_t i = 0; i < lengthof(edges); i++)
					keys_add(&keys, edges[i], edge_len[i]);
				break;
			case 2:
				for (size_t i = 0; i < seeds[si].n; i++)
				{
					uint64		x = xorshift(&seed);
					size_t		len = snprintf(buf, sizeof(buf),
											   "https://example.org/%s/%u",
											   (x & 1) ? "items" : "users/page",
											   (uint32) (x >> 8) % 50000);

					keys_add(&keys, buf, len);
				}
				break;
			case 3:
				for (size_t i = 0; i < seeds[si].n; i++)
				{
					size_t		len = xorshift(&seed) % 17;

					for (size_t j = 0; j < len; j++)
						buf[j] = (char) xorshift(&seed);
					keys_add(&keys, buf, len);
				}
				break;
			case 4:
				memset(buf, 'k', sizeof(buf));
				for (size_t i = 0; i < seeds[si].n; i++)
				{
					size_t		len = 120 + xorshift(&seed) % 17;

					buf[len - 1] = (char) xorshift(&seed);
					keys_add(&keys, buf, len);
					buf[len - 1] = 'k';
				}
				keys_add(&keys, buf, sizeof(buf));
				break;
		}
		datums = make_datums(&keys, &seed, &arena);
		s = cd_set_create(&kt, harness_alloc(si % 2));
		for (size_t i = 0; i < keys.n; i++)
			s = cd_set_add_value(s, datums[i], harness_alloc(si % 2));
		write_state(dir, seeds[si].name, s);
		free(datums);
		free(arena);
		keys_free(&keys);
		stub_reset(stub_cxt_query);
	}
	stub_reset(stub_cxt_fn);
	return lengthof(seeds);
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
			char		name[64];

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
				s = fixed_add_key(s, canonical(&kt, xorshift(&seed) >> (si % 2 ? 0 : 40)),
								  harness_alloc(si % 2));
			snprintf(name, sizeof(name), "state-%u-%zu", t->typid, sizes[si]);
			write_state(dir, name, s);
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
		char		name[64];
		uint64		key = 1000;

		cd_keytype_init(&kt, INT4OID, InvalidOid, stub_cxt_fn);
		s = cd_set_create(&kt, harness_alloc(false));
		for (size_t i = 0; i < 30000; i++)
		{
			s = fixed_add_key(s, key, harness_alloc(false));
			key += (i % 1000 == 999) ? 1 + xorshift(&seed) % 5000 : 1;
		}
		snprintf(name, sizeof(name), "state-%u-runs-30000", INT4OID);
		write_state(dir, name, s);
		nfiles++;
		stub_reset(stub_cxt_query);
		stub_reset(stub_cxt_fn);
	}
	nfiles += write_bytes_corpus(dir);
	nfiles += write_array_corpus(dir);
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
	const char *show = getenv("CD_FUZZ_STATS");

	stub_init();
	stub_enable_bytea();
	stub_enable_arrays();
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
	if (show != NULL && *show != '\0')
		atexit(print_stats);
	return 0;
}
