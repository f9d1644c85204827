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
 * whole, by the policy shared with fixed-width sets (cd_grow_target(),
 * alloc.h): after growth its free room is at most 1/8 of its entries once
 * they take 1 kB (below that, 1/4 of them, 32 bytes or the entry being
 * added; in power-of-two chunks, up to 3/2 of them).  So the room that a
 * compaction leaves, and the next tail, is at most 1/8 of the sorted entries
 * in sets of 1 kB or more outside power-of-two chunks.  A full set whose last
 * tail held few duplicates grows before it compacts while its tail is below
 * 1/8 of the sorted entries (defer_compaction()): its tail then reaches a
 * little over 1/4 of them.
 *
 * Cost.  A compaction copies the sorted prefix twice (to the end of the array
 * and back, runs of it between two new entries in one memmove) and the
 * tail's entries twice (packing, merge).  One that does not grow the set
 * leaves at least 1/16 of the used bytes free, so the next one comes at
 * least that many bytes later: at most 32 bytes of the prefix copied per
 * byte added, whatever the share of duplicates; after growth, or with a
 * deferred tail, at most 16.  Small sets (below 1 kB) outside power-of-two
 * chunks grow only when the entry does not fit, so one full of duplicates
 * may compact every row: at most 2 kB copied per row.  Growth copies the set
 * unless the allocator extends it in place: with steps of 1/8, about 9
 * copies of each distinct byte in all.  Groups that grow side by side free
 * whole blocks of the Generation context as they move out of them.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "port/pg_bitutils.h"
#include "utils/memutils.h"

#include "compat.h"
#include "sort.h"
#include "varset.h"

/* A new group's one chunk, header included: room for a few short values. */
#define CDVAR_FIRST_ALLOC	64

/* The largest data[]: its size must fit in 48 bits and one allocation. */
#define CDVAR_MAX_SIZE \
	((Size) Min((uint64) (MaxAllocHugeSize - CDVAR_HEADER_SIZE), \
				(UINT64CONST(1) << 48) - 1))

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

static inline void
cdvar_set_size(CDVarSet *set, Size size)
{
	set->size_lo = (uint32) size;
	set->size_hi = (uint16) ((uint64) size >> 32);
}

/*
 * The chunk size for room for datasize bytes of entries: power-of-two sizes
 * for plain chunks up to 8 kB (which the allocator would round to anyway),
 * else MAXALIGNed.
 */
static Size
cdvar_chunk_size(Size datasize, uint8 flags)
{
	Size		total;

	if (datasize > CDVAR_MAX_SIZE)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("count_distinct: too much distinct data in one group")));
	total = Max(CDVAR_HEADER_SIZE + datasize, CDVAR_FIRST_ALLOC);
	if (total <= CD_ALLOC_CHUNK_LIMIT && !(flags & CDVAR_FINE_GRAINED))
		return pg_nextpower2_32((uint32) total);
	return Min(MAXALIGN(total), CDVAR_HEADER_SIZE + CDVAR_MAX_SIZE);
}

static CDVarSet *
cdvar_init(CDVarSet *set, const CDKeyType *kt, uint8 flags, Size total)
{
	StaticAssertStmt(CDVAR_HEADER_SIZE <= 40, "a small header");
	memset(set, 0, CDVAR_HEADER_SIZE);
	set->kt = kt;
	set->flags = flags;
	set->width = 0;
	cdvar_set_size(set, total - CDVAR_HEADER_SIZE);
	return set;
}

CDVarSet *
cdvar_create(const CDKeyType *kt, MemoryContext mcxt, Size size,
			 bool fine_grained)
{
	uint8		flags = fine_grained ? CDVAR_FINE_GRAINED : 0;
	Size		total = cdvar_chunk_size(size, flags);

	return cdvar_init(MemoryContextAllocExtended(mcxt, total, MCXT_ALLOC_HUGE),
					  kt, flags, total);
}

CDVarSet *
cdvar_create_in(const CDKeyType *kt, CDAlloc *alloc)
{
	Size		total;
	CDVarSet   *set;

	if (!alloc->use_slots)
		return cdvar_create(kt, alloc->mcxt, 0, alloc->fine_grained);

	/* the size the previous newest set grew to, decaying (alloc.h) */
	total = Max(alloc->var_first, CDVAR_FIRST_ALLOC);
	if ((++alloc->var_created & 15) == 0)
		alloc->var_first = total - MAXALIGN((total - CDVAR_FIRST_ALLOC) / 16);
	set = cdvar_init(MemoryContextAlloc(alloc->mcxt, total), kt,
					 CDVAR_FINE_GRAINED | CDVAR_HINTED, total);
	alloc->var_newest = set;
	return set;
}

