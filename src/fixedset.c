/*-------------------------------------------------------------------------
 *
 * fixedset.c
 *	  The set of fixed-width keys (see fixedset.h): compaction, merges,
 *	  growth, streams.
 *
 * Memory: the set is one chunk (header + key array), from its allocator
 * (alloc.h: a slot of the pool, a Generation context or a plain context).
 * It grows by the shared policy (policy.h).  Compaction borrows scratch
 * space for the unsorted tail only (the merge works in place), so the
 * transient peak is the array plus the tail, which is at most the room
 * that the previous compaction left plus, while compaction is deferred
 * (sets below 1 MB, until the tail reaches half of the sorted keys), about
 * 2/3 of the sorted keys.
 *
 * Cost.  A compaction sorts the tail (the radix sort moves each tail key at
 * most once per byte of its width) and merges it into the sorted prefix,
 * moving at most every key of the prefix: the policy bounds how often.
 * After a tail that held many keys already in the prefix
 * (CD_SET_TAIL_SEEN), the next compaction first drops the tail's keys that
 * are present, so that only new ones move the prefix.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "alloc.h"
#include "miscadmin.h"
#include "utils/memutils.h"

#include "errors.h"
#include "fixedset.h"
#include "keymerge.h"
#include "policy.h"
#include "sort.h"


#define CD_FIXED_PROBES		8	/* tail keys probed before deferring */

/* The operations on sorted arrays, specialized per key width. */
#define CDS_KEY uint8
#define CDS_NAME(x) cd_##x##_u8
#define CDS_MERGE(x) cd_merge_##x##_u8
#include "set_keys_template.h"

#define CDS_KEY uint16
#define CDS_NAME(x) cd_##x##_u16
#define CDS_MERGE(x) cd_merge_##x##_u16
#include "set_keys_template.h"

#define CDS_KEY uint32
#define CDS_NAME(x) cd_##x##_u32
#define CDS_MERGE(x) cd_merge_##x##_u32
#include "set_keys_template.h"

#define CDS_KEY uint64
#define CDS_NAME(x) cd_##x##_u64
#define CDS_MERGE(x) cd_merge_##x##_u64
#include "set_keys_template.h"

typedef struct CDRunOps
{
	size_t		(*unique) (void *dst, const void *src, size_t n);
	size_t		(*remove_present) (const void *a, size_t na, void *b, size_t nb);
	size_t		(*merge_unique_into) (void *a, size_t na, const void *b, size_t nb);
	bool		(*probe_present) (const void *a, size_t na, const void *b, size_t nb,
								  int nprobe);
} CDRunOps;

#define CD_RUN_OPS(w) {cd_unique_##w, cd_remove_present_##w, cd_merge_unique_into_##w, \
		cd_probe_present_##w}

static const CDRunOps run_ops_u8 = CD_RUN_OPS(u8);
static const CDRunOps run_ops_u16 = CD_RUN_OPS(u16);
static const CDRunOps run_ops_u32 = CD_RUN_OPS(u32);
static const CDRunOps run_ops_u64 = CD_RUN_OPS(u64);

static inline const CDRunOps *
run_ops(int width)
{
	switch (width)
	{
		case 1:
			return &run_ops_u8;
		case 2:
			return &run_ops_u16;
		case 4:
			return &run_ops_u32;
		default:
			return &run_ops_u64;
	}
}

#define as_fixed(set)	((CDFixedSet *) cd_set_as((set), CD_SET_FIXED))
#define as_fixed_c(set) ((const CDFixedSet *) cd_set_as((set), CD_SET_FIXED))

/* The most keys a set can hold: counts are uint32, one huge allocation. */
static inline Size
max_keys(int width)
{
	return Min(CD_SET_MAX_KEYS,
			   (MaxAllocHugeSize - CD_FIXED_HEADER_SIZE) / width);
}

/* Allocation size for a set with room for at least nkeys keys. */
static Size
alloc_size(Size nkeys, int width, bool fine_grained)
{
	if (nkeys > max_keys(width))
		cd_error_group_too_large(max_keys(width), width);
	return cd_chunk_size(CD_FIXED_HEADER_SIZE + nkeys * width, fine_grained);
}

static inline uint32
capacity_of(Size bytes, int width)
{
	return (uint32) Min((bytes - CD_FIXED_HEADER_SIZE) / width, max_keys(width));
}

