/*-------------------------------------------------------------------------
 *
 * dset_io.c
 *	  Stored sets: text and binary I/O, and the functions that build a set
 *	  from an array or read its values.
 *
 * Text form: the element type, a colon, and the values as an array
 * literal in the order of their keys (byte order for text), e.g.
 * integer:{1,2,3} or text:{a,"b c"}.  Input accepts the values in any order
 * and with duplicates; output is canonical, so output and input again give
 * the same bytes.
 *
 * Binary form: the stored bytes (dset.h); receiving decodes them and
 * encodes again, and refuses anything that does not come back the same.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "funcapi.h"
#include "libpq/pqformat.h"
#include "miscadmin.h"
#include "parser/parse_type.h"
#include "parser/scansup.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/pg_locale.h"
#include "utils/sortsupport.h"
#include "utils/typcache.h"
#include "utils/tuplestore.h"

#include "dset.h"
#include "errors.h"

PG_FUNCTION_INFO_V1(distinct_set_in);
PG_FUNCTION_INFO_V1(distinct_set_out);
PG_FUNCTION_INFO_V1(distinct_set_recv);
PG_FUNCTION_INFO_V1(distinct_set_send);
PG_FUNCTION_INFO_V1(distinct_set_from_bytes);
PG_FUNCTION_INFO_V1(distinct_set_cardinality);
PG_FUNCTION_INFO_V1(distinct_set_from_array);
PG_FUNCTION_INFO_V1(distinct_set_to_array);
PG_FUNCTION_INFO_V1(distinct_set_values);
PG_FUNCTION_INFO_V1(distinct_set_contains);

static void
bad_text(const char *str, const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
			 errmsg("invalid input syntax for type distinct_set: \"%s\"", str),
			 errdetail("%s", detail)));
}

/* ERROR 0A000 for a nondeterministic collation (equality is not bytes) */
static void
check_collation(Oid typid, Oid collation)
{
	if (OidIsValid(collation) && type_is_collatable(getBaseType(typid)) &&
		!get_collation_isdeterministic(collation))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("distinct_set cannot hold values of type %s under a nondeterministic collation",
						format_type_be(typid)),
				 errdetail("Values can be equal without having the same representation, so a set of them has no canonical form.")));
}

/* the keys of non-NULL values of an array (any number of dimensions) */
static void
keys_of_array(FunctionCallInfo fcinfo, ArrayType *array, const CDKeyType *kt,
			  DSKeys *keys)
{
	Datum	   *values;
	bool	   *nulls;
	int			n;
	int			i,
				m = 0;

	deconstruct_array(array, ARR_ELEMTYPE(array), kt->typlen, kt->typbyval,
					  kt->typalign, &values, &nulls, &n);
	for (i = 0; i < n; i++)
	{
		if (!nulls[i])
			values[m++] = values[i];
	}
	dsk_from_datums(keys, kt, values, (uint32) m);
}

/*
 * distinct_set_in(cstring) -> distinct_set
 */
Datum
distinct_set_in(PG_FUNCTION_ARGS)
{
	char	   *str = PG_GETARG_CSTRING(0);
	char	   *typname;
	const char *p;
	bool		quoted = false;
	int			end;
	Oid			typid;
	int32		typmod;
	const CDKeyType *kt;
	ArrayType  *array;
	DSKeys		keys;

	/* the type name: up to the colon before the first unquoted brace */
	for (p = str; *p != '\0'; p++)
	{
		if (*p == '"')
			quoted = !quoted;
		else if (*p == '{' && !quoted)
			break;
	}
	if (*p != '{')
		bad_text(str, "Expected the element type, a colon and a list of values in braces, as in integer:{1,2,3}.");
	end = p - str;
	while (end > 0 && scanner_isspace(str[end - 1]))
		end--;
	if (end == 0 || str[end - 1] != ':')
		bad_text(str, "Expected a colon between the element type and the values.");
	end--;
	typname = pnstrdup(str, end);
	if (strspn(typname, " \t\n\r\f\v") == strlen(typname))
		bad_text(str, "The element type is missing.");

#if PG_VERSION_NUM >= 160000
	(void) parseTypeString(typname, &typid, &typmod, NULL);
#else
	parseTypeString(typname, &typid, &typmod, false);
#endif
	kt = dsk_keytype(fcinfo, typid);

	array = DatumGetArrayTypeP(OidInputFunctionCall(F_ARRAY_IN, (char *) p,
													typid, -1));
	if (ARR_NDIM(array) > 1)
		bad_text(str, "The values must be a one-dimensional list.");
	if (ARR_HASNULL(array))
		bad_text(str, "A distinct_set cannot hold NULL.");
	keys_of_array(fcinfo, array, kt, &keys);
	PG_RETURN_BYTEA_P(dset_encode(kt, &keys));
}

/* keys' values as Datums, in key order */
static Datum *
datums_of(const DSKeys *keys)
{
	Datum	   *values = palloc_extended((Size) Max(keys->n, 1) * sizeof(Datum),
										 MCXT_ALLOC_HUGE);
	uint32		i;

	for (i = 0; i < keys->n; i++)
	{
		values[i] = dsk_datum(keys, i);
		if ((i & 0xFFFF) == 0xFFFF)
			CHECK_FOR_INTERRUPTS();
	}
	return values;
}

