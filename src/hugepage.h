/*-------------------------------------------------------------------------
 *
 * hugepage.h
 *	  Large buffers (sets' arrays, compaction scratch) backed by the
 *	  kernel's transparent huge pages where it offers them on request.
 *
 * A large set fills its array, and a compaction its scratch, a few bytes
 * at a time from one end to the other: on 4 kB pages every 4 kB costs a
 * page fault.  One group of 10M uuid, serial, PostgreSQL 15 on Linux with
 * transparent huge pages in "madvise" mode: page faults took about 20% of
 * the query.  With the advice (5 interleaved runs): uuid 144,702 -> 43,324
 * faults, 2406-2933 -> 2188-2868 ms; md5 text 249,547 -> 52,966 faults,
 * 3092-4213 -> 2884-3540 ms; int4 (a packed set, a fifth of the size)
 * 35,414 -> 19,458 faults, time unchanged (docs/performance.md, "Huge pages").
 *
 * cd_advise_huge asks for huge pages (madvise MADV_HUGEPAGE) for the pages
 * of a buffer of CD_HUGE_MIN bytes or more, when the setting
 * count_distinct.huge_pages is on.  It is advice: where the kernel has no
 * such pages, or is set to "never", nothing changes.  The whole pages that
 * hold the buffer are advised, so that a buffer malloc() mapped on its own
 * stays one mapping (realloc() can still grow it by mremap()).
 *
 *-------------------------------------------------------------------------
 */
#ifndef CD_HUGEPAGE_H
#define CD_HUGEPAGE_H

#include "postgres.h"

#include "utils/memutils.h"

#ifndef CD_HUGE_MIN
#define CD_HUGE_MIN		((Size) 4 * 1024 * 1024)
#endif

extern PGDLLIMPORT bool cd_huge_pages;

extern void cd_hugepage_init(void);
extern void cd_advise_huge_pages(void *p, Size size);

static inline void *
cd_advise_huge(void *p, Size size)
{
	if (size >= CD_HUGE_MIN && cd_huge_pages)
		cd_advise_huge_pages(p, size);
	return p;
}

/* MemoryContextAllocExtended(mcxt, size, MCXT_ALLOC_HUGE), advised */
static inline void *
cd_alloc_huge(MemoryContext mcxt, Size size)
{
	return cd_advise_huge(MemoryContextAllocExtended(mcxt, size,
													 MCXT_ALLOC_HUGE),
						  size);
}

/* repalloc_huge(p, size), advised */
static inline void *
cd_realloc_huge(void *p, Size size)
{
	return cd_advise_huge(repalloc_huge(p, size), size);
}

#endif							/* CD_HUGEPAGE_H */
