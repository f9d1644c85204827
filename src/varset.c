/*-------------------------------------------------------------------------
 *
 * varset.c
 *	  The set of distinct variable-size keys: compaction, growth, union.
 *
 * Compaction sorts the unsorted tail through an index of its entries, drops
 * duplicates, packs the new distinct entries into scratch space, moves the
 * sorted prefix to the end of the array and merges both into the front.  The
 * write position never passes the read position of the moved prefix, because
 * the tail's bytes fit in the room before it.  The transient peak is the
 * array plus the scratch: the tail's bytes, 32 bytes of index per tail entry
 * and, for types compared by their comparator, aligned copies of the tail
 * (its bytes again, plus up to 8 per entry).
 *
 * The header and the entries are one chunk, which grows by repalloc of the
 * whole, by the shared policy (policy.h), counted in bytes of entries.  A
 * full set whose last tail held few duplicates grows before it compacts
 * while its tail is below 1/8 of the sorted entries: its tail then reaches
 * a little over 1/4 of them.
 *
 * Cost.  A compaction copies the sorted prefix twice (to the end of the
 * array and back, runs of it between two new entries in one memmove) and
 * the tail's entries twice (packing, merge): twice the policy's bound of
 * prefix bytes moved per byte added.  Groups that grow side by side free
 * whole blocks of the Generation context as they move out of them.
 *
 * Merging another set (var_merge): a small one's keys go into the tail; a
 * larger one's sorted entries are merged with the sorted part the same way
 * as a sorted tail (merge_sorted), without being indexed or sorted again.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/memutils.h"

#include "errors.h"
#include "policy.h"
#include "sort.h"
#include "varset.h"

/* deferral: while the tail is below 1/8 of the sorted entries */
static const CDDeferRule var_defer = {8, SIZE_MAX};

/* The largest data[]: its size must fit in 48 bits and one allocation. */
#define CD_VAR_MAX_SIZE \
	((Size) Min((uint64) (MaxAllocHugeSize - CD_VAR_HEADER_SIZE), \
				(UINT64CONST(1) << 48) - 1))

#define as_var(set)		((CDVarSet *) cd_set_as((set), CD_SET_VAR))
#define as_var_c(set)	((const CDVarSet *) cd_set_as((set), CD_SET_VAR))

/* Bytes allocated for data. */
static inline Size
var_size(const CDVarSet *set)
{
	return (Size) (((uint64) set->extra << 32) | set->size_lo);
}

static inline void
var_set_size(CDVarSet *set, Size size)
{
	set->size_lo = (uint32) size;
	set->extra = (uint16) ((uint64) size >> 32);
}

static inline Size
entry_header_size(Size len)
{
	return len < 0x80 ? 1 : 4;
}

static inline void
write_entry_header(char *p, Size len)
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
read_entry(const char *data, Size *pos, Size *len)
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

/* Walk the entries from *pos up to end; NULL at the end. */
static inline const char *
next_entry(const CDVarSet *set, Size *pos, Size end, Size *len)
{
	if (*pos >= end)
		return NULL;
	return read_entry(set->data, pos, len);
}

/* The chunk size for room for datasize bytes of entries. */
static Size
chunk_size(Size datasize, uint8 flags)
{
	if (datasize > CD_VAR_MAX_SIZE)
		cd_error_group_too_large(CD_VAR_MAX_SIZE, 0);
	return Min(cd_chunk_size(CD_VAR_HEADER_SIZE + datasize,
							 flags & CD_SET_FINE_GRAINED),
			   CD_VAR_HEADER_SIZE + CD_VAR_MAX_SIZE);
}

static CDVarSet *
init_header(CDVarSet *set, const CDKeyType *kt, uint8 flags, Size total)
{
	CD_SET_CHECK_HEADER(CDVarSet);
	StaticAssertStmt(CD_VAR_HEADER_SIZE <= 40, "a small header");
	memset(set, 0, CD_VAR_HEADER_SIZE);
	set->kt = kt;
	set->kind = CD_SET_VAR;
	set->flags = flags;
	var_set_size(set, total - CD_VAR_HEADER_SIZE);
	return set;
}

