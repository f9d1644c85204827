/*-------------------------------------------------------------------------
 *
 * fixedset.h
 *	  The set of fixed-width keys (key.h: 1, 2, 4 or 8 bytes): one array
 *	  with a sorted, duplicate-free prefix and an unsorted tail.
 *
 * New keys are appended to the unsorted tail.  When the array is full the
 * tail is sorted, deduplicated and merged into the sorted prefix in place
 * (compaction); the array grows by the policy of policy.h; past
 * CD_PACKED_MIN_BYTES, once its keys would take at most 3/5 of their size
 * packed, the set becomes a packed set (packedset.h).  Callers use set.h; the per-row append is inline here for
 * its fast path.
 *
 *-------------------------------------------------------------------------
 */
#ifndef CD_FIXEDSET_H
#define CD_FIXEDSET_H

#include "postgres.h"

#include "packedset.h"
#include "set_header.h"

typedef struct CDFixedSet
{
	CD_SET_HEADER_FIELDS;		/* extra: the key width */
	uint32		capacity;		/* keys the array has room for */
	uint64		keys[FLEXIBLE_ARRAY_MEMBER];	/* capacity * width bytes */
} CDFixedSet;

#define CD_FIXED_HEADER_SIZE	offsetof(CDFixedSet, keys)

extern const CDSetOps cd_fixed_set_ops;

/* Room for one more key in a full set (may move it). */
extern CDSet *cd_fixed_make_room(CDSet *set, CDAlloc *alloc);

static inline bool
cd_fixed_needs_alloc(const CDSet *set)
{
	const CDFixedSet *fs = (const CDFixedSet *) set;

	return fs->nall >= fs->capacity;
}

/*
 * Add one key (may move the set, and may turn it into a packed set:
 * packedset.h).  This runs once per input row.  A key equal to the last one
 * added is dropped at once, which makes runs of equal values (sorted or
 * clustered input) cost nothing.
 */
static inline CDSet *
cd_fixed_add_key(CDSet *set, uint64 key, CDAlloc *alloc)
{
	CDFixedSet *fs = (CDFixedSet *) set;

	if (fs->nall > 0 && cd_key_load(fs->keys, fs->extra, fs->nall - 1) == key)
		return set;
	if (unlikely(fs->nall >= fs->capacity))
	{
		fs = (CDFixedSet *) cd_fixed_make_room(set, alloc);
		if (fs->kind != CD_SET_FIXED)
			return cd_packed_add_key((CDSet *) fs, key);
	}
	cd_key_store(fs->keys, fs->extra, fs->nall, key);
	fs->nall++;
	return (CDSet *) fs;
}

#endif							/* CD_FIXEDSET_H */
