/*-------------------------------------------------------------------------
 *
 * packedset.h
 *	  The set of many fixed-width keys (key.h), its sorted part kept
 *	  compressed: blocks of bit-packed gaps, an index of block heads, and
 *	  an uncompressed unsorted tail.
 *
 * A fixed-width set (fixedset.h) becomes one of these when it grows past
 * CD_PACKED_MIN_BYTES of keys and its keys would take at most 3/5 of
 * their size packed (policy.h: cd_pack_pays_off); sets never go back.  The sorted,
 * duplicate-free keys are cut into blocks of CD_PACKED_BLOCK keys (the last
 * one may be shorter); block i holds keys [i * CD_PACKED_BLOCK, ...).  Its
 * first key (the head) is in the index, with the offset of its bytes in
 * data: one byte b, then the gaps between consecutive keys minus one, b
 * bits each, least-significant bit first, padded to a byte (b is the
 * fewest bits that hold the block's largest gap).  A block of consecutive
 * keys is a run block: b = 0, one byte.  This is serialkeys.h's form of a
 * block with the head moved to the index.
 *
 * New keys are appended to the tail, as in the fixed-width set.  When the
 * tail is full it is sorted and merged with the blocks in one streaming
 * pass that decodes the old blocks and encodes new ones (packedset.c).
 *
 * The struct never moves; its buffers are separate chunks in mcxt (the
 * aggregate context, where large chunks are blocks of their own).  Callers
 * use set.h; the per-row append is inline here.
 *
 *-------------------------------------------------------------------------
 */
#ifndef CD_PACKEDSET_H
#define CD_PACKEDSET_H

#include "postgres.h"

#include "lib/stringinfo.h"

#include "set_header.h"

#define CD_PACKED_BLOCK		CD_KEY_BATCH	/* keys per block */

/*
 * A fixed-width set that would grow past this many bytes of keys becomes a
 * packed set instead when that pays off (fixedset.c: fixed_resize, checked
 * at every power of two).
 */
#ifndef CD_PACKED_MIN_BYTES
#define CD_PACKED_MIN_BYTES	(64 * 1024)
#endif

/* the most held states a packed set keeps (see "Held states" below) */
#define CD_PACKED_MAX_HELD	8

typedef struct CDPackedIndex
{
	uint64		head;			/* the block's first key */
	Size		offset;			/* its bytes in data */
} CDPackedIndex;

typedef struct CDPackedSet
{
	CD_SET_HEADER_FIELDS;		/* extra: the key width */
	uint32		tail_cap;		/* keys the tail has room for */
	MemoryContext mcxt;			/* where the buffers are */
	char	   *tail;			/* nall - nsorted keys, width bytes each */
	uint8	   *data;			/* the blocks' bytes */
	Size		data_len;		/* bytes of data used */
	Size		data_cap;		/* bytes of data allocated */
	CDPackedIndex *index;		/* one entry per block */
	uint32		index_cap;		/* entries allocated */
	uint64		hot;			/* with CD_SET_HOT: a key in the set */
	MemoryContext own_cxt;		/* mcxt, when the set has a context of its
								 * own (cd_packed_from_state), else NULL */
	char	   *lazy;			/* the sorted part still as a serialized
								 * state's keys (serialkeys.h), or NULL */
	Size		lazy_len;
	uint32		nheld;			/* other sets' keys, not merged yet: */
	struct CDPackedSet *held[CD_PACKED_MAX_HELD];
} CDPackedSet;

extern const CDSetOps cd_packed_set_ops;

/* Room in the tail of a full set: compacts it (never moves it). */
extern void cd_packed_make_room(CDSet *set);

/*
 * A packed set in mcxt holding the keys of set, which must be compacted
 * (any representation of fixed-width keys); frees set unless it sits in a
 * slot (alloc.h).
 */
extern CDSet *cd_packed_from_set(CDSet *set, MemoryContext mcxt);

/*
 * About the bytes the sorted keys of set (fixed-width, any representation)
 * would take in a packed set's blocks and index, from every
 * CD_PACKED_SAMPLE-th block.
 */
extern Size cd_packed_estimate(const CDSet *set);

#define CD_PACKED_SAMPLE	8

/* Free a packed set and its buffers. */
extern void cd_packed_free(CDSet *set);

/*
 * Held states.  A packed set that cd_set_deserialize built (a partial state
 * from a parallel worker) has a memory context of its own, so a combine
 * function can take it over instead of copying it: as the group's state
 * (cd_packed_take), or, when it is large, as a held state of another packed
 * set (packed_merge), a worker's state not merged yet: its sorted keys are
 * kept as they are, and the set's keys are its own and its held states'.
 * Counting reads them all through one union (keyunion.h) without writing
 * anything; a compaction, or more than CD_PACKED_MAX_HELD held states,
 * merges them into the set's blocks in one pass.
 */

/* May set be taken over whole (cd_packed_take)? */
static inline bool
cd_packed_takeable(const CDSet *set)
{
	return set->kind == CD_SET_PACKED &&
		((const CDPackedSet *) set)->own_cxt != NULL;
}

/*
 * Move set (cd_packed_takeable) into mcxt, without copying: its context
 * becomes a child of mcxt.  The caller must not keep another reference.
 */
extern CDSet *cd_packed_take(CDSet *set, MemoryContext mcxt);

/*
 * A packed set, in a context of its own under mcxt, of the n packed keys of
 * kt (serialkeys.h) from buf's cursor to its end (the cursor moves there).
 * They are copied as they are: decoded, and checked, when first read, so a
 * combine function only copies a parallel worker's state, and a count of
 * held states decodes each key once.  An invalid state is an ERROR then.
 */
extern CDSet *cd_packed_from_state(StringInfo buf, const CDKeyType *kt,
								   uint32 n, MemoryContext mcxt);

/*
 * Add one key.  This runs once per input row.  A key equal to the last one
 * added is dropped at once, as in the fixed-width set, and so is the hot
 * key: the one repeated most in the last compacted tail, so that a value
 * in a large share of the rows (a heavy hitter) does not fill the tail.
 * Without a branch on the key: it is stored in the tail's next slot, which
 * is taken only when it is neither (a heavy hitter in half of the rows, in
 * random order, made the branches mispredict about every other row).
 */
static inline CDSet *
cd_packed_add_key(CDSet *set, uint64 key)
{
	CDPackedSet *ps = (CDPackedSet *) set;
	uint32		ntail = ps->nall - ps->nsorted;
	bool		repeat;
	bool		hot;

	if (unlikely(ntail >= ps->tail_cap))
	{
		cd_packed_make_room(set);
		ntail = ps->nall - ps->nsorted;
	}
	repeat = cd_key_store_repeat(ps->tail, ps->extra, ntail, key);
	hot = (key == ps->hot) & ((ps->flags & CD_SET_HOT) != 0);
	ps->nall += !(repeat | hot);
	return set;
}

#endif							/* CD_PACKEDSET_H */
