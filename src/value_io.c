/*-------------------------------------------------------------------------
 *
 * value_io.c
 *	  Node-independent values, types and collations (see value_io.h).
 *
 * A value is written as a 4-byte length and then:
 *	  composite (named or anonymous): uint16 number of columns; for an
 *	    anonymous record, each column's type (by name), typmod and collation
 *	    (by name); then per column a 1-byte NULL flag and, if not NULL, the
 *	    column's value (recursively);
 *	  array: uint8 dimensions; per dimension int32 length and lower bound;
 *	    per element a NULL flag and, if not NULL, the element (recursively);
 *	    int2vector and oidvector alike, read back as vectors;
 *	  domain: its base type's value (checked against the domain on reading);
 *	  range: uint8 flags (as range_send writes them), then the lower and
 *	    upper bounds that are present, as values of the subtype
 *	    (recursively);
 *	  multirange: uint32 number of ranges, then each range (recursively);
 *	  tsvector: uint32 size of its data as laid out (tsvector order
 *	    depends on it, see tsvector_resize), then its send function's
 *	    bytes;
 *	  anything else (a leaf): the bytes of the type's send function, or, for
 *	    a type without binary I/O, the text of its output function in the
 *	    database encoding.  Both depend on session settings, so leaves are
 *	    written and read under fixed ones (SessionIO below): text that send
 *	    functions write (pq_sendtext: text, enums, jsonb, citext, hstore,
 *	    ...) is in the database encoding whatever the client encoding, and
 *	    output functions write exact, unambiguous text (floats with all
 *	    their digits, ISO dates, ...).  Text is read back in the database
 *	    encoding, converted from the writer's (cd_value_io_set_encoding) if
 *	    it differs.
 * A type or collation is written as a kind byte and then, for the objects
 * of the initial catalog (OIDs below FirstGenbkiObjectId, fixed in
 * PostgreSQL's catalog data), the OID, else two NUL-terminated strings, its
 * schema and its name.
 *
 * Reading trusts nothing: every length is checked against the bytes left,
 * each value must use exactly its length, nesting depth is bounded by the
 * stack check, and the leaves go through the types' receive or input
 * functions (which validate their input, as for COPY).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/transam.h"
#include "access/tupdesc.h"
#include "catalog/namespace.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_type.h"
#include "funcapi.h"
#include "libpq/pqformat.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "nodes/value.h"
#include "tsearch/ts_type.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/bytea.h"
#include "utils/float.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#if PG_VERSION_NUM >= 140000
#include "utils/multirangetypes.h"
#endif
#include "utils/rangetypes.h"
#include "utils/syscache.h"
#include "utils/typcache.h"

#include "compat.h"
#include "errors.h"
#include "value_io.h"

typedef enum TypeShape
{
	SHAPE_LEAF,
	SHAPE_COMPOSITE,
	SHAPE_ARRAY,
	SHAPE_DOMAIN,
	SHAPE_RANGE,
	SHAPE_MULTIRANGE
} TypeShape;

typedef struct TypeIO
{
	struct TypeIO *next;
	Oid			typid;
	TypeShape	shape;
	Oid			basetypid;		/* SHAPE_DOMAIN */
	int32		basetypmod;
	Oid			elemtype;		/* SHAPE_ARRAY */
	int16		elemlen;
	bool		elembyval;
	char		elemalign;
	TypeCacheEntry *typcache;	/* SHAPE_RANGE, SHAPE_MULTIRANGE */
	Oid			subtypid;		/* the range's subtype, the multirange's range */
	bool		binary;			/* SHAPE_LEAF: send/receive, else out/in */
	bool		keep_size;		/* SHAPE_LEAF: its size travels too */
	FmgrInfo	sendfn;
	FmgrInfo	recvfn;
	Oid			ioparam;
	void	   *domain_extra;	/* domain_check's cache */
} TypeIO;

struct CDValueIO
{
	MemoryContext mcxt;
	TypeIO	   *types;
	int			src_encoding;	/* of text being received */
	int			prepared_encoding;	/* PrepareClientEncoding done for it */
};

CDValueIO *
cd_value_io_create(MemoryContext mcxt)
{
	CDValueIO  *vio = MemoryContextAllocZero(mcxt, sizeof(CDValueIO));

	vio->mcxt = mcxt;
	vio->src_encoding = GetDatabaseEncoding();
	vio->prepared_encoding = GetDatabaseEncoding();
	return vio;
}

