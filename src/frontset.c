/*-------------------------------------------------------------------------
 *
 * frontset.c
 *	  The set of many byte keys with its sorted part front-coded
 *	  (frontset.h): compaction, counting, merging, growth of the tail.
 *
 * The sorted part is one array of keys in serialkeys.h's byte form: for each
 * key, the length of the prefix it shares with the key before it and the
 * length of the rest (varints), then the rest.  The first key shares
 * nothing; the form is canonical, so the array is exactly what
 * cd_serial_write_bytes writes for the same keys.
 *
 * Compaction sorts and deduplicates the tail (varentry.h) and merges it
 * into the sorted part in one pass, in place: the array grows by a bound of
 * the new keys' encoded size (gap), the sorted part moves to its end, and
 * the merge (bytemerge.h: cd_byte_merge_into) writes from the front,
 * copying the sorted part's keys as they are except after a new key.
 * Decoding keeps the last two keys (two buffers), so a key stays valid
 * while the next is decoded.
 *
 * Budget.  The tail gets half of what front coding saves over the entries
 * of the sorted part (at least 1/16 of them and 8 kB): the set, tail
 * included, stays below the size of the same keys in a variable-size set,
 * and each compaction merges more keys than one there, for fewer passes
 * over the sorted part.  The transient peak is the array plus, for the
 * tail: its index (sizeof(CDVarItem) a key), its distinct entries packed,
 * and the gap.
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
#include "keymerge.h"
#include "serialkeys.h"
#include "policy.h"
#include "serialize.h"
#include "varentry.h"

#define as_front(set)	((CDFrontSet *) cd_set_as((set), CD_SET_FRONT))
#define as_front_c(set) ((const CDFrontSet *) cd_set_as((set), CD_SET_FRONT))

/*
 * The most a key's encoding (two varints of at most 5 bytes for keys below
 * 1 GB, and the key) exceeds its entry (a header of 1 or 4 bytes, and the
 * key).
 */
#define CD_FRONT_ENTRY_SLACK	6

/* cd_front_state_stays_front measures this many keys */
#define CD_FRONT_STATE_SAMPLE	4096

/* The least room of the tail, and the most it gets by the budget. */
#define CD_FRONT_MIN_TAIL	8192
#define CD_FRONT_MAX_TAIL	((Size) 1 << 30)

static void front_compact(CDSet *set);

static void *
alloc_huge(MemoryContext mcxt, Size size)
{
	return cd_alloc_huge(mcxt, Max(size, 1));
}

/*
 * Keep keylen while a writer adds the next sorted key, of len bytes (before
 * nsorted counts it).
 */
static inline void
note_keylen(CDFrontSet *fs, Size len)
{
	if (fs->nsorted == 0)
		fs->keylen = len;
	else if (fs->keylen != len)
		fs->keylen = CD_FRONT_MIXED;
}

/* ----------------------------------------------------------------
 *		The merge
 * ----------------------------------------------------------------
 */

/*
 * Merge the sorted, distinct keys of src into the sorted part, in place
 * (bytemerge.h: cd_byte_merge_into); the key src returned last must stay
 * valid while it returns the next one.  gap: at least the sum of
 * cd_front_key_bound() of src's keys.  Returns how many of them were new.
 */
static Size
merge_into(CDFrontSet *fs, CDByteSource *src, Size gap)
{
	Size		old = fs->codedbytes;
	Size		total = old + gap;
	char	   *data;
	CDByteSource part;
	CDByteMerged m;

	if (total > MaxAllocHugeSize)
		cd_error_group_too_large(CD_SET_MAX_KEYS, 0);
	data = fs->coded ? cd_realloc_huge(fs->coded, Max(total, 1)) :
		alloc_huge(fs->mcxt, total);
	fs->coded = data;
	fs->codedroom = Max(total, 1);
	memmove(data + gap, data, old);
	cd_byte_source_front(&part, data, gap, total);
	if (src->form == CD_BYTES_ITEMS)
		cd_byte_merge_into(NULL, data, &part, src, true, CD_BYTES_ITEMS, &m);
	else if (src->form == CD_BYTES_FRONT)
		cd_byte_merge_into(NULL, data, &part, src, true, CD_BYTES_FRONT, &m);
	else
		cd_byte_merge_into(NULL, data, &part, src, true, CD_BYTES_READER, &m);
	cd_byte_source_free(&part);
	Assert(m.bytes <= total);

	/* give back the gap the new keys did not take */
	if (total - m.bytes > m.bytes / 8 + CD_FRONT_MIN_TAIL)
	{
		fs->coded = cd_realloc_huge(data, Max(m.bytes, 1));
		fs->codedroom = Max(m.bytes, 1);
	}
	fs->codedbytes = m.bytes;
	fs->rawbytes += m.newraw;
	fs->nsorted = (uint32) m.count;
	fs->keylen = CD_FRONT_MIXED;
	return m.nnew;
}

/* ----------------------------------------------------------------
 *		The tail
 * ----------------------------------------------------------------
 */

