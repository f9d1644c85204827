/*-------------------------------------------------------------------------
 *
 * alloc.c
 *	  Where sets live (see alloc.h).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "nodes/execnodes.h"
#include "utils/memutils.h"

#include "alloc.h"
#include "compat.h"

#define CD_SLOT_BLOCK	(64 * 1024)

/* the aggregate context was reset or deleted: forget the allocator */
static void
alloc_reset_callback(void *arg)
{
	CDAlloc    *a = (CDAlloc *) arg;

	if (*a->owner == a)
		*a->owner = NULL;
}

CDAlloc *
cd_alloc_lookup(FunctionCallInfo fcinfo, MemoryContext aggcontext,
				CDAlloc **hash, CDAlloc *local)
{
	AggState   *aggstate;
	CDAlloc    *a;
	MemoryContextCallback *cb;

	/* hash aggregation: the aggregate context is the hash table's */
	aggstate = (fcinfo->context && IsA(fcinfo->context, AggState)) ?
		(AggState *) fcinfo->context : NULL;
	if (aggstate == NULL || aggstate->hashcontext == NULL ||
		aggcontext != aggstate->hashcontext->ecxt_per_tuple_memory)
	{
		local->aggcontext = aggcontext;
		local->mcxt = aggcontext;
		local->fine_grained = false;
		local->use_slots = false;
		local->slot_next = local->slot_end = NULL;
		local->owner = NULL;
		return local;
	}

	a = MemoryContextAllocZero(aggcontext, sizeof(CDAlloc));
	a->aggcontext = aggcontext;
	a->mcxt = CD_GENERATION_CONTEXT_CREATE(aggcontext, "count_distinct sets");
	a->fine_grained = true;
	a->use_slots = true;
	a->owner = hash;

	cb = MemoryContextAlloc(aggcontext, sizeof(MemoryContextCallback));
	cb->func = alloc_reset_callback;
	cb->arg = a;
	MemoryContextRegisterResetCallback(aggcontext, cb);

	*hash = a;
	return a;
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