static TypeIO *
type_io(CDValueIO *vio, Oid typid)
{
	TypeIO	   *t;
	HeapTuple	tp;
	Form_pg_type typ;

	for (t = vio->types; t != NULL; t = t->next)
	{
		if (t->typid == typid)
			return t;
	}

	tp = SearchSysCache1(TYPEOID, ObjectIdGetDatum(typid));
	if (!HeapTupleIsValid(tp))
		elog(ERROR, "cache lookup failed for type %u", typid);
	typ = (Form_pg_type) GETSTRUCT(tp);

	t = MemoryContextAllocZero(vio->mcxt, sizeof(TypeIO));
	t->typid = typid;
	if (typ->typtype == TYPTYPE_DOMAIN)
	{
		t->shape = SHAPE_DOMAIN;
		t->basetypmod = -1;
		t->basetypid = getBaseTypeAndTypmod(typid, &t->basetypmod);
	}
	else if (typid == RECORDOID || typ->typtype == TYPTYPE_COMPOSITE)
		t->shape = SHAPE_COMPOSITE;
	else if (typ->typtype == TYPTYPE_RANGE)
	{
		t->shape = SHAPE_RANGE;
		t->typcache = lookup_type_cache(typid, TYPECACHE_RANGE_INFO);
		t->subtypid = t->typcache->rngelemtype->type_id;
	}
#if PG_VERSION_NUM >= 140000
	else if (typ->typtype == TYPTYPE_MULTIRANGE)
	{
		t->shape = SHAPE_MULTIRANGE;
		t->typcache = lookup_type_cache(typid, TYPECACHE_MULTIRANGE_INFO);
		t->subtypid = t->typcache->rngtype->type_id;
	}
#endif
	else if (OidIsValid(get_element_type(typid)))
	{
		t->shape = SHAPE_ARRAY;
		t->elemtype = get_element_type(typid);
		get_typlenbyvalalign(t->elemtype, &t->elemlen, &t->elembyval,
							 &t->elemalign);
	}
	else
	{
		t->shape = SHAPE_LEAF;
		t->binary = OidIsValid(typ->typsend) && OidIsValid(typ->typreceive);
		t->ioparam = getTypeIOParam(tp);
		fmgr_info_cxt(t->binary ? typ->typsend : typ->typoutput,
					  &t->sendfn, vio->mcxt);
		fmgr_info_cxt(t->binary ? typ->typreceive : typ->typinput,
					  &t->recvfn, vio->mcxt);
		t->keep_size = typid == TSVECTOROID && t->binary;
	}
	ReleaseSysCache(tp);

	t->next = vio->types;
	vio->types = t;
	return t;
}


/* raw NUL-terminated strings: no client encoding conversion */
static void
send_cstring(StringInfo buf, const char *s)
{
	appendBinaryStringInfo(buf, s, strlen(s) + 1);
}

static const char *
recv_cstring(StringInfo buf, const char *what)
{
	const char *s = buf->data + buf->cursor;
	const char *end = memchr(s, '\0', buf->len - buf->cursor);

	if (end == NULL)
		cd_invalid(what, "A name is not terminated.");
	if (end - s >= NAMEDATALEN)
		cd_invalid(what, "A name is too long.");
	if (!pg_verify_mbstr(GetDatabaseEncoding(), s, end - s, true))
		cd_invalid(what, "A name is not valid in the database encoding.");
	buf->cursor += end - s + 1;
	return s;
}

/*
 * How a type or collation is referred to: objects of the initial catalog
 * with OIDs below FirstGenbkiObjectId have OIDs fixed in PostgreSQL's
 * catalog data (int4 is 23 on every node of a major version), so they go
 * by OID; everything else (enums, extension types, composites, collations
 * created later or by initdb) by schema and name.
 */
#define REF_NONE	CD_REF_NONE
#define REF_OID		CD_REF_OID
#define REF_NAME	CD_REF_NAME

static void
send_ref(StringInfo buf, Oid oid, Oid nspid, const char *name)
{
	if (oid < FirstGenbkiObjectId)
	{
		pq_sendint8(buf, REF_OID);
		pq_sendint32(buf, oid);
		return;
	}
	pq_sendint8(buf, REF_NAME);
	send_cstring(buf, get_namespace_name(nspid));
	send_cstring(buf, name);
}

/* the size bytes of a reference at buf's cursor are there, or an ERROR */
static inline void
ref_bytes_left(StringInfo buf, int size, const char *what)
{
	if (buf->len - buf->cursor < size)
		cd_invalid(what, "A type or collation reference runs past the end.");
}

/* a reference's kind */
static int
recv_ref_kind(StringInfo buf, const char *what)
{
	ref_bytes_left(buf, 1, what);
	return pq_getmsgbyte(buf);
}

Oid
cd_recv_ref_oid_raw(StringInfo buf, const char *what)
{
	ref_bytes_left(buf, 4, what);
	return (Oid) pq_getmsgint(buf, 4);
}

/* A REF_OID reference: a catalog object that exists here, or an ERROR. */
static Oid
recv_ref_oid(StringInfo buf, int cacheid, const char *what)
{
	Oid			oid = cd_recv_ref_oid_raw(buf, what);

	if (oid == InvalidOid || oid >= FirstGenbkiObjectId ||
		!SearchSysCacheExists1(cacheid, ObjectIdGetDatum(oid)))
		cd_invalid(what, "A built-in type or collation does not exist.");
	return oid;
}

void
cd_send_type_ref(StringInfo buf, Oid typid)
{
	HeapTuple	tp = SearchSysCache1(TYPEOID, ObjectIdGetDatum(typid));
	Form_pg_type typ;

	if (!HeapTupleIsValid(tp))
		elog(ERROR, "cache lookup failed for type %u", typid);
	typ = (Form_pg_type) GETSTRUCT(tp);
	send_ref(buf, typid, typ->typnamespace, NameStr(typ->typname));
	ReleaseSysCache(tp);
}

