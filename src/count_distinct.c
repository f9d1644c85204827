/*-------------------------------------------------------------------------
 *
 * count_distinct.c
 *	  The SQL-callable functions: argument handling only.
 *
 * Values become keys (key.h), keys go into the set (set.h), and the set
 * becomes a count, an array or bytes (serialize.h).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "utils/array.h"
#include "utils/arrayaccess.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "alloc.h"
#include "compat.h"
#include "key.h"
#include "serialize.h"
#include "set.h"

PG_MODULE_MAGIC;

PG_FUNCTION_INFO_V1(count_distinct_append);
PG_FUNCTION_INFO_V1(count_distinct_elements_append);
PG_FUNCTION_INFO_V1(count_distinct_combine);
PG_FUNCTION_INFO_V1(count_distinct_serial);
PG_FUNCTION_INFO_V1(count_distinct_deserial);
PG_FUNCTION_INFO_V1(count_distinct_final);
PG_FUNCTION_INFO_V1(array_agg_distinct_final);
PG_FUNCTION_INFO_V1(array_agg_distinct_array_final);

/* The aggregate's memory context; ERROR when not called as an aggregate. */
static MemoryContext
aggregate_context(FunctionCallInfo fcinfo, const char *funcname)
{
	MemoryContext aggcontext;

	if (!AggCheckCallContext(fcinfo, &aggcontext))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s can only be called as part of an aggregate",
						funcname)));
	return aggcontext;
}

static inline CDSet *
state_arg(FunctionCallInfo fcinfo, int argno)
{
	return PG_ARGISNULL(argno) ? NULL : (CDSet *) PG_GETARG_POINTER(argno);
}

/* The result array's element type. */
typedef struct ArrayResultType
{
	Oid			elemtype;
	int16		typlen;
	bool		typbyval;
	char		typalign;
} ArrayResultType;

/* What each function caches per query, in fn_extra. */
typedef struct CDFnCache
{
	const CDKeyType *kt;		/* the values' key type */
	CDAlloc    *hash_alloc;		/* where sets live under hash aggregation */
	CDAlloc		local_alloc;	/* ... and elsewhere */
	bool		have_result_type;
	ArrayResultType rt;			/* array_agg_distinct_final's result */
} CDFnCache;

static inline CDFnCache *
fn_cache(FunctionCallInfo fcinfo)
{
	if (fcinfo->flinfo->fn_extra == NULL)
		fcinfo->flinfo->fn_extra =
			MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(CDFnCache));
	return (CDFnCache *) fcinfo->flinfo->fn_extra;
}

/*
 * count_distinct_append(state internal, value anyelement) -> internal
 */