static Size
tail_target(const CDFrontSet *fs)
{
	Size		saved = fs->rawbytes > fs->codedbytes ?
		fs->rawbytes - fs->codedbytes : 0;
	Size		target = Max(saved / 2, fs->rawbytes / 16);

	return Min(Max(target, CD_FRONT_MIN_TAIL), CD_FRONT_MAX_TAIL);
}

/* Compact, then give the tail room for at least need bytes. */
static void
make_room(CDFrontSet *fs, Size need)
{
	Size		target;

	front_compact((CDSet *) fs);
	if (fs->nall >= CD_SET_MAX_KEYS)
		cd_error_group_too_large(CD_SET_MAX_KEYS, 0);
	target = Max(tail_target(fs), need);
	/* the tail is empty: a new array, unless the old one is about right */
	if (fs->tailroom < target || fs->tailroom / 4 * 3 > target)
	{
		if (fs->tail)
			pfree(fs->tail);
		fs->tail = NULL;
		fs->tailroom = 0;
		fs->tail = alloc_huge(fs->mcxt, target);
		fs->tailroom = target;
	}
}

/* Room for an entry of len bytes of key in the tail: where to write them. */
static inline char *
append_entry(CDFrontSet *fs, Size len)
{
	Size		need = cd_entry_header_size(len) + len;
	char	   *p;

	if (unlikely(fs->tailroom - fs->tailbytes < need ||
				 fs->nall >= CD_SET_MAX_KEYS))
		make_room(fs, need);
	p = fs->tail + fs->tailbytes;
	cd_write_entry_header(p, len);
	fs->tailbytes += need;
	fs->nall++;
	return p + cd_entry_header_size(len);
}

void
cd_front_add_key(CDSet *set, const char *key, Size len)
{
	memcpy(append_entry(as_front(set), len), key, len);
}

/* ----------------------------------------------------------------
 *		Held states (frontset.h)
 * ----------------------------------------------------------------
 */

static void front_reader(const CDSet *set, CDKeyReader *r);
static void reader_free(CDKeyReader *r);

/* Free a set that has a context of its own, its held states with it. */
static void
free_own(CDFrontSet *fs)
{
	Assert(fs->own_cxt != NULL);
	/* its held states' contexts are children of it */
	MemoryContextDelete(fs->own_cxt);
}

/*
 * Merge the held states into the sorted part, one after the other, and
 * free them.
 */
static void
fold_held(CDFrontSet *fs)
{
	Size		ntail = fs->nall - fs->nsorted;
	uint32		nheld = fs->nheld;
	uint32		i;

	fs->nheld = 0;
	for (i = 0; i < nheld; i++)
	{
		CDFrontSet *h = fs->held[i];
		CDByteSource src;

		Assert(h->nall == h->nsorted && h->nheld == 0);
		cd_byte_source_front(&src, h->coded, 0, h->codedbytes);
		(void) merge_into(fs, &src, h->rawbytes +
						  (Size) h->nsorted * CD_FRONT_ENTRY_SLACK);
		cd_byte_source_free(&src);
		free_own(h);
	}
	fs->nall = fs->nsorted + ntail;
}

/*
 * The number of keys in the sorted part, the held states and the tail (its
 * sorted, distinct entries e, or NULL): one k-way merge of their keys
 * (bytemerge.h: cd_byte_union_count).
 */
static Size
count_union(const CDFrontSet *fs, const CDSortedEntries *e)
{
	CDByteSource st[CD_FRONT_MAX_HELD + 2];
	int			k = 0;
	uint32		r;

	StaticAssertStmt(CD_FRONT_MAX_HELD + 2 <= CD_BYTE_UNION_MAX,
					 "too many held states for one union count");
	for (r = 0; r <= fs->nheld; r++)
	{
		const CDFrontSet *src = r == 0 ? fs : fs->held[r - 1];

		Assert(r == 0 || src->nheld == 0);
		cd_byte_source_front(&st[k++], src->coded, 0, src->codedbytes);
	}
	if (e != NULL)
		cd_byte_source_items(&st[k++], e->items, e->n);
	return cd_byte_union_count(st, k);
}

/*
 * Keys of one length: count_union over records.  Each stream keeps up to
 * CD_FRONT_BUF keys read ahead: their first 8 bytes as integers (prefixes)
 * and, for a front-coded stream, the keys decoded into records of that
 * length (a key is the one before it with its rest written over).  Between
 * two top-ups the count runs a number of steps no stream runs out in, as
 * the fixed-width count does (keyunion.c): each step takes the smallest
 * head, and every stream whose head's prefix is the smallest advances,
 * without a branch.  That is exact unless two heads have the same prefix
 * at a step; the steps are counted, and the batch is taken again then,
 * comparing the rest of such keys.  count_union decodes each key into a
 * buffer and compares from the bytes the heads share with the last key
 * counted, with branches on every byte: several times slower on such
 * keys (bench/README.md).
 */