static void
init_header(CDFixedSet *fs, const CDKeyType *kt, uint8 flags, Size bytes)
{
	CD_SET_CHECK_HEADER(CDFixedSet);
	fs->kt = kt;
	fs->nall = 0;
	fs->nsorted = 0;
	fs->kind = CD_SET_FIXED;
	fs->flags = flags;
	fs->extra = kt->width;
	fs->capacity = capacity_of(bytes, kt->width);
}

static CDSet *
fixed_create(const CDKeyType *kt, CDAlloc *alloc)
{
	CDFixedSet *fs;
	uint8		flags = alloc->fine_grained ? CD_SET_FINE_GRAINED : 0;

	StaticAssertStmt(CD_SET_FIRST_ALLOC == CD_SLOT_SIZE, "a new set fills a slot");
	Assert(kt->width > 0);
	if (alloc->use_slots)
	{
		fs = cd_alloc_slot(alloc);
		flags |= CD_SET_IN_SLOT;
	}
	else
		fs = MemoryContextAlloc(alloc->mcxt, CD_SET_FIRST_ALLOC);
	init_header(fs, kt, flags, CD_SET_FIRST_ALLOC);
	return (CDSet *) fs;
}

static CDFixedSet *
create_sized(const CDKeyType *kt, MemoryContext mcxt, Size n)
{
	Size		bytes = alloc_size(n, kt->width, true);
	CDFixedSet *fs = cd_alloc_huge(mcxt, bytes);

	init_header(fs, kt, CD_SET_FINE_GRAINED, bytes);
	return fs;
}

/* Give the set room for at least nkeys keys (moves it). */
static CDFixedSet *
resize_keys(CDFixedSet *fs, Size nkeys, CDAlloc *alloc)
{
	int			width = fs->extra;
	Size		bytes = alloc_size(nkeys, width, fs->flags & CD_SET_FINE_GRAINED);
	Size		used = CD_FIXED_HEADER_SIZE + (Size) fs->nall * width;

	if (fs->flags & CD_SET_IN_SLOT)
	{
		/* out of the slot pool, for good; the slot stays behind */
		CDFixedSet *moved = cd_alloc_huge(alloc->mcxt, bytes);

		memcpy(moved, fs, used);
		moved->flags &= ~CD_SET_IN_SLOT;
		fs = moved;
	}
	else
		fs = cd_alloc_resize(alloc, fs, used, bytes);
	fs->capacity = capacity_of(bytes, width);
	return fs;
}

static void fixed_compact(CDSet *set);

/* Room for bytes of keys in the array. */
static inline CDSet *
resize_array(CDSet *set, Size bytes, CDAlloc *alloc)
{
	CDFixedSet *fs = as_fixed(set);
	Size		target = (bytes + fs->extra - 1) / fs->extra;

	/* at the limit, keep going while compaction still frees room */
	if (target > max_keys(fs->extra) && fs->capacity > fs->nall)
		return set;
	return (CDSet *) resize_keys(fs, target, alloc);
}

/*
 * A large set keeps its sorted part compressed instead (packedset.h) when
 * that pays off (policy.h), which is checked each time the set grows past
 * a power of two.  Out of line: small sets never get here.
 */
static pg_noinline CDSet *
pack_or_resize(CDSet *set, Size bytes, CDAlloc *alloc)
{
	CDFixedSet *fs = as_fixed(set);

	if (pg_leftmost_one_pos64(bytes) !=
		pg_leftmost_one_pos64(Max((Size) fs->capacity * fs->extra, 1)))
	{
		fixed_compact(set);
		if (cd_pack_pays_off(cd_packed_estimate(set), (Size) fs->nsorted * fs->extra))
			return cd_packed_from_set(set, alloc->aggcontext);
	}
	return resize_array(set, bytes, alloc);
}

static CDSet *
fixed_resize(CDSet *set, Size bytes, CDAlloc *alloc)
{
	if (unlikely(bytes > CD_PACKED_MIN_BYTES) && alloc != NULL)
		return pack_or_resize(set, bytes, alloc);
	return resize_array(set, bytes, alloc);
}

