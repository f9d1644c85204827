/*
 * front_set_test.c
 *	  Unit test of the front-coded set of byte keys (src/frontset.c), and of
 *	  a variable-size set turning into one (src/varset.c), against an
 *	  independent truth: the keys sorted with qsort (memcmp over the common
 *	  length, then the shorter first) and deduplicated by a plain loop.
 *
 * Keys are bytea values.  Each case draws keys of one shape: from a small
 * alphabet (0x00, 0x01, 0x7f, 0x80, 0xff, 'a') of 0 to 40 bytes, so long
 * shared prefixes, embedded and trailing zero bytes and the empty key; 40
 * equal bytes then a few others (or a prefix of them); random bytes; many
 * repeats of a few keys; keys of 126 to 400 bytes (entries with a 4-byte
 * header) and a few of several kB; or a mix.  They go into a set created by
 * cd_set_create through the per-row path (cd_set_add_value of bytea Datums,
 * some with a short header as in tuples), counted on the way (the count
 * must not change the set), so that it turns front-coded the way a group
 * does.  Then the set's keys, read with its reader (each key must stay
 * valid while the next is read) and read again from the start (r.pos = 0,
 * as serialization does), must be exactly the sorted distinct keys, and a
 * front-coded sorted part must be exactly their canonical front coding.
 * Copies (into another context), serialized round trips, the output
 * Datums, a set built by the front set's writer, and merges of two sets of
 * overlapping keys in every kind combination (front + front, front dst +
 * variable-size src small (its keys into the tail) and large (the one-pass
 * merge), variable-size dst + front src (dst converts), variable-size +
 * variable-size) are checked the same way, against the union, and so are
 * partial states combined as a parallel leader combines them (the first
 * taken over, large front-coded ones kept as held states, counted by a
 * k-way merge, merged past CD_FRONT_MAX_HELD and by a compaction).  Every
 * case must leave no chunk behind, and counting, compaction and adding rows
 * none in the current context.
 *
 * Built by test/drivers/15-set-keys.sh against the server headers and the
 * fuzz harness's stubs of the server functions (test/fuzz/pgstub.c, with
 * bytea enabled), with -DCD_FRONT_MIN_BYTES=256 -DCD_FRONT_ALWAYS=1 so that
 * even small sets become front-coded: no server needed.
 */
#include "postgres.h"

#include <stdio.h>
#include <stdlib.h>

#include "catalog/pg_type.h"
#include "nodes/memnodes.h"
#include "utils/memutils.h"

#include "alloc.h"
#include "frontset.h"
#include "key.h"
#include "set.h"
#include "varset.h"
#include "pgstub.h"
#include "unit_common.h"

static long passed = 0;
static long failed = 0;
static long cur_case = -1;		/* for the messages */
static int	cur_shape = -1;
static size_t cur_n = 0;

/* what the cases reached (checked at the end) */
static long n_front_by_rows = 0;	/* sets that turned front-coded by adds */
static long n_var_by_rows = 0;
static long merges[2][2][2];	/* [dst front][src front][by append] */
static long n_held = 0;			/* combines that kept a state held */
static long n_taken = 0;		/* states taken over whole */
static long n_one_length = 0;	/* with held states, keys of one length */
static long n_local = 0;		/* states built from a set of this process */

/*
 * Are the keys of fs and its held states known to be of one length (counted over
 * records: frontset.c, count_union_records, unless the tail has others)?
 */
static bool
held_of_one_length(const CDFrontSet *fs)
{
	size_t		len = CD_FRONT_MIXED;

	for (uint32 r = 0; r <= fs->nheld; r++)
	{
		const CDFrontSet *s = r == 0 ? fs : fs->held[r - 1];

		if (s->nsorted == 0)
			continue;
		if (s->keylen == CD_FRONT_MIXED ||
			(len != CD_FRONT_MIXED && s->keylen != len))
			return false;
		len = s->keylen;
	}
	return len != CD_FRONT_MIXED;
}

static void
report(const char *why, const char *what)
{
	if (why == NULL)
		passed++;
	else
	{
		failed++;
		if (failed <= 30)
			printf("FAIL: %s: %s (case %ld, shape %d, %zu keys)\n",
				   what, why, cur_case, cur_shape, cur_n);
	}
}

static void
report_ok(bool ok, const char *what)
{
	report(ok ? NULL : "false", what);
}

/* ----------------------------------------------------------------
 *		Keys, and the truth
 * ----------------------------------------------------------------
 */

typedef struct Key
{
	const char *p;
	size_t		len;
	size_t		idx;			/* its place in the list */
} Key;

/* keys one after the other: bytes of key i at off[i], len[i] of them */
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

static void
keys_add(KeyList *l, const char *p, size_t len)
{
	if (l->n == l->cap)
	{
		l->cap = l->cap ? 2 * l->cap : 64;
		l->off = realloc(l->off, l->cap * sizeof(size_t));
		l->len = realloc(l->len, l->cap * sizeof(size_t));
	}
	if (l->bytes == NULL || l->used + len > l->room)
	{
		l->room = Max(2 * l->room, l->used + len + 1024);
		l->bytes = realloc(l->bytes, l->room);
	}
	if (l->off == NULL || l->len == NULL || l->bytes == NULL)
	{
		printf("out of memory\n");
		exit(2);
	}
	memcpy(l->bytes + l->used, p, len);
	l->off[l->n] = l->used;
	l->len[l->n] = len;
	l->used += len;
	l->n++;
}

static const char *
keys_key(const KeyList *l, size_t i, size_t *len)
{
	*len = l->len[i];
	return l->bytes + l->off[i];
}

/* memcmp over the common length, then the shorter first */
static int
cmp_bytes(const char *a, size_t alen, const char *b, size_t blen)
{
	int			c = memcmp(a, b, Min(alen, blen));

	if (c != 0)
		return c;
	return (alen > blen) - (alen < blen);
}

