/*
 * unit_common.h
 *	  What the unit tests under test/unit/ share: a xorshift generator and
 *	  qsort comparators.  The includer defines uint32 and uint64 (postgres.h
 *	  or its own typedefs) and may seed rng before the first draw.
 */
#ifndef CD_UNIT_COMMON_H
#define CD_UNIT_COMMON_H

static uint64 rng = 88172645463325252ULL;

static inline uint64
next_random(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static inline int
cmp_u32(const void *a, const void *b)
{
	uint32		x = *(const uint32 *) a;
	uint32		y = *(const uint32 *) b;

	return (x > y) - (x < y);
}

static inline int
cmp_u64(const void *a, const void *b)
{
	uint64		x = *(const uint64 *) a;
	uint64		y = *(const uint64 *) b;

	return (x > y) - (x < y);
}

#endif							/* CD_UNIT_COMMON_H */
