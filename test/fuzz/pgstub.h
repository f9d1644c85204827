/*
 * pgstub.h
 *	  What test/fuzz/pgstub.c offers the harness besides the server
 *	  functions it stubs.
 */
#ifndef CD_PGSTUB_H
#define CD_PGSTUB_H

#include "postgres.h"

#include <setjmp.h>

#include "fmgr.h"
#include "utils/palloc.h"

/* port.h maps these to libpgport, which the harness does not link */
#undef printf
#undef fprintf
#undef snprintf
#undef vsnprintf
#undef qsort

/* larger requests fail like a server out of memory (keeps the fuzzer lean) */
#define STUB_MAX_ALLOC		((Size) 64 * 1024 * 1024)

#define STUB_DOMAIN_INT4	((Oid) 900001)
#define STUB_DOMAIN_FLOAT8	((Oid) 900002)

typedef struct StubType
{
	Oid			typid;
	Oid			basetypid;		/* InvalidOid unless a domain */
	int16		typlen;
	bool		typbyval;
	char		typalign;
	const char *nspname;		/* how serialized states name it */
	const char *typname;
} StubType;

extern MemoryContext stub_cxt_query;
extern MemoryContext stub_cxt_fn;
extern sigjmp_buf *stub_error_jmp;
extern int	stub_last_sqlstate;

/*
 * A call as an aggregate's: fcinfo->context is an Agg node whose query
 * context is stub_cxt_fn (reset per input, which calls the registry's reset
 * callbacks, as the end of a query does).
 */
extern FunctionCallInfo stub_agg_fcinfo(void);

extern void stub_init(void);
extern void stub_reset(MemoryContext c);
extern long stub_live_chunks(MemoryContext c);
extern const StubType *stub_type(Oid typid);
extern const StubType *stub_type_list(void);

/*
 * Make bytea exist (typlen -1, btree "=" and "<"): the byte-key sets' unit
 * tests and the state harness; not in stub_type_list().
 */
extern void stub_enable_bytea(void);
extern void stub_enable_arrays(void);

#endif
