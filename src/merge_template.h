/*-------------------------------------------------------------------------
 *
 * merge_template.h
 *	  The merge engine's kernels for one key type: steps of a union or of
 *	  a count over sorted, strictly increasing arrays of integer keys
 *	  (fixed-width keys, or the 8-byte prefixes of byte keys); included once
 *	  per key type by keymerge.h.
 *
 * The includer defines:
 *	  CDM_KEY	- the key type (uint8, uint16, uint32 or uint64)
 *	  CDM_NAME(x) - makes a type-specific name from x
 *
 * A step has no branch: each side advances by the result of a comparison,
 * so equal heads advance together and a key in several inputs is taken
 * once.  The *_steps kernels run a number of steps the caller chose so
 * that no input runs out inside them (a step takes at most one key of each
 * input, so at most the keys left on every side, and for a union the room
 * left in the output): one bound check a step, for callers that read
 * inputs in batches and refill them between calls.  The union_upto and
 * union_down_to kernels stop when a side ends, for callers merging whole
 * arrays.  Callers check for interrupts between calls.
 *
 *-------------------------------------------------------------------------
 */

/*
 * Union, forward: out[*io ...] gets, each step, the smaller of a[*ia] and
 * b[*ib].  With exact (a constant at each call), steps steps; else while
 * *ia < na and *ib < bstop.
 */
static pg_attribute_always_inline void
CDM_NAME(union_forward) (const CDM_KEY *a, Size *ia, Size na,
						 const CDM_KEY *b, Size *ib, Size bstop,
						 CDM_KEY *out, Size *io, Size steps, bool exact)
{
	Size		xa = *ia,
				xb = *ib,
				xo = *io,
				end = xo + steps;

	while (exact ? xo < end : (xa < na && xb < bstop))
	{
		CDM_KEY		x = a[xa];
		CDM_KEY		y = b[xb];

		out[xo++] = x <= y ? x : y;
		xa += (x <= y);
		xb += (y <= x);
	}
	*ia = xa;
	*ib = xb;
	*io = xo;
}

/* Union, forward: steps keys to out[*io ...]. */
static pg_attribute_always_inline void
CDM_NAME(union_steps) (const CDM_KEY *a, Size *ia, const CDM_KEY *b, Size *ib,
					   CDM_KEY *out, Size *io, Size steps)
{
	CDM_NAME(union_forward) (a, ia, 0, b, ib, 0, out, io, steps, true);
}

/*
 * Union, forward, until a side ends: while *ia < na and *ib < bstop
 * (bstop at most b's length: a caller that checks for interrupts every so
 * many keys of b passes a nearer one).  Two bound checks a step, for
 * callers whose inputs are whole arrays rather than batches: a bound of
 * steps alone would shrink to nothing when one side has few keys left, all
 * above the other's.
 */
static pg_attribute_always_inline void
CDM_NAME(union_upto) (const CDM_KEY *a, Size *ia, Size na, const CDM_KEY *b,
					  Size *ib, Size bstop, CDM_KEY *out, Size *io)
{
	CDM_NAME(union_forward) (a, ia, na, b, ib, bstop, out, io, 0, false);
}

/*
 * Union, backward, until a side ends: the keys below *ia in a and *ib in b
 * are merged from the top, each step writing the larger of a[*ia - 1] and
 * b[*ib - 1] to out[--*io], while *ia > 0 and *ib > bstop.  out may be a
 * itself with its top free (an in-place merge): the write position stays
 * at or above the read one.
 */
static pg_attribute_always_inline void
CDM_NAME(union_down_to) (const CDM_KEY *a, Size *ia, const CDM_KEY *b,
						 Size *ib, Size bstop, CDM_KEY *out, Size *io)
{
	Size		xa = *ia,
				xb = *ib,
				xo = *io;

	while (xa > 0 && xb > bstop)
	{
		CDM_KEY		x = a[xa - 1];
		CDM_KEY		y = b[xb - 1];

		out[--xo] = x >= y ? x : y;
		xa -= (x >= y);
		xb -= (y >= x);
	}
	*ia = xa;
	*ib = xb;
	*io = xo;
}

/*
 * Count, two sides: steps keys of the union of a and b, not written.  When
 * ties is not NULL, *ties grows by the number of steps whose heads were
 * equal (a caller counting byte keys by their prefixes compares those again
 * whole); with ties NULL that sum is not computed.
 */
static pg_attribute_always_inline void
CDM_NAME(count_steps2) (const CDM_KEY *a, Size *ia, const CDM_KEY *b,
						Size *ib, Size steps, uint32 *ties)
{
	Size		xa = *ia,
				xb = *ib,
				s;
	uint32		t = 0;

	for (s = 0; s < steps; s++)
	{
		CDM_KEY		x = a[xa],
					y = b[xb];

		if (ties != NULL)
			t += (x == y);
		xa += (x <= y);
		xb += (y <= x);
	}
	if (ties != NULL)
		*ties += t;
	*ia = xa;
	*ib = xb;
}

/* Count, three sides: as count_steps2, each side with the smallest head advancing. */
static pg_attribute_always_inline void
CDM_NAME(count_steps3) (const CDM_KEY *a, Size *ia, const CDM_KEY *b,
						Size *ib, const CDM_KEY *c, Size *ic, Size steps,
						uint32 *ties)
{
	Size		xa = *ia,
				xb = *ib,
				xc = *ic,
				s;
	uint32		t = 0;

	for (s = 0; s < steps; s++)
	{
		CDM_KEY		x = a[xa],
					y = b[xb],
					z = c[xc];

		if (ties != NULL)
			t += (x == y) | (x == z) | (y == z);
		xa += (x <= y) & (x <= z);
		xb += (y <= x) & (y <= z);
		xc += (z <= x) & (z <= y);
	}
	if (ties != NULL)
		*ties += t;
	*ia = xa;
	*ib = xb;
	*ic = xc;
}

#undef CDM_KEY
#undef CDM_NAME
