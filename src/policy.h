/*-------------------------------------------------------------------------
 *
 * policy.h
 *	  When a set compacts, defers compaction, grows, and by how much: one
 *	  policy for every representation (set_header.h), in bytes of keys.
 *
 * A full set (no room for the key being added) compacts, unless it may
 * defer: then it grows first and merges a longer tail later.  After
 * compacting it grows when too little room is left.
 *
 * Growth (cd_grow_target):
 * - in power-of-two chunks (plain contexts, chunks up to 8 kB): when less
 *   than 1/4 of the keys' size is free, by 1/4, which the chunk size rounds
 *   up: the chunk doubles;
 * - a small set (below 1 kB of keys): only when the key being added does
 *   not fit, by 1/4 (at least 32 bytes), so that small groups end close to
 *   their size;
 * - a larger set: when less than 1/16 of the keys' size is free, by 1/8.
 * So a set ends with at most one step of free room: 1/8 of its keys once
 * they take 1 kB outside power-of-two chunks.  Every growth of a large set
 * may copy it (repalloc), about 9 copies of each key in all with steps of
 * 1/8.
 *
 * Compaction.  One that does not grow the set leaves at least 1/16 of its
 * keys' size free (1/4 in power-of-two chunks), so the next one comes at
 * least that many bytes of keys later: a compaction moves the sorted part
 * at most once, so at most 16 bytes of the sorted part move per byte added,
 * whatever the share of duplicates (after growth, at most 8).  Small sets
 * outside power-of-two chunks grow only when the key does not fit, so one
 * full of duplicates may compact every row: at most 1 kB moved per row.
 * The scratch space of a compaction is about the tail's size: at most the
 * room the previous compaction left.
 *
 * Deferral (cd_may_defer): a full set whose last tail held few duplicates
 * grows before compacting while its tail is short next to the sorted part
 * (below 1/defer_tail of it) and its room is below defer_below bytes; a
 * representation may stop it earlier (CDGrowth.tail_is_new: fixed-width
 * sets probe 8 tail keys in the sorted part, so that values that start to
 * repeat stop the deferral at once).  The next compaction then merges the
 * tails of several growth steps at once, and the sorted part moves less
 * often; the tail, and the scratch, reach at most 1/defer_tail of the
 * sorted part plus one growth step.
 *
 *-------------------------------------------------------------------------
 */
#ifndef CD_POLICY_H
#define CD_POLICY_H

#include "postgres.h"

#include "port/pg_bitutils.h"

#include "compat.h"
#include "set_header.h"

#define CD_SET_FIRST_ALLOC	64	/* bytes: a new group's one chunk */

#define CD_GROW_SMALL		1024	/* bytes of keys: a small set */
#define CD_GROW_SMALL_STEP	4	/* a small set grows by 1/this of its keys */
#define CD_GROW_BELOW		16	/* a larger one grows when free < 1/this */
#define CD_GROW_STEP		8	/* ... by 1/this of its keys */
#define CD_GROW_MIN			32	/* bytes: the least step */

/*
 * A tail with more than 1/CD_TAIL_SHARE of its keys already present (in
 * itself: CD_SET_TAIL_DUPS; in the sorted part: CD_SET_TAIL_SEEN) marks
 * the set.
 */
#define CD_TAIL_SHARE		8

/*
 * A merge of a src at most 1/CD_MERGE_APPEND of dst's size appends src's
 * keys to dst's unsorted part instead of merging the sorted parts: combining
 * many small states into a large one (Citus sends one per shard and group)
 * then costs no pass over dst each time.
 */
#define CD_MERGE_APPEND		16

/* Deferral, per representation (see above). */
typedef struct CDDeferRule
{
	Size		defer_tail;		/* defer while tail * this < sorted part */
	Size		defer_below;	/* ... and the room is below this many bytes */
} CDDeferRule;

/*
 * What the policy needs of a representation that grows through
 * cd_set_make_room (fixed-width and variable-size sets; packed and
 * front-coded sets size their tails themselves): its deferral rule, its
 * header's size (for the chunk sizes), its room for keys in bytes, a resize
 * to room for bytes of keys (may move the set: returns it, unchanged when it
 * cannot grow but has room left; may return a set of another kind:
 * fixedset.c's becomes a packed set), and whether a full set may grow
 * before it compacts as far as the representation can tell (NULL: the rule
 * alone).  The sizes of the keys held come from CDSetOps.
 */
typedef struct CDGrowth
{
	CDDeferRule defer;
	Size		header;
	Size		(*room_bytes) (const CDSet *set);
	CDSet	   *(*resize) (CDSet *set, Size bytes, CDAlloc *alloc);
	bool		(*tail_is_new) (const CDSet *set);
} CDGrowth;

/*
 * The room to grow to, in bytes of keys: the set holds used bytes of keys
 * in room bytes, and the key being added needs need bytes.  0: keep the
 * chunk.  The caller rounds up to its chunk sizes (to a power of two if
 * pow2_chunks).  Inline, so that the sets compile without alloc.c (the fuzz
 * harness).
 */
