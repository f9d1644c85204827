/*-------------------------------------------------------------------------
 *
 * moving.h
 *	  The moving-aggregate state: the distinct values of a window frame,
 *	  each with the number of the frame's rows that hold it.
 *
 * A window whose frame moves adds the rows that enter the frame and
 * removes those that leave it (the inverse transition function).  A value
 * leaves the state only when its last row does, so the count and the
 * values are always those of the rows in the frame.  The values are kept
 * in a red-black tree (lib/rbtree.h) ordered by their keys (key_moving.h):
 * adding or removing a row costs O(log d) for d distinct values in the
 * frame, the count is kept up to date, and the memory is one node (and for
 * variable-size keys one copy of the key) per distinct value, freed when
 * the value leaves.
 *
 *-------------------------------------------------------------------------
 */
#ifndef CD_MOVING_H
#define CD_MOVING_H

#include "postgres.h"

#include "lib/rbtree.h"

#include "key.h"

typedef struct CDMoving
{
	const CDKeyType *kt;		/* key type (registry.h); NULL until the first value */
	MemoryContext mcxt;			/* the aggregate context: nodes and keys */
	RBTree	   *tree;
	uint64		ndistinct;		/* values in the tree */
} CDMoving;

/* A new, empty state in mcxt. */
extern CDMoving *cdmov_create(const CDKeyType *kt, MemoryContext mcxt);

/* One more row holding this non-NULL value. */
extern void cdmov_add(CDMoving *m, Datum value);

/*
 * One row fewer holding this non-NULL value.  false if the state holds no
 * such value (it was never added: the caller should start over).
 */
extern bool cdmov_remove(CDMoving *m, Datum value);

static inline uint64
cdmov_count(const CDMoving *m)
{
	return m->ndistinct;
}

/*
 * The distinct values, as Datums in ascending btree order, in
 * CurrentMemoryContext.  Does not change the state.
 */
extern Datum *cdmov_output_datums(CDMoving *m, uint32 *n);

#endif							/* CD_MOVING_H */