Oid
cd_recv_type_ref(StringInfo buf)
{
	const char *what = CD_WHAT_STATE;
	int			kind = recv_ref_kind(buf, what);
	const char *nspname;
	const char *typname;
	Oid			nspid;
	Oid			typid = InvalidOid;

	if (kind == REF_OID)
		return recv_ref_oid(buf, TYPEOID, what);
	if (kind != REF_NAME)
		cd_invalid(what, "A type reference is malformed.");
	nspname = recv_cstring(buf, what);
	typname = recv_cstring(buf, what);
	nspid = get_namespace_oid(nspname, true);
	if (OidIsValid(nspid))
		typid = GetSysCacheOid2(TYPENAMENSP, Anum_pg_type_oid,
								PointerGetDatum(typname),
								ObjectIdGetDatum(nspid));
	if (!OidIsValid(typid))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("type \"%s.%s\" of a count_distinct state does not exist",
						nspname, typname),
				 errhint("States are read on the node that combines them: the type must exist there too.")));
	return typid;
}

#if PG_VERSION_NUM >= 160000
#define usage_on_namespace(nspid) \
	(object_aclcheck(NamespaceRelationId, (nspid), GetUserId(), ACL_USAGE) == ACLCHECK_OK)
#define usage_on_type(typid) \
	(object_aclcheck(TypeRelationId, (typid), GetUserId(), ACL_USAGE) == ACLCHECK_OK)
#else
#define usage_on_namespace(nspid) \
	(pg_namespace_aclcheck((nspid), GetUserId(), ACL_USAGE) == ACLCHECK_OK)
#define usage_on_type(typid) \
	(pg_type_aclcheck((typid), GetUserId(), ACL_USAGE) == ACLCHECK_OK)
#endif

bool
cd_type_usable(Oid typid)
{
	HeapTuple	tp = SearchSysCache1(TYPEOID, ObjectIdGetDatum(typid));
	Oid			nspid;
	bool		defined;

	if (!HeapTupleIsValid(tp))
		return false;
	nspid = ((Form_pg_type) GETSTRUCT(tp))->typnamespace;
	defined = ((Form_pg_type) GETSTRUCT(tp))->typisdefined;
	ReleaseSysCache(tp);
	return defined && usage_on_namespace(nspid) && usage_on_type(typid);
}

void
cd_error_type_not_usable(const char *name)
{
	ereport(ERROR,
			(errcode(ERRCODE_UNDEFINED_OBJECT),
			 errmsg("type \"%s\" does not exist or is not usable", name),
			 errdetail("Input of a distinct_set needs USAGE privilege on its element type and on the type's schema.")));
	pg_unreachable();
}

/*
 * With CD_REF_AS_USER the schema is looked up, and USAGE on it checked,
 * before the type: a type in a schema the user cannot use is never looked
 * up, and every failure raises the one error, so that input tells nothing
 * about what a private schema holds.  Nothing of the type runs here.
 */
Oid
cd_recv_type_ref_ext(StringInfo buf, int flags, int *kind, char **name,
					 const char *what)
{
	bool		as_user = (flags & CD_REF_AS_USER) != 0;
	const char *nspname;
	const char *typname;
	Oid			nspid;
	Oid			typid = InvalidOid;

	*name = NULL;
	*kind = recv_ref_kind(buf, what);
	if (*kind == REF_OID)
	{
		typid = recv_ref_oid(buf, TYPEOID, what);
		if (as_user && !cd_type_usable(typid))
			cd_error_type_not_usable(format_type_be(typid));
		return typid;
	}
	if (*kind != REF_NAME)
		return InvalidOid;
	nspname = recv_cstring(buf, what);
	typname = recv_cstring(buf, what);
	*name = psprintf("%s.%s", nspname, typname);
	nspid = get_namespace_oid(nspname, true);
	if (OidIsValid(nspid) && (!as_user || usage_on_namespace(nspid)))
		typid = GetSysCacheOid2(TYPENAMENSP, Anum_pg_type_oid,
								PointerGetDatum(typname),
								ObjectIdGetDatum(nspid));
	if (as_user && (!OidIsValid(typid) || !cd_type_usable(typid)))
		cd_error_type_not_usable(*name);
	if (!OidIsValid(typid) && !(flags & CD_REF_MISSING_OK))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("type \"%s\" of a %s does not exist", *name, what)));
	return typid;
}

void
cd_send_collation_ref(StringInfo buf, Oid collation)
{
	HeapTuple	tp;
	Form_pg_collation coll;

	if (!OidIsValid(collation))
	{
		pq_sendint8(buf, REF_NONE);
		return;
	}
	tp = SearchSysCache1(COLLOID, ObjectIdGetDatum(collation));
	if (!HeapTupleIsValid(tp))
		elog(ERROR, "cache lookup failed for collation %u", collation);
	coll = (Form_pg_collation) GETSTRUCT(tp);
	send_ref(buf, collation, coll->collnamespace, NameStr(coll->collname));
	ReleaseSysCache(tp);
}

Oid
cd_recv_collation_ref(StringInfo buf, const char *what)
{
	int			kind = recv_ref_kind(buf, what);
	const char *nspname;
	const char *collname;
	Oid			collation;

	if (kind == REF_NONE)
		return InvalidOid;
	if (kind == REF_OID)
		return recv_ref_oid(buf, COLLOID, what);
	if (kind != REF_NAME)
		cd_invalid(what, "A collation reference is malformed.");
	nspname = recv_cstring(buf, what);
	collname = recv_cstring(buf, what);
	collation = get_collation_oid(list_make2(makeString(pstrdup(nspname)),
											 makeString(pstrdup(collname))),
								  true);
	if (!OidIsValid(collation))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("collation \"%s.%s\" of a %s does not exist",
						nspname, collname, what),
				 strcmp(what, CD_WHAT_STATE) == 0 ?
				 errhint("States are read on the node that combines them: the collation must exist there too.") : 0));
	return collation;
}

