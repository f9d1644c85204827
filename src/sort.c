/*-------------------------------------------------------------------------
 *
 * sort.c
 *	  Sorting what the sets hold (see sort.h): fixed-width keys by radix
 *	  sort or quicksort, specialized per key width; byte keys by a radix
 *	  sort on their prefixes, then PostgreSQL's sort_template.h, which
 *	  sorts the other variable-size keys and Datums.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "alloc.h"
#include "miscadmin.h"
#include "port/pg_bitutils.h"

#include "key.h"
#include "sort.h"

/*
 * The radix sort is ours rather than lib/sort_template.h's quicksort
 * because it is measurably faster on fixed-width keys (bench/README.md,
 * "Measurements behind the code"; build with
 * -DCD_RADIX_MIN_KEYS=4000000000 to repeat).  Below
 * this many keys the quicksort wins (the radix sort's histograms cost a
 * fixed 1-8 kB to clear and sum).
 */
#ifndef CD_RADIX_MIN_KEYS
#define CD_RADIX_MIN_KEYS	64
#endif

/*
 * From this many keys, 4- and 8-byte keys are sorted on 11-bit digits: 3
 * passes instead of 4 for 4-byte keys, 6 instead of 8 for 8-byte ones, for
 * histograms of 8 kB a digit.  The large tails of packed sets are sorted
 * this way (bench/README.md).  Build with
 * -DCD_RADIX_WIDE_MIN_KEYS=4000000000 to sort on bytes only.
 */
#define CD_RADIX_WIDE_BITS	11
#ifndef CD_RADIX_WIDE_MIN_KEYS
#define CD_RADIX_WIDE_MIN_KEYS	65536
#endif

/*
 * Arrays of this many bytes or more (of 4- and 8-byte keys) are sorted by one
 * MSD pass on CD_RADIX_MSD_BITS bits into buckets, then each bucket by the
 * LSD sort on digits of CD_RADIX_BUCKET_BITS bits.  Past the CPU's caches
 * the LSD passes' 2048 write streams miss on every other key; the buckets
 * of the MSD pass fit in them (below the cut-off the extra pass costs more
 * than it saves: bench/README.md).  A bucket holding more than 1/CD_RADIX_MSD_SKEW of the keys
 * would not fit either: such arrays take the LSD sort alone.  Build with
 * -DCD_RADIX_MSD_MIN_BYTES=SIZE_MAX to leave it out.
 */
#ifndef CD_RADIX_MSD_MIN_BYTES
#define CD_RADIX_MSD_MIN_BYTES	((size_t) 4 * 1024 * 1024)
#endif
#define CD_RADIX_MSD_SKEW	16
#define CD_RADIX_MSD_SAMPLE	64
#define CD_RADIX_MSD_BITS	8
#define CD_RADIX_BUCKET_BITS	12

#define CDS_KEY uint8
#define CDS_NAME(x) cd_##x##_u8
#include "sort_keys_template.h"

#define CDS_KEY uint16
#define CDS_NAME(x) cd_##x##_u16
#include "sort_keys_template.h"

#define CDS_KEY uint32
#define CDS_NAME(x) cd_##x##_u32
#include "sort_keys_template.h"

#define CDS_KEY uint64
#define CDS_NAME(x) cd_##x##_u64
#include "sort_keys_template.h"

void *
cd_sort_keys(void *keys, void *scratch, size_t n, int width)
{
	switch (width)
	{
		case 1:
			return cd_sort_u8(keys, scratch, n);
		case 2:
			return cd_sort_u16(keys, scratch, n);
		case 4:
			return cd_sort_u32(keys, scratch, n);
		case 8:
			return cd_sort_u64(keys, scratch, n);
	}
	elog(ERROR, "invalid key width %d", width);
	pg_unreachable();
}

/*
 * Variable-size keys: PostgreSQL's sort_template.h, with the comparison
 * inlined (bytes, on an 8-byte abbreviated key first) or through
 * SortSupport (the type's comparator); byte keys through a radix sort
 * first.
 */