#ifndef CD_FRONT_BATCH
#define CD_FRONT_BATCH		256	/* tests build with less */
#endif
#define CD_FRONT_BUF		(4 * CD_FRONT_BATCH)

/* longer keys take count_union: a stream's records would take too much */
#define CD_FRONT_RECORD_MAX	256

typedef struct RecordStream
{
	const char *data;			/* front-coded keys [pos, end), or NULL: */
	Size		pos;
	Size		end;
	const CDSortedEntries *e;	/* the sorted tail: item base + j is key j */
	Size		base;
	Size		next;			/* its next item to read */
	bool		done;			/* nothing left to read */
	uint32		i;				/* keys [i, n) read and not taken */
	uint32		n;
	uint64	   *prefix;			/* each key's first 8 bytes (CD_FRONT_BUF) */
	char	   *recs;			/* a front-coded stream's keys */
} RecordStream;

/*
 * Decode front-coded keys of len bytes into s's records [m, max), with
 * their prefixes, each key built on the one before (prev, of prefix
 * prevprefix; NULL for the first); returns the new end.  Called with a
 * constant len for the common lengths, so that the copies are single
 * moves: a key's whole length is copied from the one before, then as much
 * from its rest, which may run into the next record's room (recs has one
 * more) and read past the rest while that stays inside the data.  A prefix
 * comes from the one before and the rest's first bytes, not from the bytes
 * just stored.
 */
static pg_attribute_always_inline uint32
decode_records(RecordStream *s, Size len, uint32 m, uint32 max,
			   const char *prev, uint64 prevprefix)
{
	while (m < max && s->pos < s->end)
	{
		char	   *rec = s->recs + m * len;
		Size		shared = cd_varint_get(s->data, &s->pos);
		Size		rest = cd_varint_get(s->data, &s->pos);
		const char *src = s->data + s->pos;
		uint64		prefix;

		/* this set wrote or checked them: keys of length len */
		Assert(shared + rest == len && (prev != NULL || shared == 0));
		if (len >= 8 && s->pos + len <= s->end)
		{
			if (prev != NULL && rec != prev)
				memcpy(rec, prev, len);
			memcpy(rec + shared, src, len);
			if (shared >= 8)
				prefix = prevprefix;
			else
			{
				uint64		w;

				memcpy(&w, src, sizeof(w));
				w = pg_ntoh64(w);
				prefix = shared == 0 ? w :
					(prevprefix & ~(PG_UINT64_MAX >> (8 * shared))) |
					(w >> (8 * shared));
			}
		}
		else
		{
			if (shared > 0 && rec != prev)
				memmove(rec, prev, shared);
			memcpy(rec + shared, src, rest);
			prefix = cd_bytes_prefix(rec, len);
		}
		Assert(prefix == cd_bytes_prefix(rec, len));
		s->pos += rest;
		s->prefix[m] = prefix;
		prevprefix = prefix;
		prev = rec;
		m++;
	}
	return m;
}

/*
 * Move the keys not taken to the front and read more, up to CD_FRONT_BUF;
 * false when none are left.
 */
static bool
record_refill(RecordStream *s, Size len)
{
	uint32		left = s->n - s->i;
	uint32		oldn = s->n;

	if (left >= CD_FRONT_BATCH || s->done)
		return left > 0;
	memmove(s->prefix, s->prefix + s->i, left * sizeof(uint64));
	if (s->data == NULL)
	{
		uint32		m = (uint32) Min((Size) (CD_FRONT_BUF - left),
									 s->e->n - s->next);
		uint32		j;

		for (j = 0; j < m; j++)
			s->prefix[left + j] = s->e->items[s->next + j].prefix;
		s->base = s->next - left;
		s->next += m;
		s->n = left + m;
		s->done = (s->next == s->e->n);
	}
	else
	{
		/* the next key is built on the last one read, kept in place */
		const char *prev;
		uint64		prevprefix;

		if (left > 0)
			memmove(s->recs, s->recs + s->i * len, left * len);
		prev = left > 0 ? s->recs + (left - 1) * len :
			oldn > 0 ? s->recs + (oldn - 1) * len : NULL;
		prevprefix = left > 0 ? s->prefix[left - 1] :
			oldn > 0 ? s->prefix[oldn - 1] : 0;
		if (len == 16)			/* uuid */
			s->n = decode_records(s, 16, left, CD_FRONT_BUF, prev, prevprefix);
		else if (len == 32)		/* hex digests */
			s->n = decode_records(s, 32, left, CD_FRONT_BUF, prev, prevprefix);
		else
			s->n = decode_records(s, len, left, CD_FRONT_BUF, prev, prevprefix);
		s->done = (s->pos >= s->end);
	}
	s->i = 0;
	return s->n > 0;
}

/* Key j of s's keys read ahead. */
static inline const char *
record_key(const RecordStream *s, uint32 j, Size len)
{
	if (s->data == NULL)
		return s->e->items[s->base + j].key;
	return s->recs + j * len;
}

