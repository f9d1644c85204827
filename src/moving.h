/*-------------------------------------------------------------------------
 *
 * moving.h
 *	  The moving-aggregate state: the distinct values of a window frame,
 *	  each with the number of the frame's rows that hold it.
 *
 * A window whose frame moves adds the rows that enter the frame and
 * removes those that leave it (the inverse transition function).  A value
 * leaves the state only when its last row does, so the count and the
 * values are always those of the rows in the frame.  The number of
 * distinct values is kept up to date, so the count is O(1) to read.
 *
 * The structure is picked by the key type (cd_moving_kind(), key_moving.h):
 *
 *	- keys whose equality is key equality (fixed-width keys, CD_KEY_BYTES):
 *	  a hash table from key to row count (lib/simplehash.h, 16-byte
 *	  entries; it deletes by shifting entries back, so removing leaves no
 *	  tombstones).
 *	  Adding or removing a row costs O(1) expected.  Byte
 *	  keys live in one arena per state, compacted when more than half of it
 *	  is dead; the table shrinks when it is mostly empty.  The array final
 *	  sorts the frame's keys when it is called (its output is O(frame)
 *	  anyway).
 *	- CD_KEY_COMPARATOR keys, whose equality is the type's comparator (equal
 *	  values may differ in bytes): a red-black tree (lib/rbtree.h) ordered by
 *	  the comparator; O(log d) a row for d distinct values.
 *
 * Either way the memory is proportional to the distinct values of the
 * frame, and freed as they leave.
 *
 *-------------------------------------------------------------------------
 */
#ifndef CD_MOVING_H
#define CD_MOVING_H

#include "postgres.h"

#include "key_moving.h"

/* the hash tables (moving.c) */
struct cdmov_fixed_hash;
struct cdmov_bytes_hash;
struct RBTree;

/*
 * The first word of every moving state (cdmov_is_state).  Odd, so that no
 * aligned pointer equals it: a set, whose first word is a pointer
 * (set_header.h), or another state an "internal" argument may carry, is
 * not taken for a moving state.
 */
#define CD_MOVING_MAGIC		UINT64CONST(0xCD150A7EC0DE3A61)

typedef struct CDMoving
{
	uint64		magic;			/* CD_MOVING_MAGIC */
	const CDKeyType *kt;		/* key type (registry.h); NULL until the
								 * first value (cdmov_set_keytype) */
	MemoryContext mcxt;			/* the aggregate context */
	CDMovingKind kind;			/* the structure, from kt */
	uint64		ndistinct;		/* distinct values in the state */

	/* the structure of kind */
	struct cdmov_fixed_hash *fixed;
	struct cdmov_bytes_hash *bytes;
	struct RBTree *tree;

	/*
	 * CD_MOVING_HASH_BYTES: the keys, each a 4-byte length and the key's
	 * bytes, unaligned.  used bytes hold keys, dead of them of keys that
	 * left; a lookup writes its key at used, past the live keys.
	 */
	char	   *arena;
	Size		arena_used;
	Size		arena_dead;
	Size		arena_size;
} CDMoving;

/*
 * Is state (the non-NULL value of an "internal" argument) a moving state?
 * Reads its first 8 bytes only.
 */
static inline bool
cdmov_is_state(const void *state)
{
	return *(const uint64 *) state == CD_MOVING_MAGIC;
}

/* A new, empty state in mcxt; kt may be NULL (cdmov_set_keytype). */
extern CDMoving *cdmov_create(const CDKeyType *kt, MemoryContext mcxt);

/* Give a state created without a key type its key type. */
extern void cdmov_set_keytype(CDMoving *m, const CDKeyType *kt);

/* One more row holding this non-NULL value. */
extern void cdmov_add(CDMoving *m, Datum value);

/*
 * One row fewer holding this non-NULL value.  false if the state holds no
 * such value (it was never added: the caller should start over).
 */
extern bool cdmov_remove(CDMoving *m, Datum value);

static inline uint64
cdmov_count(const CDMoving *m)
{
	return m->ndistinct;
}

/*
 * The distinct values, as Datums in ascending btree order, in
 * CurrentMemoryContext.  Does not change the state.
 */
extern Datum *cdmov_output_datums(CDMoving *m, uint32 *n);

#endif							/* CD_MOVING_H */