/*
 * Items whose keys share their first *depth bytes (zero-padded), and whose
 * prefixes are the 8 bytes from there: equal prefixes make the keys equal
 * on depth + 8 bytes when both are that long, so the comparison goes on
 * from there (URL-like keys: most pairs in a bucket share 8 digits past a
 * long common start, which memcmp compared from the first byte).
 */
static inline int
compare_varitems_from(const CDVarItem *a, const CDVarItem *b, const Size *depth)
{
	Size		from = *depth + sizeof(uint64);

	if (a->prefix != b->prefix)
		return a->prefix > b->prefix ? 1 : -1;
	if (a->len < from || b->len < from)
		return cd_varkey_compare_bytes(a->key, a->len, b->key, b->len);
	return cd_bytes_compare_from(a->key, a->len, b->key, b->len, from, &from);
}

#define ST_SORT quicksort_varitems_bytes
#define ST_ELEMENT_TYPE CDVarItem
#define ST_COMPARE(a, b, depth) compare_varitems_from(a, b, depth)
#define ST_COMPARE_ARG_TYPE const Size
#define ST_CHECK_FOR_INTERRUPTS
#define ST_SCOPE static
#define ST_DEFINE
#include "lib/sort_template.h"

/*
 * Byte keys are sorted by an MSD radix sort on the bytes of their 8-byte
 * prefixes (in place, "American flag": an item moves once per byte), down
 * to buckets of fewer than CD_VARRADIX_MIN_ITEMS items or to equal
 * prefixes, which the quicksort above finishes.  It is ours because it is
 * measurably faster than sort_template.h's quicksort alone (bench/README.md,
 * "Measurements behind the code", with the cut-offs tried; build with
 * -DCD_VARRADIX_MIN_ITEMS=4000000000 to repeat).
 */
#ifndef CD_VARRADIX_MIN_ITEMS
#define CD_VARRADIX_MIN_ITEMS	64
#endif

/* byte `level` (0: the most significant) of an item's prefix */
#define prefix_byte(item, level) \
	((uint8) ((item)->prefix >> (56 - 8 * (level))))

/*
 * The length of the start that the n items' keys share, all of them being
 * equal on their first depth bytes and at least that long.
 */
static Size
common_start(const CDVarItem *items, size_t n, Size depth)
{
	const char *k0 = items[0].key;
	Size		lcp = items[0].len;
	size_t		i;

	for (i = 1; i < n && lcp > depth; i++)
	{
		const char *k = items[i].key;
		Size		l = Min(lcp, items[i].len);
		Size		j = depth;

		cd_prefetch_item_key(items, i, n);

		while (j + sizeof(uint64) <= l &&
			   memcmp(k + j, k0 + j, sizeof(uint64)) == 0)
			j += sizeof(uint64);
		while (j < l && k[j] == k0[j])
			j++;
		lcp = j;
	}
	return lcp;
}

/*
 * Items that share a start longer than this are sorted by the quicksort
 * past it: it bounds the recursion (up to 9 calls of 4 kB of stack per 8
 * bytes of the start).
 */
#define CD_VARRADIX_MAX_DEPTH	64

/*
 * Sort items, whose keys share their first depth bytes (zero-padded), on
 * their prefixes (the 8 key bytes from depth), from byte `level` of them
 * (the ones before are equal), or from the first byte where they differ
 * when they all share that one.  Items whose prefixes are all equal, and
 * whose keys share more than that, are sorted on the 8 bytes past the
 * whole start they share, found in one pass (their prefixes taken again
 * from there, for this sort only): keys with long common starts (URLs,
 * paths) are radix-sorted too, rather than 8 bytes deeper at a time
 * (bench/README.md).
 */
