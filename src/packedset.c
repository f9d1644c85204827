/*-------------------------------------------------------------------------
 *
 * packedset.c
 *	  The set of many fixed-width keys with a compressed sorted part (see
 *	  packedset.h): compaction, counting, merges, streams.
 *
 * Memory.  The sorted part takes a fraction of the keys' raw size (10M
 * random int4 keys over 2^32: gaps of ~430 on average, a block's largest
 * below 2^12, so 12 bits a key, about 1.6 bytes with the index's 16 bytes
 * per block; a block of consecutive keys: one byte plus its index entry),
 * so the tail may be about as large as the sorted part's
 * bytes (tail_target): the whole set then stays below the raw keys, and a
 * compaction, which passes over every key, comes only after the set has
 * grown by a good share.  A compaction holds, at its peak, the old blocks,
 * the tail and either the radix sort's scratch (the tail's size) or the
 * new blocks.
 *
 * Cost.  A compaction sorts the tail (cd_sort_keys), drops its duplicates,
 * and merges it with the blocks in one pass: each old block decoded once,
 * each new one encoded once, through buffers of one block (merge_blocks);
 * an old block no new key falls in is copied without decoding when it
 * starts a new block.  Decoding and encoding take two gaps per word when
 * they fit (int4 keys).  After a tail that held many keys already
 * present (CD_SET_TAIL_SEEN), the tail's keys may first be looked up
 * through the index (a block is decoded only when a key falls in it, a run
 * block never), so that only new ones are merged and, when none is, the
 * blocks are left as they are: when the tail has fewer keys than there are
 * blocks, or a sample of its keys were all present (cd_probe_tail_first);
 * else the sample's share of new keys sizes the merge's new blocks.
 *
 * Nothing here comes from outside: serialized states are decoded and
 * checked by serialkeys.c before their keys reach build's writer.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "alloc.h"
#include "miscadmin.h"
#include "port/pg_bitutils.h"
#include "utils/memutils.h"

#include "errors.h"
#include "blockcodec.h"
#include "serialkeys.h"
#include "keyunion.h"
#include "packedset.h"
#include "policy.h"
#include "sort.h"

/*
 * The tail's room, in bytes of keys: the sorted part's bytes (blocks and
 * index), but no more than what keeps the whole set within the keys' raw
 * size (sets that compress little, like a few tens of thousands of random
 * int4, would otherwise take more than a fixed-width set), and at least
 * 1/CD_PACKED_TAIL_SHARE of the raw size (dense keys compress to almost
 * nothing; a tiny tail would compact too often) and CD_PACKED_TAIL_MIN.
 */
#define CD_PACKED_TAIL_SHARE	8
#define CD_PACKED_TAIL_MIN		(16 * 1024)

/*
 * Bytes kept readable past the last block (blockcodec.h: an encoder stores
 * whole 8-byte words, a decoder loads them), and the most one block takes.
 */
#define CD_PACKED_SLACK		CD_BLOCK_SLACK
#define CD_PACKED_BLOCK_MAX	CD_BLOCK_GAPS_MAX

#define as_packed(set)		((CDPackedSet *) cd_set_as((set), CD_SET_PACKED))
#define as_packed_c(set)	((const CDPackedSet *) cd_set_as((set), CD_SET_PACKED))

static inline uint32
nblocks_of(uint32 nkeys)
{
	return (uint32) (((Size) nkeys + CD_PACKED_BLOCK - 1) / CD_PACKED_BLOCK);
}

/* keys in block bi of a sorted part of nsorted keys */
static inline uint32
block_len(uint32 nsorted, uint32 bi)
{
	return Min(CD_PACKED_BLOCK, nsorted - bi * CD_PACKED_BLOCK);
}

static void *
alloc_huge(MemoryContext mcxt, Size size)
{
	return cd_alloc_huge(mcxt, Max(size, 1));
}

/* ----------------------------------------------------------------
 *		Blocks
 * ----------------------------------------------------------------
 */

/* Room in ps's buffers for one more block. */
static void
reserve_block(CDPackedSet *ps)
{
	uint32		nblocks = nblocks_of(ps->nsorted);

	if (ps->data_len + CD_PACKED_BLOCK_MAX + CD_PACKED_SLACK > ps->data_cap)
	{
		Size		cap = ps->data_cap + Max(ps->data_cap / 8,
											 CD_PACKED_BLOCK_MAX + CD_PACKED_SLACK);

		ps->data = ps->data ? cd_realloc_huge(ps->data, cap) : alloc_huge(ps->mcxt, cap);
		ps->data_cap = cap;
	}
	if (nblocks >= ps->index_cap)
	{
		uint32		cap = ps->index_cap + Max(ps->index_cap / 8, 16);
		Size		size = (Size) cap * sizeof(CDPackedIndex);

		ps->index = ps->index ? cd_realloc_huge(ps->index, size) :
			alloc_huge(ps->mcxt, size);
		ps->index_cap = cap;
	}
}

/*
 * Encode m strictly increasing keys (1 <= m <= CD_PACKED_BLOCK), all
 * greater than ps's, as its next block.  Only the last block may be short.
 */
static void
append_block(CDPackedSet *ps, const uint64 *keys, uint32 m)
{
	CDPackedIndex *ix;
	uint8	   *p;
	uint64		gap[CD_PACKED_BLOCK];
	int			b;

	Assert(m >= 1 && m <= CD_PACKED_BLOCK);
	Assert(ps->nsorted % CD_PACKED_BLOCK == 0);
	if (unlikely((Size) ps->nsorted + m > CD_SET_MAX_KEYS))
		cd_error_group_too_large(CD_SET_MAX_KEYS, ps->extra);
	reserve_block(ps);

	b = cd_block_gaps(keys, m, gap);
	ix = &ps->index[nblocks_of(ps->nsorted)];
	ix->head = keys[0];
	ix->offset = ps->data_len;
	p = ps->data + ps->data_len;
	*p++ = (uint8) b;
	if (b > 0)
		p = cd_block_encode_gaps(p, gap, m - 1, b);
	ps->data_len = p - ps->data;
	ps->nsorted += m;
}