int
cdvar_compare(const CDVarSet *set, const char *a, Size alen,
			  const char *b, Size blen)
{
	const CDKeyType *kt = set->kt;
	Datum		da;
	Datum		db;
	char	   *ca;
	char	   *cb;
	int			c;

	if (kt->encoding == CD_KEY_BYTES)
		return cd_varkey_compare_bytes(a, alen, b, blen);

	/* aligned copies (rare path: validation) */
	ca = palloc(Max(alen, sizeof(Datum)));
	cb = palloc(Max(blen, sizeof(Datum)));
	memcpy(ca, a, alen);
	memcpy(cb, b, blen);
	da = cd_varkey_image_datum(kt, ca);
	db = cd_varkey_image_datum(kt, cb);
	c = ApplySortComparator(da, false, db, false, (SortSupport) &kt->ssup);
	pfree(ca);
	pfree(cb);
	return c;
}

/* Make data hold at least datasize bytes (moves the set). */
static CDVarSet *
cdvar_resize(CDVarSet *set, Size datasize, CDAlloc *alloc)
{
	Size		total = cdvar_chunk_size(datasize, set->flags);
	bool		newest = (alloc != NULL && alloc->var_newest == (void *) set);

	set = cd_alloc_resize(alloc, set, CDVAR_HEADER_SIZE + set->used, total);
	cdvar_set_size(set, total - CDVAR_HEADER_SIZE);
	/* the next new group will likely need as much (alloc.h) */
	if (newest)
	{
		alloc->var_newest = set;
		alloc->var_first = Min(total, CD_VAR_FIRST_MAX);
	}
	return set;
}

#define CDVAR_DEFER_TAIL	8	/* defer while tail < sortedbytes / this */
#define CDVAR_SEEN_SHARE	8	/* CDVAR_TAIL_DUPS after a tail with more
								 * than 1/this of its entries present */

/*
 * May a full set grow before it compacts?  Only while its last tail held
 * few duplicates (so the deferred tail costs little room) and the tail is
 * below 1/8 of the sorted entries: the next compaction then merges about
 * two growth steps' worth of entries at once, so the sorted prefix moves
 * half as often, while the tail, and so the scratch of compacting it, stays
 * within about 1/4 of the set.
 */
static inline bool
defer_compaction(const CDVarSet *set)
{
	return set->nsorted > 0 &&
		!(set->flags & CDVAR_TAIL_DUPS) &&
		(set->used - set->sortedbytes) * CDVAR_DEFER_TAIL < set->sortedbytes;
}

/* Room for one more entry of need bytes (may move the set). */
static CDVarSet *
cdvar_make_room(CDVarSet *set, Size need, CDAlloc *alloc)
{
	Size		size;
	Size		room;

	if (!defer_compaction(set) || set->nall >= PG_UINT32_MAX - 1)
		cdvar_compact(set);
	size = cdvar_size(set);
	room = cd_grow_target(set->used, size, need,
						  !(set->flags & CDVAR_FINE_GRAINED) &&
						  CDVAR_HEADER_SIZE + size <= CD_ALLOC_CHUNK_LIMIT);
	if (room > 0)
		set = cdvar_resize(set, room, alloc);
	if (set->nall >= PG_UINT32_MAX - 1)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("count_distinct: too many distinct values in one group")));
	return set;
}

CDVarSet *
cdvar_add_key(CDVarSet *set, const char *key, Size len, CDAlloc *alloc)
{
	Size		need = entry_header_size(len) + len;
	char	   *p;

	if (unlikely(cdvar_size(set) - set->used < need ||
				 set->nall >= PG_UINT32_MAX - 1))
		set = cdvar_make_room(set, need, alloc);
	p = set->data + set->used;
	write_entry_header(p, len);
	memcpy(p + entry_header_size(len), key, len);
	set->used += need;
	set->nall++;
	return set;
}

