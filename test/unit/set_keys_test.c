/*
 * set_keys_test.c
 *	  Unit test of set_keys_template.h (the set's work on sorted runs), per
 *	  key width, against an independent truth: qsort + a plain dedup loop.
 *
 * Random sorted, duplicate-free runs a and b of all length ratios (from
 * empty to thousands of keys, dense ranges with many common keys and sparse
 * ones with few) are merged with merge_unique_into, which must return
 * exactly the sorted distinct union; remove_present must leave exactly the
 * keys of b not in a; unique must dedup a sorted run.  The merge engine's
 * kernels (merge_template.h) on the same runs: a union by union_upto
 * stopped every few keys of b, a two-way count by count_steps2 with the
 * steps bounded as a batched caller bounds them (the equal heads counted
 * must be the common keys), and a three-way count by count_steps3 with a
 * third run inside a.
 *
 * Built and run by test/drivers/15-set-keys.sh without a server: the
 * template only needs the few definitions below.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint8_t uint8;
typedef uint16_t uint16;
typedef uint32_t uint32;
typedef uint64_t uint64;

typedef size_t Size;

#define CHECK_FOR_INTERRUPTS() ((void) 0)
#define Min(a, b) ((a) < (b) ? (a) : (b))
#define Max(a, b) ((a) > (b) ? (a) : (b))
#define pg_attribute_always_inline inline

/* the merge engine's kernels (keymerge.h), which the template calls */
#define CDM_KEY uint8
#define CDM_NAME(x) cd_merge_##x##_u8
#include "merge_template.h"
#define CDM_KEY uint16
#define CDM_NAME(x) cd_merge_##x##_u16
#include "merge_template.h"
#define CDM_KEY uint32
#define CDM_NAME(x) cd_merge_##x##_u32
#include "merge_template.h"
#define CDM_KEY uint64
#define CDM_NAME(x) cd_merge_##x##_u64
#include "merge_template.h"

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

#include "unit_common.h"


/* n random keys below range (0: the whole width), sorted and distinct */
static size_t
random_run(uint64 *out, size_t n, uint64 range, uint64 mask)
{
	size_t		i,
				m = 0;

	for (i = 0; i < n; i++)
		out[i] = (range ? next_random() % range : next_random()) & mask;
	qsort(out, n, sizeof(uint64), cmp_u64);
	for (i = 0; i < n; i++)
		if (m == 0 || out[i] != out[m - 1])
			out[m++] = out[i];
	return m;
}

/* the merge engine's kernels on a and b, whose union is want (nw keys) */
#define DEFINE_KERNEL_CHECK(W, T) \
static int \
check_kernels_##W(const uint64 *a64, size_t na, const uint64 *b64, size_t nb, \
				  const uint64 *want, size_t nw) \
{ \
	T		   *a = malloc((na + 1) * sizeof(T)); \
	T		   *b = malloc((nb + 1) * sizeof(T)); \
	T		   *c = malloc((na + 1) * sizeof(T)); \
	T		   *u = malloc((na + nb + 1) * sizeof(T)); \
	size_t		i, j = 0, o = 0, nc = 0, count, ncommon = 0; \
	uint32		ties = 0; \
	int			ok = 1; \
	for (i = 0; i < na; i++) a[i] = (T) a64[i]; \
	for (i = 0; i < nb; i++) b[i] = (T) b64[i]; \
	for (i = 1; i < na; i += 2) c[nc++] = a[i]; \
	for (i = 0, j = 0; i < na && j < nb;) \
	{ \
		if (a64[i] == b64[j]) { ncommon++; i++; j++; } \
		else if (a64[i] < b64[j]) i++; else j++; \
	} \
	/* union: stopped every 7 keys of b, then the rest of either */ \
	i = j = 0; \
	while (i < na && j < nb) \
		cd_merge_union_upto_##W(a, &i, na, b, &j, Min(nb, j + 7), u, &o); \
	while (i < na) u[o++] = a[i++]; \
	while (j < nb) u[o++] = b[j++]; \
	if (o != nw) ok = 0; \
	for (i = 0; ok && i < o; i++) if ((uint64) u[i] != want[i]) ok = 0; \
	/* two-way count, steps bounded by the keys left (at most 5) */ \
	i = j = 0; count = 0; \
	while (i < na && j < nb) \
	{ \
		size_t		steps = Min(Min(na - i, nb - j), 5); \
		cd_merge_count_steps2_##W(a, &i, b, &j, steps, &ties); \
		count += steps; \
	} \
	count += (na - i) + (nb - j); \
	if (count != nw || ties != ncommon) ok = 0; \
	/* three-way count with c inside a: the union is still want */ \
	i = j = o = 0; count = 0; \
	while (i < na && j < nb && o < nc) \
	{ \
		size_t		steps = Min(Min(na - i, nb - j), nc - o); \
		cd_merge_count_steps3_##W(a, &i, b, &j, c, &o, steps, NULL); \
		count += steps; \
	} \
	if (o == nc) \
	{ \
		/* the rest: a two-way count */ \
		while (i < na && j < nb) \
		{ \
			size_t		steps = Min(na - i, nb - j); \
			cd_merge_count_steps2_##W(a, &i, b, &j, steps, NULL); \
			count += steps; \
		} \
		count += (na - i) + (nb - j); \
	} \
	else \
	{ \
		/* a or b ended: the rest of the other and of c, c inside a */ \
		if (i == na) \
		{ \
			while (j < nb && o < nc) \
			{ \
				size_t		steps = Min(nb - j, nc - o); \
				cd_merge_count_steps2_##W(b, &j, c, &o, steps, NULL); \
				count += steps; \
			} \
			count += (nb - j) + (nc - o); \
		} \
		else \
			count += na - i; \
	} \
	if (count != nw) ok = 0; \
	free(a); free(b); free(c); free(u); \
	return ok; \
}

