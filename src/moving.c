/*-------------------------------------------------------------------------
 *
 * moving.c
 *	  The moving-aggregate state: distinct values with their multiplicity,
 *	  in a hash table (keys whose equality is key equality) or a red-black
 *	  tree (comparator keys).
 *
 * Hash tables.  An entry is a key and its row count.  Fixed-width keys:
 * lib/simplehash.h, 16-byte entries (the key as a uint64, its count and
 * simplehash's status).  Byte keys: a linear-probing table of our own
 * below, 16-byte entries (the key's offset in the state's arena, its hash,
 * its count; count 0 marks an empty slot), where simplehash's entries would
 * take 24 bytes (its status byte pads them): about 11% faster on
 * bench/window.py's md5 text frames (bench/README.md).  Both delete by
 * shifting the
 * following entries back (simplehash: robin hood; ours: Knuth's algorithm
 * R), so a long sliding window that adds and removes keys forever leaves no
 * tombstones.  Neither shrinks by itself: a table less than 1/16 full is
 * rebuilt at a quarter to half full.  A row count is a uint32: a frame
 * holds at most 4294967295 rows of one value.
 *
 * The arena holds each byte key as a 4-byte length (unaligned) and the
 * key.  A lookup writes its key at the arena's end, past the live keys,
 * and keeps it there (moves arena_used past it) only if the key is new:
 * the key is written once, by the key layer's cd_varkey_write(), and the
 * probe and the kept key are the same bytes.  Keys that leave are dead
 * bytes; when more than half of the arena is dead it is compacted into a
 * new one twice the live size.
 *
 * Red-black tree: every node is one chunk of the aggregate context; a
 * variable-size key is a second chunk.  rbt_delete() may remove a node
 * other than the one asked for (the successor, whose data it copies into
 * the asked-for node), so a node's key is freed before the node is deleted,
 * and the free function frees the node chunk only.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "lib/rbtree.h"
#include "miscadmin.h"
#include "utils/memutils.h"

#include "compat.h"
#include "errors.h"
#include "key_moving.h"
#include "moving.h"
#include "sort.h"

/* ------------------------------------------------------------------------
 * Hash table of fixed-width keys
 * ------------------------------------------------------------------------
 */
typedef struct CDMovFixedEntry
{
	uint64		key;
	uint32		count;			/* rows holding the value */
	char		status;			/* simplehash's */
} CDMovFixedEntry;

#define SH_PREFIX cdmov_fixed
#define SH_ELEMENT_TYPE CDMovFixedEntry
#define SH_KEY_TYPE uint64
#define SH_KEY key
#define SH_HASH_KEY(tb, k) cd_mkey_hash_fixed(k)
#define SH_EQUAL(tb, a, b) ((a) == (b))
#define SH_SCOPE static inline
#define SH_DECLARE
#define SH_DEFINE
#include "lib/simplehash.h"

/* ------------------------------------------------------------------------
 * Hash table of byte keys (in the state's arena: tb->private_data, the
 * state)
 * ------------------------------------------------------------------------
 */
typedef struct CDMovBytesEntry
{
	uint64		off;			/* the key's length word in the arena */
	uint32		hash;
	uint32		count;			/* rows holding the value; 0: empty slot */
} CDMovBytesEntry;

#define CDMOV_LENSZ sizeof(uint32)

static inline uint32
cdmov_arena_len(const char *arena, uint64 off)
{
	uint32		len;

	memcpy(&len, arena + off, CDMOV_LENSZ);
	return len;
}

static inline bool
cdmov_arena_equal(const CDMoving *m, uint64 a, uint64 b)
{
	uint32		len = cdmov_arena_len(m->arena, a);

	return len == cdmov_arena_len(m->arena, b) &&
		memcmp(m->arena + a + CDMOV_LENSZ, m->arena + b + CDMOV_LENSZ, len) == 0;
}

/*
 * The byte-key table: linear probing on the stored hash, at most 3/4 full,
 * with the names and the calls of simplehash's generated functions.
 */
