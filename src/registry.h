/*-------------------------------------------------------------------------
 *
 * registry.h
 *	  What states point to, kept where it outlives them: key types (and
 *	  their value I/O caches) per query, allocators per aggregate context.
 *
 * A state (set.h) points to its key type, and under hash aggregation it
 * lives in an allocator's memory.  Neither may depend on what the caller
 * keeps in flinfo->fn_extra: the executor keeps fn_extra for the whole
 * query, but other callers (Citus calls the support functions through a
 * bare fmgr_info() on every row) start each call with an empty one.  So
 * key types are registered per query (allocated in the executor's query
 * context, found again by type and collation) and allocators per aggregate
 * context (forgotten when that context is reset).  fn_extra only caches the
 * last answer.
 *
 *-------------------------------------------------------------------------
 */
#ifndef CD_REGISTRY_H
#define CD_REGISTRY_H

#include "postgres.h"

#include "fmgr.h"

#include "alloc.h"
#include "key.h"
#include "value_io.h"

/*
 * The key type of values of typid under collation, for the query fcinfo's
 * aggregate runs in (created at the first call; ERROR if the type is not
 * supported).  Lives until the query ends.
 */
extern const CDKeyType *cd_registry_keytype(FunctionCallInfo fcinfo,
											Oid typid, Oid collation);

/*
 * The same for the states of count_distinct's own aggregates (set.h): an
 * entry of its own, whose address no other state holds, so that the key
 * type pointer a set starts with (CDSet.kt) tells a set from any other
 * state an "internal" argument may carry (cd_registry_is_set_keytype).
 * Its contents are those of cd_registry_keytype's entry.
 */
extern const CDKeyType *cd_registry_set_keytype(FunctionCallInfo fcinfo,
												Oid typid, Oid collation);

/*
 * Either of the two for values of type typid of typmod typmod: the
 * canonical typmod of anonymous records (key_record.h), else -1.
 */
extern const CDKeyType *cd_registry_keytype_typmod(FunctionCallInfo fcinfo,
												   Oid typid, int32 typmod,
												   Oid collation,
												   bool for_sets);

/*
 * Is ptr the address of a live key type of cd_registry_set_keytype?  ptr
 * is only compared, never read: it may be the first word of any state.
 * The last address found is remembered (forgotten with its entry), so
 * that the check costs one comparison per call.
 */
extern const void *cd_registry_last_set_keytype;
extern bool cd_registry_find_set_keytype(const void *ptr);

static inline bool
cd_registry_is_set_keytype(const void *ptr)
{
	return (ptr != NULL && ptr == cd_registry_last_set_keytype) ||
		cd_registry_find_set_keytype(ptr);
}

/*
 * The allocator for sets in aggcontext (see alloc.h): registered for a hash
 * table's context; for any other, *local, set up for this call.
 */
extern CDAlloc *cd_registry_alloc(FunctionCallInfo fcinfo,
								  MemoryContext aggcontext, CDAlloc *local);

/*
 * The value I/O cache for serializing values of kt, a registered key type
 * (NULL unless its keys are values: CD_KEY_COMPARATOR).  Lives as long as
 * kt.
 */
extern CDValueIO *cd_registry_value_io(const CDKeyType *kt);

#endif							/* CD_REGISTRY_H */
