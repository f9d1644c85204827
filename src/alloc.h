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

typedef struct CDAlloc
{
	MemoryContext aggcontext;	/* the aggregate's memory context */
	MemoryContext mcxt;			/* where sets are allocated */
	bool		fine_grained;	/* mcxt has no power-of-two size classes */
	bool		use_slots;		/* new states from the slot pool */
	char	   *slot_next;		/* the pool's current block */
	char	   *slot_end;
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

/* A new CD_SLOT_SIZE-byte slot (MAXALIGNed, no chunk header). */
extern void *cd_alloc_slot(CDAlloc *a);

#endif							/* CD_ALLOC_H */
