/*-------------------------------------------------------------------------
 *
 * set_keys_template.h
 *	  The fixed-width set's work on sorted arrays of keys, for one key width;
 *	  included once per width by fixedset.c.
 *
 * The includer defines:
 *	  CDS_KEY	- the key type (uint8, uint16, uint32 or uint64)
 *	  CDS_NAME(x) - makes a width-specific name from x
 *	  CDS_MERGE(x) - names keymerge.h's kernel x for that width
 *
 *-------------------------------------------------------------------------
 */

/* Copy the distinct keys of the sorted array src to dst (dst may be src). */
static size_t
CDS_NAME(unique) (void *dst_, const void *src_, size_t n)
{
	CDS_KEY    *dst = dst_;
	const CDS_KEY *src = src_;
	size_t		i;
	size_t		out;

	if (n == 0)
		return 0;
	dst[0] = src[0];
	out = 1;
	for (i = 1; i < n; i++)
	{
		if (src[i] != dst[out - 1])
			dst[out++] = src[i];
		if ((i & 0xFFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	return out;
}

/*
 * The first position >= lo in the sorted array a (na keys) whose key is >= k:
 * a linear walk when a is at most 32 times longer than the array being
 * looked up (one mispredicted branch per lookup), else galloping from lo
 * (about log(gap) comparisons).
 */
static inline size_t
CDS_NAME(lower_bound_from) (const CDS_KEY *a, size_t na, size_t lo, CDS_KEY k,
							bool linear)
{
	size_t		bound = 1;
	size_t		hi;

	if (linear)
	{
		while (lo < na && a[lo] < k)
			lo++;
		return lo;
	}

	while (lo + bound <= na && a[lo + bound - 1] < k)
	{
		lo += bound;
		bound <<= 1;
	}
	hi = Min(lo + bound, na);
	while (lo < hi)
	{
		size_t		mid = lo + (hi - lo) / 2;

		if (a[mid] < k)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Drop from the sorted, distinct array b (nb keys) every key that is also in
 * the sorted, distinct array a (na keys); returns the new nb.  Costs about
 * na + nb comparisons when the arrays are of similar length, and
 * nb * log(na / nb) when a is much longer.
 */
static size_t
CDS_NAME(remove_present) (const void *a_, size_t na, void *b_, size_t nb)
{
	const CDS_KEY *a = a_;
	CDS_KEY    *b = b_;
	bool		linear = (na / 32 <= nb);
	size_t		lo = 0;
	size_t		out = 0;
	size_t		j;

	for (j = 0; j < nb; j++)
	{
		CDS_KEY		k = b[j];

		if ((j & 0xFFFF) == 0xFFFF)
			CHECK_FOR_INTERRUPTS();
		lo = CDS_NAME(lower_bound_from) (a, na, lo, k, linear);
		if (lo < na && a[lo] == k)
			continue;
		b[out++] = k;
	}
	return out;
}

/*
 * Merge the sorted, distinct array b (nb keys) into the sorted, distinct
 * array a, which has room for na + nb keys, dropping the keys of b that a
 * already holds; returns the merged length.  No second array: one backward pass
 * writes from the top of the room down, so no key of a is overwritten
 * before it is moved.
 *
 * For each key y of b, the keys of a above it move up a window of
 * CDS_MERGE_WINDOW keys (a cache line) at a time: the whole window is
 * copied, and the count of its keys above y (branch-free, vectorized) says
 * how far the merge advanced; copying the window's other keys is harmless
 * while the gap between the read and the write positions is at least a
 * window (they land where later keys are written).  About one mispredicted
 * branch per key of b instead of one per key of a (windows of 8 and 16
 * keys measured: bench/README.md).
 *
 * When keys were dropped, the merged part moves down over the gap they
 * left (a memmove, much cheaper than a separate pass to find them first).
 */
#define CDS_MERGE_WINDOW (64 / sizeof(CDS_KEY))

static size_t
CDS_NAME(merge_unique_into) (void *a_, size_t na, const void *b_, size_t nb)
{
	CDS_KEY    *a = a_;
	const CDS_KEY *b = b_;
	size_t		i = na;			/* a[0 .. i) not moved yet */
	size_t		j = nb;			/* b[0 .. j) not merged yet */
	size_t		w = na + nb;	/* a[w .. na + nb) written */
	size_t		dropped;

	if (nb >= na / 4)
	{
		/*
		 * Arrays of similar length interleave closely: a branch-free loop
		 * (each step writes the larger key, and passes both when equal)
		 * beats any branch on the comparison.
		 */
		while (i > 0 && j > 0)
		{
			CDS_MERGE(union_down_to) (a, &i, b, &j,
									  j > (1 << 20) ? j - (1 << 20) : 0,
									  a, &w);
			CHECK_FOR_INTERRUPTS();
		}
	}

	while (j > 0)
	{
		CDS_KEY		y = b[j - 1];
		size_t		lo;

		while (i >= CDS_MERGE_WINDOW && w - i >= CDS_MERGE_WINDOW)
		{
			CDS_KEY		win[CDS_MERGE_WINDOW];
			uint32		above = 0;
			int			k;

			memcpy(win, a + i - CDS_MERGE_WINDOW, sizeof(win));
			for (k = 0; k < CDS_MERGE_WINDOW; k++)
				above += (win[k] > y);
			memcpy(a + w - CDS_MERGE_WINDOW, win, sizeof(win));
			i -= above;
			w -= above;
			if (above < CDS_MERGE_WINDOW)
				goto place;
		}
		/* near the bottom of a, or a gap below a window: find, then move */
		lo = i;
		while (lo > 0 && a[lo - 1] > y)
			lo--;
		memmove(a + w - (i - lo), a + lo, (i - lo) * sizeof(CDS_KEY));
		w -= i - lo;
		i = lo;
place:
		if (i > 0 && a[i - 1] == y)
			a[--w] = a[--i];	/* already present: y is dropped */
		else
			a[--w] = y;
		j--;
		if ((j & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	dropped = w - i;
	if (dropped > 0)
		memmove(a + i, a + w, (na + nb - w) * sizeof(CDS_KEY));
	return na + nb - dropped;
}

#undef CDS_MERGE_WINDOW

/*
 * Is any of up to nprobe keys, spread over the unsorted array b (nb keys,
 * newest last), in the sorted array a?  A binary search each.
 */
static bool
CDS_NAME(probe_present) (const void *a_, size_t na, const void *b_, size_t nb,
						 int nprobe)
{
	const CDS_KEY *a = a_;
	const CDS_KEY *b = b_;
	size_t		p;

	for (p = 0; p < (size_t) nprobe && p < nb; p++)
	{
		CDS_KEY		k = b[nb - 1 - p * nb / nprobe];
		size_t		lo = CDS_NAME(lower_bound_from) (a, na, 0, k, false);

		if (lo < na && a[lo] == k)
			return true;
	}
	return false;
}

#undef CDS_KEY
#undef CDS_NAME
#undef CDS_MERGE
