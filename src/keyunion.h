/*-------------------------------------------------------------------------
 *
 * keyunion.h
 *	  The union of sorted, distinct streams of fixed-width keys
 *	  (keystream.h), as one such stream.
 *
 * A packed set with held states (other sets' sorted keys, kept as they came
 * from a parallel worker, not merged yet) reads its keys and theirs through
 * one of these: to count them without writing anything, or to merge them
 * into its blocks in one pass (packedset.c).  The union is a balanced tree of
 * two-way merges; a key in several streams comes out once.
 *
 *-------------------------------------------------------------------------
 */
#ifndef CD_KEYUNION_H
#define CD_KEYUNION_H

#include "postgres.h"

#include "keymerge.h"
#include "keystream.h"

/*
 * A reader of the union of the n readers in, which must stay valid while it
 * is read (n >= 1); allocated in CurrentMemoryContext, and freed with
 * cd_key_union_free.  Its count is the sum of theirs: an upper bound.
 */
extern CDKeyReader *cd_key_union(CDKeyReader **in, int n);
extern void cd_key_union_free(CDKeyReader *r);

/*
 * One stretch of a two-way union of strictly increasing keys (keymerge.h's
 * kernel, on a reader's batch indices): steps keys go to out[*io ...], each
 * the smaller of a[*ia] and b[*ib], a key in both once.  The caller bounds
 * steps by the keys left on each side and the room in out.
 */
static pg_attribute_always_inline void
cd_key_merge_steps(const uint64 *a, uint32 *ia, const uint64 *b, uint32 *ib,
				   uint64 *out, uint32 *io, uint32 steps)
{
	Size		xa = *ia,
				xb = *ib,
				xo = *io;

	cd_merge_union_steps_u64(a, &xa, b, &xb, out, &xo, steps);
	*ia = (uint32) xa;
	*ib = (uint32) xb;
	*io = (uint32) xo;
}

/* The keys left in a fixed-width reader, read to its end. */
extern Size cd_key_reader_drain_count(CDKeyReader *r);

/*
 * The number of keys in the union of the n readers in (n >= 1), each read
 * to its end: counted as they are merged, without writing the union.
 */
extern Size cd_key_union_count(CDKeyReader **in, int n);

#endif							/* CD_KEYUNION_H */
