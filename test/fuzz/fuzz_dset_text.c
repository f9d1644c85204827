/*
 * fuzz_dset_text.c
 *	  libFuzzer harness for distinct_set's text input (distinct_set_in,
 *	  src/dset_io.c) and output (distinct_set_out).
 *
 * Each input is a C string (up to its first NUL byte) given to
 * distinct_set_in.  Most inputs must be refused with an ERROR of an
 * expected SQLSTATE (caught here; the contexts are reset).  An input that
 * is accepted must give a valid set:
 *   - it decodes (dset_decode) to as many keys as the header's count,
 *     strictly increasing, whose values are the distinct non-NULL values
 *     of the array literal (as the stub's array_in read them), in order;
 *   - output, then input again, gives the same bytes, and output again the
 *     same text (canonical text form);
 *   - the text form is "<type name>:{v1,v2,...}".
 * Any ERROR after a successful input aborts (a bug).
 *
 * The element types are those the stub's array_in reads (pgstub_dset_text.c):
 * int2, int4, int8, oid, a domain over int4; others are refused by the stub.
 * Text and other byte keys need the server's type I/O and collations, and
 * anonymous records ("record(...)") its row types: the regression tests
 * cover them.
 *
 * Built by test/fuzz/build.sh (HARNESS dset_text) against the server
 * headers, pgstub.c, pgstub_dset.c and pgstub_dset_text.c.
 */
#include "postgres.h"

#include <stdio.h>
#include <stdlib.h>

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"

#include "dset.h"
#include "key.h"
#include "pgstub.h"

#define CHECK(cond, what) \
	do { if (!(cond)) { fprintf(stderr, "fuzz_dset_text: check failed: %s (%s:%d)\n", what, __FILE__, __LINE__); abort(); } } while (0)

extern Datum distinct_set_in(PG_FUNCTION_ARGS);
extern Datum distinct_set_out(PG_FUNCTION_ARGS);

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int			LLVMFuzzerInitialize(int *argc, char ***argv);

static FmgrInfo flinfo;
static bool verbose;			/* CD_FUZZ_VERBOSE: each input's outcome */

static bytea *
call_in(const char *str)
{
	LOCAL_FCINFO(fcinfo, 3);

	fcinfo->flinfo = &flinfo;
	fcinfo->context = NULL;
	fcinfo->resultinfo = NULL;
	fcinfo->fncollation = InvalidOid;
	fcinfo->nargs = 1;
	fcinfo->args[0].value = CStringGetDatum(str);
	fcinfo->args[0].isnull = false;
	return (bytea *) DatumGetPointer(distinct_set_in(fcinfo));
}

static char *
call_out(bytea *ds)
{
	LOCAL_FCINFO(fcinfo, 1);

	fcinfo->flinfo = &flinfo;
	fcinfo->context = NULL;
	fcinfo->resultinfo = NULL;
	fcinfo->fncollation = InvalidOid;
	fcinfo->nargs = 1;
	fcinfo->args[0].value = PointerGetDatum(ds);
	fcinfo->args[0].isnull = false;
	return DatumGetCString(distinct_set_out(fcinfo));
}

/* a value of one of the stub's integer types, as a signed 64-bit number */
static int64
as_int64(Oid basetypid, Datum d)
{
	switch (basetypid)
	{
		case INT2OID:
			return DatumGetInt16(d);
		case INT4OID:
			return DatumGetInt32(d);
		case INT8OID:
			return DatumGetInt64(d);
		case OIDOID:
			return (int64) DatumGetObjectId(d);
	}
	CHECK(false, "an element type the stub's array_in does not read");
	return 0;
}

