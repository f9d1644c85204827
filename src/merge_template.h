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
 * inputs in batches and refill them between calls.  The union_upto,
 * union_down_to and keep_upto kernels stop when a side ends, for callers
 * merging whole arrays.  Callers check for interrupts between calls.
 *
 *-------------------------------------------------------------------------
 */

/* keep_upto's classes of a merge's keys (the same for every key type) */
#ifndef CD_MERGE_A
#define CD_MERGE_A		0x01	/* in the first input only */
#define CD_MERGE_BOTH	0x02	/* in both */
#define CD_MERGE_B		0x04	/* in the second input only */
#define CD_MERGE_ALL	(CD_MERGE_A | CD_MERGE_BOTH | CD_MERGE_B)
#endif

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
 * Keep-class merge, forward, until a side ends: while *ia < na and *ib <
 * bstop (and, with stop_first, until a key is kept).  Each step takes the
 * smaller head of a and b, both when equal, a key of one class: in a only
 * (CD_MERGE_A), in both (CD_MERGE_BOTH), in b only (CD_MERGE_B); a key of
 * a class in keep is written to out[*io] when out is not NULL, and *io
 * grows by one.  So keep = all three is a union, CD_MERGE_BOTH an
 * intersection, CD_MERGE_A a difference, and out NULL counts them
 * (containment: CD_MERGE_B none, overlap: CD_MERGE_BOTH some).  keep,
 * stop_first and whether out is NULL are constants at each call, so a step
 * is a few comparisons and adds, without a branch but the loop's.  Each
 * step writes out[*io], kept or not, so out has room for the most keys keep
 * could hold (na + nb for a union, the fewer of na and nb for an
 * intersection, na for a difference).  out may be a or b itself (the write
 * position stays at or below the read ones) when keep holds no class of
 * the other side's keys.
 */
static pg_attribute_always_inline void
CDM_NAME(keep_upto) (const CDM_KEY *a, Size *ia, Size na, const CDM_KEY *b,
					 Size *ib, Size bstop, CDM_KEY *out, Size *io, int keep,
					 bool stop_first)
{
	Size		xa = *ia,
				xb = *ib,
				xo = *io,
				start = *io;

	/* a union written out is union_forward's loop */
	if (keep == CD_MERGE_ALL && out != NULL && !stop_first)
	{
		CDM_NAME(union_forward) (a, ia, na, b, ib, bstop, out, io, 0, false);
		return;
	}
	while (xa < na && xb < bstop && !(stop_first && xo != start))
	{
		CDM_KEY		x = a[xa];
		CDM_KEY		y = b[xb];
		int			lt = x < y;
		int			gt = y < x;
		int			take;

		take = ((keep & CD_MERGE_A) ? lt : 0) |
			((keep & CD_MERGE_B) ? gt : 0) |
			((keep & CD_MERGE_BOTH) ? !(lt | gt) : 0);
		if (out != NULL)
			out[xo] = !(keep & CD_MERGE_B) ? x :
				!(keep & CD_MERGE_A) ? y : (lt ? x : y);
		xo += take;
		xa += !gt;
		xb += !lt;
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