/* the length of what was written since start, into its 4-byte slot */
static inline int
begin_length(StringInfo buf)
{
	int			start = buf->len;

	pq_sendint32(buf, 0);
	return start;
}

static inline void
end_length(StringInfo buf, int start)
{
	uint32		len = pg_hton32((uint32) (buf->len - start - 4));

	memcpy(buf->data + start, &len, 4);
}

/*
 * The session settings that leaves are written and read under.  Send
 * functions write text in the client encoding (pq_sendtext) and receive
 * functions read it in the client encoding (pq_getmsgtext); output
 * functions follow DateStyle, IntervalStyle, extra_float_digits and
 * bytea_output (and user-defined ones may follow any of them).  A state is
 * written in one process and read in another (a parallel worker's client
 * encoding is always the database's, the leader's is the session's), and
 * its values must come back exactly, so while a leaf is written or read:
 * the client encoding is the encoding of the state's text (the database's
 * when writing, the writer's database's when reading), and the output
 * settings are those whose text is exact and unambiguous, as pg_dump sets
 * them.  These are the variables behind the settings, set and restored
 * around the calls, error or not: no catalog access and no GUC stack (whose
 * changes parallel workers refuse).  Restoring the client encoding cannot
 * fail: it is the one set before, whose conversion is cached.  When a
 * session already has those values (the defaults, in a database whose
 * encoding is the client's), nothing is set.
 */
typedef struct SessionIO
{
	int			client_encoding;
	int			date_style;
	int			date_order;
	int			interval_style;
	int			float_digits;
	int			bytea_out;
} SessionIO;

static inline bool
session_io_exact(int encoding)
{
	return pg_get_client_encoding() == encoding &&
		DateStyle == USE_ISO_DATES && DateOrder == DATEORDER_MDY &&
		IntervalStyle == INTSTYLE_POSTGRES && extra_float_digits == 1 &&
		bytea_output == BYTEA_OUTPUT_HEX;
}

static void
session_io_begin(SessionIO *saved, int encoding)
{
	saved->client_encoding = pg_get_client_encoding();
	saved->date_style = DateStyle;
	saved->date_order = DateOrder;
	saved->interval_style = IntervalStyle;
	saved->float_digits = extra_float_digits;
	saved->bytea_out = bytea_output;
	if (saved->client_encoding != encoding && SetClientEncoding(encoding) < 0)
		elog(ERROR, "could not set the client encoding to %s",
			 pg_encoding_to_char(encoding));
	DateStyle = USE_ISO_DATES;
	DateOrder = DATEORDER_MDY;
	IntervalStyle = INTSTYLE_POSTGRES;
	extra_float_digits = 1;
	bytea_output = BYTEA_OUTPUT_HEX;
}

static void
session_io_end(const SessionIO *saved)
{
	if (pg_get_client_encoding() != saved->client_encoding)
		(void) SetClientEncoding(saved->client_encoding);
	DateStyle = saved->date_style;
	DateOrder = saved->date_order;
	IntervalStyle = saved->interval_style;
	extra_float_digits = saved->float_digits;
	bytea_output = saved->bytea_out;
}

void
cd_value_io_run(CDValueIO *vio, bool receiving, void (*fn) (void *arg),
				void *arg)
{
	int			encoding = receiving ? vio->src_encoding : GetDatabaseEncoding();
	SessionIO	saved;

	if (session_io_exact(encoding))
	{
		fn(arg);
		return;
	}
	session_io_begin(&saved, encoding);
	PG_TRY();
	{
		fn(arg);
	}
	PG_FINALLY();
	{
		session_io_end(&saved);
	}
	PG_END_TRY();
}

/* a leaf's bytes or text, written under fixed settings */
static void
leaf_send(StringInfo buf, TypeIO *t, Datum value)
{
	SessionIO	saved;
	bool		exact = session_io_exact(GetDatabaseEncoding());
	bytea	   *volatile b = NULL;
	char	   *volatile s = NULL;

	if (!exact)
		session_io_begin(&saved, GetDatabaseEncoding());
	PG_TRY();
	{
		if (t->binary)
			b = SendFunctionCall(&t->sendfn, value);
		else
			s = OutputFunctionCall(&t->sendfn, value);
	}
	PG_FINALLY();
	{
		if (!exact)
			session_io_end(&saved);
	}
	PG_END_TRY();

	if (t->binary && t->keep_size)
	{
		struct varlena *v = PG_DETOAST_DATUM_PACKED(value);

		pq_sendint32(buf, (uint32) (VARSIZE(b) - VARHDRSZ + 4));
		pq_sendint32(buf, (uint32) VARSIZE_ANY_EXHDR(v));
		appendBinaryStringInfo(buf, VARDATA(b), VARSIZE(b) - VARHDRSZ);
		if ((Pointer) v != DatumGetPointer(value))
			pfree(v);
		pfree(b);
	}
	else if (t->binary)
	{
		pq_sendint32(buf, (uint32) (VARSIZE(b) - VARHDRSZ));
		appendBinaryStringInfo(buf, VARDATA(b), VARSIZE(b) - VARHDRSZ);
		pfree(b);
	}
	else
	{
		Size		len = strlen(s);

		pq_sendint32(buf, (uint32) len);
		appendBinaryStringInfo(buf, s, (int) len);
		pfree(s);
	}
}

