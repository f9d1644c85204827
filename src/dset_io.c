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
 * Binary form: the stored bytes (dset.h), but with a non-built-in element
 * type named by schema and name where the stored bytes have its OID;
 * receiving decodes them and encodes again, and refuses anything that does
 * not come back the same.
 *
 * Type names in input are resolved with the privileges of the current
 * user, before anything of the type runs (its input function, a domain's
 * CHECK): USAGE on the type's schema and on the type, and one error for a
 * type that does not exist and one the user may not use.
 *
 * A set whose element type is gone (dset.h) is an orphan: its text form is
 * "(orphaned):" and its binary form in hex, which input reads back into the
 * same orphan (so that a dump restores it); distinct_set_recover binds its
 * values to a type again.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "funcapi.h"
#include "libpq/pqformat.h"
#include "miscadmin.h"
#include "parser/parse_type.h"
#include "parser/scansup.h"
#include "utils/array.h"
#include "utils/arrayaccess.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/pg_locale.h"
#include "utils/sortsupport.h"
#include "utils/typcache.h"
#include "utils/tuplestore.h"

#include "dset.h"
#include "errors.h"
#include "key_record.h"
#include "value_io.h"

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
PG_FUNCTION_INFO_V1(distinct_set_recover);
PG_FUNCTION_INFO_V1(distinct_set_element_type);

/* the text form of an orphan (then its binary form in hex) */
#define ORPHAN_PREFIX "(orphaned):"

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
 * The element type named in text input, with the current user's privileges:
 * parsed and looked up as PostgreSQL does (an explicit schema must be one
 * the user has USAGE on, checked before the type is looked up in it; an
 * unqualified name is looked up in the search path, which leaves out
 * schemas without USAGE), then USAGE on the type.  A type or schema that
 * does not exist and one the user may not use give the same error.  Nothing
 * of the type runs before (a type modifier is parsed by the type's typmod
 * input function, a built-in's; it is not applied: sets hold the type's
 * values).
 */
static Oid
input_type(const char *typname)
{
	MemoryContext mcxt = CurrentMemoryContext;
	volatile Oid typid = InvalidOid;

	PG_TRY();
	{
		Oid			t;
		int32		typmod;

#if PG_VERSION_NUM >= 160000
		(void) parseTypeString(typname, &t, &typmod, NULL);
#else
		parseTypeString(typname, &t, &typmod, false);
#endif
		typid = t;
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(mcxt);
		edata = CopyErrorData();
		if (edata->sqlerrcode != ERRCODE_UNDEFINED_OBJECT &&
			edata->sqlerrcode != ERRCODE_UNDEFINED_SCHEMA &&
			edata->sqlerrcode != ERRCODE_INSUFFICIENT_PRIVILEGE)
			PG_RE_THROW();
		FlushErrorState();
		cd_error_type_not_usable(typname);
	}
	PG_END_TRY();
	if (!cd_type_usable(typid))
		cd_error_type_not_usable(typname);
	return typid;
}

/*
 * The canonical typmod (key_record.h) of anonymous records whose column
 * types text input names as "record(type, type, ...)" (list: from the
 * parenthesis), each resolved as input_type does; str: the whole input,
 * for messages.  Commas inside parentheses (numeric(10,2)) and double
 * quotes do not separate types.
 */