static void
radix_sort_varitems(CDVarItem *items, size_t n, int level, Size depth)
{
	size_t		count[256];
	size_t		next[256];
	size_t		start;
	int			b;
	size_t		i;

	check_stack_depth();
	for (;;)
	{
		uint64		diff = 0;
		Size		lcp;

		if (n < CD_VARRADIX_MIN_ITEMS)
		{
			quicksort_varitems_bytes(items, n, &depth);
			return;
		}
		if (level < (int) sizeof(uint64))
		{
			memset(count, 0, sizeof(count));
			for (i = 0; i < n; i++)
				count[prefix_byte(&items[i], level)]++;
			if (count[prefix_byte(&items[0], level)] < n)
				break;
			/* all share this byte: the first one where they differ */
			for (i = 1; i < n; i++)
				diff |= items[i].prefix ^ items[0].prefix;
			if (diff != 0)
			{
				level = (63 - pg_leftmost_one_pos64(diff)) / 8;
				continue;
			}
		}

		/*
		 * Equal prefixes: the whole start the keys share, and the prefixes
		 * from there.  Equal zero-padding (short keys, or zero bytes) may
		 * hide no longer start: the quicksort then.
		 */
		lcp = depth + sizeof(uint64) < CD_VARRADIX_MAX_DEPTH ?
			common_start(items, n, depth) : 0;
		if (lcp < depth + sizeof(uint64))
		{
			quicksort_varitems_bytes(items, n, &depth);
			return;
		}
		lcp = Min(lcp, CD_VARRADIX_MAX_DEPTH);
		/* the callers' prefixes, from the first byte, kept in datum */
		if (depth == 0 && sizeof(Datum) >= sizeof(uint64))
		{
			for (i = 0; i < n; i++)
				items[i].datum = (Datum) items[i].prefix;
		}
		for (i = 0; i < n; i++)
		{
			cd_prefetch_item_key(items, i, n);
			items[i].prefix = items[i].len > lcp ?
				cd_bytes_prefix(items[i].key + lcp, items[i].len - lcp) : 0;
		}
		CHECK_FOR_INTERRUPTS();
		radix_sort_varitems(items, n, 0, lcp);
		if (depth == 0)
		{
			for (i = 0; i < n; i++)
				items[i].prefix = sizeof(Datum) >= sizeof(uint64) ?
					(uint64) items[i].datum :
					cd_bytes_prefix(items[i].key, items[i].len);
		}
		return;
	}

	/* move each item into its bucket: cycles of swaps, in place */
	start = 0;
	for (b = 0; b < 256; b++)
	{
		next[b] = start;
		start += count[b];
	}
	start = 0;
	for (b = 0; b < 256; b++)
	{
		size_t		end = start + count[b];

		while (next[b] < end)
		{
			CDVarItem	v = items[next[b]];
			int			d = prefix_byte(&v, level);

			while (d != b)
			{
				CDVarItem	t = items[next[d]];

				items[next[d]++] = v;
				v = t;
				d = prefix_byte(&v, level);
			}
			items[next[b]++] = v;
		}
		start = end;
	}
	CHECK_FOR_INTERRUPTS();

	/* each bucket on the next byte */
	start = 0;
	for (b = 0; b < 256; b++)
	{
		if (count[b] > 1)
			radix_sort_varitems(items + start, count[b], level + 1, depth);
		start += count[b];
	}
}

void
cd_sort_varitems_bytes(CDVarItem *items, size_t n)
{
	radix_sort_varitems(items, n, 0, 0);
}

/*
 * Byte keys of one length (the tail of a uniform set: uuid, md5 text) are
 * sorted as records rather than through an index of the whole tail: one
 * MSD pass scatters their bytes into dst by bucket, buckets of about
 * CD_RECORD_BUCKET keys (up to 2^CD_RECORD_BITS of them); then each
 * bucket, copied out, is indexed and sorted within the caches
 * (sort_bucket), and its distinct keys go back into dst in order.  The
 * whole tail's index (32 bytes a key, which the in-place radix sort moved
 * around at random far beyond the caches) and its packed copy are never
 * built: the scratch is dst (the keys' bytes) and one bucket's copy and
 * index, so the sort stays within the caches (bench/README.md).
 *
 * A bucket is a number whose digits are the ranks of the byte values that
 * occur at the first positions where the keys differ (RecordDigits): keys
 * of few values a byte (hex or decimal digits, letters) spread over the
 * buckets as evenly as random bytes do.  Buckets on the bits of the
 * prefix left most buckets of hex text empty, which then took the whole
 * tail's index (bench/README.md).
 */
