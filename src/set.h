/*-------------------------------------------------------------------------
 *
 * set.h
 *	  The set of distinct keys, whatever its representation: what the
 *	  aggregates call.
 *
 * A set holds the keys (key.h) of one group: a sorted, duplicate-free part
 * and an unsorted part of keys added since the last compaction.  Its
 * representation (set_header.h) is chosen by the key type when the set is
 * created; every call below dispatches through the representation's
 * operations, except the per-row append of fixed-width keys, which is
 * inline (fixedset.h).
 *
 *-------------------------------------------------------------------------
 */
#ifndef CD_SET_H
#define CD_SET_H

#include "postgres.h"

#include "fixedset.h"
#include "frontset.h"
#include "packedset.h"
#include "set_header.h"
#include "serialize.h"
#include "value_io.h"

/* A new, empty set for values of kt, from alloc. */
extern CDSet *cd_set_create(const CDKeyType *kt, CDAlloc *alloc);

/*
 * Does adding a value to set need its allocator?  (alloc may be NULL in
 * cd_set_add_value otherwise.)
 */
static inline bool
cd_set_needs_alloc(const CDSet *set)
{
	if (likely(set->kind == CD_SET_FIXED))
		return cd_fixed_needs_alloc(set);
	return (set->flags & (CD_SET_HINTED | CD_SET_FRONT_CANDIDATE)) &&
		cd_set_ops(set)->needs_alloc(set);
}

/*
 * Add one non-NULL value (may move the set: use the result).  This runs
 * once per input row: fixed-width keys take the inline path (packed sets
 * too), others one call through the operations (for fixed-width keys that
 * call costs more instructions per row in the append than the inline path:
 * bench/README.md).
 */
static pg_attribute_always_inline CDSet *
cd_set_add_value(CDSet *set, Datum value, CDAlloc *alloc)
{
	if (likely(set->kind == CD_SET_FIXED))
		return cd_fixed_add_key(set, cd_key_encode(set->kt, value), alloc);
	if (set->kind == CD_SET_PACKED)
		return cd_packed_add_key(set, cd_key_encode(set->kt, value));
	return cd_set_ops(set)->add_value(set, value, alloc);
}

/* Sort, deduplicate and merge the unsorted part.  Never moves the set. */
static inline void
cd_set_compact(CDSet *set)
{
	cd_set_ops(set)->compact(set);
}

/*
 * The number of distinct values.  The values stay the same; the set may be
 * reorganized in place (CDSetOps.count).
 */
static inline uint32
cd_set_count(CDSet *set)
{
	return cd_set_ops(set)->count(set);
}

/*
 * Add every value of src to dst (may move dst: use the result; may compact
 * src).  A src that cd_set_take would take whole is consumed: it becomes
 * part of dst or is freed, so the caller must not use it after.  ERROR
 * unless both hold keys of the same key type.
 */
extern CDSet *cd_set_merge(CDSet *dst, CDSet *src, CDAlloc *alloc);

/* A copy of set in mcxt, compacted and sized to its keys (compacts set). */
static inline CDSet *
cd_set_copy(CDSet *set, MemoryContext mcxt)
{
	return cd_set_ops(set)->copy(set, mcxt);
}

/*
 * set, in mcxt: set itself when it has a memory context of its own (a large
 * state cd_set_deserialize built), which is moved under mcxt, else a copy
 * (cd_set_copy).  The caller must not use set after.
 */
static inline CDSet *
cd_set_take(CDSet *set, MemoryContext mcxt)
{
	if (cd_packed_takeable(set))
		return cd_packed_take(set, mcxt);
	if (cd_front_takeable(set))
		return cd_front_take(set, mcxt);
	return cd_set_copy(set, mcxt);
}

/* Bytes allocated for the set. */
static inline Size
cd_set_memory_size(const CDSet *set)
{
	return cd_set_ops(set)->memory_size(set);
}

/*
 * The distinct values, as Datums in ascending btree order, in
 * CurrentMemoryContext (compacts the set); ERROR if more than an array
 * holds.
 */
extern Datum *cd_set_output_datums(CDSet *set, uint32 *n);

/*
 * The set as a serialized state (serialize.h; compacts the set).  vio: the
 * query's value I/O cache (registry.h).
 */
extern bytea *cd_set_serialize(CDSet *set, CDValueIO *vio);

/*
 * The same state, written straight into memory of its exact size: the
 * set's keys copied (where its reader offers them in the serialized form:
 * a packed or front-coded sorted part; keystream.h) or encoded (byte keys)
 * once, with no bytea in between (state_object.h).  Only for sets whose
 * state's size is known before it is written:
 * cd_state_image_init compacts set and returns false for the others
 * (fixed-width keys of a small set, comparator keys), else fills img, which
 * refers to set, unchanged, until it is written.  cd_state_image_write
 * writes the bytea (cd_state_image_size bytes) to dst.
 */
typedef struct CDStateImage
{
	CDSet	   *set;
	StringInfoData head;		/* VARHDRSZ bytes (unset), then the header */
	Size		keybytes;
	bool		serial;			/* the keys: the set reader's write_serial */
} CDStateImage;

extern bool cd_state_image_init(CDStateImage *img, CDSet *set);
extern void cd_state_image_write(const CDStateImage *img, char *dst);

static inline Size
cd_state_image_size(const CDStateImage *img)
{
	return (Size) img->head.len + img->keybytes;
}

/*
 * The set that deserializing img's state would give, built from img's set
 * (of this process) instead of the state's bytes, in CurrentMemoryContext:
 * kt is the caller's key type, equal to the set's.  NULL where that has no
 * shortcut (a packed set's state is copied as it is anyway; small states):
 * the caller deserializes the bytes then.
 */
extern CDSet *cd_set_from_local_state(const CDStateImage *img,
									  const CDKeyType *kt);

/*
 * A set, in CurrentMemoryContext, from the keys of a serialized state whose
 * header h cd_state_read_header() has read from buf; kt: the key type of
 * the header's value type.  ERROR on anything invalid.
 */
extern CDSet *cd_set_deserialize(StringInfo buf, const CDStateHeader *h,
								 const CDKeyType *kt, CDValueIO *vio);

#endif							/* CD_SET_H */