static int32
input_record_type(const char *str, const char *list)
{
	Oid		   *types = palloc(sizeof(Oid) * 8);
	int			ntypes = 0;
	int			cap = 8;
	const char *p = list + 1;
	const char *start = p;
	int			depth = 0;
	bool		quoted = false;
	TupleDesc	d;
	int32		typmod;
	int			i;

	for (;; p++)
	{
		if (*p == '\0')
			bad_text(str, "The column types of a record are not closed by a parenthesis.");
		if (*p == '"')
			quoted = !quoted;
		else if (quoted)
			continue;
		else if (*p == '(')
			depth++;
		else if ((*p == ')' && depth == 0) || (*p == ',' && depth == 0))
		{
			const char *b = start;
			const char *e = p;

			while (b < e && scanner_isspace(*b))
				b++;
			while (e > b && scanner_isspace(e[-1]))
				e--;
			/* "record()": no columns */
			if (b == e && *p == ')' && ntypes == 0 && start == list + 1)
				break;
			if (b == e)
				bad_text(str, "A column type of a record is missing.");
			if (ntypes == MaxTupleAttributeNumber)
				bad_text(str, "A record has too many columns.");
			if (ntypes == cap)
				types = repalloc(types, sizeof(Oid) * (cap *= 2));
			types[ntypes++] = input_type(pnstrdup(b, e - b));
			start = p + 1;
			if (*p == ')')
				break;
		}
		else if (*p == ')')
			depth--;
	}
	if (p[1 + strspn(p + 1, " \t\n\r\f\v")] != '\0')
		bad_text(str, "Expected nothing after the column types of a record.");
	d = CreateTemplateTupleDesc(ntypes);
	for (i = 0; i < ntypes; i++)
	{
		TupleDescInitEntry(d, (AttrNumber) (i + 1), NULL, types[i], -1, 0);
		TupleDescInitEntryCollation(d, (AttrNumber) (i + 1),
									get_typcollation(types[i]));
	}
	typmod = cd_record_rowtype_typmod(d);
	if (typmod < 0)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("distinct_set cannot hold records of these column types"),
				 errdetail("Values of a column type can be equal without having the same representation, so a set of them has no canonical form.")));
	return typmod;
}

/* the bytes of "\\x" and hex digits (NULL if str is not that) */
static bytea *
hex_bytes(const char *str)
{
	Size		n;
	bytea	   *b;
	Size		i;

	if (str[0] != '\\' || str[1] != 'x')
		return NULL;
	str += 2;
	n = strlen(str);
	if (n % 2 != 0 || n / 2 > MaxAllocSize - VARHDRSZ)
		return NULL;
	b = palloc(VARHDRSZ + n / 2);
	SET_VARSIZE(b, VARHDRSZ + n / 2);
	for (i = 0; i < n / 2; i++)
	{
		int			d[2];
		int			j;

		for (j = 0; j < 2; j++)
		{
			char		c = str[2 * i + j];

			if (c >= '0' && c <= '9')
				d[j] = c - '0';
			else if (c >= 'a' && c <= 'f')
				d[j] = c - 'a' + 10;
			else if (c >= 'A' && c <= 'F')
				d[j] = c - 'A' + 10;
			else
				return NULL;
		}
		((uint8 *) VARDATA(b))[i] = (uint8) (d[0] << 4 | d[1]);
	}
	return b;
}

static bytea *receive(FunctionCallInfo fcinfo, const char *data, int len,
					  bool *orphan);
static int32 record_array_typmod(ArrayType *array, Oid typid);

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
	const char *rest;
	const CDKeyType *kt;
	ArrayType  *array;
	DSKeys		keys;

	/* an orphan: its binary form, in hex */
	if (strncmp(str, ORPHAN_PREFIX, strlen(ORPHAN_PREFIX)) == 0)
	{
		bytea	   *bytes = hex_bytes(str + strlen(ORPHAN_PREFIX));
		bytea	   *ds;
		bool		orphan;

		if (bytes == NULL)
			bad_text(str, "An orphaned set is written as its binary form in hex.");
		ds = receive(fcinfo, VARDATA(bytes), (int) VARSIZE(bytes) - VARHDRSZ,
					 &orphan);
		if (!orphan)
			bad_text(str, "The binary form after \"" ORPHAN_PREFIX "\" is not that of an orphaned set.");
		PG_RETURN_BYTEA_P(ds);
	}

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

	typmod = -1;
	if (pg_strncasecmp(typname, "record", 6) == 0 &&
		(rest = typname + 6 + strspn(typname + 6, " \t\n\r\f\v"))[0] == '(')
	{
		typid = RECORDOID;
		typmod = input_record_type(str, rest);
	}
	else
		typid = input_type(typname);
	kt = dsk_keytype_typmod(fcinfo, typid, typmod);

	array = DatumGetArrayTypeP(OidInputFunctionCall(F_ARRAY_IN, (char *) p,
													typid, typmod));
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

