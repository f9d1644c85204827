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
 * Keys of one length (uuid, md5 text): while every key of the sorted part
 * has the same length (CD_SET_UNIFORM), the part is an array of records of
 * one size, and a tail of that length merges without the move to the end:
 * places found by reading records at a fixed stride, then one move from
 * the back (merge_uniform).  Such a tail is sorted as records (sort.c:
 * cd_sort_unique_records), not through an index of all its entries, which
 * saves the index's memory at the peak (both: bench/README.md).
 *
 * Merging another set (var_merge): a small one's keys go into the tail; a
 * larger one's sorted entries are merged with the sorted part the same way
 * as a sorted tail (merge_sorted), without being indexed or sorted again.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "alloc.h"
#include "miscadmin.h"
#include "utils/memutils.h"

#include "bytemerge.h"
#include "errors.h"
#include "frontset.h"
#include "serialkeys.h"
#include "policy.h"
#include "varentry.h"
#include "varset.h"

/*
 * A set that may become front-coded asks for its allocator (needs_alloc)
 * once fewer bytes than this are free: a longer key makes it grow without
 * it, and the check waits for the next power of two.
 */
#define CD_VAR_NEARLY_FULL	256

/* The largest data[]: its size must fit in 48 bits and one allocation. */
#define CD_VAR_MAX_SIZE \
	((Size) Min((uint64) (MaxAllocHugeSize - CD_VAR_HEADER_SIZE), \
				(UINT64CONST(1) << 48) - 1))

static void var_compact(CDSet *s);

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

