/*-------------------------------------------------------------------------
 *
 * sort.h
 *	  Sorting fixed-width keys (unsigned integers of 1, 2, 4 or 8 bytes).
 *
 *-------------------------------------------------------------------------
 */
#ifndef CD_SORT_H
#define CD_SORT_H

#include "postgres.h"

/*
 * Sort n keys of the given width (1, 2, 4 or 8 bytes) in ascending unsigned
 * order.  scratch must have room for n keys.  Returns where the sorted keys
 * ended up: keys or scratch.
 */
extern void *cd_sort_keys(void *keys, void *scratch, size_t n, int width);



/* Sorting variable-size keys (see varset.c). */
#include "utils/sortsupport.h"

typedef struct CDVarItem
{
	const char *key;			/* the key's bytes */
	Size		len;
	Datum		datum;			/* CD_KEY_COMPARATOR: the aligned image */
} CDVarItem;

/* by bytes (memcmp, then length) */
extern void cd_sort_varitems_bytes(CDVarItem *items, size_t n);
/* by the type's comparator, on item->datum */
extern void cd_sort_varitems_ssup(CDVarItem *items, size_t n, SortSupport ssup);
/* Datums by the type's comparator */
extern void cd_sort_datums(Datum *datums, size_t n, SortSupport ssup);
#endif							/* CD_SORT_H */
