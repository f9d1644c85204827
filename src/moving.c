/*-------------------------------------------------------------------------
 *
 * moving.c
 *	  The moving-aggregate state: distinct values with their multiplicity,
 *	  in a hash table (keys whose equality is key equality) or a red-black
 *	  tree (comparator keys).
 *
 * Hash tables (lib/simplehash.h).  An entry is a key and its row count, in
 * 16 bytes.  Fixed-width keys: the key as a uint64, its count and
 * simplehash's status.  Byte keys: the key's offset in the state's arena,
 * its hash (kept, so that growing the table reads no key) and its count,
 * simplehash's status in a bit of the offset's word.  simplehash deletes by
 * shifting the following entries back (robin hood), so a long sliding
 * window that adds and removes keys forever leaves no tombstones.  It does
 * not shrink by itself: a table less than 1/16 full is rebuilt at most
 * half full.  A row count is a uint32: a frame holds at most 4294967295
 * rows of one value.
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

/*
 * 16 bytes: simplehash's status (empty or in use) takes one bit of the
 * offset's word instead of a byte that would pad the entry to 24.
 */
typedef struct CDMovBytesEntry
{
	uint64		off:63;			/* the key's length word in the arena */
	uint64		status:1;		/* simplehash's */
	uint32		hash;
	uint32		count;			/* rows holding the value */
} CDMovBytesEntry;

StaticAssertDecl(sizeof(CDMovBytesEntry) == 16,
				 "a byte-key entry takes 16 bytes");

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

static inline uint32
cdmov_arena_hash(const CDMoving *m, uint64 off)
{
	return cd_mkey_hash_bytes(m->arena + off + CDMOV_LENSZ,
							  cdmov_arena_len(m->arena, off));
}

#define SH_PREFIX cdmov_bytes
#define SH_ELEMENT_TYPE CDMovBytesEntry
#define SH_KEY_TYPE uint64
#define SH_KEY off
#define SH_HASH_KEY(tb, k) cdmov_arena_hash((const CDMoving *) (tb)->private_data, k)
#define SH_EQUAL(tb, a, b) cdmov_arena_equal((const CDMoving *) (tb)->private_data, a, b)
#define SH_STORE_HASH
#define SH_GET_HASH(tb, a) ((a)->hash)
#define SH_SCOPE static inline
#define SH_DECLARE
#define SH_DEFINE
#include "lib/simplehash.h"

/*
 * The most distinct byte keys a state holds: simplehash's table has at most
 * 2^32 entries, and fails with an internal error when it cannot grow.
 */
#define CDMOV_MAX_BYTE_KEYS		(PG_UINT32_MAX / 4 * 3)

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

				if (unlikely(m->bytes->members >= CDMOV_MAX_BYTE_KEYS))
					ereport(ERROR,
							(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
							 errmsg("too many distinct values in a window frame")));
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

#if PG_VERSION_NUM >= 140000
					cdmov_bytes_delete_item(m->bytes, e);
#else
					/* the key is still in the arena, where its hash comes from */
					cdmov_bytes_delete(m->bytes, keyoff);
#endif
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
