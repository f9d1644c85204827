/*
 * pgstub_dset_text.c
 *	  What distinct_set's text input and output (src/dset_io.c) need of the
 *	  server beyond pgstub.c and pgstub_dset.c, for
 *	  test/fuzz/fuzz_dset_text.c.
 *
 * - parseTypeString: one name, or schema.name, each an identifier
 *   (lower-cased) or a quoted one, with white space around; the names of the
 *   stub catalog's integer types (and the grammar's aliases integer, int,
 *   smallint, bigint), its domain over int4 and point.  Anything else is an
 *   unknown type (42704) or a syntax error (42601).  No type modifiers, no
 *   array types.
 * - array_in (as OidInputFunctionCall(F_ARRAY_IN)): the server's array
 *   literal grammar without the dimension decoration: braces (nested, up to
 *   MAXDIM, rectangular), elements quoted or not, backslash escapes, white
 *   space, NULL; elements of int2, int4, int8, oid and domains over them,
 *   read as int2in/int4in/int8in/oidin do (decimal, sign, white space
 *   around).  Errors: 22P02, out of range 22003.
 * - array_out (OidOutputFunctionCall(F_ARRAY_OUT)): one-dimensional arrays
 *   of those types, as the server prints them.
 * The set-returning and sorting paths of dset_io.c are never reached here.
 */
#include "postgres.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "parser/parse_type.h"
#include "parser/scansup.h"
#include "utils/array.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/sortsupport.h"
#include "utils/tuplestore.h"

#include "pgstub.h"

#define STUB_UNREACHABLE(name) \
	do { fprintf(stderr, "stub: %s reached\n", name); abort(); } while (0)

int			work_mem = 4096;

Oid get_fn_expr_argtype(FmgrInfo *flinfo, int argnum) { STUB_UNREACHABLE("get_fn_expr_argtype"); }
struct varlena *pg_detoast_datum_slice(struct varlena *datum, int32 first, int32 count) { STUB_UNREACHABLE("pg_detoast_datum_slice"); }
void qsort_arg(void *base, size_t nel, size_t elsize, qsort_arg_comparator cmp, void *arg) { STUB_UNREACHABLE("qsort_arg"); }
Tuplestorestate *tuplestore_begin_heap(bool randomAccess, bool interXact, int maxKBytes) { STUB_UNREACHABLE("tuplestore_begin_heap"); }
#if PG_VERSION_NUM >= 160000
void tuplestore_putvalues(Tuplestorestate *state, TupleDesc tdesc, const Datum *values, const bool *isnull) { STUB_UNREACHABLE("tuplestore_putvalues"); }
#else
void tuplestore_putvalues(Tuplestorestate *state, TupleDesc tdesc, Datum *values, bool *isnull) { STUB_UNREACHABLE("tuplestore_putvalues"); }
#endif
/* anonymous records' text input: skipped by the harness */
int
pg_strncasecmp(const char *s1, const char *s2, size_t n)
{
	for (; n > 0; n--, s1++, s2++)
	{
		int			a = tolower((unsigned char) *s1);
		int			b = tolower((unsigned char) *s2);

		if (a != b)
			return a - b;
		if (a == 0)
			break;
	}
	return 0;
}

/* distinct_set_values of a composite: not called here */
void tuplestore_puttuple(Tuplestorestate *state, HeapTuple tuple) { STUB_UNREACHABLE("tuplestore_puttuple"); }
bool type_is_rowtype(Oid typid) { STUB_UNREACHABLE("type_is_rowtype"); }
TupleDesc lookup_rowtype_tupdesc_copy(Oid type_id, int32 typmod) { STUB_UNREACHABLE("lookup_rowtype_tupdesc_copy"); }

bool
scanner_isspace(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\f';
}

char *
pnstrdup(const char *in, Size len)
{
	Size		n = strnlen(in, len);
	char	   *out = palloc(n + 1);

	memcpy(out, in, n);
	out[n] = '\0';
	return out;
}

static void
syntax_error(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_SYNTAX_ERROR),
			 errmsg("syntax error")));
}