/*
 * A leaf read from vbuf (its bytes, or its text in the database encoding),
 * under the settings it was written under.
 */
static Datum
leaf_recv(CDValueIO *vio, TypeIO *t, StringInfo vbuf, char *str,
		  int32 typmod)
{
	SessionIO	saved;
	int			encoding = t->binary ? vio->src_encoding : GetDatabaseEncoding();
	bool		exact = session_io_exact(encoding);
	volatile Datum result = (Datum) 0;

	if (!exact)
		session_io_begin(&saved, encoding);
	PG_TRY();
	{
		if (t->binary)
			result = ReceiveFunctionCall(&t->recvfn, vbuf, t->ioparam, typmod);
		else
			result = InputFunctionCall(&t->recvfn, str, t->ioparam, typmod);
	}
	PG_FINALLY();
	{
		if (!exact)
			session_io_end(&saved);
	}
	PG_END_TRY();
	return result;
}

static void value_send(StringInfo buf, CDValueIO *vio, Oid typid, Datum value);

static void
composite_send(StringInfo buf, CDValueIO *vio, Oid typid, Datum value)
{
	HeapTupleHeader td = (HeapTupleHeader) PG_DETOAST_DATUM(value);
	HeapTupleData tuple;
	TupleDesc	tupdesc;
	Datum	   *values;
	bool	   *nulls;
	int			ncolumns;
	int			i;

	tupdesc = lookup_rowtype_tupdesc(HeapTupleHeaderGetTypeId(td),
									 HeapTupleHeaderGetTypMod(td));
	tuple.t_len = HeapTupleHeaderGetDatumLength(td);
	ItemPointerSetInvalid(&(tuple.t_self));
	tuple.t_tableOid = InvalidOid;
	tuple.t_data = td;
	values = palloc(tupdesc->natts * sizeof(Datum));
	nulls = palloc(tupdesc->natts * sizeof(bool));
	heap_deform_tuple(&tuple, tupdesc, values, nulls);

	ncolumns = 0;
	for (i = 0; i < tupdesc->natts; i++)
		if (!TupleDescAttr(tupdesc, i)->attisdropped)
			ncolumns++;
	pq_sendint16(buf, (uint16) ncolumns);
	if (typid == RECORDOID)
	{
		for (i = 0; i < tupdesc->natts; i++)
		{
			Form_pg_attribute att = TupleDescAttr(tupdesc, i);

			if (att->attisdropped)
				continue;
			cd_send_type_ref(buf, att->atttypid);
			/* a nested anonymous record's typmod is its own, per value */
			pq_sendint32(buf, att->atttypid == RECORDOID ? -1 : att->atttypmod);
			cd_send_collation_ref(buf, att->attcollation);
		}
	}
	for (i = 0; i < tupdesc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(tupdesc, i);

		if (att->attisdropped)
			continue;
		pq_sendint8(buf, nulls[i] ? 1 : 0);
		if (!nulls[i])
			value_send(buf, vio, att->atttypid, values[i]);
	}
	ReleaseTupleDesc(tupdesc);
	pfree(values);
	pfree(nulls);
}

static void
array_send_portable(StringInfo buf, CDValueIO *vio, TypeIO *t, Datum value)
{
	ArrayType  *array = DatumGetArrayTypeP(value);
	int			ndim = ARR_NDIM(array);
	Datum	   *elems;
	bool	   *nulls;
	int			nelems;
	int			i;

	pq_sendint8(buf, (uint8) ndim);
	for (i = 0; i < ndim; i++)
	{
		pq_sendint32(buf, (uint32) ARR_DIMS(array)[i]);
		pq_sendint32(buf, (uint32) ARR_LBOUND(array)[i]);
	}
	deconstruct_array(array, t->elemtype, t->elemlen, t->elembyval,
					  t->elemalign, &elems, &nulls, &nelems);
	for (i = 0; i < nelems; i++)
	{
		pq_sendint8(buf, nulls[i] ? 1 : 0);
		if (!nulls[i])
			value_send(buf, vio, t->elemtype, elems[i]);
	}
	pfree(elems);
	pfree(nulls);
}

static void
range_send_portable(StringInfo buf, CDValueIO *vio, TypeIO *t, Datum value)
{
	RangeType  *range = DatumGetRangeTypeP(value);
	char		flags = range_get_flags(range);
	RangeBound	lower;
	RangeBound	upper;
	bool		empty;

	range_deserialize(t->typcache, range, &lower, &upper, &empty);
	pq_sendint8(buf, (uint8) flags);
	if (RANGE_HAS_LBOUND(flags))
		value_send(buf, vio, t->subtypid, lower.val);
	if (RANGE_HAS_UBOUND(flags))
		value_send(buf, vio, t->subtypid, upper.val);
}

#if PG_VERSION_NUM >= 140000
static void
multirange_send_portable(StringInfo buf, CDValueIO *vio, TypeIO *t,
						 Datum value)
{
	MultirangeType *mr = DatumGetMultirangeTypeP(value);
	RangeType **ranges;
	int32		count;
	int32		i;

	multirange_deserialize(t->typcache->rngtype, mr, &count, &ranges);
	pq_sendint32(buf, (uint32) count);
	for (i = 0; i < count; i++)
		value_send(buf, vio, t->subtypid, RangeTypePGetDatum(ranges[i]));
}
#endif

