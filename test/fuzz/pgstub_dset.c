/*
 * pgstub_dset.c
 *	  What the stored-set files (src/dset_*.c) need of the server beyond
 *	  pgstub.c, for test/fuzz/fuzz_dset.c.
 *
 * Errors do not go through PG_TRY here (pgstub.c's errfinish jumps
 * straight to the harness), so the catch branch of dset_decode and the
 * SQL-callable functions of dset_ops.c are never reached: they only need
 * to link.
 */
#include "postgres.h"

#include <stdio.h>
#include <stdlib.h>

#include "alloc.h"
#include "common/hashfn.h"
#include "lib/stringinfo.h"
#include "utils/memutils.h"

#include "pgstub.h"

#define STUB_UNREACHABLE(name) \
	do { fprintf(stderr, "stub: %s reached\n", name); abort(); } while (0)

sigjmp_buf *PG_exception_stack = NULL;
ErrorContextCallback *error_context_stack = NULL;

void
cd_alloc_init(CDAlloc *a, MemoryContext aggcontext, bool hash)
{
	memset(a, 0, sizeof(*a));
	a->aggcontext = aggcontext;
	a->mcxt = aggcontext;
}

void *
MemoryContextAllocHuge(MemoryContext context, Size size)
{
	return MemoryContextAllocExtended(context, size, MCXT_ALLOC_HUGE);
}

void
appendStringInfoSpaces(StringInfo str, int count)
{
	while (count-- > 0)
		appendStringInfoChar(str, ' ');
}

ErrorData *CopyErrorData(void) { STUB_UNREACHABLE("CopyErrorData"); }
void FlushErrorState(void) { STUB_UNREACHABLE("FlushErrorState"); }
void ReThrowError(ErrorData *edata) { STUB_UNREACHABLE("ReThrowError"); }
void pg_re_throw(void) { STUB_UNREACHABLE("pg_re_throw"); }
char *psprintf(const char *fmt,...) { STUB_UNREACHABLE("psprintf"); }
char *pstrdup(const char *in) { STUB_UNREACHABLE("pstrdup"); }
struct varlena *pg_detoast_datum(struct varlena *datum) { STUB_UNREACHABLE("pg_detoast_datum"); }
uint32 hash_bytes(const unsigned char *k, int keylen) { STUB_UNREACHABLE("hash_bytes"); }
uint64 hash_bytes_extended(const unsigned char *k, int keylen, uint64 seed) { STUB_UNREACHABLE("hash_bytes_extended"); }

void
resetStringInfo(StringInfo str)
{
	str->data[0] = '\0';
	str->len = 0;
	str->cursor = 0;
}

/* window frames (moving.c): not reached by the harness */
#include "moving.h"

CDMoving *cdmov_create(const CDKeyType *kt, MemoryContext mcxt) { STUB_UNREACHABLE("cdmov_create"); }
void cdmov_add(CDMoving *m, Datum value) { STUB_UNREACHABLE("cdmov_add"); }
bool cdmov_remove(CDMoving *m, Datum value) { STUB_UNREACHABLE("cdmov_remove"); }
Datum *cdmov_output_datums(CDMoving *m, uint32 *n) { STUB_UNREACHABLE("cdmov_output_datums"); }