Datum
count_distinct_append(PG_FUNCTION_ARGS)
{
	CDSet	   *set = state_arg(fcinfo, 0);
	CDAlloc    *alloc = NULL;

	if (PG_ARGISNULL(1))
	{
		if (set == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(set);
	}

	/* the contexts matter only for a new set or a full one (once a batch) */
	if (set == NULL || cdset_needs_alloc(set))
	{
		MemoryContext aggcontext = aggregate_context(fcinfo, "count_distinct_append");
		CDFnCache  *cache = fn_cache(fcinfo);

		alloc = cd_alloc_get(fcinfo, aggcontext, &cache->hash_alloc,
							 &cache->local_alloc);
		if (set == NULL)
		{
			if (cache->kt == NULL)
				cd_keytype_cached(&cache->kt, fcinfo->flinfo->fn_mcxt,
								  get_fn_expr_argtype(fcinfo->flinfo, 1),
								  PG_GET_COLLATION());
			set = cdset_create(cache->kt, alloc);
		}
	}

	set = cdset_add_value(set, PG_GETARG_DATUM(1), alloc);
	PG_RETURN_POINTER(set);
}

/*
 * count_distinct_elements_append(state internal, values anyarray) -> internal
 *
 * Adds every non-NULL element (any number of dimensions).
 */
Datum
count_distinct_elements_append(PG_FUNCTION_ARGS)
{
	MemoryContext aggcontext = aggregate_context(fcinfo, "count_distinct_elements_append");
	CDSet	   *set = state_arg(fcinfo, 0);
	AnyArrayType *array;
	const CDKeyType *kt;
	CDFnCache  *cache;
	CDAlloc    *alloc;
	array_iter	iter;
	int			nitems;
	int			i;

	if (PG_ARGISNULL(1))
	{
		if (set == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(set);
	}

	array = PG_GETARG_ANY_ARRAY_P(1);
	nitems = ArrayGetNItems(AARR_NDIM(array), AARR_DIMS(array));

	cache = fn_cache(fcinfo);
	kt = cache->kt;
	if (kt == NULL)
		kt = cd_keytype_cached(&cache->kt, fcinfo->flinfo->fn_mcxt,
							   AARR_ELEMTYPE(array), PG_GET_COLLATION());
	alloc = cd_alloc_get(fcinfo, aggcontext, &cache->hash_alloc,
						 &cache->local_alloc);

	if (set == NULL)
	{
		if (nitems == 0)
			PG_RETURN_NULL();
		set = cdset_create(kt, alloc);
	}

	array_iter_setup(&iter, array);
	for (i = 0; i < nitems; i++)
	{
		bool		isnull;
		Datum		value = array_iter_next(&iter, &isnull, i, kt->typlen,
											kt->typbyval, kt->typalign);

		if (!isnull)
			set = cdset_add_value(set, value, alloc);
	}
	PG_RETURN_POINTER(set);
}

/*
 * count_distinct_combine(state1 internal, state2 internal) -> internal
 *
 * state2 may live in a short-lived context (deserialized), so the result is
 * always in the aggregate context.
 */
Datum
count_distinct_combine(PG_FUNCTION_ARGS)
{
	MemoryContext aggcontext = aggregate_context(fcinfo, "count_distinct_combine");
	CDSet	   *set1 = state_arg(fcinfo, 0);
	CDSet	   *set2 = state_arg(fcinfo, 1);
	CDFnCache  *cache = fn_cache(fcinfo);
	CDAlloc    *alloc = cd_alloc_get(fcinfo, aggcontext, &cache->hash_alloc,
									 &cache->local_alloc);

	if (set2 == NULL)
	{
		if (set1 == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(set1);
	}
	if (set1 == NULL)
		PG_RETURN_POINTER(cdset_copy(set2, alloc->mcxt));

	if (!cd_keytype_equal(set1->kt, set2->kt))
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("cannot combine count_distinct states of types %s and %s",
						format_type_be(set1->kt->typid),
						format_type_be(set2->kt->typid))));

	PG_RETURN_POINTER(cdset_union(set1, set2, alloc));
}

/*
 * count_distinct_serial(state internal) -> bytea
 */
Datum
count_distinct_serial(PG_FUNCTION_ARGS)
{
	(void) aggregate_context(fcinfo, "count_distinct_serial");
	PG_RETURN_BYTEA_P(cd_serialize((CDSet *) PG_GETARG_POINTER(0)));
}

/*
 * count_distinct_deserial(bytes bytea, internal) -> internal
 */
Datum
count_distinct_deserial(PG_FUNCTION_ARGS)
{
	bytea	   *bytes;
	CDFnCache  *cache;

	(void) aggregate_context(fcinfo, "count_distinct_deserial");
	bytes = PG_GETARG_BYTEA_PP(0);
	cache = fn_cache(fcinfo);
	PG_RETURN_POINTER(cd_deserialize(VARDATA_ANY(bytes),
									 VARSIZE_ANY_EXHDR(bytes),
									 &cache->kt, fcinfo->flinfo->fn_mcxt));
}

/*
 * count_distinct_final(state internal) -> bigint
 *
 * Compaction leaves the state equivalent and in place, so the state stays
 * usable (window aggregates keep adding to it).
 */
Datum
count_distinct_final(PG_FUNCTION_ARGS)
{
	CDSet	   *set;

	(void) aggregate_context(fcinfo, "count_distinct_final");
	set = state_arg(fcinfo, 0);
	if (set == NULL)
		PG_RETURN_INT64(0);
	PG_RETURN_INT64((int64) cdset_count(set));
}

/*
 * array_agg_distinct_type_final(state internal, anynonarray) -> anyarray
 * array_agg_distinct_elements_final(state internal, anyarray) -> anyarray
 *
 * The distinct values in ascending btree order; '{}' for no values.
 */
Datum
array_agg_distinct_final(PG_FUNCTION_ARGS)
{
	CDFnCache  *cache = fn_cache(fcinfo);
	ArrayResultType *rt = &cache->rt;
	CDSet	   *set;
	Datum	   *values;
	uint32		n;

	(void) aggregate_context(fcinfo, "array_agg_distinct_final");

	if (!cache->have_result_type)
	{
		Oid			arraytype = get_fn_expr_rettype(fcinfo->flinfo);
		Oid			elemtype = get_element_type(arraytype);

		if (!OidIsValid(elemtype))
			elog(ERROR, "array_agg_distinct_final: could not determine the result element type");
		rt->elemtype = elemtype;
		get_typlenbyvalalign(elemtype, &rt->typlen, &rt->typbyval, &rt->typalign);
		cache->have_result_type = true;
	}

	set = state_arg(fcinfo, 0);
	if (set == NULL)
		PG_RETURN_ARRAYTYPE_P(construct_empty_array(rt->elemtype));

	values = cdset_output_datums(set, &n);

	PG_RETURN_ARRAYTYPE_P(construct_array(values, (int) n, rt->elemtype,
										  rt->typlen, rt->typbyval,
										  rt->typalign));
}

/*
 * array_agg_distinct_array_final(state internal, anyarray) -> anyarray
 *
 * The final function of array_agg_distinct(anyarray): the distinct arrays in
 * ascending btree order, stacked into an array of one more dimension, as
 * native array_agg(DISTINCT a ORDER BY a) builds it (with its errors for
 * empty arrays and arrays of different dimensions); '{}' for no arrays.
 */
Datum
array_agg_distinct_array_final(PG_FUNCTION_ARGS)
{
	Oid			arraytype;
	Oid			elemtype;
	CDSet	   *set;
	Datum	   *values;
	uint32		n;
	uint32		i;
	ArrayBuildStateArr *astate;

	(void) aggregate_context(fcinfo, "array_agg_distinct_array_final");

	arraytype = get_fn_expr_rettype(fcinfo->flinfo);
	elemtype = get_element_type(arraytype);
	if (!OidIsValid(elemtype))
		elog(ERROR, "array_agg_distinct_array_final: could not determine the result type");

	set = state_arg(fcinfo, 0);
	if (set == NULL)
		PG_RETURN_ARRAYTYPE_P(construct_empty_array(elemtype));

	values = cdset_output_datums(set, &n);
	astate = initArrayResultArr(arraytype, elemtype, CurrentMemoryContext, false);
	for (i = 0; i < n; i++)
		astate = accumArrayResultArr(astate, values[i], false, arraytype,
									 CurrentMemoryContext);
	PG_RETURN_DATUM(makeArrayResultArr(astate, CurrentMemoryContext, false));
}