static void
value_send(StringInfo buf, CDValueIO *vio, Oid typid, Datum value)
{
	TypeIO	   *t = type_io(vio, typid);
	int			start;

	check_stack_depth();
	switch (t->shape)
	{
		case SHAPE_DOMAIN:
			value_send(buf, vio, t->basetypid, value);
			return;
		case SHAPE_COMPOSITE:
			start = begin_length(buf);
			composite_send(buf, vio, typid, value);
			end_length(buf, start);
			return;
		case SHAPE_ARRAY:
			start = begin_length(buf);
			array_send_portable(buf, vio, t, value);
			end_length(buf, start);
			return;
		case SHAPE_RANGE:
			start = begin_length(buf);
			range_send_portable(buf, vio, t, value);
			end_length(buf, start);
			return;
#if PG_VERSION_NUM >= 140000
		case SHAPE_MULTIRANGE:
			start = begin_length(buf);
			multirange_send_portable(buf, vio, t, value);
			end_length(buf, start);
			return;
#endif
		default:
			break;
	}
	leaf_send(buf, t, value);
}

void
cd_value_send(StringInfo buf, CDValueIO *vio, Oid typid, Datum value)
{
	value_send(buf, vio, typid, value);
}

static Datum value_recv(StringInfo buf, CDValueIO *vio, Oid typid, int32 typmod);

static Datum
composite_recv(StringInfo buf, CDValueIO *vio, Oid typid, int32 typmod)
{
	TupleDesc	tupdesc;
	Datum	   *values;
	bool	   *nulls;
	HeapTuple	tuple;
	Datum		result;
	int			ncolumns = (uint16) pq_getmsgint(buf, 2);
	int			i;

	if (typid == RECORDOID)
	{
		if (ncolumns > MaxTupleAttributeNumber)
			cd_invalid_state("A record has too many columns.");
		tupdesc = CreateTemplateTupleDesc(ncolumns);
		for (i = 0; i < ncolumns; i++)
		{
			Oid			atttypid = cd_recv_type_ref(buf);
			int32		atttypmod = (int32) pq_getmsgint(buf, 4);
			Oid			attcollation = cd_recv_collation_ref(buf, CD_WHAT_STATE);

			if (get_typtype(atttypid) == TYPTYPE_PSEUDO &&
				atttypid != RECORDOID && atttypid != RECORDARRAYOID)
				cd_invalid_state("A record column has a pseudo-type.");
			if (OidIsValid(attcollation) && !type_is_collatable(atttypid))
				cd_invalid_state("A record column has a collation its type does not take.");
			TupleDescInitEntry(tupdesc, (AttrNumber) (i + 1), NULL,
							   atttypid, atttypmod, 0);
			TupleDescInitEntryCollation(tupdesc, (AttrNumber) (i + 1),
										attcollation);
		}
		tupdesc = BlessTupleDesc(tupdesc);
	}
	else
	{
		int			live = 0;

		TupleDesc	typdesc = lookup_rowtype_tupdesc(typid, -1);

		tupdesc = CreateTupleDescCopy(typdesc);
		ReleaseTupleDesc(typdesc);
		for (i = 0; i < tupdesc->natts; i++)
			if (!TupleDescAttr(tupdesc, i)->attisdropped)
				live++;
		if (live != ncolumns)
			cd_invalid_state("A composite value does not have the columns of its type.");
	}

	values = palloc0(Max(tupdesc->natts, 1) * sizeof(Datum));
	nulls = palloc(Max(tupdesc->natts, 1) * sizeof(bool));
	for (i = 0; i < tupdesc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(tupdesc, i);
		int			isnull;

		nulls[i] = true;
		if (att->attisdropped)
			continue;
		isnull = pq_getmsgbyte(buf);
		if (isnull != 0 && isnull != 1)
			cd_invalid_state("A NULL flag is neither 0 nor 1.");
		if (!isnull)
		{
			values[i] = value_recv(buf, vio, att->atttypid, att->atttypmod);
			nulls[i] = false;
		}
	}
	tuple = heap_form_tuple(tupdesc, values, nulls);
	/* a composite Datum of its own (HeapTupleGetDatum points into tuple) */
	result = heap_copy_tuple_as_datum(tuple, tupdesc);
	heap_freetuple(tuple);
	pfree(values);
	pfree(nulls);
	return result;
}

/* an int2vector or oidvector of n elements, none NULL */
static Datum
vector_build(Oid typid, Datum *elems, bool *nulls, int n)
{
	int			i;

	for (i = 0; i < n; i++)
		if (nulls[i])
			cd_invalid_state("A vector has a NULL element.");
	if (typid == INT2VECTOROID)
	{
		int16	   *v = palloc(Max(n, 1) * sizeof(int16));

		for (i = 0; i < n; i++)
			v[i] = DatumGetInt16(elems[i]);
		return PointerGetDatum(buildint2vector(v, n));
	}
	else
	{
		Oid		   *v = palloc(Max(n, 1) * sizeof(Oid));

		for (i = 0; i < n; i++)
			v[i] = DatumGetObjectId(elems[i]);
		return PointerGetDatum(buildoidvector(v, n));
	}
}