/*
 * Append block bi of src, a whole one, to ps as it is: its bytes are
 * copied, not decoded (a merge's blocks that no new key falls in).
 */
static void
copy_block(CDPackedSet *ps, const CDPackedSet *src, uint32 bi)
{
	Size		from = src->index[bi].offset;
	Size		to = (Size) (bi + 1) * CD_PACKED_BLOCK < src->nsorted ?
		src->index[bi + 1].offset : src->data_len;
	CDPackedIndex *ix;

	Assert(ps->nsorted % CD_PACKED_BLOCK == 0);
	Assert(block_len(src->nsorted, bi) == CD_PACKED_BLOCK);
	reserve_block(ps);
	ix = &ps->index[nblocks_of(ps->nsorted)];
	ix->head = src->index[bi].head;
	ix->offset = ps->data_len;
	memcpy(ps->data + ps->data_len, src->data + from, to - from);
	ps->data_len += to - from;
	ps->nsorted += CD_PACKED_BLOCK;
}

/* Decode block bi of ps (m keys) into out: our own memory, with slack. */
static inline void
decode_block(const CDPackedSet *ps, uint32 bi, uint32 m, uint64 *out)
{
	const CDPackedIndex *ix = &ps->index[bi];
	const uint8 *p = ps->data + ix->offset;

	cd_block_decode_gaps(p + 1, SIZE_MAX, *p, m, ix->head, out);
}

/* Is block bi a run block (consecutive keys)? */
static inline bool
is_run_block(const CDPackedSet *ps, uint32 bi)
{
	return ps->data[ps->index[bi].offset] == 0;
}

/* ----------------------------------------------------------------
 *		Streams
 * ----------------------------------------------------------------
 */

/* The sorted part, in order; any pos and max. */
static uint32
read_blocks(CDKeyReader *r, uint64 *dst, uint32 max)
{
	const CDPackedSet *ps = (const CDPackedSet *) r->source;
	uint32		bi;
	uint32		within;
	uint32		m;
	uint32		n;

	if (r->pos >= r->count || max == 0)
		return 0;
	bi = (uint32) (r->pos / CD_PACKED_BLOCK);
	within = (uint32) (r->pos % CD_PACKED_BLOCK);
	m = block_len(r->count, bi);
	n = Min(max, m - within);
	if (within == 0 && n == m)
		decode_block(ps, bi, m, dst);
	else
	{
		uint64		block[CD_PACKED_BLOCK];

		decode_block(ps, bi, m, block);
		memcpy(dst, block + within, n * sizeof(uint64));
	}
	r->pos += n;
	if ((bi & 0x3FF) == 0)
		CHECK_FOR_INTERRUPTS();
	return n;
}

/*
 * n keys of the given width from keys[from ...] into dst, widened: one loop
 * per width, which the compiler vectorizes.
 */
static void
load_keys(const void *keys, int width, Size from, uint64 *dst, uint32 n)
{
	uint32		i;

	switch (width)
	{
		case 1:
			for (i = 0; i < n; i++)
				dst[i] = ((const uint8 *) keys)[from + i];
			break;
		case 2:
			for (i = 0; i < n; i++)
				dst[i] = ((const uint16 *) keys)[from + i];
			break;
		case 4:
			for (i = 0; i < n; i++)
				dst[i] = ((const uint32 *) keys)[from + i];
			break;
		default:
			memcpy(dst, (const uint64 *) keys + from, n * sizeof(uint64));
			break;
	}
}

/* The tail's keys, sorted and distinct by then (compaction). */
static uint32
read_tail(CDKeyReader *r, uint64 *dst, uint32 max)
{
	const CDPackedSet *ps = (const CDPackedSet *) r->source;
	uint32		n = (uint32) Min((Size) max, r->count - r->pos);

	load_keys(ps->tail, ps->extra, r->pos, dst, n);
	r->pos += n;
	return n;
}

/* The end of a lazy set's keys: ERROR unless they took all its bytes. */
static void
lazy_end(const CDBlockDecoder *u)
{
	if (u->p != u->end)
		cd_invalid_state("The keys do not take up the whole value.");
}

/* A lazy set's sorted part, decoded as it is read (from the start only). */
static uint32
read_lazy(CDKeyReader *r, uint64 *dst, uint32 max)
{
	CDBlockDecoder *u = (CDBlockDecoder *) r->source;
	uint32		m;

	/* a block at a time: the callers read in batches of CD_KEY_BATCH */
	if (max < CD_BLOCK_KEYS)
		elog(ERROR, "count_distinct: a batch of %u keys is too short", max);
	m = cd_block_decoder_next(u, dst);
	if (m == 0)
		lazy_end(u);
	r->pos += m;
	return m;
}

/*
 * A reader of ps's sorted part from its start, in batches of at least
 * CD_KEY_BATCH; u: the decoder's state when ps is lazy.
 */
static void
stream_reader(const CDPackedSet *ps, CDKeyReader *r, CDBlockDecoder *u)
{
	if (ps->lazy)
	{
		cd_block_decoder_init(u, ps->lazy, ps->lazy_len, ps->kt, ps->nsorted,
							  CD_WHAT_STATE);
		cd_key_reader_init(r, u, ps->nsorted, read_lazy, NULL);
	}
	else
		cd_key_reader_init(r, ps, ps->nsorted, read_blocks, NULL);
}

/*
 * Looking keys up in the sorted part, in ascending order: the block that
 * may hold a key is found by galloping over the index from the last one,
 * and decoded only when a key falls in it (a run block never is).
 */
typedef struct CDPackedProbe
{
	const CDPackedSet *ps;
	uint32		nblocks;
	uint32		bi;				/* the block looked at last */
	bool		decoded;		/* keys holds block bi */
	uint32		pos;			/* keys[0 .. pos) are below the last key */
	uint64		keys[CD_PACKED_BLOCK];
} CDPackedProbe;

static void
probe_init(CDPackedProbe *pr, const CDPackedSet *ps)
{
	pr->ps = ps;
	pr->nblocks = nblocks_of(ps->nsorted);
	pr->bi = 0;
	pr->decoded = false;
	pr->pos = 0;
}

