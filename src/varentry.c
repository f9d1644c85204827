/*-------------------------------------------------------------------------
 *
 * varentry.c
 *	  Sorting and deduplicating an array of variable-size key entries
 *	  (varentry.h).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "alloc.h"
#include "miscadmin.h"
#include "utils/memutils.h"

#include "varentry.h"

/* Index the n entries of data[from, to) (images in arena) and sort them. */
static void
index_and_sort(const CDKeyType *kt, const char *data, Size from, Size to,
			   CDVarItem *items, Size n, char *arena)
{
	Size		pos = from;
	Size		apos = 0;
	Size		i;

	for (i = 0; i < n; i++)
	{
		Size		len = 0;
		const char *key;

		Assert(pos < to);
		key = cd_read_entry(data, &pos, &len);
		cd_index_entry(kt, &items[i], key, len, arena ? arena + apos : NULL, true);
		apos += MAXALIGN(Max(len, 1));
	}
	Assert(pos == to);
	if (kt->encoding == CD_KEY_BYTES)
		cd_sort_varitems_bytes(items, n);
	else if (kt->has_abbrev)
		cd_sort_varitems_abbrev(items, n, (SortSupport) &kt->ssup_abbrev);
	else
		cd_sort_varitems_ssup(items, n, (SortSupport) &kt->ssup);
	CHECK_FOR_INTERRUPTS();
}

/*
 * Drop duplicates from the sorted items and, with packed, pack the distinct
 * entries there (the items then point there); returns how many are left
 * and sets *packedbytes.
 */
static Size
unique_items(const CDKeyType *kt, CDVarItem *items, Size n, char *packed,
			 Size *packedbytes)
{
	Size		nuniq = 0;
	Size		w = 0;
	Size		i;

	for (i = 0; i < n; i++)
	{
		cd_prefetch_item_key(items, i, n);
		if (nuniq > 0 && cd_compare_items(kt, &items[nuniq - 1], &items[i], true) == 0)
			continue;
		items[nuniq] = items[i];
		if (packed)
		{
			cd_emit_entry(packed, &w, items[i].key, items[i].len);
			/* the packed copy is what the merge reads */
			items[nuniq].key = packed + w - items[i].len;
		}
		else
			w += cd_entry_header_size(items[i].len) + items[i].len;
		nuniq++;
		if ((i & 0xFFFF) == 0xFFFF)
			CHECK_FOR_INTERRUPTS();
	}
	*packedbytes = w;
	return nuniq;
}

Size
cd_sort_entries(const CDKeyType *kt, const char *data, Size from, Size to,
				Size n, bool copy, CDSortedEntries *out)
{
	Size		bytes = to - from;

	out->items = cd_alloc_huge(CurrentMemoryContext,
							   Max(n, 1) * sizeof(CDVarItem));
	out->arena = NULL;
	if (kt->encoding != CD_KEY_BYTES)
		out->arena = cd_alloc_huge(CurrentMemoryContext,
								   bytes + n * MAXIMUM_ALIGNOF + sizeof(Datum));
	index_and_sort(kt, data, from, to, out->items, n, out->arena);
	out->copy = NULL;
	if (copy)
		out->copy = cd_alloc_huge(CurrentMemoryContext, Max(bytes, 1));
	out->n = unique_items(kt, out->items, n, out->copy, &out->bytes);
	return out->n;
}

void
cd_entries_free(CDSortedEntries *e)
{
	pfree(e->items);
	if (e->copy)
		pfree(e->copy);
	if (e->arena)
		pfree(e->arena);
}
