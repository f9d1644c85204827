/*
 * packed_set_test.c
 *	  Unit test of the packed set (src/packedset.c), per key width, against
 *	  an independent truth: qsort + a plain dedup loop.
 *
 * Each case adds keys (random sparse or dense, runs of consecutive keys,
 * repeats of present keys, a heavy hitter (the hot key's path), the extremes 0 and the width's largest key) to
 * a packed set through the per-row append, counting without changing the
 * set on the way; then the set's keys, read through its reader from every
 * position and in batches of several sizes, must be exactly the sorted
 * distinct keys.  Sizes straddle block boundaries (multiples of 128, and
 * one either side).  Copies, merges with packed and fixed-width sets (both
 * ways), a fixed-width set that grows into a packed one, and serialized
 * round trips (through serialkeys's validating decoder) are checked the same
 * way.
 *
 * Built by test/drivers/15-set-keys.sh against the server headers and the
 * fuzz harness's stubs of the server functions (test/fuzz/pgstub.c): no
 * server needed.
 */
#include "postgres.h"

#include <stdio.h>
#include <stdlib.h>

#include "catalog/pg_type.h"
#include "nodes/memnodes.h"
#include "utils/memutils.h"

#include "alloc.h"
#include "key.h"
#include "packedset.h"
#include "set.h"
#include "pgstub.h"
#include "unit_common.h"

static long passed = 0;
static long failed = 0;

/* the sorted distinct keys of keys[0 .. n-1], in place; returns how many */
static size_t
sort_unique(uint64 *keys, size_t n)
{
	size_t		m = 0;

	qsort(keys, n, sizeof(uint64), cmp_u64);
	for (size_t i = 0; i < n; i++)
		if (m == 0 || keys[i] != keys[m - 1])
			keys[m++] = keys[i];
	return m;
}

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

static CDSet *
add_key(CDSet *s, uint64 key, CDAlloc *alloc)
{
	if (s->kind == CD_SET_FIXED)
		return cd_fixed_add_key(s, key, alloc);
	return cd_packed_add_key(s, key);
}

static void
free_set(CDSet *s)
{
	if (s->kind == CD_SET_PACKED)
		cd_packed_free(s);
	else if (!(s->flags & CD_SET_IN_SLOT))
		pfree(s);
}

/*
 * Are the set's keys exactly want[0 .. n-1]?  Counts first (the set must
 * not change), then compacts and reads with batches of size batch.
 */
static bool
same_keys(CDSet *s, const uint64 *want, size_t n, uint32 batch)
{
	CDKeyReader r;
	uint64		buf[CD_KEY_BATCH];
	uint32		nall = s->nall;
	uint32		m;
	size_t		i = 0;

	if (cd_set_count(s) != n || s->nall != nall)
		return false;
	cd_set_compact(s);
	if (s->nsorted != n || s->nall != n)
		return false;
	cd_set_ops(s)->reader(s, &r);
	while ((m = r.next_fixed(&r, buf, batch)) > 0)
	{
		if (i + m > n)
			return false;
		for (uint32 j = 0; j < m; j++, i++)
			if (buf[j] != want[i])
				return false;
	}
	if (i != n)
		return false;
	/* again, from a position inside a block */
	if (n > 3)
	{
		cd_set_ops(s)->reader(s, &r);
		r.pos = n / 2 + 1;
		m = r.next_fixed(&r, buf, CD_KEY_BATCH);
		if (m == 0 || buf[0] != want[n / 2 + 1])
			return false;
	}
	return true;
}

static void
report(bool ok, const char *what, int width, long it)
{
	if (ok)
		passed++;
	else
	{
		failed++;
		if (failed <= 20)
			printf("FAIL: %s, width %d (case %ld)\n", what, width, it);
	}
}