/* an array of elemtype (kt's type, its base type or a domain over it) */
static ArrayType *
array_of(const CDKeyType *kt, Oid elemtype, Datum *values, uint32 n)
{
	check_array_size(kt, n);
	return construct_array(values, (int) n, elemtype, kt->typlen,
						   kt->typbyval, kt->typalign);
}

/*
 * distinct_set_out(distinct_set) -> cstring
 */
Datum
distinct_set_out(PG_FUNCTION_ARGS)
{
	bytea	   *ds = PG_GETARG_DSET_P(0);
	bool		orphan;
	bytea	   *form = dset_portable(fcinfo, ds, &orphan);
	DSKeys		keys;
	const CDKeyType *kt;
	ArrayType  *array;
	char	   *values;

	if (orphan)
	{
		/* never fails: a dump of the table restores the orphan */
		static const char hexdigits[] = "0123456789abcdef";
		const uint8 *p = (const uint8 *) VARDATA_ANY(form);
		Size		len = VARSIZE_ANY_EXHDR(form);
		StringInfoData out;
		Size		i;

		if (len > (MaxAllocSize - 1 - strlen(ORPHAN_PREFIX) - 2) / 2)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("distinct_set too large for its text form"),
					 errdetail("A set without an element type is written in hex, which would take more than 1 GB.")));
		initStringInfo(&out);
		enlargeStringInfo(&out, (int) (strlen(ORPHAN_PREFIX) + 2 + 2 * len));
		memcpy(out.data, ORPHAN_PREFIX "\\x", strlen(ORPHAN_PREFIX) + 2);
		out.len = strlen(ORPHAN_PREFIX) + 2;
		for (i = 0; i < len; i++)
		{
			out.data[out.len++] = hexdigits[p[i] >> 4];
			out.data[out.len++] = hexdigits[p[i] & 0xF];
		}
		out.data[out.len] = '\0';
		PG_RETURN_CSTRING(out.data);
	}
	kt = dset_decode(fcinfo, ds, &keys);
	array = array_of(kt, kt->basetypid, datums_of(&keys), keys.n);
	values = OidOutputFunctionCall(F_ARRAY_OUT, PointerGetDatum(array));
	PG_RETURN_CSTRING(psprintf("%s:%s", dset_type_name(kt), values));
}

/*
 * A stored set from len bytes of its binary form: decoded (type names with
 * the user's privileges), its values validated as values of its type, and
 * accepted only if encoding it again gives the same binary form.  *orphan:
 * the set has no element type (its values validated as those of its base
 * type, if known).
 */
static bytea *
receive(FunctionCallInfo fcinfo, const char *data, int len, bool *orphan)
{
	bytea	   *ds = palloc(VARHDRSZ + len);
	bytea	   *again;
	bytea	   *form;
	DSKeys		keys;
	const CDKeyType *kt;
	Oid			basetypid;

	SET_VARSIZE(ds, VARHDRSZ + len);
	memcpy(VARDATA(ds), data, len);
	/* integer keys of a built-in type: checked run by run, not decoded */
	*orphan = false;
	if (dset_recv_in_place(fcinfo, ds))
		return ds;
	kt = dset_decode_input(fcinfo, ds, &keys, orphan, &basetypid);
	dsk_validate_values(&keys);
	again = dset_encode(kt, &keys);
	if (*orphan)
		again = form = dset_orphan(again, basetypid);
	else
		form = dset_portable(fcinfo, again, NULL);
	if (VARSIZE(form) != VARSIZE(ds) ||
		memcmp(VARDATA(form), VARDATA(ds), len) != 0)
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
	bool		orphan;
	bytea	   *ds = receive(fcinfo, buf->data + buf->cursor, len, &orphan);

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
	bool		orphan;

	PG_RETURN_BYTEA_P(receive(fcinfo, VARDATA_ANY(bytes),
							  (int) VARSIZE_ANY_EXHDR(bytes), &orphan));
}

/*
 * distinct_set_send(distinct_set) -> bytea
 */
