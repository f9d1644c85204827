/*-------------------------------------------------------------------------
 *
 * errors.c
 *	  The errors raised in more than one module (see errors.h).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/array.h"
#include "utils/memutils.h"
#include "utils/builtins.h"
#include "utils/regproc.h"

#include "compat.h"
#include "errors.h"

void
cd_invalid(const char *what, const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
			 errmsg("invalid %s", what),
			 errdetail_internal("%s", detail)));
	pg_unreachable();
}

void
cd_invalid_state(const char *detail)
{
	cd_invalid(CD_WHAT_STATE, detail);
}

void
cd_error_value_too_large(Size len)
{
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("value too large for a distinct set"),
			 errdetail("The value takes %zu bytes; at most %zu are supported.",
					   len, (Size) MaxAllocSize)));
	pg_unreachable();
}

void
cd_error_group_too_large(Size max, int width)
{
	if (width > 0)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("too many distinct values in one group"),
				 errdetail("A group can hold at most %zu values of %d bytes.",
						   max, width)));
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("too many distinct values in one group"),
			 errdetail("A group can hold at most %zu bytes of distinct values.",
					   max)));
	pg_unreachable();
}

void
cd_error_array_too_large(uint64 count)
{
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("too many distinct values for one array: " UINT64_FORMAT,
					count),
			 errdetail("An array holds at most %d elements and 1 GB.",
					   (int) MaxArraySize),
			 errhint("count_distinct has no such limit; or group by more columns so that each group holds fewer values.")));
	pg_unreachable();
}

void
cd_error_not_an_array(Oid typid)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATATYPE_MISMATCH),
			 errmsg("result type %s of array_agg_distinct is not an array type",
					format_type_be(typid))));
	pg_unreachable();
}

void
cd_error_bad_key(const char *what)
{
	elog(ERROR, "unexpected key type: %s", what);
	pg_unreachable();
}

void
cd_error_wrong_state(FunctionCallInfo fcinfo, const char *kind)
{
	Oid			fn = fcinfo->flinfo != NULL ? fcinfo->flinfo->fn_oid : InvalidOid;

	ereport(ERROR,
			(errcode(ERRCODE_DATATYPE_MISMATCH),
			 errmsg("aggregate state is not %s", kind),
			 errdetail("Function %s is used in an aggregate whose other support functions keep another kind of state.",
					   OidIsValid(fn) ? format_procedure(fn) : "(unknown)")));
	pg_unreachable();
}