struct cdmov_bytes_hash
{
	uint64		size;
	uint32		members;
	uint64		mask;
	CDMovBytesEntry *data;
	MemoryContext ctx;
	void	   *private_data;
};
typedef struct cdmov_bytes_iterator
{
	uint64		cur;
} cdmov_bytes_iterator;

static struct cdmov_bytes_hash *
cdmov_bytes_create(MemoryContext ctx, uint32 nelements, void *private_data)
{
	struct cdmov_bytes_hash *tb = MemoryContextAllocZero(ctx, sizeof(*tb));
	uint64		size = 16;

	while (size * 3 / 4 < nelements)
		size *= 2;
	tb->size = size;
	tb->mask = size - 1;
	tb->ctx = ctx;
	tb->private_data = private_data;
	tb->data = MemoryContextAllocExtended(ctx, size * sizeof(CDMovBytesEntry),
										  MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	return tb;
}

static void
cdmov_bytes_destroy(struct cdmov_bytes_hash *tb)
{
	pfree(tb->data);
	pfree(tb);
}

static void
cdmov_bytes_grow(struct cdmov_bytes_hash *tb)
{
	CDMovBytesEntry *old = tb->data;
	uint64		oldsize = tb->size;
	uint64		i;

	/* the hash has 32 bits: 2^32 slots, at most 3/4 of them used */
	if (oldsize >= (UINT64CONST(1) << 32))
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("too many distinct values in a window frame")));
	tb->size *= 2;
	tb->mask = tb->size - 1;
	tb->data = MemoryContextAllocExtended(tb->ctx,
										  tb->size * sizeof(CDMovBytesEntry),
										  MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	for (i = 0; i < oldsize; i++)
	{
		uint64		j;

		if (old[i].count == 0)
			continue;
		j = old[i].hash & tb->mask;
		while (tb->data[j].count != 0)
			j = (j + 1) & tb->mask;
		tb->data[j] = old[i];
	}
	pfree(old);
}

static inline CDMovBytesEntry *
cdmov_bytes_insert_hash(struct cdmov_bytes_hash *tb, uint64 off, uint32 hash,
						bool *found)
{
	const CDMoving *m = tb->private_data;
	uint64		i;

	if (unlikely((uint64) tb->members + 1 > tb->size * 3 / 4))
		cdmov_bytes_grow(tb);
	i = hash & tb->mask;
	for (;;)
	{
		CDMovBytesEntry *e = &tb->data[i];

		if (e->count == 0)
		{
			e->off = off;
			e->hash = hash;
			tb->members++;
			*found = false;
			return e;
		}
		if (e->hash == hash && cdmov_arena_equal(m, e->off, off))
		{
			*found = true;
			return e;
		}
		i = (i + 1) & tb->mask;
	}
}

static inline CDMovBytesEntry *
cdmov_bytes_lookup_hash(struct cdmov_bytes_hash *tb, uint64 off, uint32 hash)
{
	const CDMoving *m = tb->private_data;
	uint64		i = hash & tb->mask;

	for (;;)
	{
		CDMovBytesEntry *e = &tb->data[i];

		if (e->count == 0)
			return NULL;
		if (e->hash == hash && cdmov_arena_equal(m, e->off, off))
			return e;
		i = (i + 1) & tb->mask;
	}
}

/* delete the entry e (backward shift: no tombstones) */
static inline void
cdmov_bytes_delete_entry(struct cdmov_bytes_hash *tb, CDMovBytesEntry *e)
{
	uint64		i = e - tb->data;
	uint64		j = i;

	for (;;)
	{
		uint64		home;

		j = (j + 1) & tb->mask;
		if (tb->data[j].count == 0)
			break;
		home = tb->data[j].hash & tb->mask;
		/* can the entry at j move to the hole at i? (home not in (i, j]) */
		if (((j - home) & tb->mask) >= ((j - i) & tb->mask))
		{
			tb->data[i] = tb->data[j];
			i = j;
		}
	}
	tb->data[i].count = 0;
	tb->members--;
}

static inline void
cdmov_bytes_start_iterate(struct cdmov_bytes_hash *tb, cdmov_bytes_iterator *it)
{
	it->cur = 0;
}