/* n keys of a width, in one of several shapes */
static void
make_keys(uint64 *keys, size_t n, int width, int shape)
{
	uint64		max = width == 8 ? PG_UINT64_MAX : (UINT64CONST(1) << (8 * width)) - 1;
	uint64		base = next_random() & max;

	for (size_t i = 0; i < n; i++)
	{
		uint64		k;

		switch (shape)
		{
			case 0:				/* sparse, the whole width */
				k = next_random();
				break;
			case 1:				/* dense range */
				k = base + next_random() % (n / 2 + 1);
				break;
			case 2:				/* runs of consecutive keys */
				k = base + i;
				if (next_random() % 500 == 0)
					base += next_random() % 100000;
				break;
			case 3:				/* the extremes and next to them */
				k = (next_random() & 1) ? next_random() % 3 : max - next_random() % 3;
				break;
			case 4:				/* a heavy hitter: half the keys one value */
				k = (next_random() & 1) ? base : next_random();
				break;
			default:			/* a mix: clustered, with far outliers */
				k = (next_random() % 8 == 0) ? next_random() :
					base + (next_random() % 64) * 1000 + next_random() % 3;
				break;
		}
		keys[i] = k & max;
	}
}

/* deserialized states serialized again while held as they were sent */
static long n_lazy_again = 0;

static const Oid width_types[] = {CHAROID, INT2OID, INT4OID, INT8OID};

/*
 * A set of the keys keys[0 .. n-1], serialized, then deserialized in tuple
 * (as nodeAgg does, in its per-input-tuple context).
 */
static CDSet *
through_serialize(const CDKeyType *kt, const uint64 *keys, size_t n,
				  CDAlloc *alloc, MemoryContext tuple)
{
	CDSet	   *s = cd_set_create(kt, alloc);
	CDSet	   *d;
	bytea	   *ser;
	StringInfoData buf;
	CDStateHeader h;

	for (size_t i = 0; i < n; i++)
		s = add_key(s, keys[i], alloc);
	ser = cd_set_serialize(s, NULL);
	free_set(s);
	CurrentMemoryContext = tuple;
	cd_state_read_header(&buf, VARDATA(ser), VARSIZE(ser) - VARHDRSZ, NULL, &h);
	d = cd_set_deserialize(&buf, &h, kt, NULL);
	CurrentMemoryContext = stub_cxt_query;
	pfree(ser);
	return d;
}

/*
 * Combine d, deserialized in tuple, into state as count_distinct_combine
 * does; then tuple is deleted, as nodeAgg resets it.
 */
static CDSet *
combine(CDSet *state, CDSet *d, CDAlloc *alloc, MemoryContext tuple)
{
	CurrentMemoryContext = tuple;
	state = state ? cd_set_merge(state, d, alloc) :
		cd_set_take(d, stub_cxt_query);
	CurrentMemoryContext = stub_cxt_query;
	MemoryContextDelete(tuple);
	return state;
}

static MemoryContext
tuple_context(void)
{
	return AllocSetContextCreate(stub_cxt_query, "tuple", ALLOCSET_SMALL_SIZES);
}

/*
 * Partial states as a parallel plan's workers send them, combined as
 * count_distinct_combine does: the first taken over (cd_set_take), the
 * others merged; the large ones become held states of the state, merged with it
 * past CD_PACKED_MAX_HELD.  Each key of want goes to one random piece, a
 * quarter of them to a second piece too.
 */