static void
fixed_compact(CDSet *set)
{
	CDFixedSet *fs = as_fixed(set);
	const CDRunOps *ops;
	Size		width = fs->extra;
	Size		nsorted = fs->nsorted;
	Size		ntail = fs->nall - nsorted;
	char	   *keys = (char *) fs->keys;
	uint64		stackbuf[64];
	void	   *scratch;
	void	   *sorted;

	if (ntail == 0)
		return;

	ops = run_ops(width);
	/* scratch lives for this call only */
	if (ntail * width <= sizeof(stackbuf))
		scratch = stackbuf;
	else
		scratch = cd_alloc_huge(CurrentMemoryContext, ntail * width);

	sorted = cd_sort_keys(keys + nsorted * width, scratch, ntail, width);

	if (nsorted == 0)
	{
		/* nothing to merge with: deduplicate into place */
		ntail = ops->unique(keys, sorted, ntail);
	}
	else
	{
		Size		nnew;
		Size		nappended = ntail;

		ntail = ops->unique(scratch, sorted, ntail);
		if (fs->flags & CD_SET_TAIL_SEEN)
		{
			/* find the keys already present first: only new ones move */
			nnew = ops->remove_present(keys, nsorted, scratch, ntail);
			ops->merge_unique_into(keys, nsorted, scratch, nnew);
		}
		else
			nnew = ops->merge_unique_into(keys, nsorted, scratch, ntail) -
				nsorted;
		cd_note_tail(set, CD_SET_TAIL_SEEN, ntail, nnew);
		cd_note_tail(set, CD_SET_TAIL_DUPS, nappended, nnew);
		ntail = nnew;
	}

	fs->nsorted = fs->nall = nsorted + ntail;

	if (scratch != stackbuf)
		pfree(scratch);
}

/* Is none of a few keys spread over the tail in the sorted prefix? */
static bool
fixed_tail_is_new(const CDSet *set)
{
	const CDFixedSet *fs = as_fixed_c(set);

	return !run_ops(fs->extra)->probe_present(fs->keys, fs->nsorted,
											  (const char *) fs->keys +
											  (Size) fs->nsorted * fs->extra,
											  fs->nall - fs->nsorted,
											  CD_FIXED_PROBES);
}

static Size
fixed_room_bytes(const CDSet *set)
{
	return (Size) as_fixed_c(set)->capacity * set->extra;
}

/* deferral: while the tail is below half of the sorted keys, below 1 MB */
static const CDGrowth fixed_growth = {
	.defer = {2, 1024 * 1024},
	.header = CD_FIXED_HEADER_SIZE,
	.room_bytes = fixed_room_bytes,
	.resize = fixed_resize,
	.tail_is_new = fixed_tail_is_new,
};

CDSet *
cd_fixed_make_room(CDSet *set, CDAlloc *alloc)
{
	return cd_set_make_room(set, &fixed_growth, set->extra, alloc);
}

static bool
fixed_needs_alloc(const CDSet *set)
{
	return cd_fixed_needs_alloc(set);
}

static CDSet *
fixed_add_value(CDSet *set, Datum value, CDAlloc *alloc)
{
	return cd_fixed_add_key(set, cd_key_encode(set->kt, value), alloc);
}

/*
 * The distinct count without changing the set: the tail sorted and
 * deduplicated in scratch, less its keys already in the prefix.
 */
static uint32
fixed_count(CDSet *set)
{
	const CDFixedSet *fs = as_fixed_c(set);
	const CDRunOps *ops;
	Size		width = fs->extra;
	Size		ntail = fs->nall - fs->nsorted;
	uint64		stackbuf[64];
	char	   *copy;
	void	   *sorted;
	Size		nnew;

	if (ntail == 0)
		return fs->nsorted;
	ops = run_ops(width);
	/* the tail and the sort's scratch: on the stack for small tails */
	if (2 * ntail * width <= sizeof(stackbuf))
		copy = (char *) stackbuf;
	else
		copy = cd_alloc_huge(CurrentMemoryContext, 2 * ntail * width);
	memcpy(copy, (const char *) fs->keys + (Size) fs->nsorted * width,
		   ntail * width);
	sorted = cd_sort_keys(copy, copy + ntail * width, ntail, width);
	nnew = ops->unique(sorted, sorted, ntail);
	if (fs->nsorted > 0)
		nnew = ops->remove_present(fs->keys, fs->nsorted, sorted, nnew);
	if (copy != (char *) stackbuf)
		pfree(copy);
	return fs->nsorted + (uint32) nnew;
}