/* an identifier at *p (quoted or not) into buf; false if there is none */
static bool
read_ident(const char **p, char *buf)
{
	const char *s = *p;
	int			n = 0;

	if (*s == '"')
	{
		s++;
		for (;;)
		{
			if (*s == '\0')
				syntax_error();	/* unterminated quoted identifier */
			if (*s == '"')
			{
				if (s[1] != '"')
					break;
				s++;
			}
			if (n < NAMEDATALEN - 1)
				buf[n++] = *s;
			s++;
		}
		s++;
		if (n == 0)
			syntax_error();		/* zero-length delimited identifier */
	}
	else
	{
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_' ||
			  (unsigned char) *s >= 0x80))
			return false;
		while ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_' ||
			   (*s >= '0' && *s <= '9') || *s == '$' || (unsigned char) *s >= 0x80)
		{
			if (n < NAMEDATALEN - 1)
				buf[n++] = (*s >= 'A' && *s <= 'Z') ? *s + ('a' - 'A') : *s;
			s++;
		}
	}
	buf[n] = '\0';
	*p = s;
	return true;
}

static Oid
lookup_type(const char *schema, const char *name)
{
	static const struct
	{
		const char *schema;
		const char *name;
		Oid			typid;
	}			names[] = {
		{NULL, "smallint", INT2OID},
		{NULL, "integer", INT4OID},
		{NULL, "int", INT4OID},
		{NULL, "bigint", INT8OID},
		{"pg_catalog", "int2", INT2OID},
		{"pg_catalog", "int4", INT4OID},
		{"pg_catalog", "int8", INT8OID},
		{"pg_catalog", "oid", OIDOID},
		{"pg_catalog", "point", POINTOID},
		{"public", "dom_int4", STUB_DOMAIN_INT4},
	};

	for (int i = 0; i < lengthof(names); i++)
	{
		if (strcmp(names[i].name, name) != 0)
			continue;
		/* the grammar's aliases are keywords: never schema-qualified */
		if (names[i].schema == NULL ? schema == NULL :
			(schema == NULL || strcmp(schema, names[i].schema) == 0))
			return names[i].typid;
	}
	return InvalidOid;
}

#if PG_VERSION_NUM >= 160000
bool
parseTypeString(const char *str, Oid *typeid_p, int32 *typmod_p, Node *escontext)
#else
void
parseTypeString(const char *str, Oid *typeid_p, int32 *typmod_p, bool missing_ok)
#endif
{
	const char *p = str;
	char		first[NAMEDATALEN];
	char		second[NAMEDATALEN];
	bool		qualified = false;
	Oid			typid;

	while (scanner_isspace(*p))
		p++;
	if (!read_ident(&p, first))
		syntax_error();
	while (scanner_isspace(*p))
		p++;
	if (*p == '.')
	{
		p++;
		while (scanner_isspace(*p))
			p++;
		if (!read_ident(&p, second))
			syntax_error();
		qualified = true;
		while (scanner_isspace(*p))
			p++;
	}
	if (*p != '\0')
		syntax_error();
	typid = qualified ? lookup_type(first, second) : lookup_type(NULL, first);
	if (!OidIsValid(typid))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("type does not exist")));
	*typeid_p = typid;
	*typmod_p = -1;
#if PG_VERSION_NUM >= 160000
	return true;
#endif
}

/* ---- array_in ---- */

static void
malformed(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
			 errmsg("malformed array literal")));
}

typedef struct ArrayParse
{
	const char *p;
	int			ndim;			/* -1 until the first element is seen */
	int			dims[MAXDIM];
	bool		dimset[MAXDIM];
	StringInfoData items;		/* the elements, each NUL-terminated */
	int			nitems;
	bool	   *nulls;
	int			maxitems;
} ArrayParse;

static bool
is_space(char c)
{
	return scanner_isspace(c) || c == '\v';
}

static void
add_item(ArrayParse *ap, bool isnull)
{
	if (ap->nitems >= ap->maxitems)
	{
		ap->maxitems = Max(16, ap->maxitems * 2);
		ap->nulls = ap->nulls == NULL ? palloc(ap->maxitems * sizeof(bool)) :
			repalloc(ap->nulls, ap->maxitems * sizeof(bool));
	}
	ap->nulls[ap->nitems++] = isnull;
	appendStringInfoChar(&ap->items, '\0');
}

static bool
is_null_word(const char *s)
{
	return (s[0] == 'n' || s[0] == 'N') && (s[1] == 'u' || s[1] == 'U') &&
		(s[2] == 'l' || s[2] == 'L') && (s[3] == 'l' || s[3] == 'L') && s[4] == '\0';
}

