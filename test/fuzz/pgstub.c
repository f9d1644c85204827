/*
 * pgstub.c
 *	  The few PostgreSQL server functions that src/serialize.c, src/set.c,
 *	  src/sort.c and src/key.c call, for running them outside the server
 *	  (test/fuzz/fuzz_state.c).
 *
 * - Memory: every chunk is malloc'd with a header whose last 8 bytes point
 *   to its MemoryContext, as the server's allocators do, so the inline
 *   GetMemoryChunkContext() works.  Chunks are kept on a list per fake
 *   context, so the harness can free everything after an ERROR (like a
 *   context reset) and count what a successful call left behind.
 * - ereport(ERROR)/elog(ERROR): errfinish() longjmps to stub_error_jmp.
 * - pq_getmsg*: the logic of src/backend/libpq/pqformat.c.
 * - Types: a small table of type OIDs that "exist" (stub_types below):
 *   the fixed-width key types, two domains and one type without btree
 *   equality.  So the harness covers the fixed-width key path; the
 *   functions only the variable-size path needs (type I/O, SortSupport,
 *   encodings) abort if they are ever reached.
 */
#include "postgres.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

#include "catalog/pg_type.h"
#include "lib/stringinfo.h"
#include "libpq/pqformat.h"
#include "miscadmin.h"
#include "nodes/memnodes.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/syscache.h"
#include "utils/typcache.h"
#include "utils/sortsupport.h"
#include "utils/pg_locale.h"
#include "mb/pg_wchar.h"

#include "pgstub.h"

/* ---- globals the headers refer to ---- */
volatile sig_atomic_t InterruptPending = false;
volatile uint32 InterruptHoldoffCount = 0;
volatile uint32 QueryCancelHoldoffCount = 0;
volatile uint32 CritSectionCount = 0;
MemoryContext CurrentMemoryContext = NULL;

void
ProcessInterrupts(void)
{
	InterruptPending = false;
}

void
ExceptionalCondition(const char *conditionName, const char *errorType,
					 const char *fileName, int lineNumber)
{
	fprintf(stderr, "TRAP: %s(\"%s\", File: \"%s\", Line: %d)\n",
			errorType, conditionName, fileName, lineNumber);
	abort();
}

/* ---- memory ---- */

typedef struct StubChunk
{
	struct StubChunk *prev;
	struct StubChunk *next;
	Size		size;
	MemoryContext context;		/* must be right before the user data */
} StubChunk;

StaticAssertDecl(sizeof(StubChunk) % MAXIMUM_ALIGNOF == 0, "chunk header alignment");

typedef struct StubContext
{
	MemoryContextData ctx;		/* only .type and .name are set */
	StubChunk	head;			/* circular list of live chunks */
	long		nchunks;
} StubContext;

static StubContext contexts[2];
MemoryContext stub_cxt_query;	/* CurrentMemoryContext, aggregate context */
MemoryContext stub_cxt_fn;		/* flinfo->fn_mcxt */

static StubContext *
stub_context(MemoryContext c)
{
	return (StubContext *) c;
}

void
stub_init(void)
{
	for (int i = 0; i < 2; i++)
	{
		StubContext *s = &contexts[i];

		s->ctx.type = T_AllocSetContext;
		s->ctx.name = i == 0 ? "query" : "fn";
		s->head.prev = s->head.next = &s->head;
		s->nchunks = 0;
	}
	stub_cxt_query = &contexts[0].ctx;
	stub_cxt_fn = &contexts[1].ctx;
	CurrentMemoryContext = stub_cxt_query;
}

long
stub_live_chunks(MemoryContext c)
{
	return stub_context(c)->nchunks;
}

void
stub_reset(MemoryContext c)
{
	StubContext *s = stub_context(c);

	while (s->head.next != &s->head)
	{
		StubChunk  *ch = s->head.next;

		ch->next->prev = ch->prev;
		ch->prev->next = ch->next;
		free(ch);
	}
	s->nchunks = 0;
}

static void *
stub_alloc(MemoryContext c, Size size, int flags)
{
	StubContext *s = stub_context(c);
	StubChunk  *ch;

	if (!((flags & MCXT_ALLOC_HUGE) ? AllocHugeSizeIsValid(size) : AllocSizeIsValid(size)))
		elog(ERROR, "invalid memory alloc request size %zu", size);
	/* the harness's own limit: behave like a server out of memory */
	if (size > STUB_MAX_ALLOC)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory")));
	ch = malloc(sizeof(StubChunk) + size);
	if (ch == NULL)
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
	ch->size = size;
	ch->context = c;
	ch->next = s->head.next;
	ch->prev = &s->head;
	s->head.next->prev = ch;
	s->head.next = ch;
	s->nchunks++;
	if (flags & MCXT_ALLOC_ZERO)
		memset(ch + 1, 0, size);
	return ch + 1;
}