static inline CDMovBytesEntry *
cdmov_bytes_iterate(struct cdmov_bytes_hash *tb, cdmov_bytes_iterator *it)
{
	while (it->cur < tb->size)
	{
		CDMovBytesEntry *e = &tb->data[it->cur++];

		if (e->count != 0)
			return e;
	}
	return NULL;
}

/*
 * The first size of a table (entries it holds before it grows), and of an
 * arena: small, as a window with many small partitions makes a state for
 * each.
 */
#define CDMOV_INITIAL_ENTRIES	8
#define CDMOV_INITIAL_ARENA		256

/*
 * Is a table of this size and this many members mostly empty (rebuilt
 * smaller)?  Tables of a few kB are left alone.
 */
static inline bool
cdmov_table_sparse(uint64 size, uint32 members)
{
	return size > 1024 && (uint64) members < size / 16;
}

static void
cdmov_count_overflow(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("more than %u rows with one value in a window frame",
					PG_UINT32_MAX)));
}

/* Rebuild a mostly empty table at its members' size. */
static void
cdmov_fixed_shrink(CDMoving *m)
{
	struct cdmov_fixed_hash *old = m->fixed;
	struct cdmov_fixed_hash *tb;
	cdmov_fixed_iterator iter;
	CDMovFixedEntry *e;

	tb = cdmov_fixed_create(m->mcxt,
			    Max(old->members * 2, CDMOV_INITIAL_ENTRIES), m);
	cdmov_fixed_start_iterate(old, &iter);
	while ((e = cdmov_fixed_iterate(old, &iter)) != NULL)
	{
		bool		found;
		CDMovFixedEntry *n = cdmov_fixed_insert(tb, e->key, &found);

		n->count = e->count;
	}
	cdmov_fixed_destroy(old);
	m->fixed = tb;
}

static void
cdmov_bytes_shrink(CDMoving *m)
{
	struct cdmov_bytes_hash *old = m->bytes;
	struct cdmov_bytes_hash *tb;
	cdmov_bytes_iterator iter;
	CDMovBytesEntry *e;

	tb = cdmov_bytes_create(m->mcxt,
			    Max(old->members * 2, CDMOV_INITIAL_ENTRIES), m);
	cdmov_bytes_start_iterate(old, &iter);
	while ((e = cdmov_bytes_iterate(old, &iter)) != NULL)
	{
		bool		found;
		CDMovBytesEntry *n = cdmov_bytes_insert_hash(tb, e->off, e->hash, &found);

		n->count = e->count;
	}
	cdmov_bytes_destroy(old);
	m->bytes = tb;
}

/*
 * Copy the live keys into a new arena with room for at least need more
 * bytes, and point the entries at their new places.
 */
static void
cdmov_arena_compact(CDMoving *m, Size need)
{
	Size		live = m->arena_used - m->arena_dead;
	Size		size = CDMOV_INITIAL_ARENA;
	char	   *arena;
	Size		used = 0;
	cdmov_bytes_iterator iter;
	CDMovBytesEntry *e;

	while (size < 2 * (live + need))
		size *= 2;
	arena = MemoryContextAllocExtended(m->mcxt, size, MCXT_ALLOC_HUGE);
	cdmov_bytes_start_iterate(m->bytes, &iter);
	while ((e = cdmov_bytes_iterate(m->bytes, &iter)) != NULL)
	{
		Size		n = CDMOV_LENSZ + cdmov_arena_len(m->arena, e->off);

		memcpy(arena + used, m->arena + e->off, n);
		e->off = used;
		used += n;
	}
	Assert(used == live);
	pfree(m->arena);
	m->arena = arena;
	m->arena_used = used;
	m->arena_dead = 0;
	m->arena_size = size;
}

/* Room for need more bytes at the arena's end. */
static inline void
cdmov_arena_reserve(CDMoving *m, Size need)
{
	if (m->arena_used + need <= m->arena_size)
		return;
	if (m->arena_dead > m->arena_used / 2)
		cdmov_arena_compact(m, need);
	else
	{
		Size		size = m->arena_size;

		while (size < m->arena_used + need)
			size *= 2;
		m->arena = repalloc_huge(m->arena, size);
		m->arena_size = size;
	}
}

