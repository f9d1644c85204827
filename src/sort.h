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

#endif							/* CD_SORT_H */
