/*-------------------------------------------------------------------------
 *
 * varset.h
 *	  The set of distinct variable-size keys (see key.h, CD_KEY_BYTES and
 *	  CD_KEY_COMPARATOR): the same shape as the fixed-width set, a sorted,
 *	  duplicate-free prefix and an unsorted tail, in one byte array.
 *
 * Each key is stored packed as a length (1 byte below 128, else 4 bytes)
 * and its bytes: no palloc and no pointer per value.  The header and the
 * entries are one chunk, so a group with a few short values costs one small
 * allocation.
 *
 *-------------------------------------------------------------------------
 */
#ifndef CD_VARSET_H
#define CD_VARSET_H

#include "postgres.h"

#include "alloc.h"
#include "key.h"

/*
 * The header and the entries share one chunk: data[] follows the header, and
 * the set grows by repalloc of the whole (so adding may move it).  The
 * allocated size of data[] is kept in 48 bits split over two fields, so that
 * the header fits in 40 bytes.
 */
typedef struct CDVarSet
{
	/* the same first fields as CDSet (set.h) */
	const CDKeyType *kt;
	uint32		nall;			/* keys, sorted + unsorted */
	uint32		nsorted;		/* keys in the sorted, duplicate-free prefix */
	uint32		size_lo;		/* bytes allocated for data: low 32 bits */
	uint8		width;			/* always 0: marks a CDVarSet */
	uint8		flags;			/* CDVAR_FINE_GRAINED */
	uint16		size_hi;		/* ... and the next 16 bits */

	Size		used;			/* bytes of data holding entries */
	Size		sortedbytes;	/* bytes of the sorted prefix */
	char		data[FLEXIBLE_ARRAY_MEMBER];
} CDVarSet;

#define CDVAR_HEADER_SIZE	offsetof(CDVarSet, data)

/* the set's allocator has no power-of-two sizes (alloc.h) */
#define CDVAR_FINE_GRAINED	0x01
/* created by cdvar_create_in(): growth while small updates the allocator */
#define CDVAR_HINTED		0x02
/* the last compaction found many duplicates in the tail (varset.c) */
#define CDVAR_TAIL_DUPS		0x04

/* Bytes allocated for data. */
static inline Size
cdvar_size(const CDVarSet *set)
{
	return (Size) (((uint64) set->size_hi << 32) | set->size_lo);
}

/*
 * A new, empty set in mcxt with room for size bytes of entries (at least a
 * small first chunk).
 */
extern CDVarSet *cdvar_create(const CDKeyType *kt, MemoryContext mcxt,
							  Size size, bool fine_grained);

/* A new group's set from alloc (sized by alloc->var_first: alloc.h). */
extern CDVarSet *cdvar_create_in(const CDKeyType *kt, CDAlloc *alloc);

/*
 * Does growing the set take its allocator (alloc may be NULL otherwise)?
 */
static inline bool
cdvar_needs_alloc(const CDVarSet *set)
{
	return (set->flags & CDVAR_HINTED) &&
		CDVAR_HEADER_SIZE + cdvar_size(set) < CD_VAR_FIRST_MAX;
}

/*
 * Adding and union may move the set: use the result.  alloc: the
 * allocator the set was created from, or NULL unless cdvar_needs_alloc().
 */
extern CDVarSet *cdvar_add(CDVarSet *set, Datum value, CDAlloc *alloc);
extern CDVarSet *cdvar_add_key(CDVarSet *set, const char *key, Size len,
							   CDAlloc *alloc);
extern void cdvar_compact(CDVarSet *set);
extern CDVarSet *cdvar_union(CDVarSet *dst, CDVarSet *src, CDAlloc *alloc);
extern CDVarSet *cdvar_copy(CDVarSet *set, MemoryContext mcxt);
extern int	cdvar_compare(const CDVarSet *set, const char *a, Size alen,
						  const char *b, Size blen);

/*
 * The entry at data + *pos: returns its key and sets *len; advances *pos
 * past it.
 */
static inline const char *
cdvar_entry(const char *data, Size *pos, Size *len)
{
	const uint8 *p = (const uint8 *) data + *pos;

	if (p[0] < 0x80)
	{
		*len = p[0];
		*pos += 1 + *len;
		return (const char *) p + 1;
	}
	*len = ((Size) (p[0] & 0x7F) << 24) | ((Size) p[1] << 16) |
		((Size) p[2] << 8) | p[3];
	*pos += 4 + *len;
	return (const char *) p + 4;
}

/* Walk the entries: *pos starts at 0; returns NULL at the end. */
static inline const char *
cdvar_next(const CDVarSet *set, Size *pos, Size *len)
{
	if (*pos >= set->used)
		return NULL;
	return cdvar_entry(set->data, pos, len);
}

#endif							/* CD_VARSET_H */
