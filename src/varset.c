/*-------------------------------------------------------------------------
 *
 * varset.c
 *	  The set of distinct variable-size keys: compaction, growth, union.
 *
 * Compaction sorts the unsorted tail through an index of its entries,
 * drops duplicates, packs the new distinct entries into scratch space (the
 * size of the tail at most), moves the sorted prefix to the end of the
 * array and merges both into the front.  The write position never passes
 * the read position of the moved prefix, because the tail's bytes fit in
 * the room before it.  So the peak is the array plus the tail.
 *
 * The header and the entries are one chunk, which grows by repalloc of the
 * whole.  Growth: power-of-two chunks while small in plain chunks (doubling);
 * beyond 8 kB, and in the fine-grained context of hash aggregation
 * (alloc.h), 1/4 more (at least the entry that did not fit) whenever
 * compaction frees too little: less than the entry for sets below 1 kB,
 * less than 1/8 of the used bytes above.  Small sets thus end within about
 * 1/4 of their entries, and groups that grow side by side free whole
 * blocks of the Generation context as they move out of them.
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

/*
 * A new group's one chunk, header included: room for a few short values.
 * Small sets in the fine-grained context grow by a quarter (at least the
 * entry that did not fit) whenever compaction frees less than the entry
 * needs; larger ones keep 1/8 of their used bytes free.
 */
#define CDVAR_FIRST_ALLOC	64
#define CDVAR_SMALL			1024	/* bytes of entries: a small set */

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

	set = repalloc_huge(set, total);
	cdvar_set_size(set, total - CDVAR_HEADER_SIZE);
	/* the next new group will likely need as much (alloc.h) */
	if (newest)
	{
		alloc->var_newest = set;
		alloc->var_first = Min(total, CD_VAR_FIRST_MAX);
	}
	return set;
}