/* A new, empty set in mcxt with room for size bytes of entries. */
static CDVarSet *
create_sized(const CDKeyType *kt, MemoryContext mcxt, Size size,
			 bool fine_grained)
{
	uint8		flags = fine_grained ? CD_SET_FINE_GRAINED : 0;
	Size		total = chunk_size(size, flags);

	return init_header(MemoryContextAllocExtended(mcxt, total, MCXT_ALLOC_HUGE),
					   kt, flags, total);
}

static CDSet *
var_create(const CDKeyType *kt, CDAlloc *alloc)
{
	Size		total;
	CDVarSet   *set;

	Assert(kt->width == 0);
	if (!alloc->use_slots)
		return (CDSet *) create_sized(kt, alloc->mcxt, 0, alloc->fine_grained);

	/* the size the previous newest set grew to, decaying (alloc.h) */
	total = Max(alloc->var_first, CD_SET_FIRST_ALLOC);
	if ((++alloc->var_created & 15) == 0)
		alloc->var_first = total - MAXALIGN((total - CD_SET_FIRST_ALLOC) / 16);
	set = init_header(MemoryContextAlloc(alloc->mcxt, total), kt,
					  CD_SET_FINE_GRAINED |
					  (total < CD_VAR_FIRST_MAX ? CD_SET_HINTED : 0), total);
	alloc->var_newest = set;
	return (CDSet *) set;
}

/*
 * Growing a set created with the allocator's hint, while small, updates the
 * hint (alloc.h): it needs the allocator.
 */
static bool
var_needs_alloc(const CDSet *set)
{
	return (set->flags & CD_SET_HINTED) &&
		CD_VAR_HEADER_SIZE + var_size(as_var_c(set)) < CD_VAR_FIRST_MAX;
}

/* Make data hold at least datasize bytes (moves the set). */
static CDVarSet *
resize_data(CDVarSet *set, Size datasize, CDAlloc *alloc)
{
	Size		total = chunk_size(datasize, set->flags);
	bool		newest = (alloc != NULL && alloc->var_newest == (void *) set);

	set = cd_alloc_resize(alloc, set, CD_VAR_HEADER_SIZE + set->used, total);
	var_set_size(set, total - CD_VAR_HEADER_SIZE);
	if (total >= CD_VAR_FIRST_MAX)
		set->flags &= ~CD_SET_HINTED;	/* past the hint's sizes for good */
	/* the next new group will likely need as much (alloc.h) */
	if (newest)
	{
		alloc->var_newest = set;
		alloc->var_first = Min(total, CD_VAR_FIRST_MAX);
	}
	return set;
}

static CDSet *
var_resize(CDSet *set, Size bytes, CDAlloc *alloc)
{
	return (CDSet *) resize_data(as_var(set), bytes, alloc);
}

/* Room for len bytes of key; returns where to write them (may move *setp). */
static inline char *
append_entry(CDVarSet **setp, Size len, CDAlloc *alloc)
{
	CDVarSet   *set = *setp;
	Size		need = entry_header_size(len) + len;
	char	   *p;

	if (unlikely(var_size(set) - set->used < need ||
				 set->nall >= CD_SET_MAX_KEYS))
		set = (CDVarSet *) cd_set_make_room((CDSet *) set, &var_defer,
											CD_VAR_HEADER_SIZE, need, alloc);
	p = set->data + set->used;
	write_entry_header(p, len);
	set->used += need;
	set->nall++;
	*setp = set;
	return p + entry_header_size(len);
}

static CDVarSet *
add_key(CDVarSet *set, const char *key, Size len, CDAlloc *alloc)
{
	char	   *p = append_entry(&set, len, alloc);

	memcpy(p, key, len);
	return set;
}