#define CD_RECORD_BITS		11
#ifndef CD_RECORD_BUCKET
#define CD_RECORD_BUCKET	512
#endif
/* keys whose byte values choose the buckets (all of them if need be) */
#define CD_RECORD_SAMPLE	4096
/* a bucket is split into up to this many groups before insertion sorts */
#define CD_RECORD_GROUPS	256
/* groups of more keys than this are sorted by radix_sort_varitems */
#define CD_RECORD_INSERTION	24

/*
 * A bucket holding more than CD_RECORD_SKEW times the buckets' average (or
 * a quarter of the keys), and more than CD_RECORD_SPLIT_MIN keys, means
 * the byte values did not split them (a value in many of them, a long
 * common start): unique_records_indexed then.  So the scratch of the
 * buckets' way (the largest bucket's keys and two indexes of it) stays far
 * below the whole tail's index.
 */
#define CD_RECORD_SKEW		8
#ifndef CD_RECORD_SPLIT_MIN
#define CD_RECORD_SPLIT_MIN	16384
#endif

/* copy a key of len bytes; the usual lengths with a constant size */
static inline void
copy_record(char *dst, const char *src, size_t len)
{
	switch (len)
	{
		case 16:
			memcpy(dst, src, 16);
			break;
		case 32:
			memcpy(dst, src, 32);
			break;
		default:
			memcpy(dst, src, len);
			break;
	}
}

/*
 * Buckets of keys that are equal before byte `from`: digit j of a key's
 * bucket is the rank of its byte from + j among the values that occur
 * there (the ranks of a position's values are distinct, so keys in
 * different buckets are ordered as their buckets); the last digit may be
 * a rank scaled down (several values in one bucket: nothing is read after
 * it).  table[j][v] is value v's share of the bucket number at digit j.
 */
#define CD_RECORD_DIGITS	4

typedef struct RecordDigits
{
	size_t		from;			/* the first byte read */
	int			ndigits;		/* how many bytes are read from there */
	size_t		nbuckets;
	uint32		table[CD_RECORD_DIGITS][256];
} RecordDigits;

/*
 * The byte values at bytes from .. from + CD_RECORD_DIGITS - 1 (a byte a
 * value: marking is a store, where setting bits in words made each key
 * wait for the previous one's read-modify-write).
 */
typedef struct RecordValues
{
	uint8		seen[CD_RECORD_DIGITS][256];
} RecordValues;

static inline void
record_values_add(RecordValues *rv, const char *key, size_t from, int avail)
{
	int			j;

	for (j = 0; j < avail; j++)
	{
		rv->seen[j][(uint8) key[from + j]] = 1;
	}
}

/*
 * Make d split keys equal before byte from, of which avail bytes are read
 * (at most CD_RECORD_DIGITS), into about target buckets at most, by the
 * values in rv.  A key with a value rv lacks at a digit before the last
 * gets a bucket of nbuckets or more: rv came from a sample, which must be
 * taken again from all the keys (a value of the last digit that rv lacks
 * shares a neighbour's rank, which keeps the order).
 */
static void
record_digits_init(RecordDigits *d, const RecordValues *rv, size_t from,
				   int avail, size_t target)
{
	uint32		radix[CD_RECORD_DIGITS];
	int			nvalues[CD_RECORD_DIGITS];
	uint32		weight = 1;
	size_t		product = 1;
	int			j;

	d->from = from;
	d->ndigits = 0;
	for (j = 0; j < avail && product < target; j++)
	{
		int			nv = 0;
		int			v;

		for (v = 0; v < 256; v++)
			nv += rv->seen[j][v];
		nvalues[j] = Max(nv, 1);
		radix[j] = (uint32) Min((size_t) nvalues[j], target / product);
		product *= radix[j];
		d->ndigits++;
		if (radix[j] < (uint32) nvalues[j])
			break;				/* scaled: the last digit */
	}
	d->nbuckets = product;
	for (j = d->ndigits - 1; j >= 0; j--)
	{
		uint32		rank = 0;
		int			v;

		for (v = 0; v < 256; v++)
		{
			uint32		r = Min(rank, (uint32) nvalues[j] - 1);

			if (!rv->seen[j][v] && j < d->ndigits - 1)
				d->table[j][v] = (uint32) d->nbuckets;	/* unseen: see above */
			else
				d->table[j][v] = (uint32) (((uint64) r * radix[j]) / nvalues[j]) * weight;
			rank += rv->seen[j][v];
		}
		weight *= radix[j];
	}
}

