/*-------------------------------------------------------------------------
 *
 * hugepage.c
 *	  Large buffers backed by transparent huge pages (see hugepage.h), and
 *	  the setting count_distinct.huge_pages.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#ifndef WIN32
#include <sys/mman.h>
#include <unistd.h>
#endif

#include "utils/guc.h"

#include "compat.h"
#include "hugepage.h"

bool		cd_huge_pages = true;

void
cd_hugepage_init(void)
{
	DefineCustomBoolVariable("count_distinct.huge_pages",
							 "Asks the kernel to back large sets and their scratch space with transparent huge pages.",
							 "Only where the kernel offers them on request (transparent_hugepage \"madvise\" mode); fewer page faults.",
							 &cd_huge_pages,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);
	MarkGUCPrefixReserved("count_distinct");
}

void
cd_advise_huge_pages(void *p, Size size)
{
#if defined(MADV_HUGEPAGE)
	uintptr_t	page = (uintptr_t) sysconf(_SC_PAGESIZE);
	uintptr_t	start;
	uintptr_t	end;

	if (page == 0 || (page & (page - 1)) != 0)
		return;
	start = (uintptr_t) p & ~(page - 1);
	end = ((uintptr_t) p + size + page - 1) & ~(page - 1);
	/* advice only: an error (an old kernel, no THP) changes nothing */
	(void) madvise((void *) start, end - start, MADV_HUGEPAGE);
#endif
}
