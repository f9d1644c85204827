/*-------------------------------------------------------------------------
 *
 * varentry.h
 *	  Variable-size keys as entries of a byte array, and their sorting:
 *	  what the set of variable-size keys (varset.c) and the front-coded set
 *	  (frontset.c) share.
 *
 * An entry is a key's length (1 byte below 128, else 4 bytes, the first
 * with its high bit set) and its bytes: no palloc and no pointer per key.
 * An array of unsorted entries is sorted through an index of items (sort.h),
 * deduplicated and packed into scratch space by cd_sort_entries.
 *
 *-------------------------------------------------------------------------
 */
#ifndef CD_VARENTRY_H
#define CD_VARENTRY_H

#include "postgres.h"

#include "key.h"
#include "sort.h"

static inline Size
cd_entry_header_size(Size len)
{
	return len < 0x80 ? 1 : 4;
}

static inline void
cd_write_entry_header(char *p, Size len)
{
	if (len < 0x80)
		p[0] = (char) len;
	else
	{
		p[0] = (char) (0x80 | (len >> 24));
		p[1] = (char) (len >> 16);
		p[2] = (char) (len >> 8);
		p[3] = (char) len;
	}
}

/*
 * The entry at data + *pos: returns its key and sets *len; advances *pos
 * past it.
 */
static inline const char *
cd_read_entry(const char *data, Size *pos, Size *len)
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

/* Append one entry (header + key) at data + *w; memmove-safe. */
static inline void
cd_emit_entry(char *data, Size *w, const char *key, Size len)
{
	Size		h = cd_entry_header_size(len);

	memmove(data + *w + h, key, len);
	cd_write_entry_header(data + *w, len);
	*w += h + len;
}

/*
 * Compare two indexed entries: bytes on their 8-byte prefixes first; the
 * comparator on the types' abbreviated keys first (if abbrev and the type
 * has them), else on the full values.
 */
static pg_attribute_always_inline int
cd_compare_items(const CDKeyType *kt, const CDVarItem *a, const CDVarItem *b,
				 bool abbrev)
{
	if (kt->encoding == CD_KEY_BYTES)
		return cd_compare_bytes_abbrev(a->key, a->len, a->prefix,
									   b->key, b->len, b->prefix);
	if (abbrev && kt->has_abbrev)
		return cd_compare_varitems_abbrev(a, b, (SortSupport) &kt->ssup_abbrev);
	return ApplySortComparator(a->datum, false, b->datum, false,
							   (SortSupport) &kt->ssup);
}

/*
 * Fill item with what cd_compare_items needs of the entry key (len bytes):
 * for the comparator, an aligned copy of its image at img (room for len
 * bytes, MAXALIGNed) and, if abbrev, its abbreviated key.
 */
static pg_attribute_always_inline void
cd_index_entry(const CDKeyType *kt, CDVarItem *item, const char *key, Size len,
			   char *img, bool abbrev)
{
	item->key = key;
	item->len = len;
	if (kt->encoding == CD_KEY_BYTES)
	{
		item->prefix = cd_bytes_prefix(key, len);
		return;
	}
	memcpy(img, key, len);
	item->datum = cd_varkey_image_datum(kt, img);
	item->prefix = 0;
	if (abbrev && kt->has_abbrev)
		item->prefix = (uint64)
			kt->ssup_abbrev.abbrev_converter(item->datum,
											 (SortSupport) &kt->ssup_abbrev);
}

/* An aligned buffer for one key's image, grown as needed. */
typedef struct CDImageBuf
{
	char	   *buf;
	Size		size;
} CDImageBuf;

/*
 * cd_index_entry for a key of a sorted part, its image in img (comparator)
 */
static inline void
cd_index_sorted_entry(const CDKeyType *kt, CDVarItem *item, const char *key,
					  Size len, CDImageBuf *img)
{
	if (kt->encoding != CD_KEY_BYTES && img->size < Max(len, sizeof(Datum)))
	{
		if (img->buf)
			pfree(img->buf);
		img->size = Max(Max(len, sizeof(Datum)), 2 * img->size);
		img->buf = MemoryContextAllocExtended(CurrentMemoryContext, img->size,
											  MCXT_ALLOC_HUGE);
	}
	cd_index_entry(kt, item, key, len, img->buf, false);
}

/*
 * Entries sorted and deduplicated in scratch space (CurrentMemoryContext,
 * until cd_entries_free): the index of the distinct keys, in order, a copy
 * of their entries and, for the comparator, aligned images of the keys.
 */
typedef struct CDSortedEntries
{
	CDVarItem  *items;			/* the distinct keys (they point into copy,
								 * or without a copy into the data sorted) */
	Size		n;				/* how many */
	char	   *copy;			/* their entries, or NULL: no copy */
	Size		bytes;			/* their entries' bytes (copied or not) */
	char	   *arena;			/* images (CD_KEY_COMPARATOR) */
} CDSortedEntries;

/*
 * Sort the n entries that take the bytes data[from, to) and drop their
 * duplicates into *out; returns out->n.  With copy, the distinct entries are
 * copied in sorted order into out->copy, which the items then point to
 * (a caller that overwrites data before it reads them); without, the items
 * point into data (a front-coded set's tail, read with cd_prefetch_item_key
 * ahead: no copy of the tail's bytes, which cost page faults when large).
 */
extern Size cd_sort_entries(const CDKeyType *kt, const char *data, Size from,
							Size to, Size n, bool copy, CDSortedEntries *out);
extern void cd_entries_free(CDSortedEntries *e);

#endif							/* CD_VARENTRY_H */