static int
cmp_key(const void *x, const void *y)
{
	const Key  *a = (const Key *) x;
	const Key  *b = (const Key *) y;

	return cmp_bytes(a->p, a->len, b->p, b->len);
}

/* equal keys in the order of the list */
static int
cmp_key_idx(const void *x, const void *y)
{
	const Key  *a = (const Key *) x;
	const Key  *b = (const Key *) y;
	int			c = cmp_key(a, b);

	if (c != 0)
		return c;
	return (a->idx > b->idx) - (a->idx < b->idx);
}

/* the keys of lists a and b (b may be NULL), unsorted; *n: how many */
static Key *
keys_of(const KeyList *a, const KeyList *b, size_t *n)
{
	size_t		na = a->n;
	size_t		nb = b ? b->n : 0;
	Key		   *k = malloc(sizeof(Key) * (na + nb + 1));
	size_t		i;

	for (i = 0; i < na + nb; i++)
	{
		const KeyList *l = i < na ? a : b;

		k[i].p = keys_key(l, i < na ? i : i - na, &k[i].len);
		k[i].idx = i;
	}
	*n = na + nb;
	return k;
}

/* the sorted distinct keys of k[0 .. n-1], in place; returns how many */
static size_t
sort_unique(Key *k, size_t n)
{
	size_t		m = 0;

	qsort(k, n, sizeof(Key), cmp_key);
	for (size_t i = 0; i < n; i++)
		if (m == 0 || cmp_key(&k[i], &k[m - 1]) != 0)
			k[m++] = k[i];
	return m;
}

/* distinct[i]: how many distinct keys the first i keys of l hold */
static size_t *
distinct_prefixes(const KeyList *l)
{
	size_t		n;
	Key		   *k = keys_of(l, NULL, &n);
	char	   *first = calloc(n + 1, 1);
	size_t	   *distinct = malloc(sizeof(size_t) * (n + 1));

	qsort(k, n, sizeof(Key), cmp_key_idx);
	for (size_t i = 0; i < n; i++)
		if (i == 0 || cmp_key(&k[i], &k[i - 1]) != 0)
			first[k[i].idx] = 1;
	distinct[0] = 0;
	for (size_t i = 0; i < n; i++)
		distinct[i + 1] = distinct[i] + first[i];
	free(first);
	free(k);
	return distinct;
}