/* ERROR 54000 unless an array holds n values of kt */
static void
check_array_size(const CDKeyType *kt, uint32 n)
{
	if ((Size) n > MaxArraySize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("distinct_set too large for an array"),
				 errdetail("The set holds %u values; an array holds at most %zu.",
						   n, (Size) MaxArraySize)));
	/* fixed-size values: known from the count, before anything is decoded */
	if (kt->typlen > 0 &&
		(Size) n * att_align_nominal(kt->typlen, kt->typalign) >
		MaxAllocSize - ARR_OVERHEAD_NONULLS(1))
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("distinct_set too large for an array"),
				 errdetail("The set's %u values take more than the 1 GB an array holds.",
						   n)));
}

static ArrayType *
array_of(const CDKeyType *kt, Datum *values, uint32 n)
{
	check_array_size(kt, n);
	return construct_array(values, (int) n, kt->basetypid, kt->typlen,
						   kt->typbyval, kt->typalign);
}

/*
 * distinct_set_out(distinct_set) -> cstring
 */
Datum
distinct_set_out(PG_FUNCTION_ARGS)
{
	DSKeys		keys;
	const CDKeyType *kt = dset_decode(fcinfo, PG_GETARG_DSET_P(0), &keys);
	ArrayType  *array = array_of(kt, datums_of(&keys), keys.n);
	char	   *values = OidOutputFunctionCall(F_ARRAY_OUT, PointerGetDatum(array));

	PG_RETURN_CSTRING(psprintf("%s:%s", format_type_be(kt->typid), values));
}

/*
 * A stored set from len bytes of its binary form: decoded, and accepted
 * only if encoding it again gives the same bytes.
 */
static bytea *
receive(FunctionCallInfo fcinfo, const char *data, int len)
{
	bytea	   *ds = palloc(VARHDRSZ + len);
	bytea	   *again;
	DSKeys		keys;
	const CDKeyType *kt;

	SET_VARSIZE(ds, VARHDRSZ + len);
	memcpy(VARDATA(ds), data, len);
	/* integer keys: checked run by run, not decoded */
	if (dset_recv_in_place(fcinfo, ds))
		return ds;
	kt = dset_decode(fcinfo, ds, &keys);
	dsk_validate_values(&keys);
	again = dset_encode(kt, &keys);
	if (VARSIZE(again) != VARSIZE(ds) ||
		memcmp(VARDATA(again), VARDATA(ds), len) != 0)
		dset_invalid("The value is not in canonical form.");
	pfree(ds);
	return again;
}

/*
 * distinct_set_recv(internal) -> distinct_set
 */
Datum
distinct_set_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);
	int			len = buf->len - buf->cursor;
	bytea	   *ds = receive(fcinfo, buf->data + buf->cursor, len);

	buf->cursor = buf->len;
	PG_RETURN_BYTEA_P(ds);
}

/*
 * distinct_set_from_bytes(bytea) -> distinct_set: the binary form (what
 * distinct_set_send writes), validated as binary input is
 */
Datum
distinct_set_from_bytes(PG_FUNCTION_ARGS)
{
	bytea	   *bytes = PG_GETARG_BYTEA_PP(0);

	PG_RETURN_BYTEA_P(receive(fcinfo, VARDATA_ANY(bytes),
							  (int) VARSIZE_ANY_EXHDR(bytes)));
}

/*
 * distinct_set_send(distinct_set) -> bytea
 */
Datum
distinct_set_send(PG_FUNCTION_ARGS)
{
	bytea	   *ds = PG_GETARG_BYTEA_PP(0);
	StringInfoData buf;

	pq_begintypsend(&buf);
	pq_sendbytes(&buf, VARDATA_ANY(ds), VARSIZE_ANY_EXHDR(ds));
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

/*
 * cardinality(distinct_set) -> bigint: the header's count, from the first
 * bytes only (a slice of a toasted value)
 */
Datum
distinct_set_cardinality(PG_FUNCTION_ARGS)
{
	bytea	   *ds = (bytea *) PG_DETOAST_DATUM_SLICE(PG_GETARG_DATUM(0), 0,
													  DSET_HEADER_SIZE);

	PG_RETURN_INT64((int64) dset_count(ds));
}

/*
 * distinct_set(anyarray) -> distinct_set: the non-NULL elements
 */
Datum
distinct_set_from_array(PG_FUNCTION_ARGS)
{
	ArrayType  *array = PG_GETARG_ARRAYTYPE_P(0);
	Oid			typid = get_fn_expr_argtype(fcinfo->flinfo, 0);
	const CDKeyType *kt;
	DSKeys		keys;

	/* a domain over an array: its element type */
	typid = OidIsValid(typid) ? get_element_type(getBaseType(typid)) : InvalidOid;
	if (!OidIsValid(typid))
		typid = ARR_ELEMTYPE(array);
	if (getBaseType(typid) != ARR_ELEMTYPE(array))
		typid = ARR_ELEMTYPE(array);
	check_collation(typid, PG_GET_COLLATION());
	kt = dsk_keytype(fcinfo, typid);
	keys_of_array(fcinfo, array, kt, &keys);
	PG_RETURN_BYTEA_P(dset_encode(kt, &keys));
}

/*
 * The type of the anyelement argument argno, which must be the set's
 * element type.
 */
static void
check_value_arg(FunctionCallInfo fcinfo, const CDKeyType *kt, int argno)
{
	Oid			argtype = get_fn_expr_argtype(fcinfo->flinfo, argno);

	if (!OidIsValid(argtype))
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("could not determine the type of the value argument")));
	dset_check_element_type(kt, argtype);
}