static void
check_held(const CDKeyType *kt, const uint64 *want, size_t nwant, int width,
		   long it, CDAlloc *alloc)
{
	int			k = 1 + (int) (it / 3) % 12;
	uint64	   *piece[12];
	size_t		np[12] = {0};
	CDSet	   *state = NULL;
	bool		had_held = false;
	int			j;

	for (j = 0; j < k; j++)
		piece[j] = malloc(sizeof(uint64) * (nwant + 1));
	for (size_t i = 0; i < nwant; i++)
	{
		/* the first piece twice as large: sets of both kinds meet */
		j = next_random() % (k + 1);
		if (j == k)
			j = 0;
		piece[j][np[j]++] = want[i];
		if (next_random() % 4 == 0)
		{
			j = next_random() % k;
			if (np[j] == 0 || piece[j][np[j] - 1] != want[i])
				piece[j][np[j]++] = want[i];
		}
	}
	for (j = 0; j < k; j++)
	{
		/* workers see their rows in any order */
		for (size_t i = np[j]; i > 1; i--)
		{
			size_t		x = next_random() % i;
			uint64		t = piece[j][i - 1];

			piece[j][i - 1] = piece[j][x];
			piece[j][x] = t;
		}
		{
			MemoryContext tuple = tuple_context();
			CDSet	   *d = through_serialize(kt, piece[j], np[j], alloc, tuple);
			bool		takeable = cd_packed_takeable(d);
			bool		first = (state == NULL);

			state = combine(state, d, alloc, tuple);
			if (first)
				report(!takeable || state == d, "taken, not copied", width, it);
		}
		if (state->kind == CD_SET_PACKED && ((CDPackedSet *) state)->nheld > 0)
			had_held = true;
		report(((state->kind != CD_SET_PACKED) ||
				((CDPackedSet *) state)->nheld <= CD_PACKED_MAX_HELD),
			   "held states bounded", width, it);
	}
	/* counted through the union of the held states, then compacted and read */
	report(same_keys(state, want, nwant, 128), "combined partial states", width, it);
	if (k > 1 && nwant * width > 2 * CD_PACKED_MIN_BYTES * k)
		report(had_held, "large partial states kept as held states", width, it);
	if (nwant > 0)
	{
		/* a key added to a state with held states (count then compacts) */
		free_set(state);
		state = NULL;
		for (j = 0; j < k && j < 3; j++)
		{
			MemoryContext tuple = tuple_context();
			CDSet	   *d = through_serialize(kt, piece[j], np[j], alloc, tuple);

			state = combine(state, d, alloc, tuple);
		}
		state = add_key(state, want[0], alloc);
		{
			uint64	   *sub = malloc(sizeof(uint64) * (np[0] + np[1] + np[2] + 1));
			size_t		nsub = 0;

			for (j = 0; j < k && j < 3; j++)
			{
				memcpy(sub + nsub, piece[j], sizeof(uint64) * np[j]);
				nsub += np[j];
			}
			sub[nsub++] = want[0];
			nsub = sort_unique(sub, nsub);
			report(cd_set_count(state) == nsub, "held states and a tail, counted", width, it);
			report(same_keys(state, sub, nsub, 7), "held states and a tail", width, it);
			free(sub);
		}
	}
	free_set(state);
	report(stub_cxt_query->firstchild == NULL, "sets' own contexts freed", width, it);
	for (j = 0; j < k; j++)
		free(piece[j]);
}

