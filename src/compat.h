/*-------------------------------------------------------------------------
 *
 * compat.h
 *	  Differences between PostgreSQL major versions (the version checks of
 *	  key.c and serialize.c's fixed catalog OIDs aside), and the one place
 *	  that reads executor internals.
 *
 *-------------------------------------------------------------------------
 */
#ifndef CD_COMPAT_H
#define CD_COMPAT_H

#include "postgres.h"

#if PG_VERSION_NUM < 130000
#error "count_distinct requires PostgreSQL 13 or later"
#endif

/*
 * 13 has no lib/sort_template.h: the Makefile puts a copy of 14's in
 * src/pg13/ on the include path after the server's headers, so 14 and later
 * use their own.
 */

/* 16+: the varlena macros (VARSIZE, VARDATA, ...) moved to varatt.h */
#if PG_VERSION_NUM >= 160000
#include "varatt.h"
#endif

/*
 * 18 removed lc_collate_is_c(): whether a collation sorts like "C" is now a
 * field of its pg_locale_t.  Same answer, same name.
 */
#if PG_VERSION_NUM >= 180000
#include "utils/pg_locale.h"

static inline bool
cd_lc_collate_is_c(Oid collation)
{
	if (!OidIsValid(collation))
		return false;
	return pg_newlocale_from_collation(collation)->collate_is_c;
}
#define lc_collate_is_c(collation) cd_lc_collate_is_c(collation)
#endif

/* 16 gave make_range an error-saving context (NULL: errors are thrown) */
#if PG_VERSION_NUM >= 160000
#define CD_MAKE_RANGE(typcache, lower, upper, empty) \
	make_range((typcache), (lower), (upper), (empty), NULL)
#else
#define CD_MAKE_RANGE(typcache, lower, upper, empty) \
	make_range((typcache), (lower), (upper), (empty))
#endif

/* 14 moved MaxArraySize from arrayutils.c into utils/array.h */
#include "utils/array.h"
#ifndef MaxArraySize
#define MaxArraySize ((Size) (MaxAllocSize / sizeof(Datum)))
#endif

#define CD_ALLOC_CHUNK_LIMIT	8192

/*
 * A Generation context for sets (alloc.h): 14 takes one block size, 15+ a
 * range.  Blocks of at most 64 kB: chunks above 8 kB then get blocks of
 * their own, freed as soon as the set grows out of them.  With large blocks,
 * groups that arrive one after another (clustered input) would leave each
 * group's last chunk pinning a block full of its dead predecessors.
 */
#if PG_VERSION_NUM >= 150000
#define CD_GENERATION_CONTEXT_CREATE(parent, name) \
	GenerationContextCreate((parent), (name), 0, 8 * 1024, 64 * 1024)
#else
#define CD_GENERATION_CONTEXT_CREATE(parent, name) \
	GenerationContextCreate((parent), (name), 64 * 1024)
#endif

/* Custom settings' prefix reserved: 15+ (before: a warning per unknown name) */
#if PG_VERSION_NUM < 150000
#define MarkGUCPrefixReserved(prefix) EmitWarningsOnPlaceholders(prefix)
#endif

/*
 * Executor internals.  Two questions have no answer in fmgr's interface:
 *
 * cd_agg_is_hash_context: is aggcontext (from AggCheckCallContext) the hash
 * table's context of a hash aggregation?  Sets allocate differently there
 * (alloc.h): all groups grow side by side, and spilling hash aggregation
 * counts the memory of that context.  nodeAgg.c keeps it in
 * AggState->hashcontext.
 *
 * cd_query_context: the executor's per-query context of the aggregate being
 * called, which outlives every state of the query; key types live there
 * (registry.h).  fn_mcxt is not enough: callers through a bare fmgr_info()
 * (Citus) give a short-lived one.  NULL when not called by an Agg or
 * WindowAgg node.
 */
#include "nodes/execnodes.h"

static inline bool
cd_agg_is_hash_context(FunctionCallInfo fcinfo, MemoryContext aggcontext)
{
	AggState   *aggstate;

	aggstate = (fcinfo->context && IsA(fcinfo->context, AggState)) ?
		(AggState *) fcinfo->context : NULL;
	return aggstate != NULL && aggstate->hashcontext != NULL &&
		aggcontext == aggstate->hashcontext->ecxt_per_tuple_memory;
}

static inline MemoryContext
cd_query_context(FunctionCallInfo fcinfo)
{
	if (fcinfo->context != NULL &&
		(IsA(fcinfo->context, AggState) || IsA(fcinfo->context, WindowAggState)))
		return ((PlanState *) fcinfo->context)->state->es_query_cxt;
	return NULL;
}

#endif							/* CD_COMPAT_H */