static void
record_free(RecordStream *s)
{
	if (s->recs)
		pfree(s->recs);
	pfree(s->prefix);
}

/*
 * One exact step of the count: every stream whose head is the smallest key
 * advances.  Heads that share the smallest prefix are compared whole.
 */
static inline void
record_step(RecordStream **side, int k, Size len)
{
	uint64		least = side[0]->prefix[side[0]->i];
	const char *best = NULL;
	int			nleast = 0;
	int			i;

	for (i = 1; i < k; i++)
		least = Min(least, side[i]->prefix[side[i]->i]);
	for (i = 0; i < k; i++)
		nleast += (side[i]->prefix[side[i]->i] == least);
	if (likely(nleast == 1) || len <= 8)
	{
		/* the prefix is the whole key, or only one head has it */
		for (i = 0; i < k; i++)
			side[i]->i += (side[i]->prefix[side[i]->i] == least);
		return;
	}
	/* the smallest head of that prefix, then each one equal to it moves on */
	for (i = 0; i < k; i++)
	{
		const char *key = record_key(side[i], side[i]->i, len) + 8;

		if (side[i]->prefix[side[i]->i] == least &&
			(best == NULL || memcmp(key, best, len - 8) < 0))
			best = key;
	}
	for (i = 0; i < k; i++)
	{
		RecordStream *s = side[i];

		if (s->prefix[s->i] == least &&
			memcmp(record_key(s, s->i, len) + 8, best, len - 8) == 0)
			s->i++;
	}
}