CDVarSet *
cdvar_add(CDVarSet *set, Datum value, CDAlloc *alloc)
{
	Datum		detoasted;
	Size		len = cd_varkey_size(set->kt, value, &detoasted);
	Size		need = entry_header_size(len) + len;
	char	   *p;

	if (len > MaxAllocSize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("count_distinct: value too large")));
	if (unlikely(cdvar_size(set) - set->used < need ||
				 set->nall >= PG_UINT32_MAX - 1))
		set = cdvar_make_room(set, need, alloc);
	p = set->data + set->used;
	write_entry_header(p, len);
	cd_varkey_write(set->kt, detoasted, p + entry_header_size(len));
	set->used += need;
	set->nall++;
	return set;
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
static inline int
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
static inline void
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
index_and_sort_tail(CDVarSet *set, CDVarItem *items, Size ntail, char *arena)
{
	const CDKeyType *kt = set->kt;
	Size		pos = set->sortedbytes;
	Size		apos = 0;
	Size		i;

	for (i = 0; i < ntail; i++)
	{
		Size		len = 0;
		const char *key = cdvar_next(set, &pos, &len);

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

/*
 * Merge the nuniq sorted, distinct items (none of them in the sorted part
 * twice) into the sorted part: the sorted part moves to the end of the
 * array, and both are merged into the front.  The write position never
 * passes the start of the sorted part's current entry, because the items'
 * bytes fit in the room before the moved part.  Equal keys are kept once
 * (the sorted part's).  The sorted part's entries between two items are
 * copied as they are, in one memmove.
 */
static void
merge_tail(CDVarSet *set, CDVarItem *items, Size nuniq)
{
	const CDKeyType *kt = set->kt;
	Size		end = cdvar_size(set);
	Size		next = end - set->sortedbytes;
	Size		run = next;		/* sorted part's entries from here to cur:
								 * not copied yet */
	Size		curpos = next;	/* where cur starts */
	Size		w = 0;
	Size		s = 0;
	Size		count = 0;
	CDVarItem	cur = {0};		/* the sorted part's current entry */
	bool		have_cur = false;
	char	   *img = NULL;		/* its aligned image (comparator) */
	Size		imgsize = 0;

	memmove(set->data + next, set->data, set->sortedbytes);
	while (next < end || have_cur || s < nuniq)
	{
		int			c;

		if (!have_cur && next < end)
		{
			Size		len = 0;
			const char *key;

			curpos = next;
			key = cdvar_entry(set->data, &next, &len);
			if (kt->encoding != CD_KEY_BYTES && imgsize < Max(len, sizeof(Datum)))
			{
				if (img)
					pfree(img);
				imgsize = Max(Max(len, sizeof(Datum)), 2 * imgsize);
				img = MemoryContextAllocExtended(CurrentMemoryContext, imgsize,
												 MCXT_ALLOC_HUGE);
			}
			index_entry(kt, &cur, key, len, img, false);
			have_cur = true;
		}

		if (!have_cur)
			c = 1;
		else if (s >= nuniq)
			c = -1;
		else
			c = compare_items(kt, &cur, &items[s], false);

		if (c <= 0)
		{
			/* cur joins the run */
			have_cur = false;
			if (c == 0)
				s++;
		}
		else
		{
			Size		upto = have_cur ? curpos : next;

			memmove(set->data + w, set->data + run, upto - run);
			w += upto - run;
			run = upto;
			emit(set->data, &w, items[s].key, items[s].len);
			s++;
		}
		if ((++count & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	memmove(set->data + w, set->data + run, next - run);
	w += next - run;
	set->used = set->sortedbytes = w;
	set->nall = set->nsorted = count;
	if (img)
		pfree(img);
}

/*
 * Sort, deduplicate and merge the unsorted tail into the sorted part.
 * Scratch (this call only): the tail's index, its packed distinct entries
 * and, for the comparator, aligned images of it.
 */
void
cdvar_compact(CDVarSet *set)
{
	const CDKeyType *kt = set->kt;
	Size		ntail = set->nall - set->nsorted;
	Size		tailbytes = set->used - set->sortedbytes;
	CDVarItem  *items;
	char	   *arena = NULL;
	char	   *packed;
	Size		packedbytes;
	Size		nuniq;

	if (ntail == 0)
		return;

	items = MemoryContextAllocExtended(CurrentMemoryContext,
									   ntail * sizeof(CDVarItem), MCXT_ALLOC_HUGE);
	if (kt->encoding != CD_KEY_BYTES)
		arena = MemoryContextAllocExtended(CurrentMemoryContext,
										   tailbytes + ntail * MAXIMUM_ALIGNOF + sizeof(Datum),
										   MCXT_ALLOC_HUGE);
	index_and_sort_tail(set, items, ntail, arena);

	packed = MemoryContextAllocExtended(CurrentMemoryContext, Max(tailbytes, 1),
										MCXT_ALLOC_HUGE);
	nuniq = unique_tail(kt, items, ntail, packed, &packedbytes);

	if (set->nsorted == 0)
	{
		memcpy(set->data, packed, packedbytes);
		set->used = set->sortedbytes = packedbytes;
		set->nall = set->nsorted = nuniq;
	}
	else
	{
		uint32		nsorted = set->nsorted;

		merge_tail(set, items, nuniq);
		if ((ntail - (set->nsorted - nsorted)) * CDVAR_SEEN_SHARE > ntail)
			set->flags |= CDVAR_TAIL_DUPS;
		else
			set->flags &= ~CDVAR_TAIL_DUPS;
	}

	pfree(items);
	pfree(packed);
	if (arena)
		pfree(arena);
}

CDVarSet *
cdvar_union(CDVarSet *dst, CDVarSet *src, CDAlloc *alloc)
{
	Size		pos = 0;
	Size		len;
	const char *key;

	cdvar_compact(src);
	/* room for a large src at once; a small one grows dst as usual */
	if (cdvar_size(dst) - dst->used < src->used && src->used * 16 > dst->used)
		dst = cdvar_resize(dst, dst->used + src->used, alloc);

	/*
	 * src's keys go into dst's unsorted part, compacted with it when dst is
	 * full (or at the end): combining many small states (Citus sends one per
	 * shard and group) then costs no full pass over dst each time
	 */
	while ((key = cdvar_next(src, &pos, &len)) != NULL)
		dst = cdvar_add_key(dst, key, len, alloc);
	return dst;
}

CDVarSet *
cdvar_copy(CDVarSet *set, MemoryContext mcxt)
{
	CDVarSet   *copy;

	cdvar_compact(set);
	copy = cdvar_create(set->kt, mcxt, set->used, true);
	memcpy(copy->data, set->data, set->used);
	copy->used = copy->sortedbytes = set->used;
	copy->nall = copy->nsorted = set->nsorted;
	return copy;
}
