/*-------------------------------------------------------------------------
 *
 * varset.h
 *	  The set of distinct variable-size keys (key.h: CD_KEY_BYTES and
 *	  CD_KEY_COMPARATOR): the same shape as the fixed-width set, a sorted,
 *	  duplicate-free part and an unsorted tail, in one byte array.
 *
 * Each key is stored as a length (1 byte below 128, else 4 bytes) and its
 * bytes: no palloc and no pointer per value.  The header and the entries
 * are one chunk, so a group with a few short values costs one small
 * allocation.  Callers use set.h.
 *
 *-------------------------------------------------------------------------
 */
#ifndef CD_VARSET_H
#define CD_VARSET_H

#include "postgres.h"

#include "set_header.h"

/*
 * The allocated size of data[] is kept in 48 bits, split over size_lo and
 * the header's extra, so that the header takes 40 bytes.
 */
typedef struct CDVarSet
{
	CD_SET_HEADER_FIELDS;		/* extra: bits 32-47 of the size of data */
	uint32		size_lo;		/* ... and its bits 0-31 */
	Size		used;			/* bytes of data holding entries */
	Size		sortedbytes;	/* bytes of the sorted part */
	char		data[FLEXIBLE_ARRAY_MEMBER];
} CDVarSet;

#define CD_VAR_HEADER_SIZE	offsetof(CDVarSet, data)

extern const CDSetOps cd_var_set_ops;

#endif							/* CD_VARSET_H */