static CDSet *
var_add_value(CDSet *set, Datum value, CDAlloc *alloc)
{
	CDVarSet   *vs = as_var(set);
	const CDKeyType *kt = set->kt;
	Datum		detoasted;
	Size		len = cd_varkey_size(kt, value, &detoasted);
	char	   *dst;

	if (len > MaxAllocSize)
		cd_error_value_too_large(len);
	/* may move the set: set is not to be read after this */
	dst = append_entry(&vs, len, alloc);
	cd_varkey_write(kt, detoasted, dst);
	return (CDSet *) vs;
}

/* Append one entry (header + key) at data + *w; memmove-safe. */
static inline void
emit(char *data, Size *w, const char *key, Size len)
{
	Size		h = entry_header_size(len);

	memmove(data + *w + h, key, len);
	write_entry_header(data + *w, len);
	*w += h + len;
}

/*
 * Compare two indexed entries: bytes on their 8-byte prefixes first; the
 * comparator on the types' abbreviated keys first (if abbrev and the type
 * has them), else on the full values.
 */
static pg_attribute_always_inline int
compare_items(const CDKeyType *kt, const CDVarItem *a, const CDVarItem *b,
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
 * Fill item with what compare_items needs of the entry key (len bytes):
 * for the comparator, an aligned copy of its image at img (room for len
 * bytes, MAXALIGNed) and, if abbrev, its abbreviated key.
 */
static pg_attribute_always_inline void
index_entry(const CDKeyType *kt, CDVarItem *item, const char *key, Size len,
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

/* Index the unsorted tail's entries (images in arena) and sort them. */
static void
index_and_sort_tail(const CDVarSet *set, CDVarItem *items, Size ntail,
					char *arena)
{
	const CDKeyType *kt = set->kt;
	Size		pos = set->sortedbytes;
	Size		apos = 0;
	Size		i;

	for (i = 0; i < ntail; i++)
	{
		Size		len = 0;
		const char *key = next_entry(set, &pos, set->used, &len);

		index_entry(kt, &items[i], key, len, arena ? arena + apos : NULL, true);
		apos += MAXALIGN(Max(len, 1));
	}
	if (kt->encoding == CD_KEY_BYTES)
		cd_sort_varitems_bytes(items, ntail);
	else if (kt->has_abbrev)
		cd_sort_varitems_abbrev(items, ntail, (SortSupport) &kt->ssup_abbrev);
	else
		cd_sort_varitems_ssup(items, ntail, (SortSupport) &kt->ssup);
	CHECK_FOR_INTERRUPTS();
}

/*
 * Drop duplicates from the sorted items and pack the distinct entries into
 * packed (the items then point there); returns how many are left and sets
 * *packedbytes.
 */
static Size
unique_tail(const CDKeyType *kt, CDVarItem *items, Size ntail, char *packed,
			Size *packedbytes)
{
	Size		nuniq = 0;
	Size		w = 0;
	Size		i;

	for (i = 0; i < ntail; i++)
	{
		if (nuniq > 0 && compare_items(kt, &items[nuniq - 1], &items[i], true) == 0)
			continue;
		items[nuniq] = items[i];
		emit(packed, &w, items[i].key, items[i].len);
		/* the packed copy is what the merge reads */
		items[nuniq].key = packed + w - items[i].len;
		nuniq++;
		if ((i & 0xFFFF) == 0xFFFF)
			CHECK_FOR_INTERRUPTS();
	}
	*packedbytes = w;
	return nuniq;
}

/* An aligned buffer for one key's image, grown as needed. */
typedef struct ImageBuf
{
	char	   *buf;
	Size		size;
} ImageBuf;

/* index_entry for a key of the sorted part, its image in img (comparator) */
static inline void
index_sorted_entry(const CDKeyType *kt, CDVarItem *item, const char *key,
				   Size len, ImageBuf *img)
{
	if (kt->encoding != CD_KEY_BYTES && img->size < Max(len, sizeof(Datum)))
	{
		if (img->buf)
			pfree(img->buf);
		img->size = Max(Max(len, sizeof(Datum)), 2 * img->size);
		img->buf = MemoryContextAllocExtended(CurrentMemoryContext, img->size,
											  MCXT_ALLOC_HUGE);
	}
	index_entry(kt, item, key, len, img->buf, false);
}

/*
 * The sorted, distinct keys that merge_sorted adds to a set: an index of
 * items (a sorted tail) or the sorted entries of another set.
 */
typedef struct MergeSource
{
	const CDVarItem *items;		/* the index, or NULL: from set */
	Size		nitems;
	Size		next;			/* the next item */
	const CDVarSet *set;		/* the other set (items == NULL) */
	Size		pos;			/* its next entry */
	CDVarItem	cur;			/* its current entry, if have_cur */
	bool		have_cur;
	ImageBuf	img;			/* cur's aligned image (comparator) */
} MergeSource;

/* The source's next key (not consumed), or NULL after the last. */
static inline const CDVarItem *
source_peek(MergeSource *src)
{
	Size		len;
	const char *key;

	if (src->items != NULL)
		return src->next < src->nitems ? &src->items[src->next] : NULL;
	if (src->have_cur)
		return &src->cur;
	key = next_entry(src->set, &src->pos, src->set->sortedbytes, &len);
	if (key == NULL)
		return NULL;
	index_sorted_entry(src->set->kt, &src->cur, key, len, &src->img);
	src->have_cur = true;
	return &src->cur;
}

static inline void
source_consume(MergeSource *src)
{
	src->next++;
	src->have_cur = false;
}

/*
 * Merge the sorted, distinct keys of src (none of them in the sorted part
 * twice), whose entries take srcbytes, into the sorted part: the sorted
 * part moves to the end of the array, and both are merged into the front.
 * The write position never passes the start of the sorted part's current
 * entry, because the room before the moved part holds srcbytes.  Equal
 * keys are kept once (the sorted part's).  The sorted part's entries
 * between two of src's keys are copied as they are, in one memmove.
 */
static void
merge_sorted(CDVarSet *set, MergeSource *src, Size srcbytes)
{
	const CDKeyType *kt = set->kt;
	Size		end = var_size(set);
	Size		next = end - set->sortedbytes;
	Size		run = next;		/* sorted part's entries from here to cur:
								 * not copied yet */
	Size		curpos = next;	/* where cur starts */
	Size		w = 0;
	Size		count = 0;
	CDVarItem	cur = {0};		/* the sorted part's current entry */
	bool		have_cur = false;
	ImageBuf	img = {0};		/* its aligned image (comparator) */
	const CDVarItem *item;

	Assert(end - set->sortedbytes >= srcbytes);
	memmove(set->data + next, set->data, set->sortedbytes);
	for (;;)
	{
		int			c;

		if (!have_cur && next < end)
		{
			Size		len = 0;
			const char *key;

			curpos = next;
			key = read_entry(set->data, &next, &len);
			index_sorted_entry(kt, &cur, key, len, &img);
			have_cur = true;
		}
		item = source_peek(src);
		if (!have_cur && item == NULL)
			break;

		if (!have_cur)
			c = 1;
		else if (item == NULL)
			c = -1;
		else
			c = compare_items(kt, &cur, item, false);

		if (c <= 0)
		{
			/* cur joins the run */
			have_cur = false;
			if (c == 0)
				source_consume(src);
		}
		else
		{
			Size		upto = have_cur ? curpos : next;

			memmove(set->data + w, set->data + run, upto - run);
			w += upto - run;
			run = upto;
			emit(set->data, &w, item->key, item->len);
			source_consume(src);
		}
		if (unlikely(++count > CD_SET_MAX_KEYS))
			cd_error_group_too_large(CD_SET_MAX_KEYS, 0);
		if ((count & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	memmove(set->data + w, set->data + run, next - run);
	w += next - run;
	set->used = set->sortedbytes = w;
	set->nall = set->nsorted = (uint32) count;
	if (img.buf)
		pfree(img.buf);
	if (src->img.buf)
		pfree(src->img.buf);
}

/*
 * The unsorted tail, indexed, sorted and deduplicated in scratch space
 * (this call only): the tail's index, its packed distinct entries and, for
 * the comparator, aligned images of it.  Returns the distinct entries'
 * count; the items point into *packed.
 */
typedef struct TailScratch
{
	CDVarItem  *items;
	char	   *arena;
	char	   *packed;
	Size		packedbytes;
} TailScratch;

static Size
sort_tail(const CDVarSet *set, TailScratch *t)
{
	const CDKeyType *kt = set->kt;
	Size		ntail = set->nall - set->nsorted;
	Size		tailbytes = set->used - set->sortedbytes;

	t->items = MemoryContextAllocExtended(CurrentMemoryContext,
										  ntail * sizeof(CDVarItem), MCXT_ALLOC_HUGE);
	t->arena = NULL;
	if (kt->encoding != CD_KEY_BYTES)
		t->arena = MemoryContextAllocExtended(CurrentMemoryContext,
											  tailbytes + ntail * MAXIMUM_ALIGNOF + sizeof(Datum),
											  MCXT_ALLOC_HUGE);
	index_and_sort_tail(set, t->items, ntail, t->arena);
	t->packed = MemoryContextAllocExtended(CurrentMemoryContext, Max(tailbytes, 1),
										   MCXT_ALLOC_HUGE);
	return unique_tail(kt, t->items, ntail, t->packed, &t->packedbytes);
}

static void
free_tail(TailScratch *t)
{
	pfree(t->items);
	pfree(t->packed);
	if (t->arena)
		pfree(t->arena);
}

/* Sort, deduplicate and merge the unsorted tail into the sorted part. */
static void
var_compact(CDSet *s)
{
	CDVarSet   *set = as_var(s);
	Size		ntail = set->nall - set->nsorted;
	TailScratch t;
	Size		nuniq;

	if (ntail == 0)
		return;

	nuniq = sort_tail(set, &t);
	if (set->nsorted == 0)
	{
		memcpy(set->data, t.packed, t.packedbytes);
		set->used = set->sortedbytes = t.packedbytes;
		set->nall = set->nsorted = nuniq;
	}
	else
	{
		uint32		nsorted = set->nsorted;
		MergeSource src = {.items = t.items, .nitems = nuniq};

		merge_sorted(set, &src, t.packedbytes);
		cd_note_tail(s, CD_SET_TAIL_DUPS, ntail, set->nsorted - nsorted);
	}
	free_tail(&t);
}

/*
 * The distinct count without changing the set: the tail's distinct entries
 * (in scratch) that the sorted part does not hold, found by one read-only
 * merge walk.
 */
static uint32
var_count(const CDSet *s)
{
	const CDVarSet *set = as_var_c(s);
	const CDKeyType *kt = set->kt;
	TailScratch t;
	Size		nuniq;
	Size		nnew = 0;
	Size		pos = 0;
	Size		i = 0;
	CDVarItem	cur = {0};
	bool		have_cur = false;
	ImageBuf	img = {0};

	if (set->nall == set->nsorted)
		return set->nsorted;
	nuniq = sort_tail(set, &t);
	while (i < nuniq)
	{
		int			c;

		if (!have_cur)
		{
			Size		len = 0;
			const char *key = next_entry(set, &pos, set->sortedbytes, &len);

			if (key == NULL)
			{
				nnew += nuniq - i;
				break;
			}
			index_sorted_entry(kt, &cur, key, len, &img);
			have_cur = true;
		}
		c = compare_items(kt, &cur, &t.items[i], false);
		if (c <= 0)
			have_cur = false;
		if (c >= 0)
		{
			nnew += (c > 0);
			i++;
		}
		if ((i & 0xFFFF) == 0xFFFF)
			CHECK_FOR_INTERRUPTS();
	}
	if (img.buf)
		pfree(img.buf);
	free_tail(&t);
	return set->nsorted + (uint32) nnew;
}

/*
 * A src of at most 1/CD_MERGE_APPEND of dst's size goes into dst's unsorted
 * part, compacted with it when dst is full (or at the end): combining many
 * small states (Citus sends one per shard and group) then costs no full
 * pass over dst each time.  A larger one is merged with dst's sorted part
 * in one pass, without sorting its keys again (parallel workers' states).
 */
static CDSet *
var_merge(CDSet *d, CDSet *s, CDAlloc *alloc)
{
	CDVarSet   *dst = as_var(d);
	CDVarSet   *src = as_var(s);
	Size		pos = 0;
	Size		len;
	const char *key;

	var_compact(s);
	if (cd_merge_by_append(src->used, dst->used))
	{
		while ((key = next_entry(src, &pos, src->used, &len)) != NULL)
			dst = add_key(dst, key, len, alloc);
	}
	else
	{
		MergeSource from = {.set = src};

		var_compact((CDSet *) dst);
		if (var_size(dst) - dst->sortedbytes < src->sortedbytes)
			dst = resize_data(dst, dst->sortedbytes + src->sortedbytes, alloc);
		merge_sorted(dst, &from, src->sortedbytes);
	}
	return (CDSet *) dst;
}

static CDSet *
var_copy(CDSet *s, MemoryContext mcxt)
{
	CDVarSet   *set = as_var(s);
	CDVarSet   *copy;

	var_compact(s);
	copy = create_sized(set->kt, mcxt, set->used, true);
	memcpy(copy->data, set->data, set->used);
	copy->used = copy->sortedbytes = set->used;
	copy->nall = copy->nsorted = set->nsorted;
	return (CDSet *) copy;
}

static const char *
read_bytes(CDKeyReader *r, Size *len)
{
	const CDVarSet *set = (const CDVarSet *) r->source;

	return next_entry(set, &r->pos, set->sortedbytes, len);
}

static void
var_reader(const CDSet *set, CDKeyReader *r)
{
	Assert(set->nall == set->nsorted);
	cd_key_reader_init(r, set, set->nsorted, NULL, read_bytes);
}

static void
put_bytes(CDKeyWriter *w, const char *key, Size len)
{
	CDVarSet   *set = add_key((CDVarSet *) w->target, key, len, NULL);

	/* sorted by the writer's contract, so growing never compacts them */
	set->nsorted = set->nall;
	set->sortedbytes = set->used;
	w->target = set;
}

static CDSet *
var_build(const CDKeyType *kt, MemoryContext mcxt, uint32 n, Size bytes,
		  CDKeyWriter *w)
{
	CDVarSet   *set = create_sized(kt, mcxt, bytes, false);

	cd_key_writer_init(w, set, NULL, put_bytes);
	return (CDSet *) set;
}

static Size
var_memory_size(const CDSet *set)
{
	return CD_VAR_HEADER_SIZE + var_size(as_var_c(set));
}

static Size
var_used_bytes(const CDSet *set)
{
	return as_var_c(set)->used;
}

static Size
var_sorted_bytes(const CDSet *set)
{
	return as_var_c(set)->sortedbytes;
}

static Size
var_room_bytes(const CDSet *set)
{
	return var_size(as_var_c(set));
}

const CDSetOps cd_var_set_ops = {
	.name = "variable-size keys",
	.create = var_create,
	.needs_alloc = var_needs_alloc,
	.add_value = var_add_value,
	.compact = var_compact,
	.count = var_count,
	.merge = var_merge,
	.copy = var_copy,
	.reader = var_reader,
	.build = var_build,
	.memory_size = var_memory_size,
	.used_bytes = var_used_bytes,
	.sorted_bytes = var_sorted_bytes,
	.room_bytes = var_room_bytes,
	.resize = var_resize,
	.tail_is_new = NULL,
};
