/*
 * pgstub.c
 *	  The PostgreSQL server functions that the codecs and sets of src/
 *	  call, for running them outside the server (test/fuzz/fuzz_state.c).
 *	  Only server functions are stubbed; the project's own modules are
 *	  linked as they are (the registry finds the query's context through a
 *	  fake Agg node: pgstub.h).
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
 *   equality: the fixed-width key path.  The functions only the other
 *   variable-size paths need (type I/O, SortSupport, encodings) abort if
 *   they are ever reached.  The unit tests of the byte-key sets and the
 *   state harness add bytea (stub_enable_bytea), whose keys are the
 *   values' bytes and need none of them.
 */
#include "postgres.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

#include "catalog/pg_operator_d.h"
#include "catalog/pg_type.h"
#include "lib/stringinfo.h"
#include "libpq/pqformat.h"
#include "miscadmin.h"
#include "nodes/execnodes.h"
#include "nodes/memnodes.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/syscache.h"
#include "utils/typcache.h"
#include "utils/sortsupport.h"
#include "utils/pg_locale.h"
#include "utils/regproc.h"
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

FunctionCallInfo
stub_agg_fcinfo(void)
{
	static EState estate;
	static AggState aggstate;
	static FmgrInfo flinfo;
	static union
	{
		FunctionCallInfoBaseData fcinfo;
		char		space[SizeForFunctionCallInfo(2)];
	}			call;

	estate.type = T_EState;
	estate.es_query_cxt = stub_cxt_fn;
	aggstate.ss.ps.type = T_AggState;
	aggstate.ss.ps.state = &estate;
	flinfo.fn_mcxt = stub_cxt_fn;
	call.fcinfo.flinfo = &flinfo;
	call.fcinfo.context = (Node *) &aggstate;
	return &call.fcinfo;
}

long
stub_live_chunks(MemoryContext c)
{
	return stub_context(c)->nchunks;
}

/* as the server's: called (newest first) when the context is reset */
void
MemoryContextRegisterResetCallback(MemoryContext context,
								   MemoryContextCallback *cb)
{
	cb->next = context->reset_cbs;
	context->reset_cbs = cb;
}

/*
 * Contexts created at run time (a packed set's own, packedset.c), with
 * the server's tree: a reset or delete takes the children with it.
 */
static void
stub_unlink(MemoryContext c)
{
	MemoryContext parent = c->parent;

	if (parent == NULL)
		return;
	if (c->prevchild)
		c->prevchild->nextchild = c->nextchild;
	else
		parent->firstchild = c->nextchild;
	if (c->nextchild)
		c->nextchild->prevchild = c->prevchild;
	c->parent = c->prevchild = c->nextchild = NULL;
}

static void
stub_link(MemoryContext c, MemoryContext parent)
{
	c->parent = parent;
	c->prevchild = NULL;
	c->nextchild = parent->firstchild;
	if (parent->firstchild)
		parent->firstchild->prevchild = c;
	parent->firstchild = c;
}

MemoryContext
AllocSetContextCreateInternal(MemoryContext parent, const char *name,
							  Size minContextSize, Size initBlockSize,
							  Size maxBlockSize)
{
	StubContext *s = calloc(1, sizeof(StubContext));

	if (s == NULL)
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
	s->ctx.type = T_AllocSetContext;
	s->ctx.name = name;
	s->head.prev = s->head.next = &s->head;
	if (parent)
		stub_link(&s->ctx, parent);
	return &s->ctx;
}

void
MemoryContextSetParent(MemoryContext context, MemoryContext new_parent)
{
	if (context->parent == new_parent)
		return;
	stub_unlink(context);
	if (new_parent)
		stub_link(context, new_parent);
}

void
MemoryContextDelete(MemoryContext context)
{
	if (context == stub_cxt_query || context == stub_cxt_fn)
	{
		fprintf(stderr, "stub: MemoryContextDelete of a harness context\n");
		abort();
	}
	stub_reset(context);
	stub_unlink(context);
	free(stub_context(context));
}