Datum
distinct_set_send(PG_FUNCTION_ARGS)
{
	bytea	   *ds = dset_portable(fcinfo, PG_GETARG_DSET_P(0), NULL);
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
	kt = dsk_keytype_typmod(fcinfo, typid, record_array_typmod(array, typid));
	keys_of_array(fcinfo, array, kt, &keys);
	PG_RETURN_BYTEA_P(dset_encode(kt, &keys));
}

/*
 * An array of anonymous records: the canonical typmod of its first
 * element's row type (every element must have its column types), else -1.
 */
static int32
record_array_typmod(ArrayType *array, Oid typid)
{
	array_iter	iter;
	int			n = ArrayGetNItems(ARR_NDIM(array), ARR_DIMS(array));
	int			i;

	if (typid != RECORDOID)
		return -1;
	array_iter_setup(&iter, (AnyArrayType *) array);
	for (i = 0; i < n; i++)
	{
		bool		isnull;
		Datum		v = array_iter_next(&iter, &isnull, i, -1, false, TYPALIGN_DOUBLE);

		if (!isnull)
			return cd_record_value_typmod(v);
	}
	return -1;
}

/*
 * The type of the anyelement argument argno, which must be the set's
 * element type, its base type or a domain over that base type.
 */
static Oid
check_value_arg(FunctionCallInfo fcinfo, const CDKeyType *kt, int argno)
{
	Oid			argtype = get_fn_expr_argtype(fcinfo->flinfo, argno);

	if (!OidIsValid(argtype))
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("could not determine the type of the value argument")));
	dset_check_element_type(kt, argtype);
	return argtype;
}

/*
 * Values of the set, returned as values of typid (check_value_arg's): of a
 * domain, each is checked against the domain's constraints, as they are
 * now (those of another domain than the set's, and of the set's own if
 * they changed since the set was written).
 */
static void
check_domain_values(FunctionCallInfo fcinfo, Oid typid, Datum *values,
					uint32 n)
{
	void	   *extra = NULL;
	uint32		i;

	if (get_typtype(typid) != TYPTYPE_DOMAIN)
		return;
	for (i = 0; i < n; i++)
	{
		domain_check(values[i], false, typid, &extra, fcinfo->flinfo->fn_mcxt);
		if ((i & 0xFFF) == 0xFFF)
			CHECK_FOR_INTERRUPTS();
	}
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

	/*
	 * Records and arrays (key_record.h): key order is their order unless a
	 * field's key order is not its (text under a collation other than C);
	 * a composite's fields compare under their own collations, an array's
	 * elements under the call's (below).
	 */
	if (keys->n > 1 && kt->record != NULL && kt->sort_on_output &&
		!type_is_collatable(kt->basetypid))
	{
		qsort_arg(values, keys->n, sizeof(Datum), compare_datums,
				  (void *) &kt->ssup);
		return values;
	}
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
	Datum	   *values;
	Oid			elemtype;
	bytea	   *ds;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	ds = PG_GETARG_DSET_P(0);
	kt = dset_header(fcinfo, ds, &h);
	check_array_size(kt, h.n);
	kt = dset_decode(fcinfo, ds, &keys);
	elemtype = check_value_arg(fcinfo, kt, 1);
	values = ordered_datums(kt, &keys, PG_GET_COLLATION());
	check_domain_values(fcinfo, elemtype, values, keys.n);
	PG_RETURN_ARRAYTYPE_P(array_of(kt, elemtype, values, keys.n));
}

/*
 * distinct_set_values(distinct_set, anyelement) -> SETOF anyelement
 */