/* Is key in the sorted part?  Keys must come in ascending order. */
static pg_attribute_always_inline bool
probe_present(CDPackedProbe *pr, uint64 key)
{
	const CDPackedIndex *index = pr->ps->index;
	uint32		lo = pr->bi;
	uint32		step = 1;
	uint32		hi;
	uint32		m;

	if (pr->nblocks == 0 || index[lo].head > key)
		return false;
	/* the last block whose head is <= key: gallop, then bisect */
	while (lo + step < pr->nblocks && index[lo + step].head <= key)
	{
		lo += step;
		step <<= 1;
	}
	hi = Min(lo + step, pr->nblocks);	/* index[hi].head > key, if any */
	while (hi - lo > 1)
	{
		uint32		mid = lo + (hi - lo) / 2;

		if (index[mid].head <= key)
			lo = mid;
		else
			hi = mid;
	}
	m = block_len(pr->ps->nsorted, lo);
	if (lo != pr->bi)
	{
		pr->bi = lo;
		pr->decoded = false;
		pr->pos = 0;
	}
	if (is_run_block(pr->ps, lo))
		return key - index[lo].head < m;
	if (!pr->decoded)
	{
		decode_block(pr->ps, lo, m, pr->keys);
		pr->decoded = true;
	}
	while (pr->pos < m && pr->keys[pr->pos] < key)
		pr->pos++;
	return pr->pos < m && pr->keys[pr->pos] == key;
}

/* ----------------------------------------------------------------
 *		The set
 * ----------------------------------------------------------------
 */

static void packed_compact(CDSet *set);

static CDPackedSet *
create_empty(const CDKeyType *kt, MemoryContext mcxt, uint8 flags)
{
	CDPackedSet *ps = MemoryContextAllocZero(mcxt, sizeof(CDPackedSet));

	CD_SET_CHECK_HEADER(CDPackedSet);
	Assert(kt->width > 0);
	ps->kt = kt;
	ps->kind = CD_SET_PACKED;
	ps->flags = flags & (CD_SET_TAIL_SEEN | CD_SET_TAIL_DUPS);
	ps->extra = kt->width;
	ps->mcxt = mcxt;
	return ps;
}

/* Allocate ps's data and index for about nkeys keys taking about bytes. */
static void
alloc_blocks(CDPackedSet *ps, Size nkeys, Size bytes)
{
	Assert(ps->data == NULL && ps->index == NULL);
	ps->data_cap = bytes + CD_PACKED_BLOCK_MAX + CD_PACKED_SLACK;
	ps->data = alloc_huge(ps->mcxt, ps->data_cap);
	ps->index_cap = nblocks_of((uint32) Min(nkeys, CD_SET_MAX_KEYS)) + 1;
	ps->index = alloc_huge(ps->mcxt, (Size) ps->index_cap * sizeof(CDPackedIndex));
}

/* The tail's room the policy gives a compacted set (see above). */
static uint32
tail_target(const CDPackedSet *ps)
{
	Size		width = ps->extra;
	Size		raw = (Size) ps->nsorted * width;
	Size		packed = ps->data_len + (Size) nblocks_of(ps->nsorted) * sizeof(CDPackedIndex);
	Size		bytes = packed < raw ? Min(packed, raw - packed) : 0;

	bytes = Max(bytes, raw / CD_PACKED_TAIL_SHARE);
	bytes = Max(bytes, CD_PACKED_TAIL_MIN);
	return (uint32) Min(bytes / width, CD_SET_MAX_KEYS - ps->nsorted);
}

/* Give an empty tail the room the policy says (no copy: it is empty). */
static void
fit_tail(CDPackedSet *ps)
{
	uint32		target = tail_target(ps);

	Assert(ps->nall == ps->nsorted);
	if (target > ps->tail_cap || target < ps->tail_cap - ps->tail_cap / 4)
	{
		if (ps->tail)
			pfree(ps->tail);
		ps->tail = NULL;
		ps->tail_cap = 0;
		if (target > 0)
			ps->tail = alloc_huge(ps->mcxt, (Size) target * ps->extra);
		ps->tail_cap = target;
	}
}

/*
 * Add n keys, strictly increasing and greater than out's, to out through
 * obuf, which holds *no keys of out's next block: whole blocks are encoded.
 */
static inline void
emit_keys(CDPackedSet *out, uint64 *obuf, uint32 *no, const uint64 *keys,
		  uint32 n)
{
	while (n > 0)
	{
		uint32		k = Min(n, CD_PACKED_BLOCK - *no);

		memcpy(obuf + *no, keys, k * sizeof(uint64));
		*no += k;
		keys += k;
		n -= k;
		if (*no == CD_PACKED_BLOCK)
		{
			append_block(out, obuf, CD_PACKED_BLOCK);
			*no = 0;
		}
	}
}

/*
 * Merge the sorted part with b (strictly increasing keys; about nb of
 * them) into new blocks, which replace the old.  Returns the keys of b that
 * were new.
 *
 * One streaming pass, a block at a time: each old block is decoded into a
 * buffer of one block, merged with a batch of b into another, which is
 * encoded whenever it holds a whole block.  An old block is copied as it
 * is, without decoding, when it starts a new block of the output and all
 * its keys come before b's next key (keys added above or below it only:
 * ascending or clustered values).  The merge loop runs, between refills, as
 * many steps as every buffer allows, so it tests one counter per key.
 */
