/*-------------------------------------------------------------------------
 *
 * set_header.h
 *	  What every representation of a set of distinct keys shares: the
 *	  header it starts with, one namespace of flags, and its operations.
 *
 * Every set has a sorted, duplicate-free part and an unsorted part of keys
 * added since the last compaction.  How the keys are stored is the
 * representation's (its kind):
 *
 *	  CD_SET_FIXED	 fixed-width keys in one array (fixedset.h)
 *	  CD_SET_VAR	 variable-size keys, packed in one byte array (varset.h)
 *	  CD_SET_PACKED	 many fixed-width keys, the sorted part compressed
 *					 (packedset.h); a fixed-width set becomes one when it
 *					 grows large, so sets of one key type may differ in kind
 *	  CD_SET_FRONT	 many byte keys, the sorted part front-coded
 *					 (frontset.h); a variable-size set of byte keys becomes
 *					 one when it grows large
 *
 * Each representation is one file, whose CDSetOps are an entry of
 * cd_set_kinds[] (set.c); callers go through set.h.  A set's header and its
 * keys share one allocation, so a group with a handful of values costs one
 * small chunk: the header is kept at 20 bytes, and a representation's own
 * fields follow it (set_header.h's CD_SET_HEADER_FIELDS, offsets checked by
 * CD_SET_CHECK_HEADER).  Growth and compaction follow one policy
 * (policy.h).  The operations are set operations only: a set is serialized
 * through its reader (keystream.h, serialkeys.h), which copies the keys
 * where the set holds them in their serialized form already.
 *
 *-------------------------------------------------------------------------
 */
#ifndef CD_SET_HEADER_H
#define CD_SET_HEADER_H

#include "postgres.h"

#include "lib/stringinfo.h"

#include "alloc.h"
#include "key.h"
#include "keystream.h"

typedef enum CDSetKind
{
	CD_SET_FIXED = 0,
	CD_SET_VAR,
	CD_SET_PACKED,
	CD_SET_FRONT,
	CD_SET_NKINDS
} CDSetKind;

/* Flags (CDSet.flags), one namespace for every representation. */
/* in a slot of the pool (alloc.h): no chunk header, never freed */
#define CD_SET_IN_SLOT			0x01
/* the last compaction found many keys of the tail already sorted (policy.h) */
#define CD_SET_TAIL_SEEN		0x02
/* the last compaction found many duplicates in the tail (policy.h) */
#define CD_SET_TAIL_DUPS		0x04
/* allocated where chunks have no power-of-two sizes (alloc.h) */
#define CD_SET_FINE_GRAINED		0x08
/*
 * sized by the allocator's hint for new sets (alloc.h: var_first) and still
 * small enough that growing updates the hint: adding may need the
 * allocator (needs_alloc); cleared once that no longer holds
 */
#define CD_SET_HINTED			0x10
/* a packed set's hot key is set (packedset.h) */
#define CD_SET_HOT				0x20
/*
 * a variable-size set of byte keys large enough to become front-coded
 * (frontset.h): adding may need the allocator when it is nearly full
 * (needs_alloc)
 */
#define CD_SET_FRONT_CANDIDATE	0x40
/*
 * a variable-size set of byte keys whose sorted entries all have one
 * length, that of its first (varset.c: merge_uniform)
 */
#define CD_SET_UNIFORM			0x80

/*
 * The header's fields, first in every representation's struct.  extra is
 * the representation's own: the key width of fixed-width sets, kept here
 * for the per-row path; the high bits of the size of variable-size ones.
 * kt comes first and is a key type the registry gives out for sets only
 * (registry.h: cd_registry_set_keytype): its address tells a set from any
 * other state an aggregate's "internal" argument may carry
 * (cd_registry_is_set_keytype), so a set needs no tag of its own.
 */
#define CD_SET_HEADER_FIELDS \
	const CDKeyType *kt;		/* key type: a per-query registry entry */ \
	uint32		nall;			/* keys, sorted + unsorted */ \
	uint32		nsorted;		/* keys in the sorted, duplicate-free part */ \
	uint8		kind;			/* CDSetKind */ \
	uint8		flags;			/* CD_SET_* */ \
	uint16		extra

typedef struct CDSet
{
	CD_SET_HEADER_FIELDS;
} CDSet;