void *
MemoryContextAlloc(MemoryContext context, Size size)
{
	return stub_alloc(context, size, 0);
}

void *
MemoryContextAllocZero(MemoryContext context, Size size)
{
	return stub_alloc(context, size, MCXT_ALLOC_ZERO);
}

void *
MemoryContextAllocExtended(MemoryContext context, Size size, int flags)
{
	return stub_alloc(context, size, flags);
}

void *
palloc(Size size)
{
	return stub_alloc(CurrentMemoryContext, size, 0);
}

void *
palloc0(Size size)
{
	return stub_alloc(CurrentMemoryContext, size, MCXT_ALLOC_ZERO);
}

void *
palloc_extended(Size size, int flags)
{
	return stub_alloc(CurrentMemoryContext, size, flags);
}

void
pfree(void *pointer)
{
	StubChunk  *ch = ((StubChunk *) pointer) - 1;

	Assert(GetMemoryChunkContext(pointer) == ch->context);
	ch->next->prev = ch->prev;
	ch->prev->next = ch->next;
	stub_context(ch->context)->nchunks--;
	free(ch);
}

static void *
stub_realloc(void *pointer, Size size, int flags)
{
	StubChunk  *ch = ((StubChunk *) pointer) - 1;
	MemoryContext c = GetMemoryChunkContext(pointer);
	void	   *n = stub_alloc(c, size, flags);

	memcpy(n, pointer, Min(size, ch->size));
	pfree(pointer);
	return n;
}

void *
repalloc(void *pointer, Size size)
{
	return stub_realloc(pointer, size, 0);
}

void *
repalloc_huge(void *pointer, Size size)
{
	return stub_realloc(pointer, size, MCXT_ALLOC_HUGE);
}

/* ---- errors: ERROR longjmps to the harness ---- */

sigjmp_buf *stub_error_jmp = NULL;
int			stub_last_sqlstate = 0;
static int	stub_elevel;

bool
errstart(int elevel, const char *domain)
{
	stub_elevel = elevel;
	stub_last_sqlstate = ERRCODE_INTERNAL_ERROR;
	return elevel >= ERROR;
}

bool
errstart_cold(int elevel, const char *domain)
{
	return errstart(elevel, domain);
}

void
errfinish(const char *filename, int lineno, const char *funcname)
{
	if (stub_elevel >= ERROR)
	{
		if (stub_error_jmp == NULL)
		{
			fprintf(stderr, "ERROR outside the harness at %s:%d\n", filename, lineno);
			abort();
		}
		siglongjmp(*stub_error_jmp, 1);
	}
}

int
errcode(int sqlerrcode)
{
	stub_last_sqlstate = sqlerrcode;
	return 0;
}

int
errmsg(const char *fmt,...)
{
	return 0;
}

int
errmsg_internal(const char *fmt,...)
{
	return 0;
}

int
errdetail(const char *fmt,...)
{
	return 0;
}

int
errdetail_internal(const char *fmt,...)
{
	return 0;
}

/* ---- StringInfo and pqformat.c ---- */

void
initStringInfo(StringInfo str)
{
	str->maxlen = 1024;
	str->data = palloc(str->maxlen);
	str->len = 0;
	str->data[0] = '\0';
	str->cursor = 0;
}

void
enlargeStringInfo(StringInfo str, int needed)
{
	int			newlen;

	if (needed < 0 || ((Size) needed) >= (MaxAllocSize - (Size) str->len))
		elog(ERROR, "out of memory: cannot enlarge string buffer");
	needed += str->len + 1;
	if (needed <= str->maxlen)
		return;
	newlen = 2 * str->maxlen;
	while (needed > newlen)
		newlen = 2 * newlen;
	if (newlen > (int) MaxAllocSize)
		newlen = (int) MaxAllocSize;
	str->data = repalloc(str->data, newlen);
	str->maxlen = newlen;
}

void
appendStringInfoChar(StringInfo str, char ch)
{
	if (str->len + 1 >= str->maxlen)
		enlargeStringInfo(str, 1);
	str->data[str->len] = ch;
	str->len++;
	str->data[str->len] = '\0';
}

void
pq_begintypsend(StringInfo buf)
{
	initStringInfo(buf);
	appendStringInfoCharMacro(buf, '\0');
	appendStringInfoCharMacro(buf, '\0');
	appendStringInfoCharMacro(buf, '\0');
	appendStringInfoCharMacro(buf, '\0');
}