/*
 * Write the key of value at the arena's end (not kept: arena_used does not
 * move) and return its offset; *hash gets its hash.
 */
static inline uint64
cdmov_arena_probe(CDMoving *m, Datum value, uint32 *hash)
{
	Datum		detoasted;
	Size		len = cd_mkey_bytes_size(m->kt, value, &detoasted);
	uint32		len32 = (uint32) len;
	char	   *p;

	cdmov_arena_reserve(m, CDMOV_LENSZ + len);
	p = m->arena + m->arena_used;
	memcpy(p, &len32, CDMOV_LENSZ);
	cd_varkey_write(m->kt, detoasted, p + CDMOV_LENSZ);
	*hash = cd_mkey_hash_bytes(p + CDMOV_LENSZ, len);
	return m->arena_used;
}

/* ------------------------------------------------------------------------
 * Red-black tree of comparator keys
 * ------------------------------------------------------------------------
 */
typedef struct CDMovNode
{
	RBTNode		rbtnode;		/* first: the tree's part */
	CDMKey		key;
	uint64		count;			/* rows holding the value */
} CDMovNode;

static int
cdmov_node_compare(const RBTNode *a, const RBTNode *b, void *arg)
{
	const CDMoving *m = (const CDMoving *) arg;

	return cd_mkey_compare(m->kt, &((const CDMovNode *) a)->key,
						   &((const CDMovNode *) b)->key);
}

static void
cdmov_node_combine(RBTNode *existing, const RBTNode *newdata, void *arg)
{
	((CDMovNode *) existing)->count++;
}

static RBTNode *
cdmov_node_alloc(void *arg)
{
	CDMoving   *m = (CDMoving *) arg;

	return (RBTNode *) MemoryContextAlloc(m->mcxt, sizeof(CDMovNode));
}

static void
cdmov_node_free(RBTNode *x, void *arg)
{
	pfree(x);
}

/* ------------------------------------------------------------------------
 * The state
 * ------------------------------------------------------------------------
 */
StaticAssertDecl(offsetof(CDMoving, magic) == 0,
				 "a moving state starts with its magic number");

CDMoving *
cdmov_create(const CDKeyType *kt, MemoryContext mcxt)
{
	CDMoving   *m = MemoryContextAllocZero(mcxt, sizeof(CDMoving));

	m->magic = CD_MOVING_MAGIC;
	m->mcxt = mcxt;
	m->kind = CD_MOVING_NONE;
	if (kt != NULL)
		cdmov_set_keytype(m, kt);
	return m;
}

void
cdmov_set_keytype(CDMoving *m, const CDKeyType *kt)
{
	Assert(m->kind == CD_MOVING_NONE && m->ndistinct == 0);
	m->kt = kt;
	m->kind = cd_moving_kind(kt);
	switch (m->kind)
	{
		case CD_MOVING_HASH_FIXED:
			m->fixed = cdmov_fixed_create(m->mcxt, CDMOV_INITIAL_ENTRIES, m);
			break;
		case CD_MOVING_HASH_BYTES:
			m->bytes = cdmov_bytes_create(m->mcxt, CDMOV_INITIAL_ENTRIES, m);
			m->arena = MemoryContextAlloc(m->mcxt, CDMOV_INITIAL_ARENA);
			m->arena_size = CDMOV_INITIAL_ARENA;
			break;
		case CD_MOVING_TREE:
			{
				/* rbt_create() allocates in CurrentMemoryContext */
				MemoryContext old = MemoryContextSwitchTo(m->mcxt);

				m->tree = rbt_create(sizeof(CDMovNode), cdmov_node_compare,
									 cdmov_node_combine, cdmov_node_alloc,
									 cdmov_node_free, m);
				MemoryContextSwitchTo(old);
				break;
			}
		case CD_MOVING_NONE:
			elog(ERROR, "moving state has no key type");
	}
}