static int
compare_datums(const void *a, const void *b, void *arg)
{
	return ApplySortComparator(*(const Datum *) a, false,
							   *(const Datum *) b, false,
							   (SortSupport) arg);
}

/*
 * The set's values in the order of its type under collation (the call's):
 * key order, except for collatable types under a collation other than C.
 */
static Datum *
ordered_datums(const CDKeyType *kt, const DSKeys *keys, Oid collation)
{
	Datum	   *values = datums_of(keys);

	if (keys->n > 1 && OidIsValid(collation) &&
		type_is_collatable(kt->basetypid) && !lc_collate_is_c(collation))
	{
		TypeCacheEntry *te = lookup_type_cache(kt->basetypid, TYPECACHE_LT_OPR);
		SortSupportData ssup;

		memset(&ssup, 0, sizeof(ssup));
		ssup.ssup_cxt = CurrentMemoryContext;
		ssup.ssup_collation = collation;
		ssup.ssup_nulls_first = false;
		PrepareSortSupportFromOrderingOp(te->lt_opr, &ssup);
		qsort_arg(values, keys->n, sizeof(Datum), compare_datums, &ssup);
	}
	return values;
}

/*
 * distinct_set_to_array(distinct_set, anyelement) -> anyarray
 */
Datum
distinct_set_to_array(PG_FUNCTION_ARGS)
{
	DSHeader	h;
	DSKeys		keys;
	const CDKeyType *kt;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	kt = dset_header(fcinfo, PG_GETARG_DSET_P(0), &h);
	check_array_size(kt, h.n);
	kt = dset_decode(fcinfo, PG_GETARG_DSET_P(0), &keys);
	check_value_arg(fcinfo, kt, 1);
	PG_RETURN_ARRAYTYPE_P(array_of(kt, ordered_datums(kt, &keys, PG_GET_COLLATION()),
								   keys.n));
}

/*
 * distinct_set_values(distinct_set, anyelement) -> SETOF anyelement
 */
Datum
distinct_set_values(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	DSKeys		keys;
	const CDKeyType *kt;
	Datum	   *values;
	TupleDesc	tupdesc;
	Tuplestorestate *tupstore;
	MemoryContext old;
	Oid			elemtype;
	uint32		i;

	if (rsinfo == NULL || !IsA(rsinfo, ReturnSetInfo) ||
		(rsinfo->allowedModes & SFRM_Materialize) == 0)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("set-valued function called in context that cannot accept a set")));
	if (PG_ARGISNULL(0))
	{
		/* no values, of the argument's type */
		keys.n = 0;
		values = NULL;
		elemtype = getBaseType(get_fn_expr_argtype(fcinfo->flinfo, 1));
	}
	else
	{
		kt = dset_decode(fcinfo, PG_GETARG_DSET_P(0), &keys);
		check_value_arg(fcinfo, kt, 1);
		values = ordered_datums(kt, &keys, PG_GET_COLLATION());
		elemtype = kt->basetypid;
	}

	old = MemoryContextSwitchTo(rsinfo->econtext->ecxt_per_query_memory);
	tupdesc = CreateTemplateTupleDesc(1);
	TupleDescInitEntry(tupdesc, (AttrNumber) 1, "distinct_set_values",
					   elemtype, -1, 0);
	tupstore = tuplestore_begin_heap(rsinfo->allowedModes & SFRM_Materialize_Random,
									 false, work_mem);
	MemoryContextSwitchTo(old);
	for (i = 0; i < keys.n; i++)
	{
		bool		isnull = false;

		tuplestore_putvalues(tupstore, tupdesc, &values[i], &isnull);
		if ((i & 0xFFFF) == 0xFFFF)
			CHECK_FOR_INTERRUPTS();
	}
	rsinfo->returnMode = SFRM_Materialize;
	rsinfo->setResult = tupstore;
	rsinfo->setDesc = tupdesc;
	return (Datum) 0;
}

/*
 * distinct_set_contains(distinct_set, anyelement) -> bool
 */
Datum
distinct_set_contains(PG_FUNCTION_ARGS)
{
	bytea	   *ds = PG_GETARG_DSET_P(0);
	DSHeader	h;

	(void) dset_header(fcinfo, ds, &h);
	check_value_arg(fcinfo, h.kt, 1);
	PG_RETURN_BOOL(dset_contains(fcinfo, ds, &h, PG_GETARG_DATUM(1)));
}