bytea *
pq_endtypsend(StringInfo buf)
{
	bytea	   *result = (bytea *) buf->data;

	Assert(buf->len >= VARHDRSZ);
	SET_VARSIZE(result, buf->len);
	return result;
}

void
pq_copymsgbytes(StringInfo msg, char *buf, int datalen)
{
	if (datalen < 0 || datalen > (msg->len - msg->cursor))
		ereport(ERROR,
				(errcode(ERRCODE_PROTOCOL_VIOLATION),
				 errmsg("insufficient data left in message")));
	memcpy(buf, &msg->data[msg->cursor], datalen);
	msg->cursor += datalen;
}

int
pq_getmsgbyte(StringInfo msg)
{
	if (msg->cursor >= msg->len)
		ereport(ERROR,
				(errcode(ERRCODE_PROTOCOL_VIOLATION),
				 errmsg("no data left in message")));
	return (unsigned char) msg->data[msg->cursor++];
}

unsigned int
pq_getmsgint(StringInfo msg, int b)
{
	unsigned char n8;
	uint16		n16;
	uint32		n32;

	switch (b)
	{
		case 1:
			pq_copymsgbytes(msg, (char *) &n8, 1);
			return n8;
		case 2:
			pq_copymsgbytes(msg, (char *) &n16, 2);
			return pg_ntoh16(n16);
		case 4:
			pq_copymsgbytes(msg, (char *) &n32, 4);
			return pg_ntoh32(n32);
	}
	elog(ERROR, "unsupported integer size %d", b);
	return 0;
}

int64
pq_getmsgint64(StringInfo msg)
{
	uint64		n64;

	pq_copymsgbytes(msg, (char *) &n64, sizeof(n64));
	return pg_ntoh64(n64);
}

void
pq_getmsgend(StringInfo msg)
{
	if (msg->cursor != msg->len)
		ereport(ERROR,
				(errcode(ERRCODE_PROTOCOL_VIOLATION),
				 errmsg("invalid message format")));
}

/* ---- types ---- */

static const StubType stub_types[] = {
	{BOOLOID, InvalidOid, 1, true, 'c', "pg_catalog", "bool"},
	{CHAROID, InvalidOid, 1, true, 'c', "pg_catalog", "char"},
	{INT2OID, InvalidOid, 2, true, 's', "pg_catalog", "int2"},
	{INT4OID, InvalidOid, 4, true, 'i', "pg_catalog", "int4"},
	{INT8OID, InvalidOid, 8, true, 'd', "pg_catalog", "int8"},
	{OIDOID, InvalidOid, 4, true, 'i', "pg_catalog", "oid"},
	{FLOAT4OID, InvalidOid, 4, true, 'i', "pg_catalog", "float4"},
	{FLOAT8OID, InvalidOid, 8, true, 'd', "pg_catalog", "float8"},
	{CASHOID, InvalidOid, 8, true, 'd', "pg_catalog", "money"},
	{DATEOID, InvalidOid, 4, true, 'i', "pg_catalog", "date"},
	{TIMEOID, InvalidOid, 8, true, 'd', "pg_catalog", "time"},
	{TIMESTAMPOID, InvalidOid, 8, true, 'd', "pg_catalog", "timestamp"},
	{TIMESTAMPTZOID, InvalidOid, 8, true, 'd', "pg_catalog", "timestamptz"},
	/* a domain over int4 */
	{STUB_DOMAIN_INT4, INT4OID, 4, true, 'i', "public", "dom_int4"},
	/* a domain over float8 */
	{STUB_DOMAIN_FLOAT8, FLOAT8OID, 8, true, 'd', "public", "dom_float8"},
	/* exists, not supported */
	{POINTOID, InvalidOid, 16, false, 'd', "pg_catalog", "point"},
	{0}
};

const StubType *
stub_type(Oid typid)
{
	for (const StubType *t = stub_types; t->typid != InvalidOid; t++)
		if (t->typid == typid)
			return t;
	return NULL;
}

const StubType *
stub_type_list(void)
{
	return stub_types;
}

bool
SearchSysCacheExists(int cacheId, Datum key1, Datum key2, Datum key3, Datum key4)
{
	if (cacheId == COLLOID)
		return false;			/* no collations: fixed-width keys have none */
	if (cacheId != TYPEOID)
		elog(ERROR, "stub: unexpected syscache %d", cacheId);
	return stub_type(DatumGetObjectId(key1)) != NULL;
}

/* the types that are not fixed-width keys here have no btree opclass */
TypeCacheEntry *
lookup_type_cache(Oid type_id, int flags)
{
	static TypeCacheEntry tce;

	memset(&tce, 0, sizeof(tce));
	tce.type_id = type_id;
	return &tce;
}