static CDSet *
fixed_merge(CDSet *dst, CDSet *src, CDAlloc *alloc)
{
	CDFixedSet *d = as_fixed(dst);
	CDFixedSet *s = as_fixed(src);
	Size		n;

	Assert(d->extra == s->extra);

	if (cd_merge_by_append(s->nall, d->nsorted))
	{
		uint32		i;

		/* dst may become a packed set on the way */
		for (i = 0; i < s->nall; i++)
		{
			uint64		key = cd_key_load(s->keys, s->extra, i);

			if (dst->kind == CD_SET_FIXED)
				dst = cd_fixed_add_key(dst, key, alloc);
			else
				dst = cd_packed_add_key(dst, key);
		}
		return dst;
	}

	fixed_compact(dst);
	fixed_compact(src);
	n = s->nsorted;
	if (n == 0)
		return dst;
	if (((Size) d->nsorted + n) * d->extra > CD_PACKED_MIN_BYTES && alloc != NULL)
	{
		dst = cd_packed_from_set(dst, alloc->aggcontext);
		return cd_packed_set_ops.merge(dst, src, alloc);
	}

	if ((Size) d->capacity - d->nsorted < n)
		d = resize_keys(d, (Size) d->nsorted + n, alloc);
	d->nsorted = d->nall =
		run_ops(d->extra)->merge_unique_into(d->keys, d->nsorted, s->keys, n);
	return (CDSet *) d;
}

static CDSet *
fixed_copy(CDSet *set, MemoryContext mcxt)
{
	CDFixedSet *fs = as_fixed(set);
	CDFixedSet *copy;

	fixed_compact(set);
	copy = create_sized(set->kt, mcxt, fs->nsorted);
	memcpy(copy->keys, fs->keys, (Size) fs->nsorted * fs->extra);
	copy->nsorted = copy->nall = fs->nsorted;
	return (CDSet *) copy;
}

static uint32
read_fixed(CDKeyReader *r, uint64 *dst, uint32 max)
{
	const CDFixedSet *fs = (const CDFixedSet *) r->source;
	uint32		n = (uint32) Min((Size) max, r->count - r->pos);
	uint32		i;

	switch (fs->extra)
	{
		case 1:
			for (i = 0; i < n; i++)
				dst[i] = ((const uint8 *) fs->keys)[r->pos + i];
			break;
		case 2:
			for (i = 0; i < n; i++)
				dst[i] = ((const uint16 *) fs->keys)[r->pos + i];
			break;
		case 4:
			for (i = 0; i < n; i++)
				dst[i] = ((const uint32 *) fs->keys)[r->pos + i];
			break;
		default:
			memcpy(dst, fs->keys + r->pos, n * sizeof(uint64));
			break;
	}
	r->pos += n;
	return n;
}

static void
fixed_reader(const CDSet *set, CDKeyReader *r)
{
	Assert(set->nall == set->nsorted);
	cd_key_reader_init(r, set, set->nsorted, read_fixed, NULL);
}

static void
put_fixed(CDKeyWriter *w, const uint64 *keys, uint32 n)
{
	CDFixedSet *fs = (CDFixedSet *) w->target;
	uint32		i;

	Assert((Size) fs->nall + n <= fs->capacity);
	for (i = 0; i < n; i++)
		cd_key_store(fs->keys, fs->extra, fs->nall + i, keys[i]);
	fs->nall += n;
	fs->nsorted = fs->nall;
}

static CDSet *
fixed_build(const CDKeyType *kt, MemoryContext mcxt, uint32 n, Size bytes,
			CDKeyWriter *w)
{
	CDFixedSet *fs = create_sized(kt, mcxt, n);

	cd_key_writer_init(w, fs, put_fixed, NULL);
	return (CDSet *) fs;
}

static Size
fixed_memory_size(const CDSet *set)
{
	return CD_FIXED_HEADER_SIZE + (Size) as_fixed_c(set)->capacity * set->extra;
}

static Size
fixed_used_bytes(const CDSet *set)
{
	return (Size) set->nall * set->extra;
}

static Size
fixed_sorted_bytes(const CDSet *set)
{
	return (Size) set->nsorted * set->extra;
}

const CDSetOps cd_fixed_set_ops = {
	.create = fixed_create,
	.needs_alloc = fixed_needs_alloc,
	.add_value = fixed_add_value,
	.compact = fixed_compact,
	.count = fixed_count,
	.merge = fixed_merge,
	.copy = fixed_copy,
	.reader = fixed_reader,
	.build = fixed_build,
	.memory_size = fixed_memory_size,
	.used_bytes = fixed_used_bytes,
	.sorted_bytes = fixed_sorted_bytes,
};