static inline size_t
record_bucket(const RecordDigits *d, const char *key)
{
	const uint8 *k = (const uint8 *) key + d->from;
	size_t		b = 0;
	int			j;

	for (j = 0; j < d->ndigits; j++)
		b += d->table[j][k[j]];
	return b;
}

/*
 * Where the n keys (prefixes given) first differ, known from the XOR of
 * their prefixes with the first one's: the first byte read by a split,
 * and how many bytes from there (0: the keys are all equal).
 */
static inline void
record_split_at(uint64 differ, size_t len, size_t *from, int *avail)
{
	if (differ != 0)
		*from = (size_t) (63 - pg_leftmost_one_pos64(differ)) / 8;
	else
		*from = Min(len, sizeof(uint64));
	*avail = (int) Min((size_t) CD_RECORD_DIGITS, len - *from);
}

static inline bool
record_item_less(const CDVarItem *a, const CDVarItem *b)
{
	if (a->prefix != b->prefix)
		return a->prefix < b->prefix;
	return a->len > sizeof(uint64) &&
		memcmp(a->key + sizeof(uint64), b->key + sizeof(uint64),
			   a->len - sizeof(uint64)) < 0;
}

/*
 * Sort the m keys of len bytes packed in keys, all equal before byte hint,
 * through items (room for m in each of a and b); returns the sorted items
 * (a or b).  The keys are split
 * into up to CD_RECORD_GROUPS groups by the values of the bytes where they
 * first differ, then each group sorted by insertion, or by the radix sort
 * above when it holds more than CD_RECORD_INSERTION keys.  Random keys
 * leave about 2 a group: the radix sort alone ended each bucket in
 * sort_template.h's quicksort of ~16 items (a third of the sort's time).
 */
static CDVarItem *
sort_bucket(const char *keys, size_t m, size_t len, size_t hint,
			CDVarItem *a, CDVarItem *b)
{
	uint32		count[CD_RECORD_GROUPS + 1];
	RecordValues rv;
	RecordDigits d;
	uint64		differ = 0;
	size_t		from;
	int			avail;
	size_t		i;
	size_t		g;

	/* the values from byte hint on, gathered on the way */
	Assert(hint < len);
	avail = (int) Min((size_t) CD_RECORD_DIGITS, len - hint);
	memset(&rv, 0, sizeof(rv));
	for (i = 0; i < m; i++)
	{
		a[i].key = keys + i * len;
		a[i].len = len;
		a[i].datum = (Datum) 0;
		a[i].prefix = cd_bytes_prefix(a[i].key, len);
		differ |= a[i].prefix ^ a[0].prefix;
		record_values_add(&rv, a[i].key, hint, avail);
	}
	record_split_at(differ, len, &from, &avail);
	if (from != hint)
	{
		memset(&rv, 0, sizeof(rv));
		for (i = 0; i < m; i++)
			record_values_add(&rv, a[i].key, from, avail);
	}
	record_digits_init(&d, &rv, from, avail, CD_RECORD_GROUPS);
	if (d.nbuckets <= 1)
	{
		radix_sort_varitems(a, m, 0, 0);
		return a;
	}
	/* each item's group, kept in its datum (unused for byte keys) */
	memset(count, 0, sizeof(count));
	for (i = 0; i < m; i++)
	{
		a[i].datum = (Datum) record_bucket(&d, a[i].key);
		count[a[i].datum + 1]++;
	}
	for (g = 0; g < d.nbuckets; g++)
		count[g + 1] += count[g];
	for (i = 0; i < m; i++)
		b[count[a[i].datum]++] = a[i];
	/* count[g] is now group g's end */
	for (g = 0; g < d.nbuckets; g++)
	{
		size_t		start = g == 0 ? 0 : count[g - 1];
		size_t		n = count[g] - start;
		CDVarItem  *grp = b + start;
		size_t		j;

		if (n > CD_RECORD_INSERTION)
		{
			radix_sort_varitems(grp, n, 0, 0);
			continue;
		}
		for (j = 1; j < n; j++)
		{
			CDVarItem	v = grp[j];
			size_t		k = j;

			while (k > 0 && record_item_less(&v, &grp[k - 1]))
			{
				grp[k] = grp[k - 1];
				k--;
			}
			grp[k] = v;
		}
	}
	return b;
}