#define CD_SET_HEADER_SIZE	(offsetof(CDSet, extra) + sizeof(uint16))

StaticAssertDecl(offsetof(CDSet, kt) == 0, "a set starts with its key type");

/* Does type T start with the header?  (a static assertion per field) */
#define CD_SET_CHECK_HEADER(T) \
	StaticAssertStmt(offsetof(T, kt) == offsetof(CDSet, kt) && \
					 offsetof(T, nall) == offsetof(CDSet, nall) && \
					 offsetof(T, nsorted) == offsetof(CDSet, nsorted) && \
					 offsetof(T, kind) == offsetof(CDSet, kind) && \
					 offsetof(T, flags) == offsetof(CDSet, flags) && \
					 offsetof(T, extra) == offsetof(CDSet, extra), \
					 #T " starts with the set header")

/* The most keys a set holds: counts are uint32. */
#define CD_SET_MAX_KEYS		((Size) PG_UINT32_MAX - 1)

/*
 * The operations of one representation.  Those that may move the set (its
 * header and keys are one chunk that grows) return it: use the result.
 * alloc: the allocator the set was created from; it may be NULL where
 * needs_alloc() says so.
 */
typedef struct CDSetOps
{
	/* a new, empty set for one group */
	CDSet	   *(*create) (const CDKeyType *kt, CDAlloc *alloc);
	/* does adding a value need the allocator?  (false unless CD_SET_HINTED) */
	bool		(*needs_alloc) (const CDSet *set);
	/* add one non-NULL value (may move the set) */
	CDSet	   *(*add_value) (CDSet *set, Datum value, CDAlloc *alloc);
	/* sort, deduplicate and merge the unsorted part (never moves the set) */
	void		(*compact) (CDSet *set);
	/*
	 * The number of distinct keys.  The keys stay the same, but the set is
	 * not const: a representation may reorder its tail and decode keys it
	 * holds as they were sent, in place, to take no memory beyond a sort's
	 * scratch (packedset.c); the others count through scratch copies.
	 */
	uint32		(*count) (CDSet *set);
	/* add every key of src, a set of the same kind and key type, to dst */
	CDSet	   *(*merge) (CDSet *dst, CDSet *src, CDAlloc *alloc);
	/* a compacted copy of set in mcxt, sized to its keys (compacts set) */
	CDSet	   *(*copy) (CDSet *set, MemoryContext mcxt);
	/*
	 * A reader of the sorted keys of a compacted set.  Not yet const-correct:
	 * a packed set's keys held as they were sent become blocks first (the
	 * keys stay the same; packedset.c: packed_reader).  Serialization goes
	 * through it: a reader over keys held in their serialized form (a
	 * packed or front-coded sorted part) offers their bytes to be copied
	 * (keystream.h: serial_size, write_serial; set.c: cd_state_image_init).
	 */
	void		(*reader) (const CDSet *set, CDKeyReader *r);
	/*
	 * A new, empty set in mcxt with room for n keys taking about bytes
	 * (variable-size keys: a hint), and a writer that fills it with sorted
	 * keys; the set the writer built is cd_set_written(w).
	 */
	CDSet	   *(*build) (const CDKeyType *kt, MemoryContext mcxt, uint32 n,
						  Size bytes, CDKeyWriter *w);
	/* bytes allocated for the set */
	Size		(*memory_size) (const CDSet *set);

	/*
	 * Bytes of keys held, and of them in the sorted part (the growth
	 * policy's hooks are policy.h's CDGrowth).
	 */
	Size		(*used_bytes) (const CDSet *set);
	Size		(*sorted_bytes) (const CDSet *set);
} CDSetOps;

extern const CDSetOps *const cd_set_kinds[CD_SET_NKINDS];

static inline const CDSetOps *
cd_set_ops(const CDSet *set)
{
	Assert(set->kind < CD_SET_NKINDS);
	return cd_set_kinds[set->kind];
}

/* set, which must be of the given kind, as its representation's struct */
static inline void *
cd_set_as(const CDSet *set, CDSetKind kind)
{
	Assert(set->kind == kind);
	return (void *) set;
}

/* The set a writer from CDSetOps.build filled. */
static inline CDSet *
cd_set_written(const CDKeyWriter *w)
{
	return (CDSet *) w->target;
}

#endif							/* CD_SET_HEADER_H */