static uint32
merge_blocks(CDPackedSet *ps, CDKeyReader *b, Size nb)
{
	CDPackedSet out;
	uint64		abuf[CD_PACKED_BLOCK];
	uint64		bbuf[CD_PACKED_BLOCK];
	uint64		obuf[CD_PACKED_BLOCK];
	uint32		before = ps->nsorted;
	uint32		nblocks = nblocks_of(before);
	uint32		bi = 0;			/* the next old block */
	uint32		na = 0,			/* abuf: keys [ia, na) of the last block */
				ia = 0,
				nbb,			/* bbuf: keys [ib, nbb) of the last batch */
				ib = 0,
				no = 0;			/* obuf: keys of the next new block */
	Size		est;

	Assert(ps->lazy == NULL);
	/* new blocks: about as many bytes per key as the old ones */
	memset(&out, 0, sizeof(out));
	out.kt = ps->kt;
	out.extra = ps->extra;
	out.mcxt = ps->mcxt;
	if (before > 0)
		est = (Size) ((double) ps->data_len * ((double) before + nb) / before);
	else
		est = nb * ps->extra / 2;
	alloc_blocks(&out, (Size) before + nb, est);

	nbb = b->next_fixed(b, bbuf, CD_PACKED_BLOCK);
	for (;;)
	{
		uint32		steps;

		if (ia == na)
		{
			if (bi == nblocks)
				break;
			if ((bi & 0x3FF) == 0)
				CHECK_FOR_INTERRUPTS();
			if (no == 0 && block_len(before, bi) == CD_PACKED_BLOCK &&
				(nbb == 0 ||
				 (bi + 1 < nblocks && ps->index[bi + 1].head <= bbuf[ib])))
			{
				copy_block(&out, ps, bi++);
				continue;
			}
			na = block_len(before, bi);
			decode_block(ps, bi++, na, abuf);
			ia = 0;
		}
		if (nbb == 0)
		{
			/* b is done: the rest of this old block */
			emit_keys(&out, obuf, &no, abuf + ia, na - ia);
			ia = na;
			continue;
		}

		steps = Min(Min(na - ia, nbb - ib), CD_PACKED_BLOCK - no);
		cd_key_merge_steps(abuf, &ia, bbuf, &ib, obuf, &no, steps);
		if (no == CD_PACKED_BLOCK)
		{
			append_block(&out, obuf, no);
			no = 0;
		}
		if (ib == nbb)
		{
			nbb = b->next_fixed(b, bbuf, CD_PACKED_BLOCK);
			ib = 0;
		}
	}
	/* the old blocks are done: the rest of b */
	while (nbb > 0)
	{
		emit_keys(&out, obuf, &no, bbuf + ib, nbb - ib);
		nbb = b->next_fixed(b, bbuf, CD_PACKED_BLOCK);
		ib = 0;
	}
	if (no > 0)
		append_block(&out, obuf, no);

	/* the new blocks replace the old; give back most of the spare room */
	if (ps->data)
		pfree(ps->data);
	if (ps->index)
		pfree(ps->index);
	if (out.data_cap - out.data_len > out.data_len / 16 + CD_PACKED_BLOCK_MAX + CD_PACKED_SLACK)
	{
		out.data_cap = out.data_len + CD_PACKED_SLACK;
		out.data = cd_realloc_huge(out.data, out.data_cap);
	}
	ps->data = out.data;
	ps->data_len = out.data_len;
	ps->data_cap = out.data_cap;
	ps->index = out.index;
	ps->index_cap = out.index_cap;
	ps->nsorted = out.nsorted;
	return out.nsorted - before;
}

/*
 * Drop the repeats from the sorted run of n keys; returns the keys left,
 * and in *hot the key repeated most (n > 0).  Every key is stored and the
 * output advances on a new key: the loop's one branch is taken only when
 * a run of repeats grows past the longest so far.
 */
static uint32
unique_keys(void *keys, int width, uint32 n, uint64 *hot)
{
	uint32		out = 1;
	uint32		run = 0;		/* repeats of the current key so far */
	uint32		best = 0;
	uint32		i;

	Assert(n > 0);
#define UNIQUE_LOOP(T) \
	do { \
		T		   *k = (T *) keys; \
		T			prev = k[0]; \
		*hot = prev; \
		for (i = 1; i < n; i++) \
		{ \
			T			x = k[i]; \
			bool		same = (x == prev); \
			run = same ? run + 1 : 0; \
			if (unlikely(run > best)) \
			{ \
				best = run; \
				*hot = x; \
			} \
			k[out] = x; \
			out += !same; \
			prev = x; \
		} \
	} while (0)

	switch (width)
	{
		case 1:
			UNIQUE_LOOP(uint8);
			break;
		case 2:
			UNIQUE_LOOP(uint16);
			break;
		case 4:
			UNIQUE_LOOP(uint32);
			break;
		default:
			UNIQUE_LOOP(uint64);
			break;
	}
#undef UNIQUE_LOOP
	return out;
}

/*
 * Drop from the sorted, distinct run of n keys those in ps's sorted part;
 * returns the keys left.
 */
static uint32
remove_present(const CDPackedSet *ps, void *keys, uint32 n)
{
	CDPackedProbe pr;
	int			width = ps->extra;
	uint32		out = 0;
	uint32		i;

	probe_init(&pr, ps);
	for (i = 0; i < n; i++)
	{
		uint64		k = cd_key_load(keys, width, i);

		if (!probe_present(&pr, k))
			cd_key_store(keys, width, out++, k);
		if ((i & 0xFFFF) == 0xFFFF)
			CHECK_FOR_INTERRUPTS();
	}
	return out;
}

/*
 * Of CD_PROBE_SAMPLE keys spread evenly over the sorted, distinct run of n
 * keys (all of them if fewer: *sampled), how many are not in ps's sorted
 * part?
 */
static uint32
sample_absent(const CDPackedSet *ps, const void *keys, uint32 n,
			  uint32 *sampled)
{
	CDPackedProbe pr;
	uint32		samples = Min(n, CD_PROBE_SAMPLE);
	uint32		absent = 0;
	uint32		i;

	probe_init(&pr, ps);
	for (i = 0; i < samples; i++)
	{
		uint32		at = (uint32) ((uint64) n * i / samples);

		absent += !probe_present(&pr, cd_key_load(keys, ps->extra, at));
	}
	*sampled = samples;
	return absent;
}

/*
 * Move ps's data and index into chunks of their size (and the slack an
 * encoder needs): a merge sized for more new keys than came leaves room
 * past them, which a shrinking repalloc does not give back on every
 * server version.  Copies about the blocks' bytes, a fraction of the
 * merge's work.
 */