/* Room for one more entry of need bytes (may move the set). */
static CDVarSet *
cdvar_make_room(CDVarSet *set, Size need, CDAlloc *alloc)
{
	Size		size;
	Size		want;
	Size		grow;

	cdvar_compact(set);
	size = cdvar_size(set);
	if (!(set->flags & CDVAR_FINE_GRAINED) &&
		CDVAR_HEADER_SIZE + size <= CD_ALLOC_CHUNK_LIMIT)
	{
		/* power-of-two chunks: double */
		want = Max(need, set->used / 4);
		grow = Max(need, CDVAR_HEADER_SIZE + size);
	}
	else if (set->used < CDVAR_SMALL)
	{
		want = need;
		grow = Max(need, set->used / 4);
	}
	else
	{
		want = Max(need, set->used / 8);
		grow = Max(need, set->used / 4);
	}
	if (size - set->used < want)
		set = cdvar_resize(set, set->used + grow, alloc);
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

void
cdvar_compact(CDVarSet *set)
{
	const CDKeyType *kt = set->kt;
	bool		bytes = (kt->encoding == CD_KEY_BYTES);
	MemoryContext mcxt = CurrentMemoryContext;	/* scratch: this call only */
	Size		ntail = set->nall - set->nsorted;
	Size		tailbytes = set->used - set->sortedbytes;
	CDVarItem  *items;
	char	   *arena = NULL;
	char	   *packed;
	char	   *pbuf = NULL;
	Size		pbufsize = 0;
	Size		pos;
	Size		i;
	Size		nuniq;
	Size		w;
	Size		r;
	Size		s;
	Size		count;

	if (ntail == 0)
		return;

	/* index the tail (and, for the comparator, aligned images of it) */
	items = MemoryContextAllocExtended(mcxt, ntail * sizeof(CDVarItem), MCXT_ALLOC_HUGE);
	if (!bytes)
		arena = MemoryContextAllocExtended(mcxt, tailbytes + ntail * MAXIMUM_ALIGNOF + sizeof(Datum),
										   MCXT_ALLOC_HUGE);
	pos = set->sortedbytes;
	{
		Size		apos = 0;

		for (i = 0; i < ntail; i++)
		{
			items[i].key = cdvar_next(set, &pos, &items[i].len);
			if (bytes)
				items[i].prefix = cd_bytes_prefix(items[i].key, items[i].len);
			else
			{
				char	   *img = arena + apos;

				memcpy(img, items[i].key, items[i].len);
				items[i].datum = cd_varkey_image_datum(kt, img);
				if (kt->has_abbrev)
					items[i].prefix = (uint64)
						kt->ssup_abbrev.abbrev_converter(items[i].datum,
														 (SortSupport) &kt->ssup_abbrev);
				apos += MAXALIGN(Max(items[i].len, 1));
			}
		}
	}

	if (bytes)
		cd_sort_varitems_bytes(items, ntail);
	else if (kt->has_abbrev)
		cd_sort_varitems_abbrev(items, ntail, (SortSupport) &kt->ssup_abbrev);
	else
		cd_sort_varitems_ssup(items, ntail, (SortSupport) &kt->ssup);
	CHECK_FOR_INTERRUPTS();

	/* drop duplicates within the tail; pack the rest into scratch */
	packed = MemoryContextAllocExtended(mcxt, tailbytes, MCXT_ALLOC_HUGE);
	nuniq = 0;
	w = 0;
	for (i = 0; i < ntail; i++)
	{
		if (nuniq > 0)
		{
			CDVarItem  *prev = &items[nuniq - 1];
			int			c;

			if (bytes)
				c = cd_compare_bytes_abbrev(prev->key, prev->len, prev->prefix,
											items[i].key, items[i].len, items[i].prefix);
			else if (kt->has_abbrev)
				c = cd_compare_varitems_abbrev(prev, &items[i],
											   (SortSupport) &kt->ssup_abbrev);
			else
				c = ApplySortComparator(prev->datum, false, items[i].datum, false,
										(SortSupport) &kt->ssup);

			if (c == 0)
				continue;
		}
		items[nuniq] = items[i];
		emit(packed, &w, items[i].key, items[i].len);
		/* the packed copy is what the merge reads */
		items[nuniq].key = packed + w - items[i].len;
		nuniq++;
	}

	if (set->nsorted == 0)
	{
		memcpy(set->data, packed, w);
		set->used = set->sortedbytes = w;
		set->nall = set->nsorted = nuniq;
		goto done;
	}

	/* move the sorted prefix to the end, merge both into the front */
	r = cdvar_size(set) - set->sortedbytes;
	memmove(set->data + r, set->data, set->sortedbytes);
	w = 0;
	s = 0;
	count = 0;
	{
		const char *pkey = NULL;
		Size		plen = 0;
		Size		pnext = r;
		Datum		pdatum = (Datum) 0;
		uint64		pprefix = 0;

		while (pnext < cdvar_size(set) || pkey != NULL || s < nuniq)
		{
			int			c;

			/* the current key of the sorted prefix */
			if (pkey == NULL && pnext < cdvar_size(set))
			{
				pkey = cdvar_entry(set->data, &pnext, &plen);
				if (bytes)
					pprefix = cd_bytes_prefix(pkey, plen);
				else
				{
					if (pbufsize < Max(plen, sizeof(Datum)))
					{
						if (pbuf)
							pfree(pbuf);
						pbufsize = Max(Max(plen, sizeof(Datum)), 2 * pbufsize);
						pbuf = MemoryContextAllocExtended(mcxt, pbufsize, MCXT_ALLOC_HUGE);
					}
					memcpy(pbuf, pkey, plen);
					pdatum = cd_varkey_image_datum(kt, pbuf);
				}
			}

			if (pkey == NULL)
				c = 1;
			else if (s >= nuniq)
				c = -1;
			else if (bytes)
				c = cd_compare_bytes_abbrev(pkey, plen, pprefix,
											items[s].key, items[s].len, items[s].prefix);
			else
				c = ApplySortComparator(pdatum, false, items[s].datum, false,
										(SortSupport) &kt->ssup);

			if (c <= 0)
			{
				emit(set->data, &w, pkey, plen);
				pkey = NULL;
				if (c == 0)
					s++;
			}
			else
			{
				emit(set->data, &w, items[s].key, items[s].len);
				s++;
			}
			if ((++count & 0xFFFF) == 0)
				CHECK_FOR_INTERRUPTS();
		}
	}
	set->used = set->sortedbytes = w;
	set->nall = set->nsorted = count;

done:
	pfree(items);
	pfree(packed);
	if (arena)
		pfree(arena);
	if (pbuf)
		pfree(pbuf);
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
