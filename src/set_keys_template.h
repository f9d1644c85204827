/*-------------------------------------------------------------------------
 *
 * set_keys_template.h
 *	  The set's work on sorted runs of keys, for one key width; included
 *	  once per width by set.c.
 *
 * The includer defines:
 *	  CDS_KEY	- the key type (uint8, uint16, uint32 or uint64)
 *	  CDS_NAME(x) - makes a width-specific name from x
 *
 *-------------------------------------------------------------------------
 */

/* Copy the distinct keys of the sorted run src to dst (dst may be src). */
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
 * The first position >= lo in the sorted run a (na keys) whose key is >= k:
 * a linear walk when a is at most 32 times longer than the run being
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
 * Drop from the sorted, distinct run b (nb keys) every key that is also in
 * the sorted, distinct run a (na keys); returns the new nb.  Costs about
 * na + nb comparisons when the runs are of similar length, and
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
 * Merge the sorted run b (no key of which is in a) into the sorted run a,
 * which has room for na + nb keys.  Works backwards, so no key of a is
 * overwritten before it is moved and no second array is needed; keys of a
 * below b[0] are not touched.
 */
static void
CDS_NAME(merge_into) (void *a_, size_t na, const void *b_, size_t nb)
{
	CDS_KEY    *a = a_;
	const CDS_KEY *b = b_;
	size_t		i = na;
	size_t		j = nb;
	size_t		w = na + nb;

	while (j > 0)
	{
		/* check for interrupts once per million keys written */
		size_t		stop = (w > (1 << 20)) ? w - (1 << 20) : 0;

		while (j > 0 && w > stop)
		{
			if (i > 0 && a[i - 1] > b[j - 1])
				a[--w] = a[--i];
			else
				a[--w] = b[--j];
		}
		CHECK_FOR_INTERRUPTS();
	}
}

static bool
CDS_NAME(is_strictly_increasing) (const void *a_, size_t n)
{
	const CDS_KEY *a = a_;
	size_t		i;

	for (i = 1; i < n; i++)
	{
		if (a[i - 1] >= a[i])
			return false;
	}
	return true;
}

#undef CDS_KEY
#undef CDS_NAME