static void
trim_blocks(CDPackedSet *ps)
{
	uint32		nindex = nblocks_of(ps->nsorted) + 1;
	Size		cap = ps->data_len + CD_PACKED_SLACK;

	if (ps->index_cap > nindex)
	{
		CDPackedIndex *index = alloc_huge(ps->mcxt, (Size) nindex * sizeof(CDPackedIndex));

		memcpy(index, ps->index, (Size) (nindex - 1) * sizeof(CDPackedIndex));
		pfree(ps->index);
		ps->index = index;
		ps->index_cap = nindex;
	}
	if (ps->data_cap > cap)
	{
		uint8	   *data = alloc_huge(ps->mcxt, cap);

		memcpy(data, ps->data, cap);
		pfree(ps->data);
		ps->data = data;
		ps->data_cap = cap;
	}
}

/*
 * Are all of the sorted keys below key?  (True when there are none.)  Only
 * the last block is decoded.
 */
static bool
below(const CDPackedSet *ps, uint64 key)
{
	uint64		block[CD_PACKED_BLOCK];
	uint32		bi;
	uint32		m;

	if (ps->nsorted == 0)
		return true;
	bi = nblocks_of(ps->nsorted) - 1;
	if (ps->index[bi].head >= key)
		return false;
	m = block_len(ps->nsorted, bi);
	decode_block(ps, bi, m, block);
	return block[m - 1] < key;
}

/*
 * Add the first n keys of the tail, sorted and distinct, all above the
 * sorted part, which ends with a whole block: new blocks after the old
 * ones, which stay where they are (ascending values; a deserialized
 * state's last, short block).
 */