bool
type_is_collatable(Oid typid)
{
	return false;
}

int
errhint(const char *fmt,...)
{
	return 0;
}

/* ---- value_io.h: type references by name; no collations ---- */

#include "registry.h"
#include "value_io.h"

#if PG_VERSION_NUM >= 160000
void
appendBinaryStringInfo(StringInfo str, const void *data, int datalen)
#else
void
appendBinaryStringInfo(StringInfo str, const char *data, int datalen)
#endif
{
	enlargeStringInfo(str, datalen);
	memcpy(str->data + str->len, data, datalen);
	str->len += datalen;
	str->data[str->len] = '\0';
}

static void
stub_send_cstring(StringInfo buf, const char *s)
{
	appendBinaryStringInfo(buf, s, (int) strlen(s) + 1);
}

static const char *
stub_recv_cstring(StringInfo buf)
{
	const char *s = buf->data + buf->cursor;
	const char *end = memchr(s, '\0', buf->len - buf->cursor);

	if (end == NULL || end - s >= NAMEDATALEN)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("invalid count_distinct state")));
	buf->cursor += end - s + 1;
	return s;
}

/* as value_io.c: built-in types (OIDs below 10000) by OID, others by name */
void
cd_send_type_ref(StringInfo buf, Oid typid)
{
	const StubType *t = stub_type(typid);

	if (t == NULL)
		elog(ERROR, "cache lookup failed for type %u", typid);
	if (typid < 10000)
	{
		char		ref[5] = {1, (char) (typid >> 24), (char) (typid >> 16),
		(char) (typid >> 8), (char) typid};

		appendBinaryStringInfo(buf, ref, 5);
		return;
	}
	appendStringInfoChar(buf, 2);
	stub_send_cstring(buf, t->nspname);
	stub_send_cstring(buf, t->typname);
}

Oid
cd_recv_type_ref(StringInfo buf)
{
	int			kind = pq_getmsgbyte(buf);
	const char *nspname;
	const char *typname;

	if (kind == 1)
	{
		Oid			typid = (Oid) pq_getmsgint(buf, 4);

		if (typid >= 10000 || stub_type(typid) == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
					 errmsg("invalid count_distinct state")));
		return typid;
	}
	if (kind != 2)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("invalid count_distinct state")));
	nspname = stub_recv_cstring(buf);
	typname = stub_recv_cstring(buf);
	for (const StubType *t = stub_types; t->typid != InvalidOid; t++)
		if (strcmp(t->nspname, nspname) == 0 && strcmp(t->typname, typname) == 0)
			return t->typid;
	ereport(ERROR,
			(errcode(ERRCODE_UNDEFINED_OBJECT),
			 errmsg("type does not exist")));
	return InvalidOid;
}

void
cd_send_collation_ref(StringInfo buf, Oid collation)
{
	if (OidIsValid(collation))
		elog(ERROR, "stub: no collations");
	appendStringInfoChar(buf, 0);
}

Oid
cd_recv_collation_ref(StringInfo buf)
{
	int			kind = pq_getmsgbyte(buf);

	if (kind == 0)
		return InvalidOid;
	if (kind == 1)
		(void) pq_getmsgint(buf, 4);
	else if (kind == 2)
	{
		(void) stub_recv_cstring(buf);
		(void) stub_recv_cstring(buf);
	}
	else
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("invalid count_distinct state")));
	ereport(ERROR,
			(errcode(ERRCODE_UNDEFINED_OBJECT),
			 errmsg("collation does not exist")));
	return InvalidOid;
}

/* the query's key types: allocated per input, in the function context */
const CDKeyType *
cd_registry_keytype(FunctionCallInfo fcinfo, Oid typid, Oid collation)
{
	CDKeyType  *kt = MemoryContextAlloc(stub_cxt_fn, sizeof(CDKeyType));

	cd_keytype_init(kt, typid, collation, stub_cxt_fn);
	return kt;
}

/* ---- the variable-size key path: never reached with the types above ---- */

#define STUB_UNREACHABLE(name) \
	do { fprintf(stderr, "stub: %s reached (variable-size path)\n", name); abort(); } while (0)