/* Walk the entries from *pos up to end; NULL at the end. */
static inline const char *
next_entry(const CDVarSet *set, Size *pos, Size end, Size *len)
{
	if (*pos >= end)
		return NULL;
	return cd_read_entry(set->data, pos, len);
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

	return init_header(cd_alloc_huge(mcxt, total),
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
	const CDVarSet *vs = as_var_c(set);

	if ((set->flags & CD_SET_HINTED) &&
		CD_VAR_HEADER_SIZE + var_size(vs) < CD_VAR_FIRST_MAX)
		return true;
	/* growing may make it front-coded: only when nearly full, not per row */
	return (set->flags & CD_SET_FRONT_CANDIDATE) &&
		var_size(vs) - vs->used < CD_VAR_NEARLY_FULL;
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
	if (total > CD_FRONT_MIN_BYTES / 2 && set->kt->encoding == CD_KEY_BYTES)
		set->flags |= CD_SET_FRONT_CANDIDATE;
	/* the next new group will likely need as much (alloc.h) */
	if (newest)
	{
		alloc->var_newest = set;
		alloc->var_first = Min(total, CD_VAR_FIRST_MAX);
	}
	return set;
}

/*
 * Would the sorted part take at most 3/5 of its size front-coded (policy.h:
 * cd_pack_pays_off)?  Measured on windows of CD_FRONT_SAMPLE_RUN
 * consecutive keys, one every CD_FRONT_SAMPLE_EVERY (a power of two): 1/16
 * of the keys, without compacting the set.
 */
#define CD_FRONT_SAMPLE_RUN		64
#define CD_FRONT_SAMPLE_EVERY	1024

static bool
front_pays_off(const CDVarSet *set)
{
	const char *prev = NULL;
	Size		prevlen = 0;
	Size		pos = 0;
	Size		len;
	Size		i = 0;
	Size		front = 0;
	Size		raw = 0;
	const char *key;

	while ((key = next_entry(set, &pos, set->sortedbytes, &len)) != NULL)
	{
		if ((i++ & (CD_FRONT_SAMPLE_EVERY - 1)) < CD_FRONT_SAMPLE_RUN)
		{
			Size		shared = prev ? cd_common_prefix(prev, prevlen, key, len) : 0;

			front += cd_front_key_size(len, shared);
			raw += cd_entry_header_size(len) + len;
		}
		prev = key;
		prevlen = len;
		if ((i & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	return raw > 0 && cd_pack_pays_off(front, raw);
}

/*
 * A large set of byte keys keeps its sorted part front-coded instead
 * (frontset.h) when that pays off, which is checked each time the set
 * grows past a power of two.
 */
static pg_noinline CDSet *
front_or_resize(CDVarSet *set, Size bytes, CDAlloc *alloc)
{
	if (pg_leftmost_one_pos64(bytes) !=
		pg_leftmost_one_pos64(Max(var_size(set), 1)) &&
		(CD_FRONT_ALWAYS || front_pays_off(set)))
	{
		var_compact((CDSet *) set);
		return cd_front_from_set((CDSet *) set, alloc);
	}
	return (CDSet *) resize_data(set, bytes, alloc);
}

static CDSet *
var_resize(CDSet *set, Size bytes, CDAlloc *alloc)
{
	if (unlikely(bytes > CD_FRONT_MIN_BYTES) && alloc != NULL &&
		set->kt->encoding == CD_KEY_BYTES)
		return front_or_resize(as_var(set), bytes, alloc);
	return (CDSet *) resize_data(as_var(set), bytes, alloc);
}

static Size
var_room_bytes(const CDSet *set)
{
	return var_size(as_var_c(set));
}

/* deferral: while the tail is below 1/8 of the sorted entries */
static const CDGrowth var_growth = {
	.defer = {8, SIZE_MAX},
	.header = CD_VAR_HEADER_SIZE,
	.room_bytes = var_room_bytes,
	.resize = var_resize,
	.tail_is_new = NULL,
};

/*
 * Room for len bytes of key; returns where to write them (may move *setp),
 * or NULL if making room turned the set into a front-coded one (*setp),
 * which the key is then to be added to.
 */
static inline char *
append_entry(CDSet **setp, Size len, CDAlloc *alloc)
{
	CDVarSet   *set = as_var(*setp);
	Size		need = cd_entry_header_size(len) + len;
	char	   *p;

	if (unlikely(var_size(set) - set->used < need ||
				 set->nall >= CD_SET_MAX_KEYS))
	{
		*setp = cd_set_make_room(*setp, &var_growth, need, alloc);
		if ((*setp)->kind != CD_SET_VAR)
			return NULL;
		set = as_var(*setp);
	}
	p = set->data + set->used;
	cd_write_entry_header(p, len);
	set->used += need;
	set->nall++;
	return p + cd_entry_header_size(len);
}

/* Add a key to set, of this kind or become front-coded (may move it). */
static CDSet *
add_key(CDSet *set, const char *key, Size len, CDAlloc *alloc)
{
	char	   *p;

	if (set->kind == CD_SET_FRONT)
	{
		cd_front_add_key(set, key, len);
		return set;
	}
	p = append_entry(&set, len, alloc);
	if (p == NULL)
		cd_front_add_key(set, key, len);
	else
		memcpy(p, key, len);
	return set;
}

static CDSet *
var_add_value(CDSet *set, Datum value, CDAlloc *alloc)
{
	const CDKeyType *kt = set->kt;
	Datum		detoasted;
	Size		len = cd_varkey_size(kt, value, &detoasted);
	char	   *dst;

	if (len > MaxAllocSize)
		cd_error_value_too_large(len);
	/* may move the set: use the set append_entry leaves */
	dst = append_entry(&set, len, alloc);
	if (dst == NULL)
		return cd_set_ops(set)->add_value(set, value, alloc);
	cd_varkey_write(kt, detoasted, dst);
	return set;
}

/*
 * Merge src's sorted, distinct keys (none of them in the sorted part twice),
 * whose entries take srcbytes, into the sorted part: the sorted part moves
 * to the end of the array, and both are merged into the front
 * (bytemerge.h: cd_byte_merge_into, which keeps equal keys once and copies
 * the sorted part's entries between two of src's keys in one memmove).
 * The write position never passes the start of the sorted part's current
 * entry, because the room before the moved part holds srcbytes.
 */
static void
merge_sorted(CDVarSet *set, CDByteSource *src, Size srcbytes)
{
	Size		end = var_size(set);
	Size		from = end - set->sortedbytes;
	CDByteSource part;
	CDByteMerged m;

	Assert(from >= srcbytes);
	set->flags &= ~CD_SET_UNIFORM;	/* not checked here */
	memmove(set->data + from, set->data, set->sortedbytes);
	cd_byte_source_entries(&part, set->kt, set->data, from, end);
	if (src->form == CD_BYTES_ITEMS)
		cd_byte_merge_into(set->kt, set->data, &part, src, false,
						   CD_BYTES_ITEMS, &m);
	else
		cd_byte_merge_into(set->kt, set->data, &part, src, false,
						   CD_BYTES_ENTRIES, &m);
	cd_byte_source_free(&part);
	set->used = set->sortedbytes = m.bytes;
	set->nall = set->nsorted = (uint32) m.count;
}

/*
 * A sorted part whose entries all have one length (CD_SET_UNIFORM: uuid,
 * md5 text, codes of one format) is an array of records of one size.  A
 * tail whose entries all have that length too is sorted as records
 * (cd_sort_unique_records: no index of the whole tail) into packed keys,
 * which merge into the part without indexing its entries: each key's place
 * is found by a scan at a fixed stride from the previous key's place
 * (galloping past CD_UNIFORM_SCAN records), then the records move once,
 * from the back, each run of them between two places in one memmove
 * (merge_sorted reads and compares every entry, and moves the sorted part
 * to the end of the array and back).  A count (var_count) only searches.
 */
typedef struct UniformPart
{
	const char *data;			/* the records */
	Size		n;				/* how many */
	Size		len;			/* a key's length */
	Size		head;			/* its entry header's */
	Size		size;			/* a record's: head + len */
} UniformPart;

/* The set's sorted part as records, if CD_SET_UNIFORM. */
static void
uniform_part(const CDVarSet *set, UniformPart *u)
{
	Size		pos = 0;

	Assert((set->flags & CD_SET_UNIFORM) && set->nsorted > 0);
	(void) cd_read_entry(set->data, &pos, &u->len);
	u->data = set->data;
	u->n = set->nsorted;
	u->head = cd_entry_header_size(u->len);
	u->size = u->head + u->len;
	Assert(u->size * u->n == set->sortedbytes);
}

/* Do the n items hold byte keys of length len, all of them? */
static bool
items_uniform(const CDKeyType *kt, const CDVarItem *items, Size n, Size len)
{
	Size		i;

	if (kt->encoding != CD_KEY_BYTES)
		return false;
	for (i = 0; i < n; i++)
	{
		if (items[i].len != len)
			return false;
	}
	return true;
}

/*
 * Is the tail records of the uniform sorted part's size, each holding a
 * key of its length (so that it sorts as records and merges into the part,
 * or is counted against it)?  Then *u describes the part.
 */
static bool
tail_is_records(const CDVarSet *set, UniformPart *u)
{
	Size		ntail = set->nall - set->nsorted;
	Size		pos;

	if (!(set->flags & CD_SET_UNIFORM) || set->nsorted == 0)
		return false;
	uniform_part(set, u);
	if (set->used - set->sortedbytes != ntail * u->size)
		return false;
	for (pos = set->sortedbytes; pos < set->used;)
	{
		Size		len;

		(void) cd_read_entry(set->data, &pos, &len);
		if (len != u->len)
			return false;
	}
	return true;
}

/* Compare record i with key (of the records' length), of prefix prefix. */
static inline int
compare_record(const UniformPart *u, Size i, const char *key, uint64 prefix)
{
	const char *rec = u->data + i * u->size + u->head;
	uint64		rprefix = cd_bytes_prefix(rec, u->len);

	if (rprefix != prefix)
		return rprefix > prefix ? 1 : -1;
	return memcmp(rec, key, u->len);
}

/*
 * Records read one after another before the search gallops: a tail is
 * about 1/8 of the sorted part, so the next place is usually a few records
 * on, and a linear scan's branches predict well where a search's do not
 * (galloping from the first record: bench/README.md).
 */
#define CD_UNIFORM_SCAN		16

/*
 * The first of the records from lo on that is not below key (u->n if
 * none), all records before lo being below it; *equal: it equals key.
 */
static inline Size
find_place(const UniformPart *u, Size lo, const char *key, bool *equal)
{
	uint64		prefix = cd_bytes_prefix(key, u->len);
	Size		step = 1;
	Size		hi;
	int			c;
	int			chi = 1;		/* the comparison at hi, if hi < u->n */
	Size		end = Min(u->n, lo + CD_UNIFORM_SCAN);

	for (; lo < end; lo++)
	{
		c = compare_record(u, lo, key, prefix);
		if (c >= 0)
		{
			*equal = (c == 0);
			return lo;
		}
	}
	if (lo >= u->n)
	{
		*equal = false;
		return u->n;
	}
	/* gallop: record lo - 1 is below key */
	lo--;
	for (;;)
	{
		hi = lo + step;
		if (hi >= u->n)
		{
			hi = u->n;
			break;
		}
		chi = compare_record(u, hi, key, prefix);
		if (chi >= 0)
			break;
		lo = hi;
		step *= 2;
	}
	/* the place is in (lo, hi] */
	lo++;
	while (lo < hi)
	{
		Size		mid = lo + (hi - lo) / 2;

		c = compare_record(u, mid, key, prefix);
		if (c >= 0)
		{
			hi = mid;
			chi = c;
		}
		else
			lo = mid + 1;
	}
	*equal = (hi < u->n && chi == 0);
	return hi;
}

/*
 * The places among the records of the n sorted, distinct keys packed in
 * keys (of the records' length; into at[], if not NULL: PG_UINT32_MAX for
 * a key the records hold); returns how many keys are new.
 */
static Size
uniform_places(const UniformPart *u, const char *keys, Size n, uint32 *at)
{
	Size		place = 0;
	Size		nnew = 0;
	Size		i;

	for (i = 0; i < n; i++)
	{
		bool		equal;

		place = find_place(u, place, keys + i * u->len, &equal);
		if (at)
			at[i] = equal ? PG_UINT32_MAX : (uint32) place;
		nnew += !equal;
		if ((i & 0xFFFF) == 0xFFFF)
			CHECK_FOR_INTERRUPTS();
	}
	return nnew;
}

/*
 * Merge the n sorted, distinct keys packed in keys (of the records'
 * length, outside the array) into the uniform sorted part.  The array has
 * room for them: the tail they came from took at least their records' size.
 */
static void
merge_uniform(CDVarSet *set, const UniformPart *part, const char *keys,
			  Size n)
{
	UniformPart u = *part;
	uint32	   *at;
	Size		nnew;
	Size		hi;				/* records [0, hi) have not moved */
	Size		out;			/* records from out on are in place */
	Size		i;

	at = palloc_extended(Max(n, 1) * sizeof(uint32), MCXT_ALLOC_HUGE);
	nnew = uniform_places(&u, keys, n, at);
	if ((Size) set->nsorted + nnew > CD_SET_MAX_KEYS)
		cd_error_group_too_large(CD_SET_MAX_KEYS, 0);
	Assert((u.n + nnew) * u.size <= var_size(set));

	hi = u.n;
	out = u.n + nnew;
	for (i = n; i-- > 0;)
	{
		char	   *rec;

		if (at[i] == PG_UINT32_MAX)
			continue;
		Assert(at[i] <= hi);
		out -= hi - at[i];
		memmove(set->data + out * u.size, set->data + at[i] * u.size,
				(hi - at[i]) * u.size);
		hi = at[i];
		rec = set->data + --out * u.size;
		cd_write_entry_header(rec, u.len);
		memcpy(rec + u.head, keys + i * u.len, u.len);
		if ((i & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	Assert(out == hi);
	pfree(at);
	set->nall = set->nsorted = (uint32) (u.n + nnew);
	set->used = set->sortedbytes = set->nsorted * u.size;
}

/*
 * The distinct keys of a tail of records (tail_is_records), sorted and
 * packed into *keys (to be pfree'd); returns how many.
 */
static Size
sort_tail_records(const CDVarSet *set, const UniformPart *u, char **keys)
{
	Size		ntail = set->nall - set->nsorted;

	*keys = cd_alloc_huge(CurrentMemoryContext, Max(ntail * u->len, 1));
	return cd_sort_unique_records(set->data + set->sortedbytes + u->head,
								  ntail, u->size, u->len, *keys);
}

/* Sort, deduplicate and merge the unsorted tail into the sorted part. */
static void
var_compact(CDSet *s)
{
	CDVarSet   *set = as_var(s);
	Size		ntail = set->nall - set->nsorted;
	CDSortedEntries t;
	Size		nuniq;
	UniformPart u;

	if (ntail == 0)
		return;

	if (tail_is_records(set, &u))
	{
		uint32		nsorted = set->nsorted;
		char	   *keys;

		nuniq = sort_tail_records(set, &u, &keys);
		merge_uniform(set, &u, keys, nuniq);
		pfree(keys);
		cd_note_tail(s, CD_SET_TAIL_DUPS, ntail, set->nsorted - nsorted);
		return;
	}
	nuniq = cd_sort_entries(set->kt, set->data, set->sortedbytes, set->used,
							ntail, true, &t);
	if (set->nsorted == 0)
	{
		memcpy(set->data, t.copy, t.bytes);
		set->used = set->sortedbytes = t.bytes;
		set->nall = set->nsorted = nuniq;
		set->flags &= ~CD_SET_UNIFORM;
		if (items_uniform(set->kt, t.items, nuniq, t.items[0].len))
			set->flags |= CD_SET_UNIFORM;
	}
	else
	{
		uint32		nsorted = set->nsorted;
		CDByteSource src;

		cd_byte_source_items(&src, t.items, nuniq);
		merge_sorted(set, &src, t.bytes);
		cd_note_tail(s, CD_SET_TAIL_DUPS, ntail, set->nsorted - nsorted);
	}
	cd_entries_free(&t);
}

/*
 * The distinct count without changing the set: the tail's distinct entries
 * (in scratch) that the sorted part does not hold, found by one read-only
 * merge walk (bytemerge.h: cd_byte_count_two), or searched for in a
 * uniform sorted part (uniform_places).
 */
static uint32
var_count(CDSet *s)
{
	const CDVarSet *set = as_var_c(s);
	CDSortedEntries t;
	CDByteSource part;
	CDByteSource src;
	Size		nuniq;
	Size		nnew;
	UniformPart u;

	if (set->nall == set->nsorted)
		return set->nsorted;
	if (tail_is_records(set, &u))
	{
		char	   *keys;

		nuniq = sort_tail_records(set, &u, &keys);
		nnew = uniform_places(&u, keys, nuniq, NULL);
		pfree(keys);
		return set->nsorted + (uint32) nnew;
	}
	nuniq = cd_sort_entries(set->kt, set->data, set->sortedbytes, set->used,
							set->nall - set->nsorted, false, &t);
	cd_byte_source_entries(&part, set->kt, set->data, 0, set->sortedbytes);
	cd_byte_source_items(&src, t.items, nuniq);
	nnew = cd_byte_count_two(set->kt, &part, &src, false, CD_BYTES_ITEMS,
							 false);
	cd_byte_source_free(&part);
	cd_byte_source_free(&src);
	cd_entries_free(&t);
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
		/* d may become front-coded on the way */
		while ((key = next_entry(src, &pos, src->used, &len)) != NULL)
			d = add_key(d, key, len, alloc);
		return d;
	}
	else
	{
		CDByteSource from;

		var_compact((CDSet *) dst);
		if (var_size(dst) - dst->sortedbytes < src->sortedbytes)
			dst = resize_data(dst, dst->sortedbytes + src->sortedbytes, alloc);
		cd_byte_source_entries(&from, src->kt, src->data, 0, src->sortedbytes);
		merge_sorted(dst, &from, src->sortedbytes);
		cd_byte_source_free(&from);
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
	copy->flags |= set->flags & CD_SET_UNIFORM;
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
	/* no allocator: the set stays of this kind */
	CDVarSet   *set = as_var(add_key((CDSet *) w->target, key, len, NULL));

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

const CDSetOps cd_var_set_ops = {
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
};
