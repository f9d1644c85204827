/*-------------------------------------------------------------------------
 *
 * set.h
 *	  The set of distinct keys: one array with a sorted, duplicate-free
 *	  prefix and an unsorted tail.
 *
 * New keys are appended to the unsorted tail.  When the array is full the
 * tail is sorted, deduplicated and merged into the sorted prefix in place
 * (compaction); the array grows only when compaction leaves too little room.
 * The header and the keys share one allocation, so a group with a handful
 * of values costs one small chunk.
 *
 *-------------------------------------------------------------------------
 */
#ifndef CD_SET_H
#define CD_SET_H

#include "postgres.h"

#include "alloc.h"
#include "key.h"
#include "varset.h"

/*
 * A set of fixed-width keys.  Sets of variable-size keys are CDVarSets
 * (varset.h), which start with the same fields and have width 0; the
 * functions below take either.
 */
typedef struct CDSet
{
	const CDKeyType *kt;		/* key type: a per-query cache entry */
	uint32		nall;			/* keys in the array, sorted + unsorted */
	uint32		nsorted;		/* keys in the sorted, duplicate-free prefix */
	uint32		capacity;		/* keys the array has room for */
	uint8		width;			/* kt->width, kept here for the hot path */
	uint8		flags;			/* CDSET_IN_SLOT, CDSET_TAIL_* */
	uint8		pad[2];
	uint64		keys[FLEXIBLE_ARRAY_MEMBER];	/* capacity * width bytes */
} CDSet;

#define CDSET_HEADER_SIZE	offsetof(CDSet, keys)

/* the set is in a slot of the pool (alloc.h): no chunk header, never freed */
#define CDSET_IN_SLOT		0x01
/*
 * the last compaction found many keys of the tail already in the sorted
 * prefix: the next one looks them up before merging (set.c)
 */
#define CDSET_TAIL_SEEN		0x02
/* the last compaction found many duplicates in the tail (set.c) */
#define CDSET_TAIL_DUPS		0x04

/* A new, empty set (a CDVarSet for variable-size keys). */
extern CDSet *cdset_create(const CDKeyType *kt, CDAlloc *alloc);

/* A new set in mcxt with room for n keys, for filling with cdset_put_key. */
extern CDSet *cdset_create_sized(const CDKeyType *kt, MemoryContext mcxt,
								 uint32 n);

/* Compaction when the array is full (may move the set: use the result). */
extern CDSet *cdset_make_room(CDSet *set, CDAlloc *alloc);

/* Sort, deduplicate and merge the unsorted tail.  Never moves the set. */
extern void cdset_compact(CDSet *set);

/* The number of distinct keys (compacts the set). */
extern uint32 cdset_count(CDSet *set);

/* Add every key of src to dst (may move dst: use the result). */
extern CDSet *cdset_union(CDSet *dst, CDSet *src, CDAlloc *alloc);

/* A copy of set in mcxt, compacted and sized to its keys. */
extern CDSet *cdset_copy(CDSet *set, MemoryContext mcxt);

/*
 * The distinct values, as Datums in ascending btree order, in
 * CurrentMemoryContext (compacts the set).
 */
extern Datum *cdset_output_datums(CDSet *set, uint32 *n);

/* Are the first n keys strictly increasing?  (validation) */
extern bool cdset_is_strictly_increasing(const CDSet *set, uint32 n);

static inline uint64
cdset_get_key(const CDSet *set, uint32 i)
{
	switch (set->width)
	{
		case 1:
			return ((const uint8 *) set->keys)[i];
		case 2:
			return ((const uint16 *) set->keys)[i];
		case 4:
			return ((const uint32 *) set->keys)[i];
		default:
			return ((const uint64 *) set->keys)[i];
	}
}

static inline void
cdset_put_key(CDSet *set, uint32 i, uint64 key)
{
	switch (set->width)
	{
		case 1:
			((uint8 *) set->keys)[i] = (uint8) key;
			break;
		case 2:
			((uint16 *) set->keys)[i] = (uint16) key;
			break;
		case 4:
			((uint32 *) set->keys)[i] = (uint32) key;
			break;
		default:
			((uint64 *) set->keys)[i] = key;
			break;
	}
}

/*
 * Add one key (may move the set: use the result).  This runs once per input
 * row.  A key equal to the last one added is dropped at once, which makes
 * runs of equal values (sorted or clustered input) cost nothing.
 */
static inline CDSet *
cdset_add(CDSet *set, uint64 key, CDAlloc *alloc)
{
	if (set->nall > 0 && cdset_get_key(set, set->nall - 1) == key)
		return set;
	if (unlikely(set->nall >= set->capacity))
		set = cdset_make_room(set, alloc);
	cdset_put_key(set, set->nall, key);
	set->nall++;
	return set;
}

/*
 * Does adding a value to set need an allocator?  A full fixed-width set
 * grows through one, and so does a small variable-size set of hash
 * aggregation (its chunks are reused: alloc.h).
 */
static inline bool
cdset_needs_alloc(const CDSet *set)
{
	if (set->width == 0)
		return cdvar_needs_alloc((const CDVarSet *) set);
	return set->nall >= set->capacity;
}

/*
 * Add one non-NULL value (may move the set: use the result).  alloc may be
 * NULL unless cdset_needs_alloc(set).
 */
static inline CDSet *
cdset_add_value(CDSet *set, Datum value, CDAlloc *alloc)
{
	if (set->width == 0)
		return (CDSet *) cdvar_add((CDVarSet *) set, value, alloc);
	return cdset_add(set, cd_key_encode(set->kt, value), alloc);
}

#endif							/* CD_SET_H */