void
stub_reset(MemoryContext c)
{
	StubContext *s = stub_context(c);

	while (c->firstchild != NULL)
		MemoryContextDelete(c->firstchild);

	while (c->reset_cbs != NULL)
	{
		MemoryContextCallback *cb = c->reset_cbs;

		c->reset_cbs = cb->next;
		cb->func(cb->arg);
	}
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
appendStringInfoString(StringInfo str, const char *s)
{
	int			n = (int) strlen(s);

	enlargeStringInfo(str, n);
	memcpy(str->data + str->len, s, n + 1);
	str->len += n;
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

/*
 * bytea, the one variable-size type (byte keys: key.h CD_KEY_BYTES), for
 * the unit tests of the byte-key sets and the state harness (fuzz_state.c);
 * only after stub_enable_bytea(), so that the stored-set harnesses' catalog
 * (and corpus) stays the fixed-width one.
 */
static const StubType stub_bytea = {BYTEAOID, InvalidOid, -1, false, 'i', "pg_catalog", "bytea"};
static bool stub_bytea_enabled = false;

void
stub_enable_bytea(void)
{
	stub_bytea_enabled = true;
}

/*
 * int4[] and float8[], arrays ordered by array_cmp whose elements have
 * fixed-width keys (key_record.c: array keys), for the state harness
 * (fuzz_state.c); only after stub_enable_arrays(), which also gives the
 * element types their btree operators (key_record.c asks for them).
 */
static const StubType stub_arrays[] = {
	{INT4ARRAYOID, InvalidOid, -1, false, 'i', "pg_catalog", "_int4"},
	{FLOAT8ARRAYOID, InvalidOid, -1, false, 'd', "pg_catalog", "_float8"},
	{0}
};
static bool stub_arrays_enabled = false;

void
stub_enable_arrays(void)
{
	stub_arrays_enabled = true;
}

const StubType *
stub_type(Oid typid)
{
	for (const StubType *t = stub_types; t->typid != InvalidOid; t++)
		if (t->typid == typid)
			return t;
	if (stub_bytea_enabled && typid == BYTEAOID)
		return &stub_bytea;
	for (const StubType *t = stub_arrays; stub_arrays_enabled && t->typid != InvalidOid; t++)
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

/*
 * the types that are not fixed-width keys here have no btree opclass, but
 * bytea (once enabled)
 */
TypeCacheEntry *
lookup_type_cache(Oid type_id, int flags)
{
	static TypeCacheEntry tce;

	memset(&tce, 0, sizeof(tce));
	tce.type_id = type_id;
	if (stub_bytea_enabled && type_id == BYTEAOID)
	{
		tce.eq_opr = ByteaEqualOperator;
		tce.lt_opr = ByteaLessOperator;
	}
	if (stub_arrays_enabled)
	{
		switch (type_id)
		{
			case INT4ARRAYOID:
			case FLOAT8ARRAYOID:
				tce.eq_opr = ARRAY_EQ_OP;
				tce.lt_opr = ARRAY_LT_OP;
				tce.cmp_proc = F_BTARRAYCMP;
				break;
			case INT4OID:
				tce.eq_opr = Int4EqualOperator;
				tce.lt_opr = Int4LessOperator;
				break;
			case FLOAT8OID:
				tce.eq_opr = 670;	/* float8 = float8 */
				tce.lt_opr = Float8LessOperator;
				break;
		}
	}
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

/* ---- the catalog, as value_io.c reads it: the types above, no collations ---- */

#include "access/htup_details.h"
#include "catalog/namespace.h"
#include "catalog/pg_namespace.h"
#include "nodes/pg_list.h"
#include "nodes/value.h"

#include "registry.h"
#include "catalog/pg_authid.h"
#include "utils/acl.h"

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

static Oid
stub_namespace(const char *nspname)
{
	if (strcmp(nspname, "pg_catalog") == 0)
		return PG_CATALOG_NAMESPACE;
	if (strcmp(nspname, "public") == 0)
		return PG_PUBLIC_NAMESPACE;
	return InvalidOid;
}

/* a pg_type tuple of a stub type (typnamespace and typname only) */
HeapTuple
SearchSysCache1(int cacheId, Datum key1)
{
	const StubType *t;
	HeapTuple	tup;
	HeapTupleHeader hdr;
	Form_pg_type typ;
	Size		hoff = MAXALIGN(SizeofHeapTupleHeader);

	if (cacheId != TYPEOID)
		return NULL;
	t = stub_type(DatumGetObjectId(key1));
	if (t == NULL)
		return NULL;
	tup = palloc0(sizeof(HeapTupleData) + hoff + sizeof(FormData_pg_type));
	hdr = (HeapTupleHeader) ((char *) tup + sizeof(HeapTupleData));
	hdr->t_hoff = hoff;
	tup->t_data = hdr;
	typ = (Form_pg_type) GETSTRUCT(tup);
	typ->typnamespace = stub_namespace(t->nspname);
	typ->typisdefined = true;
	strlcpy(NameStr(typ->typname), t->typname, NAMEDATALEN);
	return tup;
}

void
ReleaseSysCache(HeapTuple tuple)
{
	pfree(tuple);
}

/* privileges (binary input of stored sets): the stub user may use everything */
Oid
GetUserId(void)
{
	return BOOTSTRAP_SUPERUSERID;
}

#if PG_VERSION_NUM >= 160000
AclResult
object_aclcheck(Oid classid, Oid objectid, Oid roleid, AclMode mode)
{
	return ACLCHECK_OK;
}
#else
AclResult
pg_namespace_aclcheck(Oid nsp_oid, Oid roleid, AclMode mode)
{
	return ACLCHECK_OK;
}

AclResult
pg_type_aclcheck(Oid type_oid, Oid roleid, AclMode mode)
{
	return ACLCHECK_OK;
}
#endif

/* no collations (dset_keys.c asks a domain's) */
Oid
get_typcollation(Oid typid)
{
	return InvalidOid;
}

char *
psprintf(const char *fmt,...)
{
	va_list		args;
	int			n;
	char	   *s;

	va_start(args, fmt);
	n = vsnprintf(NULL, 0, fmt, args);
	va_end(args);
	s = palloc(n + 1);
	va_start(args, fmt);
	vsnprintf(s, n + 1, fmt, args);
	va_end(args);
	return s;
}

/* the server's copy lives until the call's context is reset: here, per input */
char *
get_namespace_name(Oid nspid)
{
	const char *name = nspid == PG_CATALOG_NAMESPACE ? "pg_catalog" : "public";
	char	   *copy = MemoryContextAlloc(stub_cxt_fn, strlen(name) + 1);

	strcpy(copy, name);
	return copy;
}

Oid
get_namespace_oid(const char *nspname, bool missing_ok)
{
	return stub_namespace(nspname);
}

Oid
GetSysCacheOid(int cacheId, AttrNumber oidcol, Datum key1, Datum key2,
			   Datum key3, Datum key4)
{
	const char *typname = DatumGetCString(key1);
	Oid			nspid = DatumGetObjectId(key2);

	if (cacheId != TYPENAMENSP)
		elog(ERROR, "stub: unexpected syscache %d", cacheId);
	for (const StubType *t = stub_types; t->typid != InvalidOid; t++)
		if (stub_namespace(t->nspname) == nspid && strcmp(t->typname, typname) == 0)
			return t->typid;
	return InvalidOid;
}

/* no collations */
Oid
get_collation_oid(List *collname, bool missing_ok)
{
	return InvalidOid;
}

List *
list_make2_impl(NodeTag t, ListCell datum1, ListCell datum2)
{
	return NIL;
}

String *
makeString(char *str)
{
	return NULL;
}

char *
pstrdup(const char *in)
{
	Size		len = strlen(in) + 1;
	char	   *out = palloc(len);

	memcpy(out, in, len);
	return out;
}

int
GetDatabaseEncoding(void)
{
	return PG_UTF8;
}

int
pg_encoding_max_length(int encoding)
{
	return encoding == PG_UTF8 ? 4 : 1;
}

/* names: ASCII only here */
bool
pg_verify_mbstr(int encoding, const char *mbstr, int len, bool noError)
{
	for (int i = 0; i < len; i++)
		if ((unsigned char) mbstr[i] >= 0x80 || mbstr[i] == '\0')
			return false;
	return true;
}

/* ---- the variable-size key path: never reached with the types above ---- */

#define STUB_UNREACHABLE(name) \
	do { fprintf(stderr, "stub: %s reached (variable-size path)\n", name); abort(); } while (0)

void MemoryContextReset(MemoryContext context) { STUB_UNREACHABLE("MemoryContextReset"); }
Datum InputFunctionCall(FmgrInfo *flinfo, char *str, Oid typioparam, int32 typmod) { STUB_UNREACHABLE("InputFunctionCall"); }
char *OutputFunctionCall(FmgrInfo *flinfo, Datum val) { STUB_UNREACHABLE("OutputFunctionCall"); }
Datum ReceiveFunctionCall(FmgrInfo *flinfo, StringInfo buf, Oid typioparam, int32 typmod) { STUB_UNREACHABLE("ReceiveFunctionCall"); }
bytea *SendFunctionCall(FmgrInfo *flinfo, Datum val) { STUB_UNREACHABLE("SendFunctionCall"); }
void
resetStringInfo(StringInfo str)
{
	str->data[0] = '\0';
	str->len = 0;
	str->cursor = 0;
}
void PrepareSortSupportFromOrderingOp(Oid orderingOp, SortSupport ssup) { STUB_UNREACHABLE("PrepareSortSupportFromOrderingOp"); }
void fmgr_info_cxt(Oid functionId, FmgrInfo *finfo, MemoryContext mcxt) { STUB_UNREACHABLE("fmgr_info_cxt"); }
Oid getTypeIOParam(HeapTuple typeTuple) { STUB_UNREACHABLE("getTypeIOParam"); }
bool get_collation_isdeterministic(Oid colloid) { STUB_UNREACHABLE("get_collation_isdeterministic"); }
char *get_collation_name(Oid colloid) { STUB_UNREACHABLE("get_collation_name"); }
bool lc_collate_is_c(Oid collation) { STUB_UNREACHABLE("lc_collate_is_c"); }
const char *pq_getmsgbytes(StringInfo msg, int datalen) { STUB_UNREACHABLE("pq_getmsgbytes"); }
/* record fields with a type modifier (key_record.c field_pad): no stub row type has one */
Datum DirectFunctionCall1Coll(PGFunction func, Oid collation, Datum arg1) { STUB_UNREACHABLE("DirectFunctionCall1Coll"); }
Datum DirectFunctionCall2Coll(PGFunction func, Oid collation, Datum arg1, Datum arg2) { STUB_UNREACHABLE("DirectFunctionCall2Coll"); }
Datum DirectFunctionCall3Coll(PGFunction func, Oid collation, Datum arg1, Datum arg2, Datum arg3) { STUB_UNREACHABLE("DirectFunctionCall3Coll"); }
Datum numeric_in(PG_FUNCTION_ARGS) { STUB_UNREACHABLE("numeric_in"); }
Datum numeric_abs(PG_FUNCTION_ARGS) { STUB_UNREACHABLE("numeric_abs"); }
Datum numeric_lt(PG_FUNCTION_ARGS) { STUB_UNREACHABLE("numeric_lt"); }
Datum numeric_scale(PG_FUNCTION_ARGS) { STUB_UNREACHABLE("numeric_scale"); }
Datum numeric(PG_FUNCTION_ARGS) { STUB_UNREACHABLE("numeric"); }
Datum bpcharlen(PG_FUNCTION_ARGS) { STUB_UNREACHABLE("bpcharlen"); }
Datum bpchar(PG_FUNCTION_ARGS) { STUB_UNREACHABLE("bpchar"); }
/* messages naming a record's collations (key_record.c rowtype_columns) */
const char *quote_identifier(const char *ident) { STUB_UNREACHABLE("quote_identifier"); }
void appendStringInfo(StringInfo str, const char *fmt,...) { STUB_UNREACHABLE("appendStringInfo"); }
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

/* as the server names the types of the stub catalog (a domain: its name) */
char *
format_procedure(Oid procedure_oid)
{
	return psprintf("function %u", procedure_oid);
}

char *
format_type_be(Oid type_oid)
{
	const StubType *t = stub_type(type_oid);
	const char *name = NULL;
	char	   *s = palloc(64);

	switch (type_oid)
	{
		case INT2OID:
			name = "smallint";
			break;
		case INT4OID:
			name = "integer";
			break;
		case INT8OID:
			name = "bigint";
			break;
		case BOOLOID:
			name = "boolean";
			break;
		case FLOAT4OID:
			name = "real";
			break;
		case FLOAT8OID:
			name = "double precision";
			break;
		case CHAROID:
			name = "\"char\"";
			break;
	}
	if (name == NULL && t != NULL)
		name = t->typname;
	if (name != NULL)
		snprintf(s, 64, "%s", name);
	else
		snprintf(s, 64, "type %u", type_oid);
	return s;
}

/*
 * Arrays of fixed-width pass-by-value elements (every stub type but point),
 * in the server's layout (utils/array.h): what the text input harness
 * builds and reads; other element types abort.
 */
#include "utils/array.h"
#include "utils/bytea.h"
#include "utils/float.h"
#if PG_VERSION_NUM >= 140000
#include "utils/multirangetypes.h"
#endif
#include "utils/rangetypes.h"

int
ArrayGetNItems(int ndim, const int *dims)
{
	int64		n = 1;

	if (ndim <= 0)
		return 0;
	for (int i = 0; i < ndim; i++)
	{
		if (dims[i] < 0)
			elog(ERROR, "negative array dimension");
		n *= dims[i];
		if (n > (int64) MaxArraySize)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("array size exceeds the maximum allowed")));
	}
	return (int) n;
}

static void
stub_check_elem(int elmlen, bool elmbyval)
{
	if (!elmbyval || elmlen <= 0 || elmlen > 8)
	{
		fprintf(stderr, "stub: arrays of this element type are not supported\n");
		abort();
	}
}

ArrayType *
construct_md_array(Datum *elems, bool *nulls, int ndims, int *dims, int *lbs,
				   Oid elmtype, int elmlen, bool elmbyval, char elmalign)
{
	int			nitems = ArrayGetNItems(ndims, dims);
	int			nnull = 0;
	Size		dataoffset;
	Size		size;
	ArrayType  *a;
	char	   *p;
	bits8	   *bitmap;

	stub_check_elem(elmlen, elmbyval);
	for (int i = 0; nulls != NULL && i < nitems; i++)
		nnull += nulls[i] ? 1 : 0;
	dataoffset = nnull > 0 ? ARR_OVERHEAD_WITHNULLS(ndims, nitems) : ARR_OVERHEAD_NONULLS(ndims);
	size = dataoffset + (Size) (nitems - nnull) * att_align_nominal(elmlen, elmalign);
	a = palloc0(size);
	SET_VARSIZE(a, size);
	a->ndim = ndims;
	a->dataoffset = nnull > 0 ? (int32) dataoffset : 0;
	a->elemtype = elmtype;
	if (ndims > 0)
	{
		memcpy(ARR_DIMS(a), dims, ndims * sizeof(int));
		memcpy(ARR_LBOUND(a), lbs, ndims * sizeof(int));
	}
	p = ARR_DATA_PTR(a);
	bitmap = ARR_NULLBITMAP(a);
	for (int i = 0; i < nitems; i++)
	{
		if (nulls != NULL && nulls[i])
			continue;
		if (bitmap != NULL)
			bitmap[i / 8] |= 1 << (i % 8);
		store_att_byval(p, elems[i], elmlen);
		p += att_align_nominal(elmlen, elmalign);
	}
	return a;
}

ArrayType *
construct_array(Datum *elems, int nelems, Oid elmtype, int elmlen,
				bool elmbyval, char elmalign)
{
	int			dims[1] = {nelems};
	int			lbs[1] = {1};

	if (nelems == 0)
		return construct_md_array(elems, NULL, 0, dims, lbs, elmtype, elmlen, elmbyval, elmalign);
	return construct_md_array(elems, NULL, 1, dims, lbs, elmtype, elmlen, elmbyval, elmalign);
}

void
deconstruct_array(ArrayType *array, Oid elmtype, int elmlen, bool elmbyval,
				  char elmalign, Datum **elemsp, bool **nullsp, int *nelemsp)
{
	int			nitems = ArrayGetNItems(ARR_NDIM(array), ARR_DIMS(array));
	char	   *p = ARR_DATA_PTR(array);
	bits8	   *bitmap = ARR_NULLBITMAP(array);

	stub_check_elem(elmlen, elmbyval);
	Assert(ARR_ELEMTYPE(array) == elmtype);
	*elemsp = palloc(Max(nitems, 1) * sizeof(Datum));
	*nullsp = palloc0(Max(nitems, 1) * sizeof(bool));
	*nelemsp = nitems;
	for (int i = 0; i < nitems; i++)
	{
		if (bitmap != NULL && (bitmap[i / 8] & (1 << (i % 8))) == 0)
		{
			(*elemsp)[i] = (Datum) 0;
			(*nullsp)[i] = true;
			continue;
		}
		(*elemsp)[i] = fetch_att(p, true, elmlen);
		p += att_align_nominal(elmlen, elmalign);
	}
}

/* value_io.c's value paths (composites, arrays, domains, leaves) */
sigjmp_buf *PG_exception_stack = NULL;
ErrorContextCallback *error_context_stack = NULL;
/* the recursive byte-key radix sort calls it (sort.c); no limit here */
void check_stack_depth(void) {}
void pg_re_throw(void) { STUB_UNREACHABLE("pg_re_throw"); }
TupleDesc BlessTupleDesc(TupleDesc tupdesc) { STUB_UNREACHABLE("BlessTupleDesc"); }
TupleDesc CreateTemplateTupleDesc(int natts) { STUB_UNREACHABLE("CreateTemplateTupleDesc"); }
TupleDesc CreateTupleDescCopy(TupleDesc tupdesc) { STUB_UNREACHABLE("CreateTupleDescCopy"); }
void DecrTupleDescRefCount(TupleDesc tupdesc) { STUB_UNREACHABLE("DecrTupleDescRefCount"); }
unsigned char *pg_do_encoding_conversion(unsigned char *src, int len, int src_encoding, int dest_encoding) { STUB_UNREACHABLE("pg_do_encoding_conversion"); }
void TupleDescInitEntry(TupleDesc desc, AttrNumber attributeNumber, const char *attributeName, Oid oidtypeid, int32 typmod, int attdim) { STUB_UNREACHABLE("TupleDescInitEntry"); }
void TupleDescInitEntryCollation(TupleDesc desc, AttrNumber attributeNumber, Oid collationid) { STUB_UNREACHABLE("TupleDescInitEntryCollation"); }
void domain_check(Datum value, bool isnull, Oid domainType, void **extra, MemoryContext mcxt) { STUB_UNREACHABLE("domain_check"); }
Oid getBaseTypeAndTypmod(Oid typid, int32 *typmod) { STUB_UNREACHABLE("getBaseTypeAndTypmod"); }
/* the arrays of the stub catalog (stub_enable_arrays; key_record.c asks) */
Oid
get_element_type(Oid typid)
{
	if (stub_type(typid) == NULL)
		STUB_UNREACHABLE("get_element_type (of a type not in the stub catalog)");
	if (stub_arrays_enabled && typid == INT4ARRAYOID)
		return INT4OID;
	if (stub_arrays_enabled && typid == FLOAT8ARRAYOID)
		return FLOAT8OID;
	return InvalidOid;
}

Oid
get_array_type(Oid typid)
{
	if (stub_arrays_enabled && typid == INT4OID)
		return INT4ARRAYOID;
	if (stub_arrays_enabled && typid == FLOAT8OID)
		return FLOAT8ARRAYOID;
	return InvalidOid;
}

/* arrays built here are never toasted nor expanded */
AnyArrayType *
DatumGetAnyArrayP(Datum d)
{
	return (AnyArrayType *) pg_detoast_datum((struct varlena *) DatumGetPointer(d));
}

ArrayType *
construct_empty_array(Oid elmtype)
{
	int16		elmlen;
	bool		elmbyval;
	char		elmalign;

	get_typlenbyvalalign(elmtype, &elmlen, &elmbyval, &elmalign);
	return construct_md_array(NULL, NULL, 0, NULL, NULL, elmtype, elmlen,
							  elmbyval, elmalign);
}

int16
get_typlen(Oid typid)
{
	const StubType *t = stub_type(typid);

	if (t == NULL)
		elog(ERROR, "cache lookup failed for type %u", typid);
	return t->typlen;
}
char
get_typtype(Oid typid)
{
	const StubType *t = stub_type(typid);

	return t == NULL ? '\0' : OidIsValid(t->basetypid) ? TYPTYPE_DOMAIN : TYPTYPE_BASE;
}
Datum heap_copy_tuple_as_datum(HeapTuple tuple, TupleDesc tupleDesc) { STUB_UNREACHABLE("heap_copy_tuple_as_datum"); }
void heap_deform_tuple(HeapTuple tuple, TupleDesc tupleDesc, Datum *values, bool *isnull) { STUB_UNREACHABLE("heap_deform_tuple"); }
HeapTuple heap_form_tuple(TupleDesc tupleDescriptor, Datum *values, bool *isnull) { STUB_UNREACHABLE("heap_form_tuple"); }
void heap_freetuple(HeapTuple htup) { STUB_UNREACHABLE("heap_freetuple"); }
TupleDesc lookup_rowtype_tupdesc(Oid type_id, int32 typmod) { STUB_UNREACHABLE("lookup_rowtype_tupdesc"); }
/* key_record.c's records: never reached (no such stub types) */
void FreeTupleDesc(TupleDesc tupdesc) { STUB_UNREACHABLE("FreeTupleDesc"); }
/* a function in some server headers, a macro in others (and inline in 18) */
#if PG_VERSION_NUM < 180000 && !defined(DatumGetHeapTupleHeader)
struct HeapTupleHeaderData *DatumGetHeapTupleHeader(Datum d) { STUB_UNREACHABLE("DatumGetHeapTupleHeader"); }
#endif

/* value_io.c's leaves' session settings and its ranges: never reached either */
int			DateStyle = USE_ISO_DATES;
int			DateOrder = DATEORDER_MDY;
int			IntervalStyle = INTSTYLE_POSTGRES;
int			extra_float_digits = 1;
int			bytea_output = BYTEA_OUTPUT_HEX;
int pg_get_client_encoding(void) { return PG_UTF8; }
int SetClientEncoding(int encoding) { STUB_UNREACHABLE("SetClientEncoding"); }
int PrepareClientEncoding(int encoding) { STUB_UNREACHABLE("PrepareClientEncoding"); }
const char *GetDatabaseEncodingName(void) { return "UTF8"; }
int2vector *buildint2vector(const int16 *int2s, int n) { STUB_UNREACHABLE("buildint2vector"); }
oidvector *buildoidvector(const Oid *oids, int n) { STUB_UNREACHABLE("buildoidvector"); }
const char *pg_encoding_to_char(int encoding) { return encoding == PG_UTF8 ? "UTF8" : ""; }
char range_get_flags(const RangeType *range) { STUB_UNREACHABLE("range_get_flags"); }
void range_deserialize(TypeCacheEntry *typcache, const RangeType *range, RangeBound *lower, RangeBound *upper, bool *empty) { STUB_UNREACHABLE("range_deserialize"); }
#if PG_VERSION_NUM >= 160000
RangeType *make_range(TypeCacheEntry *typcache, RangeBound *lower, RangeBound *upper, bool empty, struct Node *escontext) { STUB_UNREACHABLE("make_range"); }
#else
RangeType *make_range(TypeCacheEntry *typcache, RangeBound *lower, RangeBound *upper, bool empty) { STUB_UNREACHABLE("make_range"); }
#endif
#if PG_VERSION_NUM >= 140000
void multirange_deserialize(TypeCacheEntry *rangetyp, const MultirangeType *multirange, int32 *range_count, RangeType ***ranges) { STUB_UNREACHABLE("multirange_deserialize"); }
MultirangeType *make_multirange(Oid mltrngtypoid, TypeCacheEntry *rangetyp, int32 range_count, RangeType **ranges) { STUB_UNREACHABLE("make_multirange"); }
#endif

/* values built by the harness are never toasted or short */
struct varlena *
pg_detoast_datum(struct varlena *datum)
{
	if (VARATT_IS_EXTENDED(datum))
		STUB_UNREACHABLE("pg_detoast_datum (of a toasted or short value)");
	return datum;
}

/* as the server's, for values that are not toasted (short ones stay short) */
struct varlena *
pg_detoast_datum_packed(struct varlena *datum)
{
	if (VARATT_IS_COMPRESSED(datum) || VARATT_IS_EXTERNAL(datum))
		STUB_UNREACHABLE("pg_detoast_datum_packed (of a toasted value)");
	return datum;
}

/* alloc.c's Generation context: the harness's allocators use none */
MemoryContext GenerationContextCreate(MemoryContext parent, const char *name, Size minContextSize, Size initBlockSize, Size maxBlockSize) { STUB_UNREACHABLE("GenerationContextCreate"); }

int
pg_snprintf(char *str, size_t count, const char *fmt,...)
{
	va_list		args;
	int			n;

	va_start(args, fmt);
	n = vsnprintf(str, count, fmt, args);
	va_end(args);
	return n;
}

size_t
strlcpy(char *dst, const char *src, size_t siz)
{
	size_t		len = strlen(src);

	if (siz > 0)
	{
		size_t		n = len < siz - 1 ? len : siz - 1;

		memcpy(dst, src, n);
		dst[n] = '\0';
	}
	return len;
}