static int
cmp_i64(const void *a, const void *b)
{
	int64		x = *(const int64 *) a;
	int64		y = *(const int64 *) b;

	return (x > y) - (x < y);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sigjmp_buf	jb;
	char	   *str;
	bytea	   *ds1;
	bytea	   *ds2;
	char	   *s1;
	char	   *s2;
	DSKeys		keys;
	const CDKeyType *kt;
	LOCAL_FCINFO(fcinfo, 2);

	CurrentMemoryContext = stub_cxt_query;
	memset(&flinfo, 0, sizeof(flinfo));
	flinfo.fn_mcxt = stub_cxt_fn;
	fcinfo->flinfo = &flinfo;
	fcinfo->context = NULL;
	fcinfo->resultinfo = NULL;
	fcinfo->fncollation = InvalidOid;

	str = palloc(size + 1);
	memcpy(str, data, size);
	str[size] = '\0';

	/*
	 * Anonymous records' text input ("record(int4, ...):{...}") builds and
	 * blesses a row type: the server's, not the stub's; the regression tests
	 * (dset_records.sql) cover it.
	 */
	if (pg_strncasecmp(str, "record", 6) == 0 &&
		str[6 + strspn(str + 6, " \t\n\r\f\v")] == '(')
	{
		pfree(str);
		return 0;
	}

	stub_error_jmp = &jb;
	if (sigsetjmp(jb, 0) != 0)
	{
		/*
		 * refused: fine, but only with an ordinary error code (an orphan's
		 * text form holds its binary form: 22P03 for a bad one)
		 */
		stub_error_jmp = NULL;
		CHECK(stub_last_sqlstate == ERRCODE_INVALID_TEXT_REPRESENTATION ||
			  stub_last_sqlstate == ERRCODE_INVALID_BINARY_REPRESENTATION ||
			  stub_last_sqlstate == ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE ||
			  stub_last_sqlstate == ERRCODE_SYNTAX_ERROR ||
			  stub_last_sqlstate == ERRCODE_UNDEFINED_OBJECT ||
			  stub_last_sqlstate == ERRCODE_FEATURE_NOT_SUPPORTED ||
			  stub_last_sqlstate == ERRCODE_UNDEFINED_FUNCTION ||
			  stub_last_sqlstate == ERRCODE_PROGRAM_LIMIT_EXCEEDED ||
			  stub_last_sqlstate == ERRCODE_OUT_OF_MEMORY,
			  "refused with an unexpected SQLSTATE");
		if (verbose)
			fprintf(stderr, "refused (%c%c%c%c%c)\n", PGUNSIXBIT(stub_last_sqlstate),
					PGUNSIXBIT(stub_last_sqlstate >> 6), PGUNSIXBIT(stub_last_sqlstate >> 12),
					PGUNSIXBIT(stub_last_sqlstate >> 18), PGUNSIXBIT(stub_last_sqlstate >> 24));
		stub_reset(stub_cxt_query);
		stub_reset(stub_cxt_fn);
		return 0;
	}
	ds1 = call_in(str);
	stub_error_jmp = NULL;		/* from here on, an ERROR is a bug */

	/* the keys: the distinct values of the literal, in order */
	kt = dset_decode(fcinfo, ds1, &keys);
	CHECK(dset_count(ds1) == keys.n, "count in the header");
	{
		const char *brace = strchr(str, '{');
		Oid			basetypid = getBaseType(kt->typid);
		int16		typlen;
		bool		typbyval;
		char		typalign;
		ArrayType  *a;
		Datum	   *values;
		bool	   *nulls;
		int			n;
		int			m = 0;
		int64	   *ref;

		/* the literal once more, through the stub's array_in */
		CHECK(brace != NULL, "accepted without a brace");
		while (brace != NULL && brace > str)
		{
			/* the first brace outside quotes: as distinct_set_in finds it */
			const char *q;
			bool		quoted = false;

			for (q = str; q < brace; q++)
				if (*q == '"')
					quoted = !quoted;
			if (!quoted)
				break;
			brace = strchr(brace + 1, '{');
		}
		CHECK(brace != NULL, "no unquoted brace");
		a = (ArrayType *) DatumGetPointer(OidInputFunctionCall(F_ARRAY_IN, (char *) brace, kt->typid, -1));
		get_typlenbyvalalign(kt->typid, &typlen, &typbyval, &typalign);
		deconstruct_array(a, ARR_ELEMTYPE(a), typlen, typbyval, typalign, &values, &nulls, &n);
		CHECK(!ARR_HASNULL(a) && ARR_NDIM(a) <= 1, "accepted NULL or several dimensions");
		ref = malloc(sizeof(int64) * (n + 1));
		for (int i = 0; i < n; i++)
			ref[i] = as_int64(basetypid, values[i]);
		qsort(ref, n, sizeof(int64), cmp_i64);
		for (int i = 0; i < n; i++)
			if (m == 0 || ref[m - 1] != ref[i])
				ref[m++] = ref[i];
		CHECK(keys.n == (uint32) m, "as many values as distinct values in the literal");
		for (uint32 i = 0; i < keys.n; i++)
		{
			CHECK(i == 0 || dsk_get(&keys, i - 1) < dsk_get(&keys, i), "keys strictly increasing");
			CHECK(as_int64(basetypid, dsk_datum(&keys, i)) == ref[i], "the values, in order");
		}
		free(ref);
	}

	/* canonical text form: output, input, output */
	s1 = call_out(ds1);
	{
		char	   *name = format_type_be(kt->typid);

		CHECK(strncmp(s1, name, strlen(name)) == 0 && s1[strlen(name)] == ':' &&
			  s1[strlen(name) + 1] == '{' && s1[strlen(s1) - 1] == '}',
			  "text form: type name, colon, braces");
	}
	ds2 = call_in(s1);
	CHECK(VARSIZE(ds1) == VARSIZE(ds2) && memcmp(ds1, ds2, VARSIZE(ds1)) == 0,
		  "input of the output gives the same bytes");
	s2 = call_out(ds2);
	CHECK(strcmp(s1, s2) == 0, "output of that gives the same text");
	if (verbose)
		fprintf(stderr, "accepted: %s\n", s1);

	stub_reset(stub_cxt_query);
	stub_reset(stub_cxt_fn);
	return 0;
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *v = getenv("CD_FUZZ_VERBOSE");

	verbose = v != NULL && *v != '\0';
	stub_init();
	return 0;
}