static void
one_case(long it)
{
	int			wi = it % 4;
	int			width = 1 << wi;
	int			shape = (it / 4) % 6;
	CDKeyType	kt;
	CDAlloc    *alloc = test_alloc((it & 8) != 0);
	static const size_t sizes[] = {0, 1, 127, 128, 129, 255, 256, 257, 1000,
	20000, 70000, 150000};
	size_t		n = sizes[(it / 20) % lengthof(sizes)];
	uint64	   *keys = malloc(sizeof(uint64) * (2 * n + 2));
	uint64	   *want = malloc(sizeof(uint64) * (2 * n + 2));
	size_t		nwant;
	CDSet	   *s;
	CDSet	   *f;
	CDSet	   *u;
	bytea	   *ser;
	size_t		i;

	cd_keytype_init(&kt, width_types[wi], InvalidOid, stub_cxt_fn);
	make_keys(keys, n, width, shape);
	/* repeats of keys already added (the lookup path of compaction) */
	for (i = 0; i < n; i++)
		keys[n + i] = keys[next_random() % (i + 1)];

	/* a packed set through the per-row append, counted on the way */
	s = cd_packed_set_ops.create(&kt, alloc);
	for (i = 0; i < 2 * n; i++)
	{
		s = cd_packed_add_key(s, keys[i]);
		if (i == n / 3 || i == n + 5)
		{
			memcpy(want, keys, sizeof(uint64) * (i + 1));
			nwant = sort_unique(want, i + 1);
			report(cd_set_count(s) == nwant, "count on the way", width, it);
		}
	}
	memcpy(want, keys, sizeof(uint64) * 2 * n);
	nwant = sort_unique(want, 2 * n);
	report(same_keys(s, want, nwant, (uint32[]) {1, 7, 128}[it % 3]),
		   "keys of a packed set", width, it);

	/* a copy; a serialized round trip through the validating decoder */
	u = cd_set_copy(s, stub_cxt_query);
	report(same_keys(u, want, nwant, 128), "copy", width, it);
	if (n > 0)
	{
		u = add_key(u, keys[0], alloc);
		report(same_keys(u, want, nwant, 128), "copy, a key added", width, it);
	}
	ser = cd_set_serialize(s, NULL);
	{
		/* the blocks copied: byte for byte what the encoder writes */
		CDKeyReader r;
		bytea	   *enc;

		cd_set_ops(s)->reader(s, &r);
		enc = cd_state_write(&kt, NULL, &r);
		report(VARSIZE(enc) == VARSIZE(ser) &&
			   memcmp(enc, ser, VARSIZE(ser)) == 0,
			   "serialized blocks: the encoder's bytes", width, it);
		pfree(enc);
	}
	{
		StringInfoData buf;
		CDStateHeader h;
		CDSet	   *d;

		cd_state_read_header(&buf, VARDATA(ser), VARSIZE(ser) - VARHDRSZ, NULL, &h);
		d = cd_set_deserialize(&buf, &h, &kt, NULL);
		{
			/* serialized again, held as it was sent: the same bytes */
			bytea	   *again;

			if (d->kind == CD_SET_PACKED && ((CDPackedSet *) d)->lazy != NULL)
				n_lazy_again++;
			again = cd_set_serialize(d, NULL);

			report(VARSIZE(again) == VARSIZE(ser) &&
				   memcmp(again, ser, VARSIZE(ser)) == 0,
				   "deserialized, serialized again: the same bytes", width, it);
			pfree(again);
		}
		report(same_keys(d, want, nwant, 128), "deserialized", width, it);
		report((h.n * (Size) width > CD_PACKED_MIN_BYTES) == (d->kind == CD_SET_PACKED),
			   "deserialized kind", width, it);
		free_set(d);
	}
	pfree(ser);
	free_set(u);
	check_held(&kt, want, nwant, width, it, alloc);

	/* a fixed-width set of other keys, grown through the same append */
	make_keys(keys, n, width, (shape + 1) % 6);
	f = cd_set_create(&kt, alloc);
	for (i = 0; i < n; i++)
		f = add_key(f, keys[i], alloc);
	memcpy(keys + n, want, sizeof(uint64) * nwant);
	{
		uint64	   *both = malloc(sizeof(uint64) * (n + nwant + 1));
		uint64	   *fkeys = malloc(sizeof(uint64) * (n + 1));
		size_t		nboth;
		size_t		nf;

		memcpy(both, keys, sizeof(uint64) * (n + nwant));
		nboth = sort_unique(both, n + nwant);
		memcpy(fkeys, keys, sizeof(uint64) * n);
		nf = sort_unique(fkeys, n);
		report(same_keys(f, fkeys, nf, 128), "fixed-width set, grown", width, it);
		/*
		 * fixed well below the threshold; past it, packed when that saves
		 * 2/5 of the keys (policy.h: cd_pack_pays_off), as dense keys do
		 */
		report((Size) nf * width < CD_PACKED_MIN_BYTES / 2 ? f->kind == CD_SET_FIXED :
			   (Size) nf * width > 2 * CD_PACKED_MIN_BYTES &&
			   (shape + 1) % 6 == 1 && width >= 4 ? f->kind == CD_SET_PACKED : true,
			   "fixed-width set's kind", width, it);

		/* merges both ways, between kinds */
		u = cd_set_merge(cd_set_copy(s, stub_cxt_query), f, alloc);
		report(same_keys(u, both, nboth, 128), "packed + other", width, it);
		free_set(u);
		u = cd_set_merge(cd_set_copy(f, stub_cxt_query), s, alloc);
		report(same_keys(u, both, nboth, 128), "other + packed", width, it);
		free_set(u);
		free(both);
		free(fkeys);
	}
	free_set(f);
	free_set(s);
	if (stub_live_chunks(stub_cxt_query) != 0)
		report(false, "chunks left behind", width, it);
	stub_reset(stub_cxt_query);
	stub_reset(stub_cxt_fn);
	free(keys);
	free(want);
}

