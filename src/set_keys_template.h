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
	}
	return out;
}

/*
 * Merge the sorted, distinct run b (nb keys) into the sorted, distinct run a
 * (na keys, with room for na + nb), dropping the keys of b that a already
 * has; returns how many keys of b were added.
 *
 * The merge works backwards, so no key of a is overwritten before it is
 * moved and no second array is needed; keys of a below b[0] are not
 * touched.  Each dropped key leaves one free slot between those untouched
 * keys and the merged ones; only then (d > 0) does a second pass close the
 * gap.  Distinct input costs one pass over a per compaction.
 */
static size_t
CDS_NAME(merge_into) (void *a_, size_t na, const void *b_, size_t nb)
{
	CDS_KEY    *a = a_;
	const CDS_KEY *b = b_;
	size_t		i = na;
	size_t		j = nb;
	size_t		w = na + nb;
	size_t		dropped;

	while (j > 0)
	{
		/* check for interrupts once per million keys written */
		size_t		stop = (w > (1 << 20)) ? w - (1 << 20) : 0;

		while (j > 0 && w > stop)
		{
			if (i > 0 && a[i - 1] >= b[j - 1])
			{
				if (a[i - 1] == b[j - 1])
					j--;		/* a has it already */
				a[--w] = a[--i];
			}
			else
				a[--w] = b[--j];
		}
		CHECK_FOR_INTERRUPTS();
	}

	/* a[0 .. i) stayed; the merged keys are a[w .. na + nb) */
	dropped = w - i;
	if (dropped > 0)
		memmove(a + i, a + w, (na + nb - w) * sizeof(CDS_KEY));
	return nb - dropped;
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