/*
 * The byte values did not split the keys (a value in most of them, a long
 * common start): one index of them all, sorted by the radix sort above, as
 * other tails are (cd_sort_entries), for the same scratch.
 */
static size_t
unique_records_indexed(const char *src, size_t n, size_t stride, size_t len,
					   char *dst)
{
	CDVarItem  *items = cd_alloc_huge(CurrentMemoryContext,
									  n * sizeof(CDVarItem));
	size_t		w = 0;
	size_t		i;

	for (i = 0; i < n; i++)
	{
		items[i].key = src + i * stride;
		items[i].len = len;
		items[i].datum = (Datum) 0;
		items[i].prefix = cd_bytes_prefix(items[i].key, len);
	}
	radix_sort_varitems(items, n, 0, 0);
	for (i = 0; i < n; i++)
	{
		cd_prefetch_item_key(items, i, n);
		if (i > 0 && items[i - 1].prefix == items[i].prefix &&
			memcmp(items[i - 1].key, items[i].key, len) == 0)
			continue;
		copy_record(dst + w * len, items[i].key, len);
		w++;
		if ((i & 0xFFFF) == 0xFFFF)
			CHECK_FOR_INTERRUPTS();
	}
	pfree(items);
	return w;
}

size_t
cd_sort_unique_records(const char *src, size_t n, size_t stride, size_t len,
					   char *dst)
{
	uint64		first;
	uint64		differ = 0;
	size_t		sample;
	RecordValues rv;
	RecordDigits *d;
	size_t		from;
	int			avail;
	int			bits = 0;
	uint32	   *start;
	uint32	   *next;
	size_t		largest = 0;
	char	   *copy;
	CDVarItem  *items;
	size_t		w = 0;
	size_t		b;
	size_t		i;

	Assert(n <= PG_UINT32_MAX);
	if (n == 0)
		return 0;
	if (len == 0)
		return 1;				/* every key is the empty one */

	/*
	 * Where the keys first differ, then the byte values from there, from a
	 * sample of CD_RECORD_SAMPLE keys: a pass over all of them, beyond the
	 * caches, cost a sixth of the sort of random 16-byte keys.  When a key
	 * holds a value the sample lacks, the histogram's pass says so, and the
	 * values are taken from all the keys.
	 */
	first = cd_bytes_prefix(src, len);
	for (i = 1; i < n; i++)
		differ |= cd_bytes_prefix(src + i * stride, len) ^ first;
	if (differ == 0 && len <= sizeof(uint64))
	{
		copy_record(dst, src, len);
		return 1;				/* the keys are all equal */
	}
	record_split_at(differ, len, &from, &avail);
	while (bits < CD_RECORD_BITS && (n >> bits) > CD_RECORD_BUCKET)
		bits++;
	d = palloc(sizeof(RecordDigits));
	start = NULL;
	for (sample = Max(n / CD_RECORD_SAMPLE, 1);; sample = 1)
	{
		memset(&rv, 0, sizeof(rv));
		for (i = 0; i < n; i += sample)
			record_values_add(&rv, src + i * stride, from, avail);
		record_digits_init(d, &rv, from, avail, (size_t) 1 << bits);
		CHECK_FOR_INTERRUPTS();

		start = palloc0((d->nbuckets + 1) * sizeof(uint32));
		for (i = 0; i < n; i++)
		{
			size_t		bk = record_bucket(d, src + i * stride);

			if (unlikely(bk >= d->nbuckets))
				break;			/* a value the sample lacks */
			start[bk + 1]++;
		}
		if (i == n)
			break;
		Assert(sample > 1);
		pfree(start);
	}
	next = palloc(d->nbuckets * sizeof(uint32));
	for (b = 0; b < d->nbuckets; b++)
	{
		largest = Max(largest, start[b + 1]);
		start[b + 1] += start[b];
		next[b] = start[b];
	}
	CHECK_FOR_INTERRUPTS();
	if (largest > Max(Min(CD_RECORD_SKEW * (n / d->nbuckets), n / 4),
					  CD_RECORD_SPLIT_MIN))
	{
		pfree(d);
		pfree(next);
		pfree(start);
		return unique_records_indexed(src, n, stride, len, dst);
	}
	for (i = 0; i < n; i++)
	{
		const char *key = src + i * stride;

		copy_record(dst + (size_t) next[record_bucket(d, key)]++ * len,
					key, len);
	}
	CHECK_FOR_INTERRUPTS();

	/*
	 * Each bucket: copied out, sorted, its distinct keys written back from
	 * w, which never passes the bucket's start (the buckets after it are
	 * untouched; no two buckets share a key).
	 */
	copy = cd_alloc_huge(CurrentMemoryContext, largest * len);
	items = cd_alloc_huge(CurrentMemoryContext,
						  2 * largest * sizeof(CDVarItem));
	for (b = 0; b < d->nbuckets; b++)
	{
		size_t		m = start[b + 1] - start[b];
		const CDVarItem *sorted;
		const CDVarItem *last = NULL;

		if (m == 0)
			continue;
		memcpy(copy, dst + (size_t) start[b] * len, m * len);
		/* a bucket's keys are equal before its last digit's byte */
		sorted = sort_bucket(copy, m, len,
							 d->from + Max(d->ndigits, 1) - 1,
							 items, items + largest);
		for (i = 0; i < m; i++)
		{
			if (last != NULL && last->prefix == sorted[i].prefix &&
				memcmp(last->key, sorted[i].key, len) == 0)
				continue;
			last = &sorted[i];
			Assert(w <= start[b] + i);
			copy_record(dst + w * len, sorted[i].key, len);
			w++;
		}
		CHECK_FOR_INTERRUPTS();
	}
	pfree(items);
	pfree(copy);
	pfree(d);
	pfree(next);
	pfree(start);
	return w;
}