int GetDatabaseEncoding(void) { STUB_UNREACHABLE("GetDatabaseEncoding"); }
CDValueIO *cd_value_io_create(MemoryContext mcxt) { STUB_UNREACHABLE("cd_value_io_create"); }
MemoryContext AllocSetContextCreateInternal(MemoryContext parent, const char *name, Size minContextSize, Size initBlockSize, Size maxBlockSize) { STUB_UNREACHABLE("AllocSetContextCreateInternal"); }
void MemoryContextDelete(MemoryContext context) { STUB_UNREACHABLE("MemoryContextDelete"); }
void MemoryContextReset(MemoryContext context) { STUB_UNREACHABLE("MemoryContextReset"); }
void cd_value_send(StringInfo buf, CDValueIO *vio, Oid typid, Datum value) { STUB_UNREACHABLE("cd_value_send"); }
Datum cd_value_recv(StringInfo buf, CDValueIO *vio, Oid typid, int32 typmod) { STUB_UNREACHABLE("cd_value_recv"); }
void cd_with_database_encoding(void (*fn) (void *), void *arg) { STUB_UNREACHABLE("cd_with_database_encoding"); }
Datum InputFunctionCall(FmgrInfo *flinfo, char *str, Oid typioparam, int32 typmod) { STUB_UNREACHABLE("InputFunctionCall"); }
char *OutputFunctionCall(FmgrInfo *flinfo, Datum val) { STUB_UNREACHABLE("OutputFunctionCall"); }
Datum ReceiveFunctionCall(FmgrInfo *flinfo, StringInfo buf, Oid typioparam, int32 typmod) { STUB_UNREACHABLE("ReceiveFunctionCall"); }
bytea *SendFunctionCall(FmgrInfo *flinfo, Datum val) { STUB_UNREACHABLE("SendFunctionCall"); }
void resetStringInfo(StringInfo str) { STUB_UNREACHABLE("resetStringInfo"); }
void PrepareSortSupportFromOrderingOp(Oid orderingOp, SortSupport ssup) { STUB_UNREACHABLE("PrepareSortSupportFromOrderingOp"); }
HeapTuple SearchSysCache1(int cacheId, Datum key1) { STUB_UNREACHABLE("SearchSysCache1"); }
void ReleaseSysCache(HeapTuple tuple) { STUB_UNREACHABLE("ReleaseSysCache"); }
void fmgr_info_cxt(Oid functionId, FmgrInfo *finfo, MemoryContext mcxt) { STUB_UNREACHABLE("fmgr_info_cxt"); }
Oid getTypeIOParam(HeapTuple typeTuple) { STUB_UNREACHABLE("getTypeIOParam"); }
bool get_collation_isdeterministic(Oid colloid) { STUB_UNREACHABLE("get_collation_isdeterministic"); }
char *get_collation_name(Oid colloid) { STUB_UNREACHABLE("get_collation_name"); }
bool lc_collate_is_c(Oid collation) { STUB_UNREACHABLE("lc_collate_is_c"); }
struct varlena *pg_detoast_datum_packed(struct varlena *datum) { STUB_UNREACHABLE("pg_detoast_datum_packed"); }
bool pg_verify_mbstr(int encoding, const char *mbstr, int len, bool noError) { STUB_UNREACHABLE("pg_verify_mbstr"); }
char *pnstrdup(const char *in, Size len) { STUB_UNREACHABLE("pnstrdup"); }
const char *pq_getmsgbytes(StringInfo msg, int datalen) { STUB_UNREACHABLE("pq_getmsgbytes"); }
void pq_sendbytes(StringInfo buf, const char *data, int datalen) { STUB_UNREACHABLE("pq_sendbytes"); }

Oid
getBaseType(Oid typid)
{
	const StubType *t = stub_type(typid);

	if (t == NULL)
		elog(ERROR, "cache lookup failed for type %u", typid);
	return OidIsValid(t->basetypid) ? t->basetypid : typid;
}

void
get_typlenbyvalalign(Oid typid, int16 *typlen, bool *typbyval, char *typalign)
{
	const StubType *t = stub_type(typid);

	if (t == NULL)
		elog(ERROR, "cache lookup failed for type %u", typid);
	*typlen = t->typlen;
	*typbyval = t->typbyval;
	*typalign = t->typalign;
}

char *
format_type_be(Oid type_oid)
{
	char	   *s = palloc(32);

	snprintf(s, 32, "type %u", type_oid);
	return s;
}

/*
 * alloc.c's slot pool, for the harness: a slot is CD_SLOT_SIZE bytes that
 * the set code must never free or reallocate (it copies a growing set out).
 * Here each slot is a chunk of the query context, which the harness resets.
 */
#include "alloc.h"

void *
cd_alloc_resize(CDAlloc *a, void *chunk, Size used, Size size)
{
	return repalloc_huge(chunk, size);
}

void *
cd_alloc_slot(CDAlloc *a)
{
	return MemoryContextAlloc(a->aggcontext, CD_SLOT_SIZE);
}