static Size
count_union_records(const CDFrontSet *fs, const CDSortedEntries *e, Size len)
{
	RecordStream st[CD_FRONT_MAX_HELD + 2];
	RecordStream *side[CD_FRONT_MAX_HELD + 2];
	int			nst = 0;
	int			k;
	uint32		r;
	uint32		rounds = 0;
	Size		count = 0;

	for (r = 0; r <= fs->nheld + (e != NULL); r++)
	{
		RecordStream *s = &st[nst];

		memset(s, 0, sizeof(RecordStream));
		s->prefix = palloc(CD_FRONT_BUF * sizeof(uint64));
		if (r <= fs->nheld)
		{
			const CDFrontSet *src = r == 0 ? fs : fs->held[r - 1];

			s->data = src->coded;
			s->end = src->codedbytes;
			/* one record more: decode_records may write into it */
			s->recs = palloc((CD_FRONT_BUF + 1) * len + 1);
		}
		else
			s->e = e;
		side[nst] = s;
		nst++;
	}

	k = nst;
	for (;;)
	{
		uint32		steps = PG_UINT32_MAX;
		int			j = 0;
		int			i;

		/* top up; the streams at their end drop out */
		for (i = 0; i < k; i++)
		{
			if (record_refill(side[i], len))
				side[j++] = side[i];
		}
		k = j;
		if (k < 2)
			break;
		/* steps that no stream's keys run out in (one key a step at most) */
		for (i = 0; i < k; i++)
			steps = Min(steps, side[i]->n - side[i]->i);

		if (k <= 3)
		{
			RecordStream *sa = side[0];
			RecordStream *sb = side[1];
			RecordStream *sc = k == 3 ? side[2] : NULL;
			Size		ia = sa->i,
						ib = sb->i,
						ic = sc ? sc->i : 0;
			uint32		ties = 0;

			if (sc)
				cd_merge_count_steps3_u64(sa->prefix, &ia, sb->prefix, &ib,
										  sc->prefix, &ic, steps, &ties);
			else
				cd_merge_count_steps2_u64(sa->prefix, &ia, sb->prefix, &ib,
										  steps, &ties);
			if (ties == 0 || len <= 8)
			{
				/* equal prefixes were equal keys, or there were none */
				sa->i = (uint32) ia;
				sb->i = (uint32) ib;
				if (sc)
					sc->i = (uint32) ic;
				count += steps;
				if ((++rounds & 0x3FF) == 0)
					CHECK_FOR_INTERRUPTS();
				continue;
			}
		}
		/* the same steps again, comparing keys whole where needed */
		for (i = 0; i < (int) steps; i++)
			record_step(side, k, len);
		count += steps;
		if ((++rounds & 0x3FF) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	if (k == 1)
	{
		/* the last stream's keys, read ahead and not */
		RecordStream *s = side[0];

		do
		{
			count += s->n - s->i;
			s->i = s->n;
			if ((++rounds & 0x3FF) == 0)
				CHECK_FOR_INTERRUPTS();
		} while (record_refill(s, len));
	}
	for (r = 0; r < (uint32) nst; r++)
		record_free(&st[r]);
	return count;
}

/*
 * The length of every key of fs's sorted part, its held states and e (the sorted
 * tail, or NULL), if they are all of one length; else CD_FRONT_MIXED.
 */
static Size
union_keylen(const CDFrontSet *fs, const CDSortedEntries *e)
{
	Size		len = CD_FRONT_MIXED;
	uint32		r;
	Size		i;

	for (r = 0; r <= fs->nheld; r++)
	{
		const CDFrontSet *src = r == 0 ? fs : fs->held[r - 1];

		if (src->nsorted == 0)
			continue;
		if (src->keylen == CD_FRONT_MIXED ||
			(len != CD_FRONT_MIXED && src->keylen != len))
			return CD_FRONT_MIXED;
		len = src->keylen;
	}
	for (i = 0; e != NULL && i < e->n; i++)
	{
		if (len == CD_FRONT_MIXED)
			len = e->items[i].len;
		else if (e->items[i].len != len)
			return CD_FRONT_MIXED;
	}
	return len;
}

/* Make src (cd_front_takeable) a held state of fs. */
static void
add_held(CDFrontSet *fs, CDFrontSet *src)
{
	front_compact((CDSet *) src);
	if (src->nsorted == 0)
	{
		free_own(src);
		return;
	}
	if (fs->nheld == CD_FRONT_MAX_HELD)
		fold_held(fs);
	MemoryContextSetParent(src->own_cxt, fs->mcxt);
	fs->held[fs->nheld++] = src;
}

void
cd_front_free(CDSet *set)
{
	CDFrontSet *fs = as_front(set);
	uint32		i;

	for (i = 0; i < fs->nheld; i++)
		free_own(fs->held[i]);
	if (fs->own_cxt)
	{
		/* everything else is in it */
		MemoryContextDelete(fs->own_cxt);
		return;
	}
	if (fs->coded)
		pfree(fs->coded);
	if (fs->tail)
		pfree(fs->tail);
	if (fs->last)
		pfree(fs->last);
	pfree(fs);
}

CDSet *
cd_front_take(CDSet *set, MemoryContext mcxt)
{
	Assert(cd_front_takeable(set));
	MemoryContextSetParent(as_front(set)->own_cxt, mcxt);
	return set;
}

/* ----------------------------------------------------------------
 *		Operations
 * ----------------------------------------------------------------
 */

static CDFrontSet *
create_empty(const CDKeyType *kt, MemoryContext mcxt)
{
	CDFrontSet *fs = MemoryContextAllocZero(mcxt, sizeof(CDFrontSet));

	CD_SET_CHECK_HEADER(CDFrontSet);
	Assert(kt->encoding == CD_KEY_BYTES);
	fs->kt = kt;
	fs->kind = CD_SET_FRONT;
	fs->mcxt = mcxt;
	fs->keylen = CD_FRONT_MIXED;
	return fs;
}

static CDSet *
front_create(const CDKeyType *kt, CDAlloc *alloc)
{
	return (CDSet *) create_empty(kt, alloc->aggcontext);
}

static bool
front_needs_alloc(const CDSet *set)
{
	return false;
}

static CDSet *
front_add_value(CDSet *set, Datum value, CDAlloc *alloc)
{
	const CDKeyType *kt = set->kt;
	Datum		detoasted;
	Size		len = cd_varkey_size(kt, value, &detoasted);

	if (len > MaxAllocSize)
		cd_error_value_too_large(len);
	cd_varkey_write(kt, detoasted, append_entry(as_front(set), len));
	return set;
}

static void
front_compact(CDSet *set)
{
	CDFrontSet *fs = as_front(set);
	Size		ntail = fs->nall - fs->nsorted;
	CDSortedEntries e;
	CDByteSource src;
	Size		gap = 0;
	Size		i;

	if (fs->last)
	{
		/* built by a writer: that is over */
		pfree(fs->last);
		fs->last = NULL;
		fs->lastlen = fs->lastroom = 0;
	}
	fold_held(fs);
	if (ntail == 0)
		return;
	cd_sort_entries(set->kt, fs->tail, 0, fs->tailbytes, ntail, false, &e);
	for (i = 0; i < e.n; i++)
		gap += cd_front_key_bound(e.items[i].len);
	cd_byte_source_items(&src, e.items, e.n);
	(void) merge_into(fs, &src, gap);
	cd_note_tail(set, CD_SET_TAIL_DUPS, ntail, e.n);
	cd_entries_free(&e);
	fs->nall = fs->nsorted;
	fs->tailbytes = 0;
}

/*
 * The distinct count without changing the set: the tail's distinct keys
 * (in scratch) that the sorted part does not hold, found by one walk
 * (bytemerge.h: cd_byte_count_two).
 */
static uint32
front_count(CDSet *set)
{
	const CDFrontSet *fs = as_front_c(set);
	CDSortedEntries e;
	CDByteSource part;
	CDByteSource src;
	Size		nnew;

	if (fs->nheld > 0)
	{
		/* the held states (and the tail) merged as they are read */
		bool		tail = fs->nall > fs->nsorted;
		Size		len;
		Size		n;

		if (tail)
			cd_sort_entries(set->kt, fs->tail, 0, fs->tailbytes,
							fs->nall - fs->nsorted, false, &e);
		len = union_keylen(fs, tail ? &e : NULL);
		if (len != CD_FRONT_MIXED && len <= CD_FRONT_RECORD_MAX)
			n = count_union_records(fs, tail ? &e : NULL, len);
		else
			n = count_union(fs, tail ? &e : NULL);
		if (tail)
			cd_entries_free(&e);
		if (n > CD_SET_MAX_KEYS)
			cd_error_group_too_large(CD_SET_MAX_KEYS, 0);
		return (uint32) n;
	}
	if (fs->nall == fs->nsorted)
		return fs->nsorted;
	cd_sort_entries(set->kt, fs->tail, 0, fs->tailbytes,
					fs->nall - fs->nsorted, false, &e);
	cd_byte_source_front(&part, fs->coded, 0, fs->codedbytes);
	cd_byte_source_items(&src, e.items, e.n);
	nnew = cd_byte_count_two(NULL, &part, &src, true, CD_BYTES_ITEMS, false);
	cd_byte_source_free(&part);
	cd_byte_source_free(&src);
	cd_entries_free(&e);
	return fs->nsorted + (uint32) nnew;
}

/*
 * src (front-coded or variable-size) into dst: a small one's keys go into
 * the tail (as in varset.c), a larger one's are merged with the sorted
 * part in one pass.
 */
static CDSet *
front_merge(CDSet *d, CDSet *s, CDAlloc *alloc)
{
	CDFrontSet *dst = as_front(d);
	const CDSetOps *ops = cd_set_ops(s);
	CDKeyReader r;
	Size		srcbytes;

	Assert(s->kind == CD_SET_FRONT || s->kind == CD_SET_VAR);
	if (cd_front_takeable(s) &&
		!cd_merge_by_append(ops->used_bytes(s), dst->rawbytes + dst->tailbytes))
	{
		/* a large partial state: kept as it is, merged later or never */
		add_held(dst, as_front(s));
		return d;
	}
	ops->compact(s);
	srcbytes = ops->used_bytes(s);
	ops->reader(s, &r);
	if (cd_merge_by_append(srcbytes, dst->rawbytes + dst->tailbytes))
	{
		const char *key;
		Size		len;

		while ((key = r.next_bytes(&r, &len)) != NULL)
			cd_front_add_key(d, key, len);
	}
	else
	{
		CDByteSource from;

		front_compact(d);
		cd_byte_source_reader(&from, &r);
		(void) merge_into(dst, &from,
						  srcbytes + (Size) s->nsorted * CD_FRONT_ENTRY_SLACK);
		dst->nall = dst->nsorted;
	}
	if (s->kind == CD_SET_FRONT)
		reader_free(&r);
	/* a set of its own is consumed either way (set.h: cd_set_merge) */
	if (cd_front_takeable(s))
		free_own(as_front(s));
	return d;
}

static CDSet *
front_copy(CDSet *set, MemoryContext mcxt)
{
	CDFrontSet *fs = as_front(set);
	CDFrontSet *copy;

	front_compact(set);
	copy = create_empty(set->kt, mcxt);
	copy->flags = fs->flags & (CD_SET_TAIL_DUPS | CD_SET_TAIL_SEEN);
	copy->coded = alloc_huge(mcxt, fs->codedbytes);
	copy->codedroom = Max(fs->codedbytes, 1);
	memcpy(copy->coded, fs->coded, fs->codedbytes);
	copy->codedbytes = fs->codedbytes;
	copy->rawbytes = fs->rawbytes;
	copy->keylen = fs->keylen;
	copy->nsorted = copy->nall = fs->nsorted;
	return (CDSet *) copy;
}

/* A reader's decoder (r->pos: where the next key's encoding starts). */
static const char *
read_bytes(CDKeyReader *r, Size *len)
{
	CDFrontDecoder *d = (CDFrontDecoder *) r->source;
	const char *key;

	d->pos = r->pos;
	key = cd_front_decoder_next(d, len);
	r->pos = d->pos;
	return key;
}

static Size front_serial_size(const CDKeyReader *r);
static void front_write_serial(const CDKeyReader *r, char *dst);

/*
 * A reader of the sorted keys.  Each key stays valid while the next one is
 * read (keystream.h), not longer; the decoder lives in
 * CurrentMemoryContext (reader_free, the reader's release, frees it).
 */
static void
front_reader(const CDSet *set, CDKeyReader *r)
{
	const CDFrontSet *fs = as_front_c(set);
	CDFrontDecoder *d = palloc(sizeof(CDFrontDecoder));

	Assert(set->nall == set->nsorted && fs->nheld == 0);
	cd_front_decoder_init(d, fs->coded, 0, fs->codedbytes);
	cd_key_reader_init(r, d, set->nsorted, NULL, read_bytes);
	cd_key_reader_offer_serial(r, front_serial_size, front_write_serial);
	r->release = reader_free;
}

/*
 * The sorted keys are kept in serialkeys.h's byte form: a reader over them
 * offers them to be copied as they are.
 */
static Size
front_serial_size(const CDKeyReader *r)
{
	return ((const CDFrontDecoder *) r->source)->end;
}

static void
front_write_serial(const CDKeyReader *r, char *dst)
{
	const CDFrontDecoder *d = (const CDFrontDecoder *) r->source;

	memcpy(dst, d->data, d->end);
}

static void
reader_free(CDKeyReader *r)
{
	CDFrontDecoder *d = (CDFrontDecoder *) r->source;

	cd_front_decoder_free(d);
	pfree(d);
}

/* A writer's key: after the last one put (kept in fs->last). */
static void
put_bytes(CDKeyWriter *w, const char *key, Size len)
{
	CDFrontSet *fs = (CDFrontSet *) w->target;
	Size		shared = fs->nsorted > 0 ?
		cd_common_prefix(fs->last, fs->lastlen, key, len) : 0;
	Size		need = fs->codedbytes + cd_front_key_bound(len);

	if ((Size) fs->nsorted >= CD_SET_MAX_KEYS)
		cd_error_group_too_large(CD_SET_MAX_KEYS, 0);
	if (need > fs->codedroom)
	{
		Size		room = Max(need, fs->codedroom + fs->codedroom / 4);

		fs->coded = cd_realloc_huge(fs->coded, room);
		fs->codedroom = room;
	}
	cd_front_put_key(fs->coded, &fs->codedbytes, key, len, shared);
	/* allocated at the first key even if empty: no memcpy to NULL */
	if (fs->last == NULL || fs->lastroom < len)
	{
		Size		room = Max(Max(len, 2 * fs->lastroom), 64);

		if (fs->last)
			pfree(fs->last);
		fs->last = alloc_huge(fs->mcxt, room);
		fs->lastroom = room;
	}
	memcpy(fs->last, key, len);
	fs->lastlen = len;
	fs->rawbytes += cd_entry_header_size(len) + len;
	note_keylen(fs, len);
	fs->nsorted++;
	fs->nall++;
}

static CDSet *
front_build(const CDKeyType *kt, MemoryContext mcxt, uint32 n, Size bytes,
			CDKeyWriter *w)
{
	CDFrontSet *fs = create_empty(kt, mcxt);

	/* bytes: the keys' size, a bound of their front-coded size */
	fs->codedroom = Max(bytes, 64);
	fs->coded = alloc_huge(mcxt, fs->codedroom);
	cd_key_writer_init(w, fs, NULL, put_bytes);
	return (CDSet *) fs;
}

static Size
front_memory_size(const CDSet *set)
{
	const CDFrontSet *fs = as_front_c(set);
	Size		size = sizeof(CDFrontSet) + fs->codedroom + fs->tailroom +
		fs->lastroom;
	uint32		i;

	for (i = 0; i < fs->nheld; i++)
		size += front_memory_size((const CDSet *) fs->held[i]);
	return size;
}

/* In bytes of entries (varentry.h), as a variable-size set counts them. */
static Size
front_used_bytes(const CDSet *set)
{
	return as_front_c(set)->rawbytes + as_front_c(set)->tailbytes;
}

static Size
front_sorted_bytes(const CDSet *set)
{
	return as_front_c(set)->rawbytes;
}

const CDSetOps cd_front_set_ops = {
	.create = front_create,
	.needs_alloc = front_needs_alloc,
	.add_value = front_add_value,
	.compact = front_compact,
	.count = front_count,
	.merge = front_merge,
	.copy = front_copy,
	.reader = front_reader,
	.build = front_build,
	.memory_size = front_memory_size,
	.used_bytes = front_used_bytes,
	.sorted_bytes = front_sorted_bytes,
};

/* ----------------------------------------------------------------
 *		From a variable-size set
 * ----------------------------------------------------------------
 */

Size
cd_front_size(const CDSet *set)
{
	CDKeyReader r;

	Assert(set->nall == set->nsorted);
	cd_set_ops(set)->reader(set, &r);
	return cd_serial_bytes_size(&r);
}

bool
cd_front_state_stays_front(const char *keys, Size len, uint32 n)
{
	StringInfoData buf;
	Size		raw = 0;
	uint32		i;

	/* a read-only view; what does not decode is left to the decoder */
	buf.data = (char *) keys;
	buf.len = (int) Min(len, (Size) PG_INT32_MAX);
	buf.cursor = 0;
	for (i = 0; i < Min(n, CD_FRONT_STATE_SAMPLE); i++)
	{
		uint64		shared;
		uint64		rest;

		if (!cd_front_skim(&buf, &shared, &rest) || shared > MaxAllocSize)
			return false;
		raw += cd_entry_header_size(shared + rest) + shared + rest;
	}
	return buf.cursor > 0 && cd_front_state_stays(buf.cursor, raw);
}

/* A writer that only counts the keys and what they take as entries. */
static void
count_key(CDKeyWriter *w, const char *key, Size len)
{
	CDFrontSet *fs = (CDFrontSet *) w->target;

	fs->rawbytes += cd_entry_header_size(len) + len;
	note_keylen(fs, len);
	fs->nsorted++;
}

CDSet *
cd_front_from_state(StringInfo buf, const CDKeyType *kt, uint32 n,
					MemoryContext mcxt)
{
	MemoryContext own = AllocSetContextCreate(mcxt, "count_distinct front-coded set",
											  ALLOCSET_SMALL_SIZES);
	CDFrontSet *fs = create_empty(kt, own);
	CDKeyWriter w;
	int			start = buf->cursor;
	Size		len;

	/* every key decoded and checked (ERROR on anything invalid), not kept */
	cd_key_writer_init(&w, fs, NULL, count_key);
	cd_state_read_keys(buf, kt, NULL, n, &w);
	Assert(fs->nsorted == n);
	/* the checked bytes are the canonical form: this set's sorted part */
	len = buf->cursor - start;
	fs->own_cxt = own;
	fs->coded = alloc_huge(own, len);
	fs->codedroom = Max(len, 1);
	memcpy(fs->coded, buf->data + start, len);
	fs->codedbytes = len;
	fs->nall = fs->nsorted;
	return (CDSet *) fs;
}

/*
 * The keys of r (strictly increasing) as fs's sorted part, front-coded into
 * fs->coded, which has room for exactly keybytes of them (ERROR otherwise:
 * the caller counted them).
 */
static void
fill_from_reader(CDFrontSet *fs, CDKeyReader *r, Size keybytes)
{
	const char *key;
	const char *prev = NULL;
	Size		prevlen = 0;
	Size		len;
	Size		w = 0;

	Assert(fs->nsorted == 0 && fs->codedroom >= keybytes);
	while ((key = r->next_bytes(r, &len)) != NULL)
	{
		Size		shared = prev ? cd_common_prefix(prev, prevlen, key, len) : 0;

		if (cd_front_key_size(len, shared) > keybytes - w)
			elog(ERROR, "count_distinct: front-coded keys larger than the %zu bytes counted",
				 keybytes);
		cd_front_put_key(fs->coded, &w, key, len, shared);
		fs->rawbytes += cd_entry_header_size(len) + len;
		note_keylen(fs, len);
		prev = key;
		prevlen = len;
		if ((++fs->nsorted & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	if (w != keybytes)
		elog(ERROR, "count_distinct: front-coded keys smaller than the %zu bytes counted",
			 keybytes);
	fs->codedbytes = w;
	fs->nall = fs->nsorted;
}

CDSet *
cd_front_from_set(CDSet *set, CDAlloc *alloc)
{
	MemoryContext mcxt = alloc->aggcontext;
	const CDSetOps *ops = cd_set_ops(set);
	CDFrontSet *fs = create_empty(set->kt, mcxt);
	CDKeyReader r;
	Size		keybytes = cd_front_size(set);

	Assert(set->kind == CD_SET_VAR && set->nall == set->nsorted);
	fs->flags = set->flags & (CD_SET_TAIL_DUPS | CD_SET_TAIL_SEEN);
	fs->coded = alloc_huge(mcxt, keybytes);
	fs->codedroom = Max(keybytes, 1);
	/* a variable-size set's keys stay where they are while it is read */
	ops->reader(set, &r);
	fill_from_reader(fs, &r, keybytes);
	Assert(fs->nsorted == set->nsorted);
	fs->rawbytes = ops->sorted_bytes(set);
	if (alloc->var_newest == (void *) set)
		alloc->var_newest = NULL;
	if (!(set->flags & CD_SET_IN_SLOT))
		pfree(set);
	return (CDSet *) fs;
}

CDSet *
cd_front_from_local_state(const CDSet *src, const CDKeyType *kt,
						  Size keybytes, MemoryContext mcxt)
{
	MemoryContext own = AllocSetContextCreate(mcxt, "count_distinct front-coded set",
											  ALLOCSET_SMALL_SIZES);
	CDFrontSet *fs = create_empty(kt, own);

	Assert(src->kt->encoding == CD_KEY_BYTES && src->nall == src->nsorted);
	fs->own_cxt = own;
	fs->coded = alloc_huge(own, keybytes);
	fs->codedroom = Max(keybytes, 1);
	if (src->kind == CD_SET_FRONT)
	{
		/* its sorted part is the state's keys already */
		const CDFrontSet *from = as_front_c(src);

		if (from->nheld != 0 || from->codedbytes != keybytes)
			elog(ERROR, "count_distinct: a front-coded state is not the size counted");
		memcpy(fs->coded, from->coded, keybytes);
		fs->codedbytes = keybytes;
		fs->rawbytes = from->rawbytes;
		fs->keylen = from->keylen;
		fs->nsorted = fs->nall = src->nsorted;
	}
	else
	{
		CDKeyReader r;

		cd_set_ops(src)->reader(src, &r);
		fill_from_reader(fs, &r, keybytes);
	}
	return (CDSet *) fs;
}
