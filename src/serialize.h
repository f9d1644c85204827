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

/* The set's distinct keys as a bytea (compacts the set). */
extern bytea *cd_serialize(CDSet *set);

/*
 * A set from bytes made by cd_serialize, allocated in CurrentMemoryContext;
 * any other bytes raise an ERROR.  The key type is cached in *ktcache, new
 * ones allocated in ktmcxt.
 */
extern CDSet *cd_deserialize(const char *data, Size len,
							 const CDKeyType **ktcache, MemoryContext ktmcxt);

#endif							/* CD_SERIALIZE_H */
