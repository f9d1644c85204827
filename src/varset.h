/*-------------------------------------------------------------------------
 *
 * varset.h
 *	  The set of distinct variable-size keys (see key.h, CD_KEY_BYTES and
 *	  CD_KEY_COMPARATOR): the same shape as the fixed-width set, a sorted,
 *	  duplicate-free prefix and an unsorted tail, in one byte array.
 *
 * Each key is stored packed as a length (1 byte below 128, else 4 bytes)
 * and its bytes: no palloc and no pointer per value.
 *
 *-------------------------------------------------------------------------
 */
#ifndef CD_VARSET_H
#define CD_VARSET_H

#include "postgres.h"

#include "key.h"

typedef struct CDVarSet
{
	/* the same first fields as CDSet (set.h) */
	const CDKeyType *kt;
	uint32		nall;			/* keys, sorted + unsorted */
	uint32		nsorted;		/* keys in the sorted, duplicate-free prefix */
	uint32		unused;
	uint8		width;			/* always 0: marks a CDVarSet */

	Size		used;			/* bytes of data holding entries */
	Size		sortedbytes;	/* bytes of the sorted prefix */
	Size		size;			/* bytes allocated for data */
	char	   *data;
	bool		fine_grained;	/* data's allocator has no power-of-two sizes */
} CDVarSet;

extern CDVarSet *cdvar_create(const CDKeyType *kt, MemoryContext mcxt,
							  Size size, bool fine_grained);
extern void cdvar_add(CDVarSet *set, Datum value);
extern void cdvar_add_key(CDVarSet *set, const char *key, Size len);
extern void cdvar_compact(CDVarSet *set);
extern void cdvar_union(CDVarSet *dst, CDVarSet *src);
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
