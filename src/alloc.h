/*-------------------------------------------------------------------------
 *
 * alloc.h
 *	  Where sets live: an allocator for the sets of one aggregate memory
 *	  context (all the aggregates whose states live there share it).
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
#include "utils/memutils.h"

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
 */
#define CD_ALLOC_LARGE	(64 * 1024)

extern void *cd_alloc_resize(CDAlloc *a, void *chunk, Size used, Size size);

/* A new CD_SLOT_SIZE-byte slot (MAXALIGNed, no chunk header). */
extern void *cd_alloc_slot(CDAlloc *a);

/*
 * A set's arrays and a compaction's scratch may pass MaxAllocSize (1 GB):
 * allocated and resized as huge chunks (utils/memutils.h).
 */
static inline void *
cd_alloc_huge(MemoryContext mcxt, Size size)
{
	return MemoryContextAllocExtended(mcxt, size, MCXT_ALLOC_HUGE);
}

static inline void *
cd_realloc_huge(void *p, Size size)
{
	return repalloc_huge(p, size);
}

#endif							/* CD_ALLOC_H */