/* bytes the keys take as entries (a 1- or 4-byte length, then the key) */
static size_t
entry_bytes(const Key *k, size_t n)
{
	size_t		sum = 0;

	for (size_t i = 0; i < n; i++)
		sum += (k[i].len < 128 ? 1 : 4) + k[i].len;
	return sum;
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
 * The canonical front coding of the sorted distinct keys k[0 .. n-1]: for
 * each, the longest prefix it shares with the one before and the length of
 * the rest (LEB128), then the rest.  Sets *len.
 */
static char *
front_coding(const Key *k, size_t n, size_t *len)
{
	size_t		room = 1;
	size_t		w = 0;
	char	   *out;

	for (size_t i = 0; i < n; i++)
		room += 20 + k[i].len;
	out = malloc(room);
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

/*
 * The keys as bytea Datums in one arena (*arena, to free): some with a
 * short header, as values in tuples have, the others with a 4-byte one.
 */
static Datum *
make_datums(const KeyList *l, char **arena)
{
	Datum	   *d = malloc(sizeof(Datum) * (l->n + 1));
	size_t		room = 8;
	size_t		w = 0;

	for (size_t i = 0; i < l->n; i++)
		room += MAXALIGN(VARHDRSZ + l->len[i]);
	*arena = malloc(room);
	for (size_t i = 0; i < l->n; i++)
	{
		size_t		len;
		const char *key = keys_key(l, i, &len);
		char	   *v = *arena + w;

		if (len <= VARATT_SHORT_MAX - VARHDRSZ_SHORT && (next_random() & 1))
		{
			SET_VARSIZE_SHORT(v, VARHDRSZ_SHORT + len);
			memcpy(v + VARHDRSZ_SHORT, key, len);
		}
		else
		{
			SET_VARSIZE(v, VARHDRSZ + len);
			memcpy(VARDATA(v), key, len);
		}
		d[i] = PointerGetDatum(v);
		w += MAXALIGN(VARHDRSZ + len);
	}
	return d;
}

/* ----------------------------------------------------------------
 *		Drawing keys
 * ----------------------------------------------------------------
 */

#define MAX_KEY		9000

static const char alphabet[] = {
	0x00, 0x01, 0x7f, (char) 0x80, (char) 0xff, 'a'
};

#define NSHAPES		8

/* what a case's keys share */
typedef struct Shape
{
	char		prefix[40];		/* shape 1: the equal bytes */
	char		long_prefix[MAX_KEY];	/* shape 4: what long keys share */
	KeyList		pool;			/* shapes 3 and 5: the few keys repeated */
	size_t		len;			/* shape 6: every key's length */
} Shape;

static size_t draw_key(Shape *sh, int shape, char *buf);

static void
shape_init(Shape *sh, int shape, size_t n)
{
	size_t		npool = Max(n / 16, 1);

	for (int i = 0; i < 40; i++)
		sh->prefix[i] = (char) (i % 3 == 0 ? 'x' : next_random());
	for (int i = 0; i < MAX_KEY; i++)
		sh->long_prefix[i] = (char) (i < 300 ? 'p' + i % 5 : next_random());
	{
		static const size_t lens[] = {0, 3, 8, 9, 12, 16, 32, 45, 300};

		sh->len = lens[next_random() % lengthof(lens)];
	}
	keys_init(&sh->pool);
	if (shape == 3 || shape == 5)
	{
		char	   *buf = malloc(MAX_KEY);

		for (size_t i = 0; i < npool; i++)
			keys_add(&sh->pool, buf, draw_key(sh, next_random() % 3, buf));
		free(buf);
	}
}

/* a key of the shape into buf (room for MAX_KEY bytes); returns its length */
static size_t
draw_key(Shape *sh, int shape, char *buf)
{
	size_t		len;

	if (shape == 5)
		shape = next_random() % 5;
	switch (shape)
	{
		case 0:					/* a small alphabet, 0 to 40 bytes */
			len = (next_random() & 1) ? next_random() % 41 : next_random() % 6;
			for (size_t i = 0; i < len; i++)
				buf[i] = alphabet[next_random() % lengthof(alphabet)];
			return len;
		case 1:					/* 40 equal bytes, then a few */
			if (next_random() % 16 == 0)
			{
				/* a prefix of them */
				len = next_random() % 41;
				memcpy(buf, sh->prefix, len);
				return len;
			}
			memcpy(buf, sh->prefix, 40);
			len = 40 + next_random() % 5;
			for (size_t i = 40; i < len; i++)
				buf[i] = (next_random() & 1) ?
					alphabet[next_random() % lengthof(alphabet)] :
					(char) next_random();
			return len;
		case 2:					/* random bytes */
			len = next_random() % 33;
			for (size_t i = 0; i < len; i++)
				buf[i] = (char) next_random();
			return len;
		case 3:					/* a few keys, repeated */
			if (sh->pool.n == 0)
				return 0;
			{
				size_t		i = next_random() % sh->pool.n;
				const char *key = keys_key(&sh->pool, i, &len);

				memcpy(buf, key, len);
				return len;
			}
		case 6:					/* one length, often the same 9 bytes first */
			len = sh->len;
			for (size_t i = 0; i < len; i++)
				buf[i] = (i < 9 && (next_random() & 3)) ? sh->prefix[i] :
					alphabet[next_random() % lengthof(alphabet)];
			return len;
		case 7:					/* 16 random bytes (a uuid) */
			len = 16;
			for (size_t i = 0; i < len; i++)
				buf[i] = (char) next_random();
			return len;
		case 4:
		default:				/* long keys, a few of several kB */
			{
				static const size_t lens[] = {126, 127, 128, 129, 200, 255,
				256, 300};
				size_t		keep;

				if (next_random() % 64 == 0)
					len = 2000 + next_random() % (MAX_KEY - 2000);
				else if (next_random() & 1)
					len = lens[next_random() % lengthof(lens)];
				else
					len = next_random() % 401;
				/* shares some of the long prefix, the rest is its own */
				keep = (next_random() & 3) ? next_random() % (len + 1) : len;
				memcpy(buf, sh->long_prefix, keep);
				for (size_t i = keep; i < len; i++)
					buf[i] = (next_random() & 1) ?
						alphabet[next_random() % lengthof(alphabet)] :
						(char) next_random();
				return len;
			}
	}
}

/* ----------------------------------------------------------------
 *		Sets
 * ----------------------------------------------------------------
 */

static CDAlloc *
test_alloc(bool hash)
{
	static CDAlloc alloc;

	memset(&alloc, 0, sizeof(alloc));
	alloc.aggcontext = stub_cxt_fn;
	alloc.mcxt = stub_cxt_query;
	alloc.fine_grained = hash;
	alloc.use_slots = hash;
	return &alloc;
}

static void
free_set(CDSet *s)
{
	if (s->kind == CD_SET_FRONT)
		cd_front_free(s);
	else if (!(s->flags & CD_SET_IN_SLOT))
		pfree(s);
}

static MemoryContext
scratch_context(void)
{
	return AllocSetContextCreate(stub_cxt_query, "scratch",
								 ALLOCSET_SMALL_SIZES);
}

static bool
same_key(const char *key, size_t len, const Key *want)
{
	return len == want->len && (len == 0 || memcmp(key, want->p, len) == 0);
}

/*
 * Read the compacted set: exactly want[0 .. n-1], each key still valid
 * once the next is read; a first pass stops halfway, then the reader starts
 * over (r.pos = 0) twice.
 */
static const char *
read_all(CDSet *s, const Key *want, size_t n)
{
	CDKeyReader r;

	cd_set_ops(s)->reader(s, &r);
	if (r.count != n)
		return "the reader's count";
	for (int pass = 0; pass < 3; pass++)
	{
		size_t		stop = pass == 0 ? n / 2 : n;
		const char *prev = NULL;
		Size		prevlen = 0;
		size_t		i = 0;

		r.pos = 0;
		while (i < stop)
		{
			Size		len;
			const char *key = r.next_bytes(&r, &len);

			if (key == NULL)
				return "fewer keys than the truth";
			if (!same_key(key, len, &want[i]))
				return "a key differs from the truth";
			if (prev != NULL && !same_key(prev, prevlen, &want[i - 1]))
				return "a key did not stay valid while the next was read";
			prev = key;
			prevlen = len;
			i++;
		}
		if (stop == n)
		{
			Size		len;

			if (r.next_bytes(&r, &len) != NULL)
				return "more keys than the truth";
			if (r.next_bytes(&r, &len) != NULL)
				return "a key after the end";
		}
	}
	return NULL;
}

/*
 * Does the set hold exactly the keys want[0 .. n-1]?  Counts first (the set
 * must not change, and nothing must be left in the current context), then
 * compacts (the same) and reads.  A front-coded set's sorted part must be
 * their canonical front coding, and its raw size their entries' size.
 */
static const char *
check_set(CDSet *s, const Key *want, size_t n)
{
	MemoryContext scratch = scratch_context();
	MemoryContext old = MemoryContextSwitchTo(scratch);
	const char *why = NULL;
	uint32		nall = s->nall;
	uint32		nsorted = s->nsorted;

	if (cd_set_count(s) != n)
		why = "the count";
	else if (s->nall != nall || s->nsorted != nsorted)
		why = "counting changed the set";
	else if (stub_live_chunks(scratch) != 0)
		why = "counting left chunks behind";
	if (why == NULL)
	{
		cd_set_compact(s);
		if (s->nsorted != n || s->nall != n)
			why = "the keys once compacted";
		else if (stub_live_chunks(scratch) != 0)
			why = "compaction left chunks behind";
	}
	if (why == NULL && s->kind == CD_SET_FRONT)
	{
		const CDFrontSet *fs = (const CDFrontSet *) s;
		size_t		len;
		char	   *coded = front_coding(want, n, &len);

		if (fs->codedbytes != len ||
			(len > 0 && memcmp(fs->coded, coded, len) != 0))
			why = "the sorted part is not the keys' front coding";
		else if (fs->rawbytes != entry_bytes(want, n))
			why = "the raw size is not the keys' entries' size";
		else if (fs->tailbytes != 0)
			why = "a tail left after compaction";
		free(coded);
	}
	if (why == NULL)
		why = read_all(s, want, n);
	MemoryContextSwitchTo(old);
	MemoryContextDelete(scratch);
	return why;
}

/*
 * Add the rows datums[from .. to-1] through the per-row path, counting on
 * the way when distinct is given (distinct[i]: the truth after i rows);
 * nothing may be left in the current context.
 */
static CDSet *
add_rows(CDSet *s, const Datum *datums, size_t from, size_t to,
		 const size_t *distinct, CDAlloc *alloc, const char *what)
{
	MemoryContext scratch = scratch_context();
	MemoryContext old = MemoryContextSwitchTo(scratch);
	size_t		step = Max((to - from) / 8, 1);
	const char *why = NULL;

	for (size_t i = from; i < to; i++)
	{
		uint8		kind = s->kind;

		s = cd_set_add_value(s, datums[i], alloc);
		if (distinct != NULL && why == NULL &&
			(i - from < 40 || ((i + 1) & i) == 0 || (i - from) % step == 0 ||
			 s->kind != kind || i + 1 == to))
		{
			uint32		nall = s->nall;

			if (cd_set_count(s) != distinct[i + 1])
				why = "the count on the way";
			else if (s->nall != nall)
				why = "counting on the way changed the set";
		}
	}
	if (why == NULL && stub_live_chunks(scratch) != 0)
		why = "adding rows left chunks behind";
	report(why, what);
	MemoryContextSwitchTo(old);
	MemoryContextDelete(scratch);
	return s;
}

/* A front-coded set of the keys of s, which is not changed but compacted. */
static CDSet *
front_of(CDSet *s, CDAlloc *alloc)
{
	CDSet	   *copy = cd_set_copy(s, stub_cxt_query);

	if (copy->kind == CD_SET_FRONT)
		return copy;
	return cd_front_from_set(copy, alloc);
}

/*
 * A set of the keys of s, serialized (the keys' part must be their front
 * coding), then deserialized (in stub_cxt_query: front-coded if large).
 */
static CDSet *
round_trip(CDSet *s, const CDKeyType *kt, const Key *want, size_t n)
{
	MemoryContext scratch = scratch_context();
	MemoryContext old = MemoryContextSwitchTo(scratch);
	bytea	   *ser = cd_set_serialize(s, NULL);
	StringInfoData buf;
	CDStateHeader h;
	CDSet	   *d;
	size_t		len;
	char	   *coded = front_coding(want, n, &len);
	size_t		serlen = VARSIZE(ser) - VARHDRSZ;

	report_ok(serlen >= len &&
			  memcmp(VARDATA(ser) + serlen - len, coded, len) == 0,
			  "serialized keys: their front coding");
	free(coded);
	cd_state_read_header(&buf, VARDATA(ser), serlen, NULL, &h);
	report_ok(h.n == n && h.encoding == CD_KEY_BYTES && h.typid == BYTEAOID,
			  "serialized header");
	MemoryContextSwitchTo(stub_cxt_query);
	d = cd_set_deserialize(&buf, &h, kt, NULL);
	MemoryContextSwitchTo(old);
	MemoryContextDelete(scratch);
	return d;
}

/*
 * A partial state of the keys of s, serialized and deserialized in into
 * (as a deserialization function does, in its per-input context), without
 * checks; every other call, as a deserialization function of the same
 * backend reads a state it gets as an object (state_object.h): from s
 * itself, where that has a shortcut (cd_set_from_local_state).
 */
static CDSet *
state_of(CDSet *s, MemoryContext into)
{
	static long calls = 0;
	MemoryContext old = MemoryContextSwitchTo(into);
	bytea	   *ser;
	StringInfoData buf;
	CDStateHeader h;
	CDSet	   *d;
	CDStateImage img;

	if (calls++ % 2 == 1 && cd_state_image_init(&img, s))
	{
		d = cd_set_from_local_state(&img, s->kt);
		pfree(img.head.data);
		if (d != NULL)
		{
			n_local++;
			MemoryContextSwitchTo(old);
			return d;
		}
	}
	ser = cd_set_serialize(s, NULL);
	cd_state_read_header(&buf, VARDATA(ser), VARSIZE(ser) - VARHDRSZ, NULL, &h);
	d = cd_set_deserialize(&buf, &h, s->kt, NULL);
	pfree(ser);
	MemoryContextSwitchTo(old);
	return d;
}

/*
 * The state of s written by cd_state_image_write into memory of its exact
 * size (guarded by canaries) is cd_set_serialize's; the set read from s as
 * a local state holds want, and is one the combine function takes over.
 */
static void
check_image(CDSet *s, const Key *want, size_t n)
{
	MemoryContext scratch = scratch_context();
	MemoryContext old = MemoryContextSwitchTo(scratch);
	bytea	   *ser = cd_set_serialize(s, NULL);
	CDStateImage img;

	if (!cd_state_image_init(&img, s))
		report("no image of a set of byte keys", "state image");
	else
	{
		size_t		size = cd_state_image_size(&img);
		char	   *mem = palloc(size + 16);
		CDSet	   *d;

		memset(mem, 0x5A, size + 16);
		cd_state_image_write(&img, mem + 8);
		report_ok(size == VARSIZE(ser) && memcmp(mem + 8, ser, size) == 0,
				  "state image: the serialized state");
		report_ok(mem[7] == 0x5A && mem[size + 8] == 0x5A,
				  "state image: within its size");
		MemoryContextSwitchTo(stub_cxt_query);
		d = cd_set_from_local_state(&img, s->kt);
		MemoryContextSwitchTo(scratch);
		if (d != NULL)
		{
			n_local++;
			report(check_set(d, want, n), "a local state");
			report_ok(cd_front_takeable(d), "a local state can be taken over");
			free_set(d);
		}
		else
			report_ok(img.keybytes <= CD_FRONT_MIN_BYTES || !CD_FRONT_ALWAYS,
					  "a large local state read from its set");
	}
	MemoryContextSwitchTo(old);
	MemoryContextDelete(scratch);
}

/*
 * Partial states as a parallel plan's workers send them, combined as
 * count_distinct_combine does: each deserialized in a per-input context
 * that is deleted after its combine (as nodeAgg resets it), the first
 * taken over (cd_set_take), the others merged; the large front-coded ones
 * become held states of the state, counted without a merge, merged past
 * CD_FRONT_MAX_HELD and by a compaction.  The rows of l go to k pieces, a
 * quarter of them to a second piece too; odd_early: a key of odd length
 * only to pieces 1 to CD_FRONT_MAX_HELD, one of even length only to the
 * others, so that with more pieces those held states, merged into the state, give
 * it keys of two lengths, and the held states after them have keys of one length,
 * the state's first one.  tiny_one: the second piece gets few keys (those
 * of another length than l's first, and a few more), which go into the
 * state's tail, and the next ones are kept as held states beside it.
 */
static int
odd_early_piece(int k, size_t len)
{
	int			first = Min(k - 1, CD_FRONT_MAX_HELD);	/* pieces 1 .. first */

	if (len % 2 == 1)
		return 1 + (int) (next_random() % first);
	/* piece 0 or one after the first */
	{
		int			j = (int) (next_random() % (k - first));

		return j == 0 ? 0 : first + j;
	}
}

static void
check_held(const CDKeyType *kt, const KeyList *l, int k, CDAlloc *alloc,
		   bool odd_early, bool tiny_one)
{
	KeyList		piece[12];
	CDSet	   *state = NULL;
	size_t		n;
	Key		   *want = keys_of(l, NULL, &n);
	bool		had_held = false;
	int			j;

	Assert(k >= 1 && k <= 12);
	n = sort_unique(want, n);
	for (j = 0; j < k; j++)
		keys_init(&piece[j]);
	for (size_t i = 0; i < l->n; i++)
	{
		size_t		len;
		const char *key = keys_key(l, i, &len);

		/* the first piece twice as large: states of both kinds meet */
		j = next_random() % (k + 1);
		if (odd_early)
			j = odd_early_piece(k, len);
		if (tiny_one && k > 2)
		{
			if (len != l->len[0])
				j = 1;
			else if (j == 1 && next_random() % 16 != 0)
				j = 0;
		}
		keys_add(&piece[j == k ? 0 : j], key, len);
		if (next_random() % 4 == 0)
		{
			j = odd_early ? odd_early_piece(k, len) : (int) (next_random() % k);
			if (tiny_one && k > 2 && (j == 1) != (len != l->len[0]))
				j = len != l->len[0] ? 1 : 0;
			keys_add(&piece[j], key, len);
		}
	}
	for (j = 0; j < k; j++)
	{
		char	   *arena;
		Datum	   *datums = make_datums(&piece[j], &arena);
		CDSet	   *p = cd_set_create(kt, alloc);
		MemoryContext tuple = scratch_context();
		CDSet	   *d;

		p = add_rows(p, datums, 0, piece[j].n, NULL, alloc, "rows of a piece");
		d = state_of(p, tuple);
		free_set(p);
		free(datums);
		free(arena);
		if (state == NULL)
		{
			bool		takeable = cd_front_takeable(d);

			state = cd_set_take(d, stub_cxt_query);
			report_ok(!takeable || state == d, "a front-coded state taken, not copied");
			n_taken += takeable;
		}
		else
		{
			MemoryContext old = MemoryContextSwitchTo(tuple);
			uint32		before = state->kind == CD_SET_FRONT ?
				((CDFrontSet *) state)->nheld : 0;

			state = cd_set_merge(state, d, alloc);
			MemoryContextSwitchTo(old);
			if (state->kind == CD_SET_FRONT &&
				((CDFrontSet *) state)->nheld > before)
				n_held++;
		}
		MemoryContextDelete(tuple);
		if (state->kind == CD_SET_FRONT && ((CDFrontSet *) state)->nheld > 0)
		{
			had_held = true;
			report_ok(((CDFrontSet *) state)->nheld <= CD_FRONT_MAX_HELD,
					  "at most CD_FRONT_MAX_HELD held states");
		}
		keys_free(&piece[j]);
	}
	if (state != NULL)
	{
		/* counted through the held states, then compacted and read */
		if (had_held && state->kind == CD_SET_FRONT &&
			((CDFrontSet *) state)->nheld > 0 &&
			held_of_one_length((CDFrontSet *) state))
			n_one_length++;
		report(check_set(state, want, n),
			   had_held ? "combined partial states, with held states" :
			   "combined partial states");
		free_set(state);
	}
	report_ok(stub_cxt_query->firstchild == NULL, "no context left behind");
	free(want);
}

/* The output Datums: the keys as bytea values, in order. */
static const char *
check_output(CDSet *s, const Key *want, size_t n)
{
	MemoryContext scratch = scratch_context();
	MemoryContext old = MemoryContextSwitchTo(scratch);
	const char *why = NULL;
	uint32		m;
	Datum	   *values = cd_set_output_datums(s, &m);

	if (m != n)
		why = "the number of output values";
	for (uint32 i = 0; why == NULL && i < m; i++)
	{
		bytea	   *v = DatumGetByteaPP(values[i]);

		if (!same_key(VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v), &want[i]))
			why = "an output value differs from the truth";
	}
	MemoryContextSwitchTo(old);
	MemoryContextDelete(scratch);
	return why;
}

/* A front-coded set filled by its writer (CDSetOps.build). */
static CDSet *
built_by_writer(const CDKeyType *kt, const Key *want, size_t n,
				MemoryContext mcxt)
{
	CDKeyWriter w;

	(void) cd_front_set_ops.build(kt, mcxt, (uint32) n,
								  entry_bytes(want, n), &w);
	for (size_t i = 0; i < n; i++)
		w.put_bytes(&w, want[i].p, want[i].len);
	return cd_set_written(&w);
}

/*
 * Merge a copy of dst with src (cd_set_merge, in a scratch context: the
 * reader of src lives there) and check the union.
 */
static void
check_merge(CDSet *dst, CDSet *src, const Key *want, size_t n,
			CDAlloc *alloc, const char *what)
{
	CDSet	   *d = cd_set_copy(dst, stub_cxt_query);
	MemoryContext scratch = scratch_context();
	MemoryContext old;
	bool		dfront = (d->kind == CD_SET_FRONT);
	bool		sfront = (src->kind == CD_SET_FRONT);
	bool		append;
	CDSet	   *u;

	cd_set_compact(src);
	append = cd_set_ops(src)->used_bytes(src) * 16 <=
		cd_set_ops(d)->used_bytes(d);
	merges[dfront][sfront][append]++;
	/* a deserialized front-coded state is consumed: merge a fresh one */
	if (cd_front_takeable(src))
		src = state_of(src, stub_cxt_query);
	old = MemoryContextSwitchTo(scratch);
	u = cd_set_merge(d, src, alloc);
	MemoryContextSwitchTo(old);
	MemoryContextDelete(scratch);
	/* front-coded if either was; else either kind (dst may convert) */
	report_ok((dfront || sfront) ? u->kind == CD_SET_FRONT :
			  (u->kind == CD_SET_FRONT || u->kind == CD_SET_VAR), what);
	report(check_set(u, want, n), what);
	free_set(u);
}

/*
 * Everything on the keys of a and b (rows in that order): b shares some
 * keys with a.
 */
static void
check_lists(const CDKeyType *kt, const KeyList *a, const KeyList *b,
			CDAlloc *alloc)
{
	size_t		na;
	size_t		nb;
	size_t		nu;
	Key		   *wa = keys_of(a, NULL, &na);
	Key		   *wb = keys_of(b, NULL, &nb);
	Key		   *wu = keys_of(a, b, &nu);
	size_t	   *distinct = distinct_prefixes(a);
	char	   *arena_a;
	char	   *arena_b;
	Datum	   *da = make_datums(a, &arena_a);
	Datum	   *db = make_datums(b, &arena_b);
	CDSet	   *sa;
	CDSet	   *sb;
	CDSet	   *fa;
	CDSet	   *fb;
	CDSet	   *va;
	CDSet	   *vb;
	CDSet	   *s;
	MemoryContext ctx;

	na = sort_unique(wa, na);
	nb = sort_unique(wb, nb);
	nu = sort_unique(wu, nu);

	/* the rows of a, counted on the way */
	sa = cd_set_create(kt, alloc);
	report_ok(sa->kind == CD_SET_VAR, "a new set is a variable-size one");
	sa = add_rows(sa, da, 0, a->n, distinct, alloc, "rows of a");
	report(check_set(sa, wa, na), "keys of a set of rows");
	if (sa->kind == CD_SET_FRONT)
		n_front_by_rows++;
	else
		n_var_by_rows++;
	/* well past CD_FRONT_MIN_BYTES it must have become front-coded */
	report_ok(!CD_FRONT_ALWAYS || sa->kind == CD_SET_FRONT ||
			  entry_bytes(wa, na) <= 8 * CD_FRONT_MIN_BYTES,
			  "a large set ends front-coded");

	/* a copy in another context, then rows added to it */
	ctx = AllocSetContextCreate(stub_cxt_query, "copy", ALLOCSET_SMALL_SIZES);
	s = cd_set_copy(sa, ctx);
	report_ok(s->kind == sa->kind && GetMemoryChunkContext(s) == ctx,
			  "a copy of the same kind, in its context");
	report(check_set(s, wa, na), "a copy");
	s = add_rows(s, da, 0, a->n / 2, NULL, alloc, "rows again, into a copy");
	report(check_set(s, wa, na), "a copy, rows of a added again");
	s = add_rows(s, db, 0, b->n, NULL, alloc, "rows of b, into a copy");
	report(check_set(s, wu, nu), "a copy, rows of b added");
	free_set(s);
	report_ok(stub_live_chunks(ctx) == 0, "a copy freed leaves nothing");
	MemoryContextDelete(ctx);

	/* serialized and back; the output values; built by the writer */
	va = round_trip(sa, kt, wa, na);
	{
		size_t		clen;
		char	   *c = front_coding(wa, na, &clen);

		/* large states come back front-coded (this build: whatever they are) */
		free(c);
		report_ok(va->kind == (CD_FRONT_ALWAYS && clen > CD_FRONT_MIN_BYTES ?
							   CD_SET_FRONT : CD_SET_VAR),
				  "deserialized: front-coded if large, else variable-size");
	}
	report(check_set(va, wa, na), "deserialized");
	check_image(sa, wa, na);
	report(check_output(sa, wa, na), "output values");
	s = built_by_writer(kt, wa, na, stub_cxt_query);
	report(check_set(s, wa, na), "built by the writer");
	s = add_rows(s, db, 0, b->n, NULL, alloc, "rows of b, into a built set");
	report(check_set(s, wu, nu), "built by the writer, rows of b added");
	free_set(s);

	/* b likewise, the front-coded sets of both, and merges of every kind */
	sb = cd_set_create(kt, alloc);
	sb = add_rows(sb, db, 0, b->n, NULL, alloc, "rows of b");
	report(check_set(sb, wb, nb), "keys of a set of rows of b");
	vb = round_trip(sb, kt, wb, nb);
	report(check_set(vb, wb, nb), "deserialized b");
	fa = front_of(sa, alloc);
	fb = front_of(sb, alloc);
	report_ok(fa->kind == CD_SET_FRONT && fb->kind == CD_SET_FRONT,
			  "front-coded from variable-size sets");
	report(check_set(fa, wa, na), "front-coded a");
	report(check_set(fb, wb, nb), "front-coded b");
	check_image(fa, wa, na);
	report(check_output(fa, wa, na), "output values, front-coded");

	check_merge(fa, fb, wu, nu, alloc, "front + front");
	check_merge(fb, fa, wu, nu, alloc, "front + front, other way");
	check_merge(fa, vb, wu, nu, alloc, "front + variable-size");
	check_merge(fb, va, wu, nu, alloc, "front + variable-size, other way");
	check_merge(va, fb, wu, nu, alloc, "variable-size + front");
	check_merge(vb, fa, wu, nu, alloc, "variable-size + front, other way");
	check_merge(va, vb, wu, nu, alloc, "variable-size + variable-size");
	check_merge(sa, sb, wu, nu, alloc, "sets of rows");

	/* a merged front-coded set takes more rows (a fresh vb is consumed) */
	s = cd_set_merge(cd_set_copy(fa, stub_cxt_query),
					 cd_front_takeable(vb) ? state_of(vb, stub_cxt_query) : vb,
					 alloc);
	s = add_rows(s, db, 0, b->n, NULL, alloc, "rows of b, into a merged set");
	s = add_rows(s, da, 0, Min(a->n, 100), NULL, alloc,
				 "rows of a, into a merged set");
	report(check_set(s, wu, nu), "a merged set, rows added");
	free_set(s);

	free_set(sa);
	free_set(sb);
	free_set(fa);
	free_set(fb);
	free_set(va);
	free_set(vb);
	report_ok(stub_live_chunks(stub_cxt_query) == 0 &&
			  stub_live_chunks(stub_cxt_fn) == 0 &&
			  stub_cxt_query->firstchild == NULL, "no chunk left behind");
	stub_reset(stub_cxt_query);
	stub_reset(stub_cxt_fn);
	free(wa);
	free(wb);
	free(wu);
	free(distinct);
	free(da);
	free(db);
	free(arena_a);
	free(arena_b);
}

static const size_t sizes[] = {0, 1, 2, 3, 10, 40, 127, 300, 1000, 3000,
10000, 25000};

/*
 * Case it: its shape and size run through every pair (NSHAPES *
 * lengthof(sizes) cases), then again with the other allocator (hash
 * aggregation's or not) and other sizes of b: small (its keys go into the
 * tail of a front-coded dst), half of a or as large (the one-pass merge).
 */
static void
one_case(long it)
{
	int			shape = it % NSHAPES;
	size_t		n = sizes[(it / NSHAPES) % lengthof(sizes)];
	long		grid = it / (NSHAPES * lengthof(sizes));
	int			bmode = (it / NSHAPES + grid) % 3;	/* b's size */
	bool		hash = (grid & 1) != 0;
	size_t		nb = bmode == 0 ? n / 25 + 1 : bmode == 1 ? n / 2 + 1 : n + 1;
	Shape	   *sh = malloc(sizeof(Shape));
	char	   *buf = malloc(MAX_KEY);
	KeyList		a;
	KeyList		b;
	CDKeyType	kt;

	cur_case = it;
	cur_shape = shape;
	cur_n = n;
	shape_init(sh, shape, n);
	keys_init(&a);
	keys_init(&b);
	for (size_t i = 0; i < n; i++)
		keys_add(&a, buf, draw_key(sh, shape, buf));
	/* b: a third of it keys of a */
	for (size_t i = 0; i < nb; i++)
	{
		if (a.n > 0 && next_random() % 3 == 0)
		{
			size_t		len;
			const char *key = keys_key(&a, next_random() % a.n, &len);

			keys_add(&b, key, len);
		}
		else
			keys_add(&b, buf, draw_key(sh, shape, buf));
	}
	cd_keytype_init(&kt, BYTEAOID, InvalidOid, stub_cxt_fn);
	report_ok(kt.encoding == CD_KEY_BYTES && kt.width == 0 && kt.codec == NULL,
			  "bytea: byte keys");
	check_lists(&kt, &a, &b, test_alloc(hash));
	check_held(&kt, &a, 1 + (int) (it % 12), test_alloc(hash), false, false);
	if (shape == 6 || shape == 7)
	{
		/* keys of one length: 3 states, and many, and a tail with them */
		check_held(&kt, &a, 3, test_alloc(hash), false, true);
		check_held(&kt, &a, 12, test_alloc(hash), false, it & 1);
		if (a.n > 0)
		{
			/* and a tail with a few keys one byte longer than some */
			KeyList		c;

			keys_init(&c);
			for (size_t i = 0; i < a.n; i++)
			{
				size_t		len;
				const char *key = keys_key(&a, i, &len);

				keys_add(&c, key, len);
				if (next_random() % 50 == 0)
				{
					memcpy(buf, key, len);
					buf[len] = alphabet[next_random() % lengthof(alphabet)];
					keys_add(&c, buf, len + 1);
				}
			}
			check_held(&kt, &c, 3, test_alloc(hash), false, true);
			keys_free(&c);
		}
	}
	if (shape == 6)
	{
		/* keys of two lengths: see check_held */
		KeyList		c;

		keys_init(&c);
		for (size_t i = 0; i < n; i++)
		{
			size_t		len = draw_key(sh, shape, buf);

			if (next_random() & 1)
				buf[len++] = alphabet[next_random() % lengthof(alphabet)];
			keys_add(&c, buf, len);
		}
		check_held(&kt, &c, 2 + (int) (it % 11), test_alloc(hash), true,
				   false);
		check_held(&kt, &c, 12, test_alloc(hash), true, it & 1);
		keys_free(&c);
	}
	keys_free(&a);
	keys_free(&b);
	keys_free(&sh->pool);
	free(sh);
	free(buf);
}

/* Hand-picked lists: the empty key, zero bytes, prefixes */
static const struct
{
	const char *a[8];
	int			alen[8];
	const char *b[8];
	int			blen[8];
}			edges[] = {
	{{""}, {0}, {""}, {0}},
	{{""}, {0}, {"\0"}, {1}},
	{{"\0", ""}, {1, 0}, {"", "\0\0"}, {0, 2}},
	{{"a", "a\0", "", "\0"}, {1, 2, 0, 1},
	{"a\0\0", "\xff", "", "a"}, {3, 1, 0, 1}},
	{{"\xff\xff", "\xff", "\x80"}, {2, 1, 1},
	{"\x7f", "\xff\xff\xff", ""}, {1, 3, 0}},
	{{"abc", "ab", "a", ""}, {3, 2, 1, 0}, {"abcd", "abc", "b"}, {4, 3, 1}},
};

/* ... and keys of 127 and 128 bytes (the entry header's two sizes) */
#define NEDGES	(lengthof(edges) + 2)

static void
one_edge(long e)
{
	KeyList		a;
	KeyList		b;
	CDKeyType	kt;

	cur_case = -1 - e;
	cur_shape = -1;
	keys_init(&a);
	keys_init(&b);
	if (e < lengthof(edges))
	{
		for (int i = 0; i < 8 && edges[e].a[i] != NULL; i++)
			keys_add(&a, edges[e].a[i], edges[e].alen[i]);
		for (int i = 0; i < 8 && edges[e].b[i] != NULL; i++)
			keys_add(&b, edges[e].b[i], edges[e].blen[i]);
	}
	else
	{
		bool		high = (e == lengthof(edges));
		char		buf[140];

		memset(buf, 'k', sizeof(buf));
		for (int len = 120; len <= 136; len++)
		{
			buf[len - 1] = (char) (high ? 0xff : 0);
			keys_add(&a, buf, len);
			buf[len - 1] = 'k';
			keys_add(high ? &a : &b, buf, len);
			keys_add(&b, buf, len - 120);
		}
	}
	cur_n = a.n;
	cd_keytype_init(&kt, BYTEAOID, InvalidOid, stub_cxt_fn);
	check_lists(&kt, &a, &b, test_alloc(e % 2 == 0));
	keys_free(&a);
	keys_free(&b);
}

/*
 * Run fn(it); an ERROR is a failure, after which everything is freed, as a
 * reset of the contexts does.
 */
static void
guarded(void (*fn) (long), long it)
{
	sigjmp_buf	jb;

	stub_error_jmp = &jb;
	if (sigsetjmp(jb, 0) == 0)
		fn(it);
	else
	{
		char		state[6];
		int			code = stub_last_sqlstate;

		for (int i = 0; i < 5; i++, code >>= 6)
			state[i] = (char) ((code & 0x3F) + '0');
		state[5] = '\0';
		report(state, "an ERROR was raised");
		CurrentMemoryContext = stub_cxt_query;
		stub_reset(stub_cxt_query);
		stub_reset(stub_cxt_fn);
	}
	stub_error_jmp = NULL;
}

int
main(int argc, char **argv)
{
	long		cases = argc > 1 ? atol(argv[1]) : 144;

	/* what was printed before a crash (an assertion's abort) stays */
	setvbuf(stdout, NULL, _IOLBF, 0);
	rng = 0x9E3779B97F4A7C15ULL;
	stub_init();
	stub_enable_bytea();
	CurrentMemoryContext = stub_cxt_query;
	for (long e = 0; e < NEDGES; e++)
		guarded(one_edge, e);
	for (long it = 0; it < cases; it++)
		guarded(one_case, it);

	/* the paths the cases were meant to take */
	cur_case = -1000;
	cur_shape = -1;
	cur_n = 0;
	if (CD_FRONT_ALWAYS && CD_FRONT_MIN_BYTES <= 256 &&
		cases >= 2 * NSHAPES * (long) lengthof(sizes))
	{
		report_ok(n_front_by_rows > 0 && n_var_by_rows > 0,
				  "sets of rows of both kinds");
		report_ok(merges[1][1][0] > 0 && merges[1][1][1] > 0,
				  "front + front merged in one pass and by append");
		report_ok(merges[1][0][0] > 0 && merges[1][0][1] > 0,
				  "front + variable-size merged in one pass and by append");
		report_ok(merges[0][1][0] + merges[0][1][1] > 0,
				  "variable-size + front merged");
		report_ok(n_taken > 0 && n_held > 0,
				  "front-coded states taken over and kept as held states");
		report_ok(n_one_length > 0,
				  "held states of keys of one length counted");
		report_ok(n_local > 0, "states read from sets of this process");
	}
	printf("%s: front set, %ld cases, %ld checks passed, %ld failed "
		   "(sets of rows front-coded: %ld, variable-size: %ld; merges "
		   "front+front %ld/%ld, front+var %ld/%ld, var+front %ld/%ld, "
		   "var+var %ld/%ld, one pass/by append; states taken %ld, "
		   "kept as held states %ld, of keys of one length %ld; local states %ld)\n",
		   failed ? "FAIL" : "ok", cases, passed, failed,
		   n_front_by_rows, n_var_by_rows,
		   merges[1][1][0], merges[1][1][1], merges[1][0][0], merges[1][0][1],
		   merges[0][1][0], merges[0][1][1], merges[0][0][0], merges[0][0][1],
		   n_taken, n_held, n_one_length, n_local);
	printf("%d passed, %d failed\n", failed ? 0 : 1, failed ? 1 : 0);
	return failed > 0;
}
