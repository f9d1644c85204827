/*-------------------------------------------------------------------------
 *
 * compat.h
 *	  The one place for differences between PostgreSQL major versions.
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

/* 14 moved MaxArraySize from arrayutils.c into utils/array.h */
#include "utils/array.h"
#ifndef MaxArraySize
#define MaxArraySize ((Size) (MaxAllocSize / sizeof(Datum)))
#endif

#define CD_ALLOC_CHUNK_LIMIT	8192

/*
 * A Generation context for sets (alloc.h): 14 takes one block size, 15+ a
 * range.  Blocks of at most 64 kB: chunks above 8 kB then get blocks of
 * their own, freed as soon as the set grows out of them.  With 1 MB blocks,
 * groups that arrive one after another (clustered input) left each group's
 * last chunk pinning a block full of its dead predecessors: 100 groups of
 * 2500 int8 took 9.5x the data, now 1.06x.
 */
#if PG_VERSION_NUM >= 150000
#define CD_GENERATION_CONTEXT_CREATE(parent, name) \
	GenerationContextCreate((parent), (name), 0, 8 * 1024, 64 * 1024)
#else
#define CD_GENERATION_CONTEXT_CREATE(parent, name) \
	GenerationContextCreate((parent), (name), 64 * 1024)
#endif

#endif							/* CD_COMPAT_H */