DEFINE_KERNEL_CHECK(u8, uint8)
DEFINE_KERNEL_CHECK(u16, uint16)
DEFINE_KERNEL_CHECK(u32, uint32)
DEFINE_KERNEL_CHECK(u64, uint64)

#define DEFINE_CHECK(W, T) \
static int \
check_##W(const uint64 *a64, size_t na, const uint64 *b64, size_t nb) \
{ \
	T		   *a = malloc((na + nb + 1) * sizeof(T)); \
	T		   *b = malloc((nb + 1) * sizeof(T)); \
	T		   *b2 = malloc((nb + 1) * sizeof(T)); \
	uint64	   *want = malloc((na + nb + 1) * sizeof(uint64)); \
	size_t		i, nw = 0, n, ia = 0, nr, nrw = 0; \
	int			ok = 1; \
	for (i = 0; i < na; i++) a[i] = (T) a64[i]; \
	for (i = 0; i < nb; i++) b[i] = b2[i] = (T) b64[i]; \
	memcpy(want, a64, na * sizeof(uint64)); \
	memcpy(want + na, b64, nb * sizeof(uint64)); \
	qsort(want, na + nb, sizeof(uint64), cmp_u64); \
	for (i = 0; i < na + nb; i++) \
		if (nw == 0 || want[i] != want[nw - 1]) want[nw++] = want[i]; \
	n = cd_merge_unique_into_##W(a, na, b, nb); \
	if (n != nw) ok = 0; \
	for (i = 0; ok && i < n; i++) if ((uint64) a[i] != want[i]) ok = 0; \
	/* remove_present: the keys of b that are not in a */ \
	for (i = 0; i < na; i++) a[i] = (T) a64[i]; \
	nr = cd_remove_present_##W(a, na, b2, nb); \
	for (i = 0; ok && i < nb; i++) \
	{ \
		while (ia < na && a64[ia] < b64[i]) ia++; \
		if (ia < na && a64[ia] == b64[i]) continue; \
		if (nrw >= nr || (uint64) b2[nrw] != b64[i]) ok = 0; \
		nrw++; \
	} \
	if (nrw != nr) ok = 0; \
	ok = ok && check_kernels_##W(a64, na, b64, nb, want, nw); \
	free(a); free(b); free(b2); free(want); \
	return ok; \
}

DEFINE_CHECK(u8, uint8)
DEFINE_CHECK(u16, uint16)
DEFINE_CHECK(u32, uint32)
DEFINE_CHECK(u64, uint64)

int
main(int argc, char **argv)
{
	long		iterations = argc > 1 ? atol(argv[1]) : 200000;
	static const int widths[] = {1, 2, 4, 8};
	long		failures[9] = {0};
	long		passed = 0,
				failed = 0;
	int			w;
	uint64	   *a = malloc(5000 * sizeof(uint64));
	uint64	   *b = malloc(5000 * sizeof(uint64));
	long		it;

	for (it = 0; it < iterations; it++)
	{
		int			width = widths[it % 4];
		uint64		mask = width == 8 ? ~(uint64) 0 : (((uint64) 1 << (8 * width)) - 1);
		/* mostly short runs, sometimes long ones, all length ratios */
		size_t		na = next_random() % ((it % 50 == 0) ? 4000 : 40);
		size_t		nb = next_random() % ((it % 70 == 0) ? 4000 : 40);
		/* dense (many common keys) or sparse */
		uint64		range = (it % 3 == 0) ? 1 + next_random() % 64 :
			(it % 3 == 1) ? 1 + next_random() % 100000 : 0;
		int			ok;

		na = random_run(a, na, range, mask);
		nb = random_run(b, nb, range, mask);
		switch (width)
		{
			case 1:
				ok = check_u8(a, na, b, nb);
				break;
			case 2:
				ok = check_u16(a, na, b, nb);
				break;
			case 4:
				ok = check_u32(a, na, b, nb);
				break;
			default:
				ok = check_u64(a, na, b, nb);
				break;
		}
		if (!ok)
		{
			if (failures[width] < 5)
				printf("FAIL: width %d, na %zu, nb %zu, range %llu (iteration %ld)\n",
					   width, na, nb, (unsigned long long) range, it);
			failures[width]++;
		}
	}
	/* one test per width: all its random cases */
	for (w = 1; w <= 8; w *= 2)
	{
		printf("%s: width %d, %ld random cases, %ld failed\n",
			   failures[w] ? "FAIL" : "ok", w, iterations / 4, failures[w]);
		if (failures[w])
			failed++;
		else
			passed++;
	}
	/* unique on a run with every key repeated */
	{
		uint32		r[1000];
		size_t		i, n;

		for (i = 0; i < 1000; i++)
			r[i] = (uint32) (i / 3);
		n = cd_unique_u32(r, r, 1000);
		if (n == 334 && r[0] == 0 && r[333] == 333)
		{
			printf("ok: unique\n");
			passed++;
		}
		else
		{
			printf("FAIL: unique\n");
			failed++;
		}
	}
	printf("%ld passed, %ld failed\n", passed, failed);
	free(a);
	free(b);
	return failed > 0;
}