static Datum
array_recv_portable(StringInfo buf, CDValueIO *vio, TypeIO *t)
{
	int			ndim = pq_getmsgbyte(buf);
	int			dims[MAXDIM];
	int			lbs[MAXDIM];
	int			nitems;
	Datum	   *elems;
	bool	   *nulls;
	int			i;

	if (ndim > MAXDIM)
		cd_invalid_state("An array has too many dimensions.");
	for (i = 0; i < ndim; i++)
	{
		dims[i] = (int32) pq_getmsgint(buf, 4);
		lbs[i] = (int32) pq_getmsgint(buf, 4);
		if (dims[i] < 0)
			cd_invalid_state("An array dimension is negative.");
		/* the upper bound must fit in an int, as ArrayCheckBounds wants */
		if (dims[i] > 0 && (int64) lbs[i] + dims[i] - 1 > PG_INT32_MAX)
			cd_invalid_state("An array bound is out of range.");
	}
	nitems = ArrayGetNItems(ndim, dims);
	/*
	 * The vector types (int2vector, oidvector) are arrays of one dimension,
	 * lower bound 0 and no NULLs, even when empty (a general empty array has
	 * no dimension; their own receive functions cannot read an empty one
	 * back): built as such.
	 */
	if (t->typid == INT2VECTOROID || t->typid == OIDVECTOROID)
	{
		if (ndim != 1 || lbs[0] != 0)
			cd_invalid_state("A vector is not of one dimension from 0.");
		if (dims[0] > FUNC_MAX_ARGS)
			cd_invalid_state("A vector has too many elements.");
	}
	else if (nitems == 0)
		return PointerGetDatum(construct_empty_array(t->elemtype));
	/* every element takes at least its NULL flag */
	if (nitems > buf->len - buf->cursor)
		cd_invalid_state("An array has more elements than bytes.");

	elems = palloc(Max(nitems, 1) * sizeof(Datum));
	nulls = palloc(Max(nitems, 1) * sizeof(bool));
	for (i = 0; i < nitems; i++)
	{
		int			isnull = pq_getmsgbyte(buf);

		if (isnull != 0 && isnull != 1)
			cd_invalid_state("A NULL flag is neither 0 nor 1.");
		nulls[i] = isnull;
		elems[i] = isnull ? (Datum) 0 : value_recv(buf, vio, t->elemtype, -1);
	}
	if (t->typid == INT2VECTOROID || t->typid == OIDVECTOROID)
		return vector_build(t->typid, elems, nulls, nitems);
	return PointerGetDatum(construct_md_array(elems, nulls, ndim, dims, lbs,
											  t->elemtype, t->elemlen,
											  t->elembyval, t->elemalign));
}

static Datum
range_recv_portable(StringInfo buf, CDValueIO *vio, TypeIO *t)
{
	int			flags = pq_getmsgbyte(buf);
	RangeBound	lower = {0};
	RangeBound	upper = {0};

	if ((flags & ~(RANGE_EMPTY | RANGE_LB_INC | RANGE_LB_INF |
				   RANGE_UB_INC | RANGE_UB_INF)) != 0 ||
		((flags & RANGE_EMPTY) != 0 && flags != RANGE_EMPTY))
		cd_invalid_state("A range's flags are not valid.");
	if (RANGE_HAS_LBOUND(flags))
		lower.val = value_recv(buf, vio, t->subtypid, -1);
	lower.infinite = (flags & RANGE_LB_INF) != 0;
	lower.inclusive = (flags & RANGE_LB_INC) != 0;
	lower.lower = true;
	if (RANGE_HAS_UBOUND(flags))
		upper.val = value_recv(buf, vio, t->subtypid, -1);
	upper.infinite = (flags & RANGE_UB_INF) != 0;
	upper.inclusive = (flags & RANGE_UB_INC) != 0;
	upper.lower = false;
	/* checks that lower <= upper, and canonicalizes */
	return RangeTypePGetDatum(CD_MAKE_RANGE(t->typcache, &lower, &upper,
											(flags & RANGE_EMPTY) != 0));
}

#if PG_VERSION_NUM >= 140000
static Datum
multirange_recv_portable(StringInfo buf, CDValueIO *vio, TypeIO *t)
{
	uint32		count = (uint32) pq_getmsgint(buf, 4);
	RangeType **ranges;
	uint32		i;

	/* every range takes at least its length and flags */
	if (count > (uint32) (buf->len - buf->cursor) / 5)
		cd_invalid_state("A multirange has more ranges than bytes.");
	ranges = palloc(Max(count, 1) * sizeof(RangeType *));
	for (i = 0; i < count; i++)
		ranges[i] = DatumGetRangeTypeP(value_recv(buf, vio, t->subtypid, -1));
	/* sorts and merges the ranges, as multirange_recv does */
	return MultirangeTypePGetDatum(make_multirange(t->typid,
												   t->typcache->rngtype,
												   (int32) count, ranges));
}
#endif

/*
 * A tsvector of the given data size (without header), from one that
 * tsvector_recv built.  tsvector order (tsvector_cmp) compares the sizes
 * of values before their lexemes, so equal lexemes and positions laid out
 * in different sizes are different values; and layouts differ: PostgreSQL
 * 13's tsvector_recv leaves room after each lexeme's positions, other
 * functions lay values out tightly, and values stored by either keep their
 * size across upgrades.  A value's size therefore travels with its binary
 * form, and the received value is laid out again: tightly (each lexeme,
 * then its positions at the next even offset), then zeros up to that size.
 * The order compares sizes, lexemes and positions, never where they lie,
 * so the result compares as the sent value did.  The size may exceed the
 * tight layout at most twice (PostgreSQL 13 leaves less room than that),
 * so that memory stays bounded by the state's bytes; a size outside
 * [tight, 2 * tight] is refused as an invalid state.
 */
