/*-------------------------------------------------------------------------
 *
 * keyunion.h
 *	  The union of sorted, distinct streams of fixed-width keys
 *	  (keystream.h), as one such stream.
 *
 * A packed set that holds runs (other sets' sorted keys, kept as they came
 * from a parallel worker) reads its keys and theirs through one of these:
 * to count them without writing anything, or to merge them into its
 * blocks in one pass (packedset.c).  The union is a balanced tree of
 * two-way merges; a key in several streams comes out once.
 *
 *-------------------------------------------------------------------------
 */
#ifndef CD_KEYUNION_H
#define CD_KEYUNION_H

#include "postgres.h"

#include "keystream.h"

/*
 * A reader of the union of the n readers in, which must stay valid while it
 * is read (n >= 1); allocated in CurrentMemoryContext, and freed with
 * cd_key_union_free.  Its count is the sum of theirs: an upper bound.
 */
extern CDKeyReader *cd_key_union(CDKeyReader **in, int n);
extern void cd_key_union_free(CDKeyReader *r);

/* The keys left in a fixed-width reader, read to its end. */
extern Size cd_key_reader_drain_count(CDKeyReader *r);

#endif							/* CD_KEYUNION_H */
