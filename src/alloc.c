/*-------------------------------------------------------------------------
 *
 * alloc.c
 *	  Where sets live (see alloc.h).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/memutils.h"

#include "alloc.h"
#include "compat.h"

#define CD_SLOT_BLOCK	(64 * 1024)

void
cd_alloc_init(CDAlloc *a, MemoryContext aggcontext, bool hash)
{
	memset(a, 0, sizeof(CDAlloc));
	a->aggcontext = aggcontext;
	if (hash)
	{
		a->mcxt = CD_GENERATION_CONTEXT_CREATE(aggcontext, "count_distinct sets");
		a->fine_grained = true;
		a->use_slots = true;
	}
	else
		a->mcxt = aggcontext;
}

void *
cd_alloc_slot(CDAlloc *a)
{
	void	   *slot;

	Assert(a->use_slots);
	if (a->slot_next == NULL || a->slot_end - a->slot_next < CD_SLOT_SIZE)
	{
		a->slot_next = MemoryContextAlloc(a->aggcontext, CD_SLOT_BLOCK);
		a->slot_end = a->slot_next + CD_SLOT_BLOCK;
	}
	slot = a->slot_next;
	a->slot_next += CD_SLOT_SIZE;
	return slot;
}

void *
cd_alloc_resize(CDAlloc *a, void *chunk, Size used, Size size)
{
	void	   *moved;

	if (a == NULL || a->mcxt == a->aggcontext || size <= CD_ALLOC_LARGE ||
		GetMemoryChunkContext(chunk) != a->mcxt)
		return cd_realloc_huge(chunk, size);

	moved = cd_alloc_huge(a->aggcontext, size);
	memcpy(moved, chunk, Min(used, size));
	pfree(chunk);
	return moved;
}