/* one element at ap->p: quoted or not; NULL unquoted is a null */
static void
parse_element(ArrayParse *ap)
{
	const char *s = ap->p;
	int			start = ap->items.len;
	bool		quoted_any = false;
	int			last_significant;

	last_significant = start;
	while (*s != '\0' && *s != ',' && *s != '}')
	{
		if (*s == '"')
		{
			quoted_any = true;
			s++;
			while (*s != '"')
			{
				if (*s == '\0')
					malformed();
				if (*s == '\\')
				{
					s++;
					if (*s == '\0')
						malformed();
				}
				appendStringInfoChar(&ap->items, *s++);
			}
			s++;
			last_significant = ap->items.len;
		}
		else if (*s == '\\')
		{
			s++;
			if (*s == '\0')
				malformed();
			appendStringInfoChar(&ap->items, *s++);
			last_significant = ap->items.len;
		}
		else if (*s == '{')
			malformed();
		else
		{
			appendStringInfoChar(&ap->items, *s);
			if (!is_space(*s))
				last_significant = ap->items.len;
			s++;
		}
	}
	/* unquoted trailing white space is not part of the element */
	ap->items.len = last_significant;
	ap->items.data[ap->items.len] = '\0';
	if (!quoted_any && ap->items.len == start)
		malformed();			/* an empty unquoted element */
	ap->p = s;
	if (!quoted_any && is_null_word(ap->items.data + start))
	{
		ap->items.len = start;
		add_item(ap, true);
	}
	else
		add_item(ap, false);
}

static void
parse_level(ArrayParse *ap, int level)
{
	int			count = 0;

	if (level >= MAXDIM)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("number of array dimensions exceeds the maximum allowed")));
	Assert(*ap->p == '{');
	ap->p++;
	while (is_space(*ap->p))
		ap->p++;
	if (*ap->p == '}')
	{
		/* {} only as the whole array */
		if (level > 0 || ap->ndim >= 0)
			malformed();
		ap->p++;
		ap->ndim = 0;
		return;
	}
	for (;;)
	{
		while (is_space(*ap->p))
			ap->p++;
		if (*ap->p == '{')
		{
			if (ap->ndim >= 0 && level + 1 >= ap->ndim)
				malformed();
			parse_level(ap, level + 1);
		}
		else
		{
			if (ap->ndim < 0)
				ap->ndim = level + 1;
			else if (ap->ndim != level + 1)
				malformed();
			parse_element(ap);
		}
		count++;
		while (is_space(*ap->p))
			ap->p++;
		if (*ap->p == ',')
		{
			ap->p++;
			continue;
		}
		if (*ap->p == '}')
		{
			ap->p++;
			break;
		}
		malformed();
	}
	if (!ap->dimset[level])
	{
		ap->dims[level] = count;
		ap->dimset[level] = true;
	}
	else if (ap->dims[level] != count)
		malformed();			/* not rectangular */
}

/* an integer element, as int2in / int4in / int8in / oidin read it */
static Datum
read_integer(const char *s, Oid basetypid)
{
	const char *p = s;
	bool		neg = false;
	uint64		v = 0;
	uint64		limit;
	bool		digits = false;

	while (is_space(*p))
		p++;
	if (*p == '-' || *p == '+')
		neg = *p++ == '-';
	while (*p >= '0' && *p <= '9')
	{
		if (v > (PG_UINT64_MAX - 9) / 10)
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("value out of range")));
		v = v * 10 + (*p++ - '0');
		digits = true;
	}
	while (is_space(*p))
		p++;
	if (!digits || *p != '\0')
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid input syntax")));
	switch (basetypid)
	{
		case INT2OID:
			limit = neg ? (uint64) PG_INT16_MAX + 1 : PG_INT16_MAX;
			break;
		case INT4OID:
			limit = neg ? (uint64) PG_INT32_MAX + 1 : PG_INT32_MAX;
			break;
		case INT8OID:
			limit = neg ? (uint64) PG_INT64_MAX + 1 : PG_INT64_MAX;
			break;
		case OIDOID:
			limit = neg ? 0 : PG_UINT32_MAX;
			break;
		default:
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("stub: no input function for this type")));
	}
	if (v > limit)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("value out of range")));
	switch (basetypid)
	{
		case INT2OID:
			return Int16GetDatum(neg ? (int16) (0 - v) : (int16) v);
		case INT4OID:
			return Int32GetDatum(neg ? (int32) (0 - v) : (int32) v);
		case INT8OID:
			return Int64GetDatum(neg ? (int64) (0 - v) : (int64) v);
		default:
			return ObjectIdGetDatum((Oid) v);
	}
}