static void
append_tail(CDPackedSet *ps, uint32 n)
{
	uint64		block[CD_PACKED_BLOCK];
	uint32		i;

	Assert(ps->nsorted % CD_PACKED_BLOCK == 0);
	for (i = 0; i < n; i += CD_PACKED_BLOCK)
	{
		uint32		m = Min(n - i, CD_PACKED_BLOCK);

		load_keys(ps->tail, ps->extra, i, block, m);
		append_block(ps, block, m);
		if ((i & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
	}
}

/*
 * Put the first n keys of the tail (sorted, distinct; about expect of them
 * new) into the sorted part: appended when they all come after it, else
 * merged.  Returns the keys that were new.
 */
static uint32
add_sorted_tail(CDPackedSet *ps, uint32 n, uint32 expect)
{
	CDKeyReader r;

	if (n == 0)
		return 0;
	if (ps->nsorted % CD_PACKED_BLOCK == 0 &&
		below(ps, cd_key_load(ps->tail, ps->extra, 0)))
	{
		append_tail(ps, n);
		return n;
	}
	cd_key_reader_init(&r, ps, n, read_tail, NULL);
	return merge_blocks(ps, &r, expect);
}

/*
 * Stream readers of ps's sorted part and of each of its held states, into
 * in[] and pin[] (room for 1 + nheld, as u[]); returns how many.
 */
static int
own_and_held_readers(const CDPackedSet *ps, CDKeyReader *in, CDKeyReader **pin,
					CDBlockDecoder *u)
{
	int			n = 0;
	uint32		i;

	stream_reader(ps, &in[n], &u[n]);
	pin[n] = &in[n];
	n++;
	for (i = 0; i < ps->nheld; i++)
	{
		Assert(ps->held[i]->nall == ps->held[i]->nsorted);
		stream_reader(ps->held[i], &in[n], &u[n]);
		pin[n] = &in[n];
		n++;
	}
	return n;
}

/*
 * Decode a lazy set's sorted part into blocks, in place (keeps its tail).
 * The set's keys stay the same, only their form changes, so a caller that
 * holds the set as const may call it: a reader (set_header.h's reader
 * contract), which must index the blocks to start anywhere.  This is the
 * one place that writes a packed set given as const; a backend's sets are
 * its own, so no other reader sees the change happen.
 */
static void
decode_in_place(const CDPackedSet *cps)
{
	CDPackedSet *ps = unconstify(CDPackedSet *, cps);
	CDKeyReader r;
	CDBlockDecoder	u;
	uint64		block[CD_PACKED_BLOCK];
	char	   *lazy = ps->lazy;
	uint32		ntail = ps->nall - ps->nsorted;
	uint32		n = ps->nsorted;
	uint32		m;

	if (lazy == NULL)
		return;
	stream_reader(ps, &r, &u);
	/* from here on, ps is its blocks, which the reader's keys fill */
	ps->lazy = NULL;
	ps->lazy_len = 0;
	ps->nsorted = 0;
	/* about as many bytes: serialized blocks have their heads inline */
	alloc_blocks(ps, n, u.end - u.p);
	while ((m = r.next_fixed(&r, block, CD_PACKED_BLOCK)) > 0)
		append_block(ps, block, m);
	Assert(ps->nsorted == n);
	pfree(lazy);
	ps->nall = ps->nsorted + ntail;
}

/* Merge the held states into the sorted part, in one pass, and free them. */
static void
fold_held(CDPackedSet *ps)
{
	CDKeyReader in[CD_PACKED_MAX_HELD + 1];
	CDKeyReader *pin[CD_PACKED_MAX_HELD + 1];
	CDBlockDecoder	unp[CD_PACKED_MAX_HELD + 1];
	CDKeyReader *u;
	uint32		ntail = ps->nall - ps->nsorted;
	uint32		i;

	if (ps->nheld == 0)
		return;
	Assert(ps->lazy == NULL);
	/* the held states alone, merged with the sorted part by merge_blocks */
	(void) own_and_held_readers(ps, in, pin, unp);
	u = cd_key_union(pin + 1, ps->nheld);
	(void) merge_blocks(ps, u, u->count);
	cd_key_union_free(u);
	for (i = 0; i < ps->nheld; i++)
		cd_packed_free((CDSet *) ps->held[i]);
	ps->nheld = 0;
	ps->nall = ps->nsorted + ntail;
}

/*
 * Compact a set taken from a combine function's argument (a lazy one has
 * nothing to compact) and give back its tail's room: its keys come by
 * merges (a key added later makes room again: cd_packed_make_room).
 */
static void
compact_taken(CDPackedSet *ps)
{
	packed_compact((CDSet *) ps);
	if (ps->tail)
		pfree(ps->tail);
	ps->tail = NULL;
	ps->tail_cap = 0;
}

/* Make src (cd_packed_takeable) a held state of ps. */
static void
add_held(CDPackedSet *ps, CDPackedSet *src)
{
	compact_taken(src);
	if (src->nsorted == 0)
	{
		cd_packed_free((CDSet *) src);
		return;
	}
	if (ps->nheld == CD_PACKED_MAX_HELD)
	{
		decode_in_place(ps);
		fold_held(ps);
	}
	MemoryContextSetParent(src->own_cxt, ps->mcxt);
	ps->held[ps->nheld++] = src;
}

static void
packed_compact(CDSet *set)
{
	CDPackedSet *ps = as_packed(set);
	int			width = ps->extra;
	uint32		nappended = ps->nall - ps->nsorted;
	uint32		ntail;
	uint32		nnew;
	void	   *scratch;
	void	   *sorted;

	if (nappended == 0 && ps->nheld == 0)
		return;					/* a lazy set stays so */
	decode_in_place(ps);
	fold_held(ps);
	if (nappended == 0)
		return;

	/*
	 * Sort, with scratch the tail's size in the set's context: whichever of
	 * the two holds the result stays as the tail, the other goes before the
	 * merge allocates the new blocks.
	 */
	scratch = alloc_huge(ps->mcxt, (Size) ps->tail_cap * width);
	sorted = cd_sort_keys(ps->tail, scratch, nappended, width);
	ntail = unique_keys(sorted, width, nappended, &ps->hot);
	ps->flags |= CD_SET_HOT;
	if (sorted == scratch)
	{
		pfree(ps->tail);
		ps->tail = scratch;
	}
	else
		pfree(scratch);

	if (ps->nsorted > 0 && (ps->flags & CD_SET_TAIL_SEEN))
	{
		uint32		sampled;
		uint32		absent = sample_absent(ps, ps->tail, ntail, &sampled);

		if (cd_probe_tail_first(ntail, nblocks_of(ps->nsorted), absent))
		{
			/* find the keys already present first: only new ones rebuild */
			nnew = remove_present(ps, ps->tail, ntail);
			(void) add_sorted_tail(ps, nnew, nnew);
		}
		else
		{
			/* sized for the sample's share of new keys, and no more kept */
			nnew = add_sorted_tail(ps, ntail,
								   (uint32) ((uint64) ntail * (absent + 1) / (sampled + 1)));
			trim_blocks(ps);
		}
	}
	else
		nnew = add_sorted_tail(ps, ntail, ntail);
	cd_note_tail(set, CD_SET_TAIL_SEEN, ntail, nnew);
	cd_note_tail(set, CD_SET_TAIL_DUPS, nappended, nnew);
	ps->nall = ps->nsorted;
	fit_tail(ps);
}

void
cd_packed_make_room(CDSet *set)
{
	CDPackedSet *ps = as_packed(set);

	packed_compact(set);
	fit_tail(ps);
	if (ps->tail_cap == 0)
		cd_error_group_too_large(CD_SET_MAX_KEYS, ps->extra);
}

CDSet *
cd_packed_from_set(CDSet *set, MemoryContext mcxt)
{
	CDPackedSet *ps = create_empty(set->kt, mcxt, set->flags);
	CDKeyReader r;
	uint64		block[CD_PACKED_BLOCK];
	uint32		m;

	Assert(set->nall == set->nsorted);
	/* the old keys' size is plenty: they compress */
	alloc_blocks(ps, set->nsorted, (Size) set->nsorted * set->extra / 2);
	cd_set_ops(set)->reader(set, &r);
	while ((m = r.next_fixed(&r, block, CD_PACKED_BLOCK)) > 0)
		append_block(ps, block, m);
	ps->nall = ps->nsorted;
	fit_tail(ps);
	if (!(set->flags & CD_SET_IN_SLOT))
		pfree(set);
	return (CDSet *) ps;
}

Size
cd_packed_estimate(const CDSet *set)
{
	CDKeyReader r;
	uint64		block[CD_PACKED_BLOCK];
	uint32		nblocks = nblocks_of(set->nsorted);
	uint32		bi;
	uint32		m;
	uint32		sampled = 0;
	Size		bytes = 0;

	cd_set_ops(set)->reader(set, &r);
	r.count = set->nsorted;
	for (bi = 0; bi < nblocks; bi += CD_PACKED_SAMPLE)
	{
		r.pos = (Size) bi * CD_PACKED_BLOCK;
		m = r.next_fixed(&r, block, CD_PACKED_BLOCK);
		bytes += 1 + cd_block_gaps_size(m, cd_block_gap_bits(block, m)) +
			sizeof(CDPackedIndex);
		sampled++;
	}
	return sampled > 0 ? (Size) ((double) bytes * nblocks / sampled) : 0;
}

void
cd_packed_free(CDSet *set)
{
	CDPackedSet *ps = as_packed(set);
	uint32		i;

	for (i = 0; i < ps->nheld; i++)
		cd_packed_free((CDSet *) ps->held[i]);
	if (ps->own_cxt)
	{
		/* everything below is in it */
		MemoryContextDelete(ps->own_cxt);
		return;
	}
	if (ps->tail)
		pfree(ps->tail);
	if (ps->data)
		pfree(ps->data);
	if (ps->index)
		pfree(ps->index);
	pfree(ps);
}

CDSet *
cd_packed_from_state(StringInfo buf, const CDKeyType *kt, uint32 n,
					 MemoryContext mcxt)
{
	MemoryContext own = AllocSetContextCreate(mcxt, "count_distinct packed set",
											  ALLOCSET_SMALL_SIZES);
	CDPackedSet *ps = create_empty(kt, own, 0);
	Size		len = buf->len - buf->cursor;

	ps->own_cxt = own;
	ps->lazy = alloc_huge(own, len);
	memcpy(ps->lazy, buf->data + buf->cursor, len);
	ps->lazy_len = len;
	buf->cursor = buf->len;
	ps->nsorted = ps->nall = n;
	/* no tail until a key is added (cd_packed_make_room) */
	return (CDSet *) ps;
}

CDSet *
cd_packed_take(CDSet *set, MemoryContext mcxt)
{
	Assert(cd_packed_takeable(set));
	MemoryContextSetParent(as_packed(set)->own_cxt, mcxt);
	compact_taken(as_packed(set));
	return set;
}

static CDSet *
packed_create(const CDKeyType *kt, CDAlloc *alloc)
{
	CDPackedSet *ps = create_empty(kt, alloc->aggcontext, 0);

	alloc_blocks(ps, 0, 0);
	fit_tail(ps);
	return (CDSet *) ps;
}

static bool
packed_needs_alloc(const CDSet *set)
{
	return false;
}

static CDSet *
packed_add_value(CDSet *set, Datum value, CDAlloc *alloc)
{
	return cd_packed_add_key(set, cd_key_encode(set->kt, value));
}

/*
 * The distinct count without changing the set's keys: the union of the
 * sorted part and the held states is counted as it is read (keyunion.h);
 * the tail is sorted in place (it is an unordered bag: the set is the
 * same), then its distinct keys that the sorted part and the held states
 * lack are counted without writing.  This takes the sort's scratch, the
 * tail's size, at most; sorting a copy would take twice that on top of
 * the tail (a final count of one group of 10M int4 peaked at 1.25x the
 * keys' raw size: bench/README.md).
 */
static uint32
packed_count(CDSet *set)
{
	CDPackedSet *ps = as_packed(set);
	int			width = ps->extra;
	uint32		ntail = ps->nall - ps->nsorted;
	char	   *scratch;
	void	   *sorted;
	CDPackedProbe *pr;
	Size		base = ps->nsorted;
	uint32		nnew = 0;
	uint64		prev = 0;
	uint32		i;
	uint32		r;

	if (ps->nheld > 0 || ps->lazy)
	{
		/*
		 * The sorted part and the held states: their union, counted as it goes (a
		 * lazy set's keys are checked on the way).
		 */
		CDKeyReader in[CD_PACKED_MAX_HELD + 1];
		CDKeyReader *pin[CD_PACKED_MAX_HELD + 1];
		CDBlockDecoder	unp[CD_PACKED_MAX_HELD + 1];

		base = cd_key_union_count(pin, own_and_held_readers(ps, in, pin, unp));
	}
	if (base > CD_SET_MAX_KEYS)
		cd_error_group_too_large(CD_SET_MAX_KEYS, width);
	if (ntail == 0)
		return (uint32) base;
	/* the tail's keys are looked up in blocks */
	decode_in_place(ps);
	for (r = 0; r < ps->nheld; r++)
		decode_in_place(ps->held[r]);
	scratch = alloc_huge(CurrentMemoryContext, (Size) ntail * width);
	sorted = cd_sort_keys(ps->tail, scratch, ntail, width);
	if (sorted == scratch)
		memcpy(ps->tail, scratch, (Size) ntail * width);
	pfree(scratch);

	/* the tail's distinct keys in none of the sorted part and held states */
	pr = palloc((1 + ps->nheld) * sizeof(CDPackedProbe));
	probe_init(&pr[0], ps);
	for (r = 0; r < ps->nheld; r++)
		probe_init(&pr[1 + r], ps->held[r]);
	for (i = 0; i < ntail; i += CD_KEY_BATCH)
	{
		uint64		batch[CD_KEY_BATCH];
		uint32		m = Min(ntail - i, CD_KEY_BATCH);
		uint32		j;

		load_keys(ps->tail, width, i, batch, m);
		for (j = 0; j < m; j++)
		{
			uint64		k = batch[j];

			if (k != prev || (i == 0 && j == 0))
			{
				bool		present = probe_present(&pr[0], k);

				for (r = 0; r < ps->nheld && !present; r++)
					present = probe_present(&pr[1 + r], k);
				nnew += !present;
			}
			prev = k;
		}
		if ((i & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	pfree(pr);
	if (base + nnew > CD_SET_MAX_KEYS)
		cd_error_group_too_large(CD_SET_MAX_KEYS, width);
	return (uint32) (base + nnew);
}

/*
 * Add the keys of src (fixed-width keys of any representation; compacted
 * here) to dst: a small src through the tail, else one merge of the sorted
 * parts.
 */
static CDSet *
packed_merge(CDSet *dst, CDSet *src, CDAlloc *alloc)
{
	CDPackedSet *ps = as_packed(dst);
	CDKeyReader r;
	uint64		batch[CD_KEY_BATCH];
	uint32		m;
	uint32		i;

	Assert(src->kt->width == ps->extra);
	if (cd_packed_takeable(src) &&
		!cd_merge_by_append(src->nall, ps->nsorted))
	{
		/* a large partial state: kept as it is, merged later or never */
		add_held(ps, as_packed(src));
		return dst;
	}
	cd_set_ops(src)->compact(src);
	cd_set_ops(src)->reader(src, &r);
	if (cd_merge_by_append(src->nsorted, ps->nsorted))
	{
		while ((m = r.next_fixed(&r, batch, CD_KEY_BATCH)) > 0)
		{
			for (i = 0; i < m; i++)
				dst = cd_packed_add_key(dst, batch[i]);
		}
		/* a set of its own is consumed either way (set.h: cd_set_merge) */
		if (cd_packed_takeable(src))
			cd_packed_free(src);
		return dst;
	}
	packed_compact(dst);
	decode_in_place(ps);
	(void) merge_blocks(ps, &r, src->nsorted);
	ps->nall = ps->nsorted;
	fit_tail(ps);
	return dst;
}

static CDSet *
packed_copy(CDSet *set, MemoryContext mcxt)
{
	CDPackedSet *ps = as_packed(set);
	CDPackedSet *copy;
	uint32		nblocks;

	packed_compact(set);
	decode_in_place(ps);
	copy = create_empty(set->kt, mcxt, set->flags);
	nblocks = nblocks_of(ps->nsorted);
	copy->data_len = ps->data_len;
	copy->data_cap = ps->data_len + CD_PACKED_SLACK;
	copy->data = alloc_huge(mcxt, copy->data_cap);
	memcpy(copy->data, ps->data, ps->data_len);
	copy->index_cap = nblocks;
	copy->index = alloc_huge(mcxt, (Size) Max(nblocks, 1) * sizeof(CDPackedIndex));
	memcpy(copy->index, ps->index, (Size) nblocks * sizeof(CDPackedIndex));
	copy->nsorted = copy->nall = ps->nsorted;
	copy->hot = ps->hot;
	copy->flags |= ps->flags & CD_SET_HOT;
	/* no tail until a key is added (cd_packed_make_room) */
	return (CDSet *) copy;
}

static Size packed_serial_size(const CDKeyReader *r);
static void packed_write_serial(const CDKeyReader *r, char *dst);

static void
packed_reader(const CDSet *set, CDKeyReader *r)
{
	Assert(set->nall == set->nsorted && as_packed_c(set)->nheld == 0);
	/* readers may start anywhere: a lazy set's keys become blocks */
	decode_in_place(as_packed_c(set));
	cd_key_reader_init(r, set, set->nsorted, read_blocks, NULL);
	cd_key_reader_offer_serial(r, packed_serial_size, packed_write_serial);
}

/*
 * A block's bytes are its serial form (serialkeys.h) without its head
 * (packedset.h), except that a block of one key (the last) has a b byte
 * here and none there: the serialized keys of a reader over blocks
 * (packed_reader: a set held as it was sent is blocks by then) are the
 * blocks with their heads put back, in big-endian order.
 */
static Size
packed_serial_size(const CDKeyReader *r)
{
	const CDPackedSet *ps = (const CDPackedSet *) r->source;
	uint32		nblocks = nblocks_of(ps->nsorted);
	Size		bytes = ps->data_len + (Size) nblocks * ps->extra;

	Assert(!ps->lazy && ps->nheld == 0 && r->count == ps->nsorted);
	if (nblocks > 0 && block_len(ps->nsorted, nblocks - 1) == 1)
		bytes--;
	return bytes;
}

static void
packed_write_serial(const CDKeyReader *r, char *dst)
{
	const CDPackedSet *ps = (const CDPackedSet *) r->source;
	int			width = ps->extra;
	uint32		nblocks = nblocks_of(ps->nsorted);
	uint8	   *out = (uint8 *) dst;
	uint32		bi;

	for (bi = 0; bi < nblocks; bi++)
	{
		uint64		head = ps->index[bi].head;
		Size		from = ps->index[bi].offset;
		Size		to = bi + 1 < nblocks ? ps->index[bi + 1].offset : ps->data_len;
		int			j;

		for (j = width - 1; j >= 0; j--)
			*out++ = (uint8) (head >> (8 * j));
		if (block_len(ps->nsorted, bi) == 1)
			continue;			/* no b byte in serialkeys.h's form */
		memcpy(out, ps->data + from, to - from);
		out += to - from;
	}
}

/*
 * The writer of build: whole blocks are encoded as they fill; the last,
 * short one stays in the tail (sorted, but merged by the next compaction
 * like any tail).
 */
static void
put_packed(CDKeyWriter *w, const uint64 *keys, uint32 n)
{
	CDPackedSet *ps = (CDPackedSet *) w->target;
	uint32		i;

	Assert(ps->tail_cap >= CD_PACKED_BLOCK);
	for (i = 0; i < n; i++)
	{
		uint32		ntail = ps->nall - ps->nsorted;

		cd_key_store(ps->tail, ps->extra, ntail, keys[i]);
		ps->nall++;
		if (ntail + 1 == CD_PACKED_BLOCK)
		{
			uint64		block[CD_PACKED_BLOCK];
			uint32		j;

			for (j = 0; j < CD_PACKED_BLOCK; j++)
				block[j] = cd_key_load(ps->tail, ps->extra, j);
			append_block(ps, block, CD_PACKED_BLOCK);
		}
	}
}

static CDSet *
packed_build(const CDKeyType *kt, MemoryContext mcxt, uint32 n, Size bytes,
			 CDKeyWriter *w)
{
	CDPackedSet *ps = create_empty(kt, mcxt, 0);

	/* a guess at the packed size; the buffer grows by 1/8 when short */
	alloc_blocks(ps, n, (Size) n * kt->width / 3);
	ps->tail_cap = CD_PACKED_BLOCK;
	ps->tail = alloc_huge(ps->mcxt, (Size) CD_PACKED_BLOCK * kt->width);
	cd_key_writer_init(w, ps, put_packed, NULL);
	return (CDSet *) ps;
}

static Size
packed_memory_size(const CDSet *set)
{
	const CDPackedSet *ps = as_packed_c(set);
	Size		size = sizeof(CDPackedSet) + ps->data_cap + ps->lazy_len +
		(Size) ps->index_cap * sizeof(CDPackedIndex) +
		(Size) ps->tail_cap * ps->extra;
	uint32		i;

	for (i = 0; i < ps->nheld; i++)
		size += packed_memory_size((CDSet *) ps->held[i]);
	return size;
}

static Size
packed_used_bytes(const CDSet *set)
{
	return (Size) set->nall * set->extra;
}

static Size
packed_sorted_bytes(const CDSet *set)
{
	return as_packed_c(set)->data_len + as_packed_c(set)->lazy_len;
}

/*
 * No growth policy (policy.h's CDGrowth): a packed set never moves, and its
 * tail follows tail_target (cd_packed_make_room).
 */
const CDSetOps cd_packed_set_ops = {
	.create = packed_create,
	.needs_alloc = packed_needs_alloc,
	.add_value = packed_add_value,
	.compact = packed_compact,
	.count = packed_count,
	.merge = packed_merge,
	.copy = packed_copy,
	.reader = packed_reader,
	.build = packed_build,
	.memory_size = packed_memory_size,
	.used_bytes = packed_used_bytes,
	.sorted_bytes = packed_sorted_bytes,
};
