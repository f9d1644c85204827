/*
 * pgstub_dset.c
 *	  What the stored-set files (src/dset_*.c) need of the server beyond
 *	  pgstub.c, for test/fuzz/fuzz_dset.c.
 *
 * Errors do not go through PG_TRY here (pgstub.c's errfinish jumps
 * straight to the harness), so the catch branch of dset_decode and the
 * SQL-callable functions of dset_ops.c are never reached: they only need
 * to link.
 */
#include "postgres.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "alloc.h"
#include "common/hashfn.h"
#include "lib/stringinfo.h"
#include "utils/inval.h"
#include "utils/memutils.h"

#include "pgstub.h"

#define STUB_UNREACHABLE(name) \
	do { fprintf(stderr, "stub: %s reached\n", name); abort(); } while (0)

void *
MemoryContextAllocHuge(MemoryContext context, Size size)
{
	return MemoryContextAllocExtended(context, size, MCXT_ALLOC_HUGE);
}

/* the catalog never changes here: no invalidations to follow */
void
CacheRegisterSyscacheCallback(int cacheid, SyscacheCallbackFunction func,
							  Datum arg)
{
}

/*
 * Stored sets' layout cache (dset_format.c): filled only when a layout
 * binds, which needs a composite or array type; the stub catalog has none.
 */
MemoryContext TopMemoryContext = NULL;
void
CacheRegisterRelcacheCallback(RelcacheCallbackFunction func, Datum arg)
{
}

void
appendStringInfoSpaces(StringInfo str, int count)
{
	while (count-- > 0)
		appendStringInfoChar(str, ' ');
}

ErrorData *CopyErrorData(void) { STUB_UNREACHABLE("CopyErrorData"); }
void FlushErrorState(void) { STUB_UNREACHABLE("FlushErrorState"); }
void ReThrowError(ErrorData *edata) { STUB_UNREACHABLE("ReThrowError"); }
uint32 hash_bytes(const unsigned char *k, int keylen) { STUB_UNREACHABLE("hash_bytes"); }
uint64 hash_bytes_extended(const unsigned char *k, int keylen, uint64 seed) { STUB_UNREACHABLE("hash_bytes_extended"); }


/* window frames' red-black tree (moving.c, comparator keys): not reached */
#include "lib/rbtree.h"

RBTree *rbt_create(Size node_size, rbt_comparator comparator, rbt_combiner combiner, rbt_allocfunc allocfunc, rbt_freefunc freefunc, void *arg) { STUB_UNREACHABLE("rbt_create"); }
RBTNode *rbt_find(RBTree *rbt, const RBTNode *data) { STUB_UNREACHABLE("rbt_find"); }
RBTNode *rbt_insert(RBTree *rbt, const RBTNode *data, bool *isNew) { STUB_UNREACHABLE("rbt_insert"); }
void rbt_delete(RBTree *rbt, RBTNode *node) { STUB_UNREACHABLE("rbt_delete"); }
void rbt_begin_iterate(RBTree *rbt, RBTOrderControl ctrl, RBTreeIterator *iter) { STUB_UNREACHABLE("rbt_begin_iterate"); }
RBTNode *rbt_iterate(RBTreeIterator *iter) { STUB_UNREACHABLE("rbt_iterate"); }