#define ST_SORT cd_sort_varitems_ssup
#define ST_ELEMENT_TYPE CDVarItem
#define ST_COMPARE(a, b, ssup) ApplySortComparator((a)->datum, false, (b)->datum, false, ssup)
#define ST_COMPARE_ARG_TYPE SortSupportData
#define ST_CHECK_FOR_INTERRUPTS
#define ST_SCOPE
#define ST_DEFINE
#include "lib/sort_template.h"

#define ST_SORT cd_sort_varitems_abbrev
#define ST_ELEMENT_TYPE CDVarItem
#define ST_COMPARE(a, b, ssup) cd_compare_varitems_abbrev(a, b, ssup)
#define ST_COMPARE_ARG_TYPE SortSupportData
#define ST_CHECK_FOR_INTERRUPTS
#define ST_SCOPE
#define ST_DEFINE
#include "lib/sort_template.h"

#define ST_SORT cd_sort_datums
#define ST_ELEMENT_TYPE Datum
#define ST_COMPARE(a, b, ssup) ApplySortComparator(*(a), false, *(b), false, ssup)
#define ST_COMPARE_ARG_TYPE SortSupportData
#define ST_CHECK_FOR_INTERRUPTS
#define ST_SCOPE
#define ST_DEFINE
#include "lib/sort_template.h"
