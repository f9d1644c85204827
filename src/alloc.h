/*-------------------------------------------------------------------------
 *
 * alloc.h
 *	  Where sets live: memory for the sets of one aggregate call site in one
 *	  aggregate memory context.
 *
 * Under hash aggregation all groups' sets grow side by side.  With plain
 * palloc, each outgrown power-of-two chunk stays on the allocator's free
 * list for its size, which no later request of that size reuses once every
 * group has moved past it: the stranded chunks add up to about the size of
 * the live sets.  So under hash aggregation the sets live in a Generation
 * context (a child of the aggregate context, so it is accounted for and
 * reset with it): it has no size classes and frees a block as soon as all
 * of its chunks are freed, which is what happens when groups grow in step.
 * Each group's first, 64-byte state comes from a pool of header-free slots
 * (a chunk header would be a third of it); a set that outgrows its slot
 * moves out and leaves the slot behind.
 *
 * Elsewhere (sorted and window aggregation, one group at a time) sets are
 * plain chunks in the aggregate context.
 *
 *-------------------------------------------------------------------------
 */
#ifndef CD_ALLOC_H
#define CD_ALLOC_H

#include "postgres.h"

#include "fmgr.h"

#define CD_SLOT_SIZE	64		/* a new group's state */

/*
 * Variable-size sets (varset.c) start small and grow by reallocation.  In
 * the Generation context, a group's outgrown chunks are only freed for good
 * when their whole block is: groups that grow side by side free whole
 * blocks, but groups that arrive one after another (clustered input) leave
 * their outgrown chunks dead between the live ones.  So a new set starts at
 * the size that the previous new set grew to while it was the newest
 * (var_first, at most CD_VAR_FIRST_MAX), decaying towards the smallest size
 * by 1/16 every 16 sets: after a group or two of input clustered by group,
 * new groups rarely grow; in unclustered input the newest set rarely grows
 * before the next one is created, so new sets stay small.
 */
#define CD_VAR_FIRST_MAX	512

typedef struct CDAlloc
{
	MemoryContext aggcontext;	/* the aggregate's memory context */
	MemoryContext mcxt;			/* where sets are allocated */
	bool		fine_grained;	/* mcxt has no power-of-two size classes */
	bool		use_slots;		/* new states from the slot pool */
	char	   *slot_next;		/* the pool's current block */
	char	   *slot_end;
	Size		var_first;		/* a new variable-size set's chunk size */
	void	   *var_newest;		/* the newest variable-size set */
	uint32		var_created;	/* variable-size sets created */
} CDAlloc;

/* Is aggcontext the hash table's context of a hash aggregation? */
extern bool cd_alloc_is_hash_context(FunctionCallInfo fcinfo,
									 MemoryContext aggcontext);

/*
 * Set up an allocator for aggcontext: for a hash table's context, a
 * Generation context (a child of aggcontext) and the slot pool; else plain
 * chunks in aggcontext, which needs no set-up and may live on the stack.
 * Allocators are kept per aggregate context by registry.h.
 */
extern void cd_alloc_init(CDAlloc *a, MemoryContext aggcontext, bool hash);

/*
 * Resize chunk, a set allocated from a (may be NULL: plain repalloc), to
 * size bytes, of which the first used bytes matter.  Under hash aggregation
 * a chunk that grows past CD_ALLOC_LARGE moves out of the Generation
 * context into the aggregate context itself (an AllocSet, where a chunk
 * that large is a malloc'd block of its own, freed with it): a Generation
 * context copies a chunk on every repalloc, holding the old and the new
 * at once, while realloc() grows a large block in place or by mremap().
 * Measured on one group of 10M distinct int4 under HashAggregate (backend
 * anonymous RSS, sampled): 1.79x the data at the peak before.
 */
#define CD_ALLOC_LARGE	(64 * 1024)

extern void *cd_alloc_resize(CDAlloc *a, void *chunk, Size used, Size size);

/* the growth policy: see cd_grow_target() */
#define CD_GROW_SMALL		1024	/* bytes of keys: a small set */
#define CD_GROW_SMALL_STEP	4	/* a small set grows by 1/this of its keys */
#define CD_GROW_BELOW		16	/* a larger one grows when free < 1/this */
#define CD_GROW_STEP		8	/* ... by 1/this of its keys */
#define CD_GROW_MIN			32	/* bytes: the least step */

/*
 * The growth policy of both kinds of sets, in bytes of keys (inline, so
 * that the sets compile without the rest of alloc.c, e.g. in the fuzzer):
 *
 * - in power-of-two chunks (plain contexts, chunks up to 8 kB): when less
 *   than 1/4 of the keys' size is free, by 1/4, which the chunk size rounds
 *   up: the chunk doubles;
 * - a small set (below 1 kB of keys): only when the key being added does
 *   not fit, by 1/4 (at least 32 bytes), so that small groups end close to
 *   their size;
 * - a larger set: when less than 1/16 of the keys' size is free, by 1/8.
 *
 * Growing by at least the key being added makes room for it.  The step is
 * the trade: a set ends with up to one step of free room, and every growth
 * of a large set copies it (repalloc; glibc's realloc copies unless it can
 * extend the block in place), so steps of 1/8 copy about twice as much as
 * steps of 1/4.
 *
 * Measured (PostgreSQL 15, 2 cores, 10M rows, serial HashAggregate; state
 * = Peak Memory Usage minus count(v)'s, over the distinct data; time =
 * median of 5 interleaved runs), variable-size sets growing by this policy
 * (before: by 1/4 when less than 1/8 was free; varset.c now also defers
 * compaction by one step and copies runs of the prefix at once), md5 text:
 * 1 group 1.08x -> 1.05x the data, 4048 -> 5010 ms; 100 groups 1.24x ->
 * 1.06x, 3440 -> 3812 ms; 10k groups of 1000 1.15x -> 1.08x, 4623 -> 4603
 * ms; 1M groups of 10 1.26x both, 6170 -> 6627 ms (6120 -> 6236 ms in 3
 * more runs).  The extra time of large sets is the copying of twice as
 * many growths.  int4 (hashint4), whose fixed-width sets already grew so:
 * 1.00x, 1.02x, 1.07x -> 1.06x, 1.60x, same times within 2%.  Small sets
 * growing by 1/8 as well: 1M groups of 10 md5 values 2.26x.
 *
 * A full set has compacted (or deferred that), leaving used bytes of keys
 * in room bytes; the key being added needs need bytes.  Returns the room to
 * grow to (the caller rounds it up to its chunk sizes: to a power of two if
 * pow2_chunks), or 0 to keep the chunk.
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

/* A new CD_SLOT_SIZE-byte slot (MAXALIGNed, no chunk header). */
extern void *cd_alloc_slot(CDAlloc *a);

#endif							/* CD_ALLOC_H */