void
cdmov_add(CDMoving *m, Datum value)
{
	switch (m->kind)
	{
		case CD_MOVING_HASH_FIXED:
			{
				bool		found;
				CDMovFixedEntry *e;

				e = cdmov_fixed_insert(m->fixed, cd_key_encode(m->kt, value), &found);
				if (!found)
				{
					e->count = 1;
					m->ndistinct++;
				}
				else if (unlikely(e->count == PG_UINT32_MAX))
					cdmov_count_overflow();
				else
					e->count++;
				return;
			}
		case CD_MOVING_HASH_BYTES:
			{
				bool		found;
				uint32		hash;
				uint64		off = cdmov_arena_probe(m, value, &hash);
				CDMovBytesEntry *e;

				e = cdmov_bytes_insert_hash(m->bytes, off, hash, &found);
				if (!found)
				{
					/* keep the probe: it is the entry's key */
					e->count = 1;
					m->arena_used += CDMOV_LENSZ + cdmov_arena_len(m->arena, off);
					m->ndistinct++;
				}
				else if (unlikely(e->count == PG_UINT32_MAX))
					cdmov_count_overflow();
				else
					e->count++;
				return;
			}
		case CD_MOVING_TREE:
			{
				CDMovNode	probe;
				CDMovNode  *node;
				bool		isnew;

				cd_mkey_from_value(m->kt, value, &probe.key);
				probe.count = 1;
				node = (CDMovNode *) rbt_insert(m->tree, &probe.rbtnode, &isnew);
				if (isnew)
				{
					/* the node holds the lookup key: give it its own copy */
					cd_mkey_keep(m->kt, &node->key, m->mcxt);
					m->ndistinct++;
				}
				return;
			}
		case CD_MOVING_NONE:
			break;
	}
	elog(ERROR, "moving state has no key type");
}

bool
cdmov_remove(CDMoving *m, Datum value)
{
	switch (m->kind)
	{
		case CD_MOVING_HASH_FIXED:
			{
				uint64		key = cd_key_encode(m->kt, value);
				CDMovFixedEntry *e = cdmov_fixed_lookup(m->fixed, key);

				if (e == NULL)
					return false;
				Assert(e->count > 0);
				if (--e->count == 0)
				{
					cdmov_fixed_delete(m->fixed, key);
					m->ndistinct--;
					if (cdmov_table_sparse(m->fixed->size, m->fixed->members))
						cdmov_fixed_shrink(m);
				}
				return true;
			}
		case CD_MOVING_HASH_BYTES:
			{
				uint32		hash;
				uint64		off = cdmov_arena_probe(m, value, &hash);
				CDMovBytesEntry *e = cdmov_bytes_lookup_hash(m->bytes, off, hash);

				if (e == NULL)
					return false;
				Assert(e->count > 0);
				if (--e->count == 0)
				{
					uint64		keyoff = e->off;

					cdmov_bytes_delete_entry(m->bytes, e);
					m->arena_dead += CDMOV_LENSZ + cdmov_arena_len(m->arena, keyoff);
					m->ndistinct--;
					if (cdmov_table_sparse(m->bytes->size, m->bytes->members))
						cdmov_bytes_shrink(m);
					/* more than half dead: compact (and shrink) now */
					if (m->arena_dead > m->arena_used / 2 &&
						m->arena_size > 8192)
						cdmov_arena_compact(m, 0);
				}
				return true;
			}
		case CD_MOVING_TREE:
			{
				CDMovNode	probe;
				CDMovNode  *node;

				cd_mkey_from_value(m->kt, value, &probe.key);
				node = (CDMovNode *) rbt_find(m->tree, &probe.rbtnode);
				if (node == NULL)
					return false;
				Assert(node->count > 0);
				if (--node->count == 0)
				{
					cd_mkey_free(m->kt, &node->key);
					rbt_delete(m->tree, &node->rbtnode);
					m->ndistinct--;
				}
				return true;
			}
		case CD_MOVING_NONE:
			break;
	}
	return false;
}

/* ------------------------------------------------------------------------
 * Output: the keys, sorted
 * ------------------------------------------------------------------------
 */