static inline Size
cd_grow_target(Size used, Size room, Size need, bool pow2_chunks)
{
	Size		below;
	Size		step;

	Assert(used <= room);
	if (pow2_chunks)
		below = step = used / 4;
	else if (used < CD_GROW_SMALL)
	{
		below = 0;
		step = Max(used / CD_GROW_SMALL_STEP, CD_GROW_MIN);
	}
	else
	{
		below = used / CD_GROW_BELOW;
		step = Max(used / CD_GROW_STEP, CD_GROW_MIN);
	}
	if (room - used >= Max(need, below))
		return 0;
	return Max(used + Max(step, need), room + need);
}

/*
 * The chunk size for a set of total bytes (header included): at least a
 * first chunk; power-of-two sizes up to 8 kB unless fine_grained (the
 * allocator would round up to them anyway); else MAXALIGNed.
 */
static inline Size
cd_chunk_size(Size total, bool fine_grained)
{
	if (total <= CD_SET_FIRST_ALLOC)
		return CD_SET_FIRST_ALLOC;
	if (total <= CD_ALLOC_CHUNK_LIMIT && !fine_grained)
		return pg_nextpower2_32((uint32) total);
	return MAXALIGN(total);
}

/* Does set sit in power-of-two chunks for this growth? */
static inline bool
cd_pow2_chunks(const CDSet *set, Size header, Size room)
{
	return !(set->flags & CD_SET_FINE_GRAINED) &&
		header + room <= CD_ALLOC_CHUNK_LIMIT;
}

/*
 * After a compaction, of total tail keys only kept were new: set flag
 * (CD_SET_TAIL_DUPS for the appended keys, CD_SET_TAIL_SEEN for the tail's
 * distinct keys against the sorted part) if more than 1/CD_TAIL_SHARE were
 * not, else clear it.
 */
static inline void
cd_note_tail(CDSet *set, uint8 flag, Size total, Size kept)
{
	if ((total - kept) * CD_TAIL_SHARE > total)
		set->flags |= flag;
	else
		set->flags &= ~flag;
}

/*
 * Should a fixed-width set whose sorted keys take raw bytes, about packed
 * bytes in a packed set (cd_packed_estimate), become one?  Only when that
 * takes at most 3/5 of them: a packed set's tail takes up to the raw size
 * minus the packed part (packedset.c: tail_target), so keys that compress
 * less save little memory for the CPU time of a packed set's compactions,
 * which decode and encode every key (random int4: below about 100k keys per
 * group).  A lower bar (1/2) packs later, so that the backend's peak comes
 * before the conversions (bench/README.md, "Measurements behind the code").
 */
static inline bool
cd_pack_pays_off(Size packed, Size raw)
{
	return packed * 5 <= raw * 3;
}

/*
 * Should a large serialized state of byte keys, front-coded in front bytes
 * that take raw bytes as a variable-size set's entries, stay front-coded
 * when it is deserialized (set.c, frontset.h)?  Whenever that is no larger:
 * a partial state is only combined and counted, which cost no more
 * front-coded (the state is taken over or kept as a run, and counted by a
 * k-way merge, instead of copied into entries and merged), so the 3/5 of
 * cd_pack_pays_off, which pays for compactions that decode and encode every
 * key, does not apply.  Keeping it front-coded lowers the Finalize
 * aggregate's peak memory as well (bench/README.md).
 */
static inline bool
cd_front_state_stays(Size front, Size raw)
{
	return front <= raw;
}

/*
 * Should a packed set look its sorted, distinct tail of ntail keys up in its
 * nblocks blocks before merging them, after a tail that held keys already
 * present (CD_SET_TAIL_SEEN)?  A merge decodes and encodes every block as
 * soon as one key is new (blocks hold a fixed count of keys, so one key
 * shifts every block after it), while the look-up decodes each block a key
 * falls in and spares the merge only the keys it finds: it pays when few
 * keys are new, not when many are.  So: when the tail has fewer keys than
 * there are blocks (it decodes at most that many), or when none of the
 * sampled keys spread over the tail (at most CD_PROBE_SAMPLE; absent of
 * them not present) was new.  Dense values, where a good share of each
 * tail is new and the tail has several keys per block, skip it, and the
 * merge sizes its new blocks for about ntail * absent / sampled new keys
 * (rounded up).
 */
#define CD_PROBE_SAMPLE		16

static inline bool
cd_probe_tail_first(Size ntail, Size nblocks, uint32 absent)
{
	return ntail < nblocks || absent == 0;
}

/* Should merging src (srcsize) into dst (dstsize) append src's keys? */
static inline bool
cd_merge_by_append(Size srcsize, Size dstsize)
{
	return srcsize * CD_MERGE_APPEND <= dstsize;
}

/*
 * Room for a key of need bytes in a full set (may move the set: use the
 * result): compact unless deferring, then grow if the policy says so.
 * ERROR when the set holds as many keys as it can.
 */
extern CDSet *cd_set_make_room(CDSet *set, const CDGrowth *growth, Size need,
							   CDAlloc *alloc);

#endif							/* CD_POLICY_H */