static Datum
tsvector_resize(Datum value, uint32 size)
{
	TSVector	tsv = DatumGetTSVector(value);
	TSVector	out;
	WordEntry  *in = ARRPTR(tsv);
	WordEntry  *entries;
	Size		want = (Size) size + VARHDRSZ;
	Size		tight;
	Size		off = 0;
	int32		i;

	for (i = 0; i < tsv->size; i++)
	{
		off += in[i].len;
		if (in[i].haspos)
			off = SHORTALIGN(off) + sizeof(uint16) +
				POSDATALEN(tsv, &in[i]) * sizeof(WordEntryPos);
	}
	tight = CALCDATASIZE(tsv->size, off);
	if (want < tight || want > 2 * tight || !AllocSizeIsValid(want))
		cd_invalid_state("A tsvector's size does not fit its contents.");
	if (want == tight && VARSIZE(tsv) == tight)
		return PointerGetDatum(tsv);

	out = palloc0(want);
	SET_VARSIZE(out, want);
	out->size = tsv->size;
	entries = ARRPTR(out);
	off = 0;
	for (i = 0; i < tsv->size; i++)
	{
		entries[i] = in[i];
		entries[i].pos = off;
		memcpy(STRPTR(out) + off, STRPTR(tsv) + in[i].pos, in[i].len);
		off += in[i].len;
		if (in[i].haspos)
		{
			Size		npos = POSDATALEN(tsv, &in[i]);

			off = SHORTALIGN(off);
			memcpy(STRPTR(out) + off, _POSVECPTR(tsv, &in[i]),
				   sizeof(uint16) + npos * sizeof(WordEntryPos));
			off += sizeof(uint16) + npos * sizeof(WordEntryPos);
		}
	}
	pfree(tsv);
	return PointerGetDatum(out);
}

static Datum
value_recv(StringInfo buf, CDValueIO *vio, Oid typid, int32 typmod)
{
	TypeIO	   *t = type_io(vio, typid);
	StringInfoData vbuf;
	int32		len;
	Datum		result;

	check_stack_depth();
	if (t->shape == SHAPE_DOMAIN)
	{
		result = value_recv(buf, vio, t->basetypid, t->basetypmod);
		domain_check(result, false, typid, &t->domain_extra, vio->mcxt);
		return result;
	}

	len = (int32) pq_getmsgint(buf, 4);
	if (len < 0 || len > buf->len - buf->cursor)
		cd_invalid_state("A value's length runs past the end of the state.");

	/* a NUL-terminated copy, as receive functions expect */
	initStringInfo(&vbuf);
	appendBinaryStringInfo(&vbuf, buf->data + buf->cursor, len);
	buf->cursor += len;

	switch (t->shape)
	{
		case SHAPE_COMPOSITE:
			result = composite_recv(&vbuf, vio, typid, typmod);
			break;
		case SHAPE_ARRAY:
			result = array_recv_portable(&vbuf, vio, t);
			break;
		case SHAPE_RANGE:
			result = range_recv_portable(&vbuf, vio, t);
			break;
#if PG_VERSION_NUM >= 140000
		case SHAPE_MULTIRANGE:
			result = multirange_recv_portable(&vbuf, vio, t);
			break;
#endif
		default:
			if (t->keep_size)
			{
				uint32		size = (uint32) pq_getmsgint(&vbuf, 4);

				result = leaf_recv(vio, t, &vbuf, NULL, typmod);
				result = tsvector_resize(result, size);
			}
			else if (t->binary)
				result = leaf_recv(vio, t, &vbuf, NULL, typmod);
			else
			{
				char	   *str = vbuf.data;

				if (strlen(vbuf.data) != (size_t) len)
					cd_invalid_state("A value contains a zero byte.");
				if (!pg_verify_mbstr(vio->src_encoding, vbuf.data, len, true))
					cd_invalid_state("A value is not valid in the encoding of its state.");
				/* to the database encoding (ERROR if it has no such character) */
				if (vio->src_encoding != GetDatabaseEncoding())
					str = (char *) pg_do_encoding_conversion((unsigned char *) vbuf.data,
															 len, vio->src_encoding,
															 GetDatabaseEncoding());
				result = leaf_recv(vio, t, &vbuf, str, typmod);
				if (str != vbuf.data)
					pfree(str);
				vbuf.cursor = vbuf.len;
			}
			break;
	}
	if (vbuf.cursor != vbuf.len)
		cd_invalid_state("A value does not use exactly its length.");
	/* receive and input functions return new values, not the buffer's */
	pfree(vbuf.data);
	return result;
}

Datum
cd_value_recv(StringInfo buf, CDValueIO *vio, Oid typid, int32 typmod)
{
	return value_recv(buf, vio, typid, typmod);
}

void
cd_value_io_set_encoding(CDValueIO *vio, int encoding)
{
	if (!PG_VALID_BE_ENCODING(encoding))
		cd_invalid_state("The state names an encoding that is not a server encoding.");
	/* receive functions convert from it as from a client encoding */
	if (encoding != vio->prepared_encoding)
	{
		if (PrepareClientEncoding(encoding) < 0)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("conversion between %s and %s is not supported",
							pg_encoding_to_char(encoding),
							GetDatabaseEncodingName()),
					 errdetail("A count_distinct state was written in a database of encoding %s.",
							   pg_encoding_to_char(encoding))));
		vio->prepared_encoding = encoding;
	}
	vio->src_encoding = encoding;
}