/* Fixed-width keys: gathered at their width, radix-sorted, decoded. */
static void
cdmov_output_fixed(CDMoving *m, Datum *values, uint32 n)
{
	const CDKeyType *kt = m->kt;
	int			width = kt->width;
	char	   *keys = palloc_extended((Size) Max(n, 1) * width, MCXT_ALLOC_HUGE);
	char	   *scratch = palloc_extended((Size) Max(n, 1) * width, MCXT_ALLOC_HUGE);
	char	   *sorted;
	cdmov_fixed_iterator iter;
	CDMovFixedEntry *e;
	uint32		i = 0;

	cdmov_fixed_start_iterate(m->fixed, &iter);
	while ((e = cdmov_fixed_iterate(m->fixed, &iter)) != NULL)
	{
		cd_key_store(keys, width, i, e->key);
		i++;
		if ((i & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	Assert(i == n);
	sorted = cd_sort_keys(keys, scratch, n, width);
	for (i = 0; i < n; i++)
		values[i] = cd_key_decode(kt, cd_key_load(sorted, width, i));
	pfree(keys);
	pfree(scratch);
}

/*
 * Byte keys: sorted by bytes, or, if the type's order is not the bytes'
 * (text under a collation other than C), by the type's comparator.
 */
static void
cdmov_output_bytes(CDMoving *m, Datum *values, uint32 n)
{
	const CDKeyType *kt = m->kt;
	cdmov_bytes_iterator iter;
	CDMovBytesEntry *e;
	uint32		i = 0;

	if (kt->sort_on_output)
	{
		cdmov_bytes_start_iterate(m->bytes, &iter);
		while ((e = cdmov_bytes_iterate(m->bytes, &iter)) != NULL)
		{
			values[i++] = cd_varkey_output_datum(kt, m->arena + e->off + CDMOV_LENSZ,
												 cdmov_arena_len(m->arena, e->off));
			if ((i & 0xFFFF) == 0)
				CHECK_FOR_INTERRUPTS();
		}
		Assert(i == n);
		cd_sort_datums(values, n, (SortSupport) &kt->ssup);
	}
	else
	{
		CDVarItem  *items = palloc_extended((Size) Max(n, 1) * sizeof(CDVarItem),
											MCXT_ALLOC_HUGE);

		cdmov_bytes_start_iterate(m->bytes, &iter);
		while ((e = cdmov_bytes_iterate(m->bytes, &iter)) != NULL)
		{
			CDVarItem  *it = &items[i++];

			it->key = m->arena + e->off + CDMOV_LENSZ;
			it->len = cdmov_arena_len(m->arena, e->off);
			it->datum = (Datum) 0;
			it->prefix = cd_bytes_prefix(it->key, it->len);
		}
		Assert(i == n);
		cd_sort_varitems_bytes(items, n);
		for (i = 0; i < n; i++)
		{
			values[i] = cd_varkey_output_datum(kt, items[i].key, items[i].len);
			if ((i & 0xFFFF) == 0xFFFF)
				CHECK_FOR_INTERRUPTS();
		}
		pfree(items);
	}
}

static void
cdmov_output_tree(CDMoving *m, Datum *values, uint32 n)
{
	RBTreeIterator iter;
	CDMovNode  *node;
	uint32		i = 0;

	rbt_begin_iterate(m->tree, LeftRightWalk, &iter);
	while ((node = (CDMovNode *) rbt_iterate(&iter)) != NULL)
	{
		values[i++] = cd_mkey_output_datum(m->kt, &node->key);
		if ((i & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	Assert(i == n);
	/* comparator keys: the tree's order is the type's (no sort_on_output) */
	Assert(!m->kt->sort_on_output);
}

Datum *
cdmov_output_datums(CDMoving *m, uint32 *n)
{
	Datum	   *values;

	if (m->ndistinct > (uint64) MaxArraySize)
		cd_error_array_too_large(m->ndistinct);
	*n = (uint32) m->ndistinct;
	values = palloc_extended(Max(m->ndistinct, 1) * sizeof(Datum),
							 MCXT_ALLOC_HUGE);
	switch (m->kind)
	{
		case CD_MOVING_HASH_FIXED:
			cdmov_output_fixed(m, values, *n);
			break;
		case CD_MOVING_HASH_BYTES:
			cdmov_output_bytes(m, values, *n);
			break;
		case CD_MOVING_TREE:
			cdmov_output_tree(m, values, *n);
			break;
		case CD_MOVING_NONE:
			Assert(*n == 0);
			break;
	}
	return values;
}
