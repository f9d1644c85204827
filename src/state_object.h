/*-------------------------------------------------------------------------
 *
 * state_object.h
 *	  A large serialized state as an expanded object (utils/expandeddatum.h)
 *	  whose bytes are written only where they are needed.
 *
 * count_distinct_serial's bytea goes, in a parallel worker, into the tuple
 * sent to the leader, and in the leader (whose own partial aggregate runs
 * under the Gather too) or below a partitionwise aggregate, straight to the
 * deserialization function of the same backend.  Returned as a plain
 * bytea, a large state was built once, then copied into the tuple, or read
 * back, checked and copied into a new set; for a large state every new
 * buffer also costs its page faults.
 *
 * As an expanded object, the state is a reference to the compacted set
 * (set.h: CDStateImage) until someone needs its bytes: forming a tuple
 * (the worker's queue, a sort, a spill) or detoasting it writes them once,
 * into the memory the caller allocated; count_distinct_deserial, seeing an
 * object of this backend, builds its set from the source set directly
 * (cd_set_from_local_state) without the bytes or their checks, which are
 * for states that came from outside.  Nothing can forge such a datum: an
 * expanded object is a pointer that only C code makes and that never
 * leaves the process (tuples and detoasting flatten it).
 *
 * The object lives in the serialization function's memory context (the
 * partial aggregate's output tuple; state_object.c says why not in one of
 * its own) and refers to the set in the aggregate's context, which
 * outlives that tuple: it holds none of the set's memory.  A plain
 * (ungrouped) Finalize Aggregate copies the first state it reads, which
 * flattens it; a Finalize HashAggregate reads them as they come.
 *
 * PostgreSQL 16 and later pass the serialization function's result on as
 * it is (a read-only pointer to the object); up to 15, nodeAgg keeps it
 * only because of how MemoryContextContains() reads the object's header
 * (state_object.c).  The measurements that keep this module are in
 * bench/README.md ("Measurements behind the code").
 *
 *-------------------------------------------------------------------------
 */
#ifndef CD_STATE_OBJECT_H
#define CD_STATE_OBJECT_H

#include "postgres.h"

#include "set.h"

/* sets of this many bytes or more are serialized as objects */
#ifndef CD_STATE_OBJECT_MIN
#define CD_STATE_OBJECT_MIN		((Size) 64 * 1024)
#endif

/*
 * The serialized state of set (compacted) as a read-write expanded object
 * in CurrentMemoryContext, or (Datum) 0 when set is smaller than
 * CD_STATE_OBJECT_MIN or its state's size is not known before it is written
 * (cd_state_image_init): the caller serializes it then.
 */
extern Datum cd_state_object_make(CDSet *set);

/*
 * The image behind value, when value is such an object of this backend;
 * else NULL (any other bytea, flattened or not).
 */
extern const CDStateImage *cd_state_object_image(Datum value);

#endif							/* CD_STATE_OBJECT_H */