static ArrayType *
stub_array_in(char *str, Oid elemtype)
{
	ArrayParse	ap;
	Oid			basetypid = getBaseType(elemtype);
	int16		typlen;
	bool		typbyval;
	char		typalign;
	Datum	   *values;
	int			lbs[MAXDIM];
	const char *item;

	memset(&ap, 0, sizeof(ap));
	ap.p = str;
	ap.ndim = -1;
	initStringInfo(&ap.items);
	get_typlenbyvalalign(elemtype, &typlen, &typbyval, &typalign);
	while (is_space(*ap.p))
		ap.p++;
	if (*ap.p != '{')
		malformed();
	parse_level(&ap, 0);
	while (is_space(*ap.p))
		ap.p++;
	if (*ap.p != '\0')
		malformed();			/* junk after the closing right brace */
	if (basetypid != INT2OID && basetypid != INT4OID && basetypid != INT8OID &&
		basetypid != OIDOID)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("stub: no input function for this type")));
	values = palloc(Max(ap.nitems, 1) * sizeof(Datum));
	item = ap.items.data;
	for (int i = 0; i < ap.nitems; i++)
	{
		values[i] = ap.nulls[i] ? (Datum) 0 : read_integer(item, basetypid);
		item += strlen(item) + 1;
	}
	for (int i = 0; i < MAXDIM; i++)
		lbs[i] = 1;
	if (ap.ndim == 0)
		return construct_md_array(values, NULL, 0, ap.dims, lbs, elemtype, typlen, typbyval, typalign);
	return construct_md_array(values, ap.nulls, ap.ndim, ap.dims, lbs, elemtype,
							  typlen, typbyval, typalign);
}

Datum
OidInputFunctionCall(Oid functionId, char *str, Oid typioparam, int32 typmod)
{
	if (functionId != F_ARRAY_IN)
		STUB_UNREACHABLE("OidInputFunctionCall (not array_in)");
	return PointerGetDatum(stub_array_in(str, typioparam));
}

/* ---- array_out ---- */

char *
OidOutputFunctionCall(Oid functionId, Datum val)
{
	ArrayType  *a = (ArrayType *) DatumGetPointer(val);
	Oid			basetypid = getBaseType(ARR_ELEMTYPE(a));
	int16		typlen;
	bool		typbyval;
	char		typalign;
	Datum	   *values;
	bool	   *nulls;
	int			n;
	StringInfoData out;

	if (functionId != F_ARRAY_OUT || ARR_NDIM(a) > 1)
		STUB_UNREACHABLE("OidOutputFunctionCall (not array_out of a list)");
	get_typlenbyvalalign(ARR_ELEMTYPE(a), &typlen, &typbyval, &typalign);
	deconstruct_array(a, ARR_ELEMTYPE(a), typlen, typbyval, typalign, &values, &nulls, &n);
	initStringInfo(&out);
	appendStringInfoChar(&out, '{');
	for (int i = 0; i < n; i++)
	{
		char		buf[32];

		if (i > 0)
			appendStringInfoChar(&out, ',');
		if (nulls[i])
		{
			appendBinaryStringInfo(&out, "NULL", 4);
			continue;
		}
		switch (basetypid)
		{
			case INT2OID:
				snprintf(buf, sizeof(buf), "%d", (int) DatumGetInt16(values[i]));
				break;
			case INT4OID:
				snprintf(buf, sizeof(buf), "%d", DatumGetInt32(values[i]));
				break;
			case INT8OID:
				snprintf(buf, sizeof(buf), "%lld", (long long) DatumGetInt64(values[i]));
				break;
			case OIDOID:
				snprintf(buf, sizeof(buf), "%u", DatumGetObjectId(values[i]));
				break;
			default:
				STUB_UNREACHABLE("array_out of this type");
		}
		appendBinaryStringInfo(&out, buf, strlen(buf));
	}
	appendStringInfoChar(&out, '}');
	return out.data;
}
