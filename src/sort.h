/*-------------------------------------------------------------------------
 *
 * sort.h
 *	  Sorting what the sets hold (sort.c): fixed-width keys, variable-size
 *	  keys through an index of items, and Datums.
 *
 *-------------------------------------------------------------------------
 */
#ifndef CD_SORT_H
#define CD_SORT_H

#include "postgres.h"

#include "port/pg_bswap.h"
#include "utils/sortsupport.h"

#include "key.h"

/* ----------------------------------------------------------------
 *		Fixed-width keys (unsigned integers of 1, 2, 4 or 8 bytes)
 * ----------------------------------------------------------------
 */

/*
 * Sort n keys of the given width (1, 2, 4 or 8 bytes) in ascending unsigned
 * order.  scratch must have room for n keys.  Returns where the sorted keys
 * ended up: keys or scratch.
 */
extern void *cd_sort_keys(void *keys, void *scratch, size_t n, int width);

/* ----------------------------------------------------------------
 *		Variable-size keys (varset.c, moving.c)
 *
 * The keys are sorted through an index of items, each pointing to its key.
 * ----------------------------------------------------------------
 */

typedef struct CDVarItem
{
	const char *key;			/* the key's bytes */
	Size		len;
	Datum		datum;			/* CD_KEY_COMPARATOR: the aligned image */
	uint64		prefix;			/* CD_KEY_BYTES: cd_bytes_prefix(); else the
								 * type's abbreviated key, if it has them */
} CDVarItem;

/*
 * Items in sorted order point to keys all over memory (the entries of a
 * set's tail, in the order they came): loops that read their keys in item
 * order ask for the key of the item CD_ITEM_PREFETCH ahead, so the cache
 * misses overlap (without it, such loops mostly wait for keys:
 * bench/README.md).
 */
#define CD_ITEM_PREFETCH	16

static inline void
cd_prefetch_item_key(const CDVarItem *items, Size i, Size n)
{
#if defined(__GNUC__) || defined(__clang__)
	if (i + CD_ITEM_PREFETCH < n)
		__builtin_prefetch(items[i + CD_ITEM_PREFETCH].key);
#endif
}

/*
 * The first 8 bytes of a byte key as a big-endian integer (zero-padded): an
 * abbreviated key.  Unequal prefixes order keys exactly as memcmp would;
 * only equal prefixes need the full comparison.
 */
static inline uint64
cd_bytes_prefix(const char *key, Size len)
{
	uint64		p = 0;

	/* a load of constant size for the keys of 8 bytes or more */
	if (len >= sizeof(p))
		memcpy(&p, key, sizeof(p));
	else
		memcpy(&p, key, len);
	return pg_ntoh64(p);
}

/* Byte keys: by their prefixes (cd_bytes_prefix), then memcmp and length. */
static inline int
cd_compare_bytes_abbrev(const char *a, Size alen, uint64 aprefix,
						const char *b, Size blen, uint64 bprefix)
{
	if (aprefix != bprefix)
		return aprefix > bprefix ? 1 : -1;
	return cd_varkey_compare_bytes(a, alen, b, blen);
}

/* By the type's abbreviated keys (item->prefix), then its full comparator. */
static inline int
cd_compare_varitems_abbrev(const CDVarItem *a, const CDVarItem *b,
						   SortSupport ssup_abbrev)
{
	int			c = ApplySortComparator((Datum) a->prefix, false,
										(Datum) b->prefix, false, ssup_abbrev);

	if (c != 0)
		return c;
	return ApplySortAbbrevFullComparator(a->datum, false, b->datum, false,
										 ssup_abbrev);
}

/* by bytes (cd_compare_bytes_abbrev) */
extern void cd_sort_varitems_bytes(CDVarItem *items, size_t n);

/* by the type's comparator, on item->datum */
extern void cd_sort_varitems_ssup(CDVarItem *items, size_t n, SortSupport ssup);

/* by the type's abbreviated keys (cd_compare_varitems_abbrev) */
extern void cd_sort_varitems_abbrev(CDVarItem *items, size_t n,
									SortSupport ssup_abbrev);

/* ----------------------------------------------------------------
 *		Byte keys of one length (the tail of a uniform set: varset.c)
 * ----------------------------------------------------------------
 */

/*
 * The distinct keys among n byte keys of len bytes each, the i-th at
 * src + i * stride, in ascending memcmp order, packed into dst (room for
 * n * len bytes, apart from src's); returns how many.
 */
extern size_t cd_sort_unique_records(const char *src, size_t n, size_t stride,
									 size_t len, char *dst);

/* ----------------------------------------------------------------
 *		Datums (output of variable-size keys in the type's order)
 * ----------------------------------------------------------------
 */

/* by the type's comparator */
extern void cd_sort_datums(Datum *datums, size_t n, SortSupport ssup);

#endif							/* CD_SORT_H */