Datum
distinct_set_values(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	DSKeys		keys;
	const CDKeyType *kt = NULL;
	Datum	   *values;
	TupleDesc	tupdesc;
	Tuplestorestate *tupstore;
	MemoryContext old;
	Oid			elemtype;
	bool		rowtype;
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
		elemtype = get_fn_expr_argtype(fcinfo->flinfo, 1);
	}
	else
	{
		kt = dset_decode(fcinfo, PG_GETARG_DSET_P(0), &keys);
		elemtype = check_value_arg(fcinfo, kt, 1);
		values = ordered_datums(kt, &keys, PG_GET_COLLATION());
		check_domain_values(fcinfo, elemtype, values, keys.n);
	}

	/*
	 * A composite (or a domain over one) is returned as its columns; an
	 * anonymous record as its canonical row type's (the call's column
	 * definition list must have its column types), or as the list says if
	 * there are no values.
	 */
	rowtype = OidIsValid(elemtype) && type_is_rowtype(elemtype);
	old = MemoryContextSwitchTo(rsinfo->econtext->ecxt_per_query_memory);
	if (rowtype && elemtype == RECORDOID)
	{
		if (kt != NULL)
			tupdesc = lookup_rowtype_tupdesc_copy(RECORDOID, kt->typmod);
		else if (rsinfo->expectedDesc != NULL)
			tupdesc = CreateTupleDescCopy(rsinfo->expectedDesc);
		else
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("a column definition list is required for functions returning \"record\"")));
	}
	else if (rowtype)
		tupdesc = lookup_rowtype_tupdesc_copy(getBaseType(elemtype), -1);
	else
	{
		tupdesc = CreateTemplateTupleDesc(1);
		TupleDescInitEntry(tupdesc, (AttrNumber) 1, "distinct_set_values",
						   elemtype, -1, 0);
	}
	tupstore = tuplestore_begin_heap(rsinfo->allowedModes & SFRM_Materialize_Random,
									 false, work_mem);
	MemoryContextSwitchTo(old);
	for (i = 0; i < keys.n; i++)
	{
		bool		isnull = false;

		if (rowtype)
		{
			HeapTupleHeader th = DatumGetHeapTupleHeader(values[i]);
			HeapTupleData tuple;

			tuple.t_len = HeapTupleHeaderGetDatumLength(th);
			ItemPointerSetInvalid(&tuple.t_self);
			tuple.t_tableOid = InvalidOid;
			tuple.t_data = th;
			tuplestore_puttuple(tupstore, &tuple);
		}
		else
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

/*
 * distinct_set_recover(distinct_set, anyelement) -> distinct_set: the set's
 * values as a set of the type of the second argument (whose value is not
 * used): for a set whose element type is gone (dset.h), or to bind a set to
 * another domain over its base type.  The keys must be those of the type
 * (its base type must be the one the set was written for, if the set
 * records it; else its key encoding and width must be the set's), and each
 * value is checked as a value of the type, its domain constraints included.
 */
Datum
distinct_set_recover(PG_FUNCTION_ARGS)
{
	Oid			typid = get_fn_expr_argtype(fcinfo->flinfo, 1);
	const CDKeyType *kt;
	DSKeys		keys;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	if (!OidIsValid(typid))
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("could not determine the type of the value argument")));
	kt = dsk_keytype(fcinfo, typid);
	(void) dset_decode_as(fcinfo, PG_GETARG_DSET_P(0), kt, &keys);
	dsk_validate_values(&keys);
	PG_RETURN_BYTEA_P(dset_encode(kt, &keys));
}

/*
 * distinct_set_element_type(distinct_set) -> regtype: the set's element
 * type, NULL if it has none (its type was dropped).  Reads a prefix only.
 * In a CHECK constraint, (distinct_set_element_type(s) = 'mytype'::regtype)
 * binds a column to one element type with a catalog dependency: the
 * constraint's regtype constant keeps the type from being dropped without
 * CASCADE.
 */
Datum
distinct_set_element_type(PG_FUNCTION_ARGS)
{
	bytea	   *ds = (bytea *) PG_DETOAST_DATUM_SLICE(PG_GETARG_DATUM(0), 0,
													  DSET_TYPE_PREFIX);
	Oid			typid;

	/* a layout (records, arrays) may take more: the whole value */
	if (VARSIZE_ANY_EXHDR(ds) > DSET_HEADER_SIZE &&
		((const uint8 *) VARDATA_ANY(ds))[DSET_HEADER_SIZE] == DSET_REF_LAYOUT)
		ds = PG_GETARG_DSET_P(0);
	typid = dset_element_type(fcinfo, ds);

	if (!OidIsValid(typid))
		PG_RETURN_NULL();
	PG_RETURN_OID(typid);
}
