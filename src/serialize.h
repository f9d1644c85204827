/*-------------------------------------------------------------------------
 *
 * serialize.h
 *	  A set as bytes and back (for parallel aggregation).
 *
 *-------------------------------------------------------------------------
 */
#ifndef CD_SERIALIZE_H
#define CD_SERIALIZE_H

#include "postgres.h"

#include "fmgr.h"

#include "set.h"

/* ERROR: invalid serialized state (SQLSTATE 22P03), with a detail. */
#ifdef pg_noreturn				/* 18+ */
pg_noreturn extern void cd_invalid_state(const char *detail);
#else
extern void cd_invalid_state(const char *detail) pg_attribute_noreturn();
#endif

/* The set's distinct keys as a bytea (compacts the set). */
extern bytea *cd_serialize(CDSet *set);

/*
 * What deserialization remembers between calls of one call site (may be
 * kept in fn_extra; zeroed at first): the last header's type and
 * collation references and what they resolved to.
 */
typedef struct CDStateRefCache
{
	MemoryContext mcxt;			/* where refs is allocated */
	char	   *refs;
	int			refslen;
	Oid			typid;
	Oid			collation;
} CDStateRefCache;

/*
 * A set from bytes made by cd_serialize, allocated in CurrentMemoryContext;
 * any other bytes raise an ERROR.  Its key type comes from registry.h for
 * fcinfo's query.  cache may be NULL.
 */
extern CDSet *cd_deserialize(FunctionCallInfo fcinfo, const char *data,
							 Size len, CDStateRefCache *cache);

#endif							/* CD_SERIALIZE_H */