/* A block of consecutive keys takes one byte; sparse keys pack to their gaps. */
static void
check_sizes(void)
{
	CDKeyType	kt;
	CDAlloc    *alloc = test_alloc(false);
	CDSet	   *s;
	const CDPackedSet *ps;
	uint64		i;

	cd_keytype_init(&kt, INT4OID, InvalidOid, stub_cxt_fn);
	s = cd_packed_set_ops.create(&kt, alloc);
	for (i = 0; i < 128 * 1000; i++)
		s = cd_packed_add_key(s, 1000000 + i);
	cd_set_compact(s);
	ps = (const CDPackedSet *) s;
	report(ps->nsorted == 128000 && ps->data_len == 1000, "run blocks: one byte each", 4, 0);
	free_set(s);

	/* gaps of 2^16 - 1: 16 bits each */
	s = cd_packed_set_ops.create(&kt, alloc);
	for (i = 0; i < 128 * 100; i++)
		s = cd_packed_add_key(s, i << 16);
	cd_set_compact(s);
	ps = (const CDPackedSet *) s;
	report(ps->data_len == 100 * (1 + (127 * 16 + 7) / 8), "gaps of 16 bits", 4, 0);
	free_set(s);

	/* width 8, gaps of 64 bits: 0 and the largest key, alone in a block */
	cd_keytype_init(&kt, INT8OID, InvalidOid, stub_cxt_fn);
	s = cd_packed_set_ops.create(&kt, alloc);
	s = cd_packed_add_key(s, PG_UINT64_MAX);
	s = cd_packed_add_key(s, 0);
	s = cd_packed_add_key(s, PG_UINT64_MAX - 1);
	{
		uint64		want[] = {0, PG_UINT64_MAX - 1, PG_UINT64_MAX};

		report(same_keys(s, want, 3, 1), "width 8, 0 and the largest keys", 8, 0);
	}
	free_set(s);
	stub_reset(stub_cxt_query);
	stub_reset(stub_cxt_fn);
}

int
main(int argc, char **argv)
{
	long		cases = argc > 1 ? atol(argv[1]) : 480;

	stub_init();
	CurrentMemoryContext = stub_cxt_query;
	check_sizes();
	for (long it = 0; it < cases; it++)
		one_case(it);
	if (n_lazy_again == 0)
	{
		printf("FAIL: no state serialized again as it was sent\n");
		failed++;
	}
	printf("%s: packed set, %ld cases, %ld checks passed, %ld failed (%ld held as sent, serialized again)\n",
		   failed ? "FAIL" : "ok", cases, passed, failed, n_lazy_again);
	printf("%d passed, %d failed\n", failed ? 0 : 1, failed ? 1 : 0);
	return failed > 0;
}
