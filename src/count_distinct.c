/*-------------------------------------------------------------------------
 *
 * count_distinct.c
 *	  The SQL-callable functions of the aggregates: their arguments (value
 *	  types, implicit casts, states, memory contexts) and results.
 *
 * Values become keys (key.h), keys go into the set (set.h), and the set
 * becomes a count, an array or bytes (set.h, serialize.h).  Window frames
 * use the moving state instead (moving.h).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "nodes/primnodes.h"
#include "utils/array.h"
#include "utils/arrayaccess.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"

#include "alloc.h"
#include "compat.h"
#include "errors.h"
#include "key.h"
#include "key_record.h"
#include "moving.h"
#include "registry.h"
#include "replace_native.h"
#include "serialize.h"
#include "set.h"
#include "state_object.h"

PG_MODULE_MAGIC;

PGDLLEXPORT void _PG_init(void);

/*
 * count_distinct.huge_pages: in 4.2.0 it asked the kernel for transparent
 * huge pages for large sets, which cut page faults but not query times.  It
 * has no effect since 4.3.0 and stays, so that a configuration file, an
 * ALTER ROLE/DATABASE ... SET or a session that sets it keeps working (the
 * prefix is reserved: an unknown count_distinct.* name is an error).
 */
static bool cd_huge_pages_unused = true;

/*
 * Loading the library: its settings and the planner hook.  The settings are
 * defined before the prefix is reserved, which would drop a placeholder set
 * before loading (SET count_distinct.replace_native = on in a session that
 * loads the library later).
 */
void
_PG_init(void)
{
	cd_replace_native_init();
	DefineCustomBoolVariable("count_distinct.huge_pages",
							 "Has no effect (kept for compatibility).",
							 NULL,
							 &cd_huge_pages_unused,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);
	MarkGUCPrefixReserved("count_distinct");
}

PG_FUNCTION_INFO_V1(count_distinct_append);
PG_FUNCTION_INFO_V1(count_distinct_elements_append);
PG_FUNCTION_INFO_V1(count_distinct_combine);
PG_FUNCTION_INFO_V1(count_distinct_serial);
PG_FUNCTION_INFO_V1(count_distinct_deserial);
PG_FUNCTION_INFO_V1(count_distinct_final);
PG_FUNCTION_INFO_V1(array_agg_distinct_final);
PG_FUNCTION_INFO_V1(array_agg_distinct_array_final);

/* ------------------------------------------------------------------------
 * What the support functions may assume about their "internal" arguments
 *
 * SQL cannot call a function with an "internal" argument: no SQL value is
 * of that type (a NULL does not resolve to it, or, on PostgreSQL 13,
 * its input function refuses it), and no function makes one out of other
 * types.  Only an aggregate passes one, and only a superuser may
 * create an aggregate whose state is "internal", so a state's kind is the
 * one its aggregate's definition promises, except in an aggregate a
 * superuser defined by mixing support functions of different state kinds
 * (this extension's own, or another's).  So every function here, on every
 * call:
 *	- refuses to run outside an aggregate (0A000), before it looks at any
 *	  argument;
 *	- checks that a state argument is of its kind (42804) before it reads
 *	  anything else of it: a set (set.h) starts with the address of a key
 *	  type that the registry gave out for sets only
 *	  (cd_registry_is_set_keytype: a comparison, the address is not read;
 *	  count_distinct_append compares it with the one its call site cached
 *	  from a set that passed the checks, check_append_state),
 *	  a moving state with its magic number (cdmov_is_state);
 *	- takes the value's type from the call, never from the state, and
 *	  checks it against the state's where a state may come from another
 *	  function (the inverse transition functions, the final functions).
 * ------------------------------------------------------------------------
 */

/* ERROR: called from SQL, not by an aggregate */
static pg_noinline void
not_in_aggregate(const char *funcname)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("%s can only be called as part of an aggregate",
					funcname)));
}

/*
 * Called by an aggregate (Agg or WindowAgg node, or a caller that passes
 * one, as Citus does): what AggCheckCallContext() tests, without looking
 * up the context.
 */
static inline void
check_aggregate(FunctionCallInfo fcinfo, const char *funcname)
{
	if (unlikely(fcinfo->context == NULL ||
				 !(IsA(fcinfo->context, AggState) ||
				   IsA(fcinfo->context, WindowAggState))))
		not_in_aggregate(funcname);
}

/* The aggregate's memory context; ERROR when not called as an aggregate. */
static MemoryContext
aggregate_context(FunctionCallInfo fcinfo, const char *funcname)
{
	MemoryContext aggcontext;

	if (!AggCheckCallContext(fcinfo, &aggcontext))
		not_in_aggregate(funcname);
	return aggcontext;
}

/* State argument argno, a set or NULL; ERROR if it is another state. */
static inline CDSet *
set_arg(FunctionCallInfo fcinfo, int argno)
{
	CDSet	   *set;

	if (PG_ARGISNULL(argno))
		return NULL;
	set = (CDSet *) PG_GETARG_POINTER(argno);
	if (unlikely(!cd_registry_is_set_keytype(set->kt)))
		cd_error_wrong_state(fcinfo, "a count_distinct set");
	return set;
}

/* State argument argno, a moving state or NULL; ERROR if another state. */
static inline CDMoving *
moving_arg(FunctionCallInfo fcinfo, int argno)
{
	CDMoving   *m;

	if (PG_ARGISNULL(argno))
		return NULL;
	m = (CDMoving *) PG_GETARG_POINTER(argno);
	if (unlikely(!cdmov_is_state(m)))
		cd_error_wrong_state(fcinfo, "a count_distinct moving-aggregate state");
	return m;
}

/*
 * What a call site caches in fn_extra.  Only a cache: the executor keeps
 * fn_extra for the whole query, callers through a bare fmgr_info() (Citus)
 * start every call with an empty one, so nothing here may be needed by a
 * state (states point into registry.h instead).
 */
typedef struct CDFnCache
{
	Oid			argtype;		/* the value argument's type, once known */
	bool		literal;		/* it is an untyped literal's, counted as text */
	CDStateRefCache refs;		/* deserialization's last type references */

	/*
	 * count_distinct_append: the key type of the last set that passed its
	 * checks (a set of this call's value type, not a literal's): a set
	 * pointing to it needs no other check.  Set only where the cache lives
	 * in the query context that the key type lives in (the executor's call
	 * sites), so that it is gone when the key type is.  Until then
	 * &no_set_keytype, an address no state holds (a state's first word may
	 * be NULL).
	 */
	const CDKeyType *set_kt;
} CDFnCache;

static const CDKeyType no_set_keytype;

static inline CDFnCache *
fn_cache(FunctionCallInfo fcinfo)
{
	if (fcinfo->flinfo->fn_extra == NULL)
	{
		CDFnCache  *cache = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt,
												   sizeof(CDFnCache));

		cache->set_kt = &no_set_keytype;
		fcinfo->flinfo->fn_extra = cache;
	}
	return (CDFnCache *) fcinfo->flinfo->fn_extra;
}

/*
 * The declared type of argument argno (argno < 0: the result type) of the
 * function being called, from pg_proc.
 */
static Oid
declared_type(FunctionCallInfo fcinfo, int argno)
{
	Oid		   *argtypes;
	int			nargs;
	Oid			rettype;

	if (!OidIsValid(fcinfo->flinfo->fn_oid))
		return InvalidOid;
	rettype = get_func_signature(fcinfo->flinfo->fn_oid, &argtypes, &nargs);
	if (argno < 0)
		return rettype;
	return argno < nargs ? argtypes[argno] : InvalidOid;
}

/*
 * A typed overload of the aggregates (count_distinct_declare_type) reached
 * through an implicit cast from another type, count_distinct(text) for a
 * citext value, would count by the other type's "=": refuse it.  Domains
 * are fine (their "=" is their base type's).  The value is the aggregate
 * call's last argument (Citus's worker_partial_agg passes the aggregate's
 * OID first).
 */
static void
check_implicit_cast(FunctionCallInfo fcinfo)
{
	Aggref	   *aggref = AggGetAggref(fcinfo);
	Node	   *expr;
	Node	   *from = NULL;

	if (aggref == NULL || aggref->args == NIL)
		return;
	expr = (Node *) ((TargetEntry *) llast(aggref->args))->expr;
	if (IsA(expr, RelabelType) &&
		((RelabelType *) expr)->relabelformat == COERCE_IMPLICIT_CAST)
		from = (Node *) ((RelabelType *) expr)->arg;
	else if (IsA(expr, FuncExpr) &&
			 ((FuncExpr *) expr)->funcformat == COERCE_IMPLICIT_CAST)
		from = (Node *) linitial(((FuncExpr *) expr)->args);
	else if (IsA(expr, CoerceViaIO) &&
			 ((CoerceViaIO *) expr)->coerceformat == COERCE_IMPLICIT_CAST)
		from = (Node *) ((CoerceViaIO *) expr)->arg;
	else if (IsA(expr, ArrayCoerceExpr) &&
			 ((ArrayCoerceExpr *) expr)->coerceformat == COERCE_IMPLICIT_CAST)
		from = (Node *) ((ArrayCoerceExpr *) expr)->arg;
	if (from != NULL &&
		getBaseType(exprType(from)) != getBaseType(exprType(expr)))
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("count_distinct for type %s was chosen for a value of type %s",
						format_type_be(exprType(expr)),
						format_type_be(exprType(from))),
				 errdetail("The implicit cast would count values by the equality of type %s.",
						   format_type_be(exprType(expr))),
				 errhint("Declare the aggregates for type %s: SELECT count_distinct_declare_type('%s');",
						 format_type_be(exprType(from)),
						 format_type_be(exprType(from)))));
}

/*
 * The type of the value argument argno: from the call expression when there
 * is one, else from the function's declared signature (the typed overloads
 * of the aggregates), else an ERROR.  A pseudo-type column (anyarray, as in
 * pg_stats) is returned as it is: no key type accepts it, with the error
 * native DISTINCT gives.
 */
static Oid
value_type(FunctionCallInfo fcinfo, int argno)
{
	CDFnCache  *cache = fn_cache(fcinfo);
	Oid			typid;

	if (OidIsValid(cache->argtype))
		return cache->argtype;

	check_implicit_cast(fcinfo);
	typid = get_fn_expr_argtype(fcinfo->flinfo, argno);
	if (!OidIsValid(typid))
	{
		typid = declared_type(fcinfo, argno);
		if (!OidIsValid(typid) || IsPolymorphicType(typid))
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("could not determine the input data type of count_distinct"),
					 errhint("Callers that do not pass the call expression (such as Citus) need an aggregate declared for the concrete type: SELECT count_distinct_declare_type('type name').")));
	}
	/*
	 * An untyped literal ('a', NULL: only the aggregates declared over
	 * unknown take one, no typed argument can be coerced to unknown) is
	 * text, as in count(DISTINCT 'a').
	 */
	if (typid == UNKNOWNOID)
	{
		cache->literal = true;
		typid = TEXTOID;
	}
	cache->argtype = typid;
	return typid;
}

/*
 * The key type of a transition function's value argument (1) (for_set: the
 * registry's entry for sets, which tags a set state): its type
 * under the call's collation; an untyped literal's, text under the
 * database's default collation (as the native DISTINCT coerces it).  An
 * anonymous record's is that of its row type, which value (the group's
 * first) tells (key_record.h).
 */
static const CDKeyType *
value_keytype(FunctionCallInfo fcinfo, bool for_set, Datum value)
{
	Oid			typid = value_type(fcinfo, 1);
	Oid			collation = fn_cache(fcinfo)->literal ?
		DEFAULT_COLLATION_OID : PG_GET_COLLATION();
	int32		typmod = -1;

	if (typid == RECORDOID)
		typmod = cd_record_value_typmod(value);
	return cd_registry_keytype_typmod(fcinfo, typid, typmod, collation,
									  for_set);
}

/*
 * ERROR unless the value argument (1) is of kt's type: a state that this
 * call did not create (an inverse transition function's, or one an aggregate
 * mixing support functions hands over) holds values of its own type.  One
 * comparison per row, against the type cached at the first call.
 */
static inline void
check_value_type(FunctionCallInfo fcinfo, const CDKeyType *kt)
{
	Oid			typid = value_type(fcinfo, 1);

	if (unlikely(typid != kt->typid))
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("aggregate state holds values of type %s, not %s",
						format_type_be(kt->typid), format_type_be(typid))));
}

/*
 * A transition function's value argument (1): an untyped literal as text.
 * Per row: the cache is normally set up by the key type's first lookup.
 */
static inline Datum
value_arg(FunctionCallInfo fcinfo)
{
	CDFnCache  *cache = (CDFnCache *) fcinfo->flinfo->fn_extra;

	if (unlikely(cache == NULL || !OidIsValid(cache->argtype)))
	{
		(void) value_type(fcinfo, 1);
		cache = fn_cache(fcinfo);
	}
	if (unlikely(cache->literal))
		return CStringGetTextDatum(PG_GETARG_CSTRING(1));
	return PG_GETARG_DATUM(1);
}

/*
 * The checks of count_distinct_append's state that its call site's cache
 * did not settle: a set, of this call's value type (else an ERROR).  The
 * set's key type is then remembered where the cache cannot outlive it,
 * unless the value is an untyped literal (converted on every row).  Returns
 * whether it is one.
 */
static pg_noinline bool
check_append_state(FunctionCallInfo fcinfo, const CDSet *set)
{
	CDFnCache  *cache;

	if (!cd_registry_is_set_keytype(set->kt))
		cd_error_wrong_state(fcinfo, "a count_distinct set");
	check_value_type(fcinfo, set->kt);
	cache = fn_cache(fcinfo);
	if (cache->literal)
		return true;
	if (fcinfo->flinfo->fn_mcxt == cd_query_context(fcinfo))
		cache->set_kt = set->kt;
	return false;
}

/*
 * count_distinct_append(state internal, value anyelement) -> internal
 *
 * Per row, once the first set of the call site passed its checks: one
 * comparison of the state's key type with the cached one, which settles
 * both that the state is a set and that its values are of this call's
 * type.
 */
Datum
count_distinct_append(PG_FUNCTION_ARGS)
{
	const CDFnCache *cache = (const CDFnCache *) fcinfo->flinfo->fn_extra;
	CDSet	   *set = NULL;
	CDAlloc    *alloc = NULL;
	CDAlloc		local;
	bool		literal = false;

	check_aggregate(fcinfo, "count_distinct_append");
	if (!PG_ARGISNULL(0))
	{
		set = (CDSet *) PG_GETARG_POINTER(0);
		if (unlikely(cache == NULL || set->kt != cache->set_kt))
			literal = check_append_state(fcinfo, set);
	}
	if (PG_ARGISNULL(1))
	{
		if (set == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(set);
	}

	/* the contexts matter only for a new set or a full one (once a batch) */
	if (set == NULL || cd_set_needs_alloc(set))
	{
		MemoryContext aggcontext = aggregate_context(fcinfo, "count_distinct_append");

		alloc = cd_registry_alloc(fcinfo, aggcontext, &local);
		if (set == NULL)
		{
			Datum		value = value_arg(fcinfo);

			set = cd_set_create(value_keytype(fcinfo, true, value), alloc);
			set = cd_set_add_value(set, value, alloc);
			PG_RETURN_POINTER(set);
		}
	}

	set = cd_set_add_value(set,
						   unlikely(literal) ? value_arg(fcinfo) : PG_GETARG_DATUM(1),
						   alloc);
	PG_RETURN_POINTER(set);
}

/*
 * The key type of array's elements, for a group whose key type so far is
 * current (NULL: none yet).  The element type is each array's own: a
 * pseudo-type column (pg_stats.most_common_vals) passes arrays of a
 * different element type in each row, so a group keeps the type of its
 * first array and refuses others.  Such a column has no collation: the
 * element type's own is taken.  for_sets: the key type of a set (else of a
 * moving state).
 */
static const CDKeyType *
element_keytype(FunctionCallInfo fcinfo, const CDKeyType *current,
				AnyArrayType *array, bool for_sets)
{
	Oid			elemtype = AARR_ELEMTYPE(array);
	Oid			collation;

	if (current != NULL)
	{
		if (current->typid != elemtype)
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("cannot aggregate arrays of different element types in one group: %s and %s",
							format_type_be(current->typid),
							format_type_be(elemtype))));
		return current;
	}
	check_implicit_cast(fcinfo);
	collation = PG_GET_COLLATION();
	if (!OidIsValid(collation) &&
		get_fn_expr_argtype(fcinfo->flinfo, 1) == ANYARRAYOID)
		collation = get_typcollation(elemtype);
	if (for_sets)
		return cd_registry_set_keytype(fcinfo, elemtype, collation);
	return cd_registry_keytype(fcinfo, elemtype, collation);
}

/*
 * Call fn(arg, value) for each non-NULL element of array (any number of
 * dimensions), until it returns false; false if it did.
 */
static bool
foreach_element(AnyArrayType *array, const CDKeyType *kt,
				bool (*fn) (void *arg, Datum value), void *arg)
{
	int			nitems = ArrayGetNItems(AARR_NDIM(array), AARR_DIMS(array));
	array_iter	iter;
	int			i;

	array_iter_setup(&iter, array);
	for (i = 0; i < nitems; i++)
	{
		bool		isnull;
		Datum		value = array_iter_next(&iter, &isnull, i, kt->typlen,
											kt->typbyval, kt->typalign);

		if (!isnull && !fn(arg, value))
			return false;
		if ((i & 0xFFFF) == 0xFFFF)
			CHECK_FOR_INTERRUPTS();
	}
	return true;
}

typedef struct AddToSet
{
	FunctionCallInfo fcinfo;
	MemoryContext aggcontext;
	CDSet	   *set;
	CDAlloc    *alloc;			/* looked up when the set first needs it */
	CDAlloc		local;
} AddToSet;

static bool
add_to_set(void *arg, Datum value)
{
	AddToSet   *a = (AddToSet *) arg;

	if (a->alloc == NULL && cd_set_needs_alloc(a->set))
		a->alloc = cd_registry_alloc(a->fcinfo, a->aggcontext, &a->local);
	a->set = cd_set_add_value(a->set, value, a->alloc);
	return true;
}

/*
 * count_distinct_elements_append(state internal, values anyarray) -> internal
 *
 * Adds every non-NULL element (any number of dimensions).
 */
Datum
count_distinct_elements_append(PG_FUNCTION_ARGS)
{
	AddToSet	a;
	AnyArrayType *array;
	const CDKeyType *kt;

	a.fcinfo = fcinfo;
	a.aggcontext = aggregate_context(fcinfo, "count_distinct_elements_append");
	a.set = set_arg(fcinfo, 0);
	a.alloc = NULL;
	if (PG_ARGISNULL(1))
	{
		if (a.set == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(a.set);
	}

	array = PG_GETARG_ANY_ARRAY_P(1);
	kt = element_keytype(fcinfo, a.set == NULL ? NULL : a.set->kt, array, true);
	if (a.set == NULL)
	{
		a.alloc = cd_registry_alloc(fcinfo, a.aggcontext, &a.local);
		a.set = cd_set_create(kt, a.alloc);
	}
	(void) foreach_element(array, kt, add_to_set, &a);
	PG_RETURN_POINTER(a.set);
}

/*
 * count_distinct_combine(state1 internal, state2 internal) -> internal
 *
 * state2 may live in a short-lived context (deserialized), so the result is
 * always in the aggregate context: a large deserialized state is moved
 * there whole, as the state or as a held state (set.h: cd_set_take,
 * cd_set_merge), and is not used after.
 */
Datum
count_distinct_combine(PG_FUNCTION_ARGS)
{
	MemoryContext aggcontext = aggregate_context(fcinfo, "count_distinct_combine");
	CDSet	   *set1 = set_arg(fcinfo, 0);
	CDSet	   *set2 = set_arg(fcinfo, 1);
	CDAlloc		local;
	CDAlloc    *alloc = cd_registry_alloc(fcinfo, aggcontext, &local);

	if (set2 == NULL)
	{
		if (set1 == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(set1);
	}
	if (set1 == NULL)
		PG_RETURN_POINTER(cd_set_take(set2, alloc->mcxt));

	PG_RETURN_POINTER(cd_set_merge(set1, set2, alloc));
}

/*
 * count_distinct_serial(state internal) -> bytea
 *
 * A large state is returned as an expanded object, written only where its
 * bytes are needed (state_object.h).
 */
Datum
count_distinct_serial(PG_FUNCTION_ARGS)
{
	CDSet	   *set;
	Datum		object;

	check_aggregate(fcinfo, "count_distinct_serial");
	/* STRICT, but callers through fmgr (Citus) may not look */
	set = set_arg(fcinfo, 0);
	if (set == NULL)
		PG_RETURN_NULL();
	object = cd_state_object_make(set);
	if (object != (Datum) 0)
		PG_RETURN_DATUM(object);
	PG_RETURN_BYTEA_P(cd_set_serialize(set, cd_registry_value_io(set->kt)));
}

/*
 * count_distinct_deserial(bytes bytea, internal) -> internal
 *
 * A state that count_distinct_serial returned as an object in this backend
 * is read from its set; any other goes through its bytes.
 */
Datum
count_distinct_deserial(PG_FUNCTION_ARGS)
{
	bytea	   *bytes;
	CDFnCache  *cache;
	StringInfoData buf;
	CDStateHeader h;
	const CDKeyType *kt;
	const CDStateImage *local;

	(void) aggregate_context(fcinfo, "count_distinct_deserial");
	/* STRICT, as count_distinct_serial */
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	local = cd_state_object_image(PG_GETARG_DATUM(0));
	if (local != NULL)
	{
		CDSet	   *set;

		kt = cd_registry_keytype_typmod(fcinfo, local->set->kt->typid,
										local->set->kt->typmod,
										local->set->kt->collation, true);
		set = cd_set_from_local_state(local, kt);
		if (set != NULL)
			PG_RETURN_POINTER(set);
	}
	bytes = PG_GETARG_BYTEA_PP(0);
	cache = fn_cache(fcinfo);
	cache->refs.mcxt = fcinfo->flinfo->fn_mcxt;
	cd_state_read_header(&buf, VARDATA_ANY(bytes), VARSIZE_ANY_EXHDR(bytes),
						 &cache->refs, &h);
	kt = cd_registry_keytype_typmod(fcinfo, h.typid, h.typmod, h.collation,
									true);
	PG_RETURN_POINTER(cd_set_deserialize(&buf, &h, kt,
										 cd_registry_value_io(kt)));
}

/*
 * count_distinct_final(state internal) -> bigint
 *
 * Counting does not change the state; array_agg_distinct's final function
 * compacts it, which leaves it equivalent and in place (FINALFUNC_MODIFY =
 * SHAREABLE: another final function may read it after).  Window frames
 * take the moving-aggregate functions below instead.
 */
Datum
count_distinct_final(PG_FUNCTION_ARGS)
{
	CDSet	   *set;

	check_aggregate(fcinfo, "count_distinct_final");
	set = set_arg(fcinfo, 0);
	if (set == NULL)
		PG_RETURN_INT64(0);
	PG_RETURN_INT64((int64) cd_set_count(set));
}

/*
 * The element type of array_agg_distinct's result: the array type the call
 * expression or the function's declaration gives, which must agree with the
 * group's values (of key type kt; NULL: no values); for a pseudo-type
 * result (anyarray, from a pseudo-type column) the group's own value type.
 * InvalidOid: no type to give.
 */
static Oid
result_element_type(FunctionCallInfo fcinfo, const CDKeyType *kt)
{
	Oid			rettype = get_fn_expr_rettype(fcinfo->flinfo);
	Oid			elemtype = InvalidOid;

	if (!OidIsValid(rettype) || IsPolymorphicType(rettype))
	{
		Oid			declared = declared_type(fcinfo, -1);

		if (OidIsValid(declared) && !IsPolymorphicType(declared))
			rettype = declared;
	}
	if (OidIsValid(rettype) && !IsPolymorphicType(rettype))
	{
		elemtype = get_element_type(getBaseType(rettype));
		if (!OidIsValid(elemtype))
			cd_error_not_an_array(rettype);
	}

	if (kt == NULL)
		return elemtype;
	if (!OidIsValid(elemtype))
		return kt->typid;
	/* the values must be of the element type (or a domain over it) */
	if (elemtype != kt->typid && elemtype != kt->basetypid)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("values of type %s cannot form an array of type %s",
						format_type_be(kt->typid), format_type_be(elemtype))));
	return elemtype;
}

/*
 * array_agg_distinct_type_final(state internal, anynonarray) -> anyarray
 * array_agg_distinct_elements_final(state internal, anyarray) -> anyarray
 *
 * The distinct values in ascending btree order; '{}' for no values (NULL
 * when not even the type is known: a pseudo-type column with no value).
 */
Datum
array_agg_distinct_final(PG_FUNCTION_ARGS)
{
	CDSet	   *set;
	Datum	   *values;
	uint32		n;
	Oid			elemtype;
	int16		typlen;
	bool		typbyval;
	char		typalign;

	check_aggregate(fcinfo, "array_agg_distinct_final");
	set = set_arg(fcinfo, 0);
	elemtype = result_element_type(fcinfo, set == NULL ? NULL : set->kt);
	if (!OidIsValid(elemtype))
		PG_RETURN_NULL();
	if (set == NULL)
		PG_RETURN_ARRAYTYPE_P(construct_empty_array(elemtype));

	get_typlenbyvalalign(elemtype, &typlen, &typbyval, &typalign);
	values = cd_set_output_datums(set, &n);
	PG_RETURN_ARRAYTYPE_P(construct_array(values, (int) n, elemtype,
										  typlen, typbyval, typalign));
}


/* ------------------------------------------------------------------------
 * Moving-aggregate mode: window frames (moving.h)
 *
 * The plain final functions compact the set, so they are declared
 * SHAREABLE, and PostgreSQL then runs every window frame, moving or not,
 * with these functions, whose final functions only read.  The state is
 * never NULL once created (a NULL result of the inverse function means
 * "start over"); it takes its key type from the registry at the first
 * non-NULL value.
 * ------------------------------------------------------------------------
 */
PG_FUNCTION_INFO_V1(count_distinct_moving_append);
PG_FUNCTION_INFO_V1(count_distinct_moving_remove);
PG_FUNCTION_INFO_V1(count_distinct_elements_moving_append);
PG_FUNCTION_INFO_V1(count_distinct_elements_moving_remove);
PG_FUNCTION_INFO_V1(count_distinct_moving_final);
PG_FUNCTION_INFO_V1(array_agg_distinct_moving_final);
PG_FUNCTION_INFO_V1(array_agg_distinct_array_moving_final);

/* The state argument, or a new, empty state in the aggregate context. */
static CDMoving *
moving_state(FunctionCallInfo fcinfo, const char *funcname)
{
	CDMoving   *m;

	check_aggregate(fcinfo, funcname);
	m = moving_arg(fcinfo, 0);
	if (m != NULL)
		return m;
	return cdmov_create(NULL, aggregate_context(fcinfo, funcname));
}

/*
 * count_distinct_moving_append(state internal, value anyelement) -> internal
 */
Datum
count_distinct_moving_append(PG_FUNCTION_ARGS)
{
	CDMoving   *m = moving_state(fcinfo, "count_distinct_moving_append");

	if (!PG_ARGISNULL(1))
	{
		if (m->kt == NULL)
			cdmov_set_keytype(m, value_keytype(fcinfo, false,
											   value_arg(fcinfo)));
		else
			check_value_type(fcinfo, m->kt);
		cdmov_add(m, value_arg(fcinfo));
	}
	PG_RETURN_POINTER(m);
}

/*
 * count_distinct_moving_remove(state internal, value anyelement) -> internal
 *
 * NULL (PostgreSQL then restarts the frame's aggregation) if the value was
 * never added, which only a volatile argument can bring about.
 */
Datum
count_distinct_moving_remove(PG_FUNCTION_ARGS)
{
	CDMoving   *m;

	check_aggregate(fcinfo, "count_distinct_moving_remove");
	m = moving_arg(fcinfo, 0);
	if (m == NULL)
		PG_RETURN_NULL();
	if (PG_ARGISNULL(1))
		PG_RETURN_POINTER(m);
	if (m->kt == NULL)
		PG_RETURN_NULL();
	/* the state comes from the forward function: values of its type */
	check_value_type(fcinfo, m->kt);
	if (!cdmov_remove(m, value_arg(fcinfo)))
		PG_RETURN_NULL();
	PG_RETURN_POINTER(m);
}

static bool
add_to_moving(void *arg, Datum value)
{
	cdmov_add((CDMoving *) arg, value);
	return true;
}

static bool
remove_from_moving(void *arg, Datum value)
{
	return cdmov_remove((CDMoving *) arg, value);
}

/*
 * count_distinct_elements_moving_append(state internal, values anyarray)
 *	-> internal
 */
Datum
count_distinct_elements_moving_append(PG_FUNCTION_ARGS)
{
	CDMoving   *m = moving_state(fcinfo, "count_distinct_elements_moving_append");
	AnyArrayType *array;

	if (PG_ARGISNULL(1))
		PG_RETURN_POINTER(m);
	array = PG_GETARG_ANY_ARRAY_P(1);
	if (ArrayGetNItems(AARR_NDIM(array), AARR_DIMS(array)) == 0)
		PG_RETURN_POINTER(m);
	if (m->kt == NULL)
		cdmov_set_keytype(m, element_keytype(fcinfo, NULL, array, false));
	else
		(void) element_keytype(fcinfo, m->kt, array, false);
	(void) foreach_element(array, m->kt, add_to_moving, m);
	PG_RETURN_POINTER(m);
}

/*
 * count_distinct_elements_moving_remove(state internal, values anyarray)
 *	-> internal
 *
 * NULL (start over) for an element that was never added.
 */
Datum
count_distinct_elements_moving_remove(PG_FUNCTION_ARGS)
{
	CDMoving   *m;
	AnyArrayType *array;

	check_aggregate(fcinfo, "count_distinct_elements_moving_remove");
	m = moving_arg(fcinfo, 0);
	if (m == NULL)
		PG_RETURN_NULL();
	if (PG_ARGISNULL(1))
		PG_RETURN_POINTER(m);
	array = PG_GETARG_ANY_ARRAY_P(1);
	if (ArrayGetNItems(AARR_NDIM(array), AARR_DIMS(array)) == 0)
		PG_RETURN_POINTER(m);
	if (m->kt == NULL || m->kt->typid != AARR_ELEMTYPE(array) ||
		!foreach_element(array, m->kt, remove_from_moving, m))
		PG_RETURN_NULL();
	PG_RETURN_POINTER(m);
}

/*
 * count_distinct_moving_final(state internal) -> bigint
 */
Datum
count_distinct_moving_final(PG_FUNCTION_ARGS)
{
	CDMoving   *m;

	check_aggregate(fcinfo, "count_distinct_moving_final");
	m = moving_arg(fcinfo, 0);
	if (m == NULL)
		PG_RETURN_INT64(0);
	PG_RETURN_INT64((int64) cdmov_count(m));
}

/*
 * array_agg_distinct_type_moving_final(state internal, anynonarray)
 *	-> anyarray
 * array_agg_distinct_elements_moving_final(state internal, anyarray)
 *	-> anyarray
 *
 * The frame's distinct values in ascending btree order; '{}' for none
 * (NULL when not even the type is known: a pseudo-type column with no
 * value).
 */
Datum
array_agg_distinct_moving_final(PG_FUNCTION_ARGS)
{
	CDMoving   *m;
	Datum	   *values;
	uint32		n;
	Oid			elemtype;
	int16		typlen;
	bool		typbyval;
	char		typalign;

	check_aggregate(fcinfo, "array_agg_distinct_moving_final");
	m = moving_arg(fcinfo, 0);
	elemtype = result_element_type(fcinfo, m == NULL ? NULL : m->kt);
	if (!OidIsValid(elemtype))
		PG_RETURN_NULL();
	if (m == NULL || cdmov_count(m) == 0)
		PG_RETURN_ARRAYTYPE_P(construct_empty_array(elemtype));

	get_typlenbyvalalign(elemtype, &typlen, &typbyval, &typalign);
	values = cdmov_output_datums(m, &n);
	PG_RETURN_ARRAYTYPE_P(construct_array(values, (int) n, elemtype,
										  typlen, typbyval, typalign));
}

/*
 * The result type of array_agg_distinct(anyarray): the array type the call
 * expression or the function's declaration gives (arrays of arrays have the
 * type of their elements); otherwise the group's own value type, domains
 * stripped, as polymorphic resolution does.  InvalidOid: no type to give.
 */
static Oid
result_array_type(FunctionCallInfo fcinfo, Oid basetypid, Oid typid)
{
	Oid			rettype = get_fn_expr_rettype(fcinfo->flinfo);

	if (!OidIsValid(rettype) || IsPolymorphicType(rettype))
		rettype = declared_type(fcinfo, -1);
	if (!OidIsValid(rettype) || IsPolymorphicType(rettype))
		return basetypid;
	rettype = getBaseType(rettype);
	if (OidIsValid(basetypid) && rettype != basetypid)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("values of type %s cannot form an array of type %s",
						format_type_be(typid), format_type_be(rettype))));
	return rettype;
}

/*
 * The distinct arrays values[0 .. n-1], in ascending btree order, stacked
 * into an array of one more dimension, as native array_agg(DISTINCT a ORDER
 * BY a) builds it (with its errors for empty arrays and arrays of different
 * dimensions).
 */
static Datum
stack_arrays(Oid arraytype, Oid elemtype, Datum *values, uint32 n)
{
	ArrayBuildStateArr *astate;
	uint32		i;

	astate = initArrayResultArr(arraytype, elemtype, CurrentMemoryContext, false);
	for (i = 0; i < n; i++)
		astate = accumArrayResultArr(astate, values[i], false, arraytype,
									 CurrentMemoryContext);
	return makeArrayResultArr(astate, CurrentMemoryContext, false);
}

/*
 * array_agg_distinct_array_final(state internal, anyarray) -> anyarray
 *
 * The final function of array_agg_distinct(anyarray): the distinct arrays,
 * stacked (stack_arrays); '{}' for no arrays (NULL when not even the type
 * is known).
 */
Datum
array_agg_distinct_array_final(PG_FUNCTION_ARGS)
{
	Oid			arraytype;
	Oid			elemtype;
	CDSet	   *set;
	Datum	   *values;
	uint32		n;

	check_aggregate(fcinfo, "array_agg_distinct_array_final");
	set = set_arg(fcinfo, 0);
	arraytype = result_array_type(fcinfo, set == NULL ? InvalidOid : set->kt->basetypid,
								  set == NULL ? InvalidOid : set->kt->typid);
	if (!OidIsValid(arraytype))
		PG_RETURN_NULL();
	elemtype = get_element_type(arraytype);
	if (!OidIsValid(elemtype))
		cd_error_not_an_array(arraytype);
	if (set == NULL)
		PG_RETURN_ARRAYTYPE_P(construct_empty_array(elemtype));

	values = cd_set_output_datums(set, &n);
	PG_RETURN_DATUM(stack_arrays(arraytype, elemtype, values, n));
}

/*
 * array_agg_distinct_array_moving_final(state internal, anyarray) -> anyarray
 *
 * The same for a window frame (moving-aggregate mode).
 */
Datum
array_agg_distinct_array_moving_final(PG_FUNCTION_ARGS)
{
	CDMoving   *m;
	Oid			arraytype;
	Oid			elemtype;
	Datum	   *values;
	uint32		n;

	check_aggregate(fcinfo, "array_agg_distinct_array_moving_final");
	m = moving_arg(fcinfo, 0);
	if (m != NULL && m->kt == NULL)
		m = NULL;
	arraytype = result_array_type(fcinfo, m == NULL ? InvalidOid : m->kt->basetypid,
								  m == NULL ? InvalidOid : m->kt->typid);
	if (!OidIsValid(arraytype))
		PG_RETURN_NULL();
	elemtype = get_element_type(arraytype);
	if (!OidIsValid(elemtype))
		cd_error_not_an_array(arraytype);
	if (m == NULL || cdmov_count(m) == 0)
		PG_RETURN_ARRAYTYPE_P(construct_empty_array(elemtype));

	values = cdmov_output_datums(m, &n);
	PG_RETURN_DATUM(stack_arrays(arraytype, elemtype, values, n));
}


/* ------------------------------------------------------------------------
 * count_distinct(a, b [, c [, d]]): COUNT(DISTINCT (a, b, ...))
 *
 * The aggregates over 2 to CD_MAX_ARGS "any" arguments count the rows
 * (a, b, ...) as count_distinct(ROW(a, b, ...)) does: each call forms the
 * anonymous record of the arguments and hands it to the record key type of
 * its row type (key_record.h), so the states are those of the equivalent
 * record (combine, serialize, deserialize and the final functions are the
 * shared ones), and a row whose every field is NULL is a value, as the row
 * (NULL, NULL) is.  The row type is chosen once per call site, from the
 * call's argument types and collations: each field has its argument's type
 * and collation, as ROW(a, b) gives its fields.  Where that row type takes
 * byte keys, a call site that has seen a state of its key type encodes
 * each row's key from the arguments directly (cd_record_row_datum), with
 * no tuple formed; the first row of a call site, and rows of the comparator
 * path (which compares records), are formed as a tuple in the per-row
 * memory context.
 *
 * An Agg node tells each argument's collation (its Aggref).  A window
 * frame's support functions see only the call's one input collation: with
 * one collatable argument it is that argument's, with two or more the
 * fields' collations are not known (they may differ, and a
 * nondeterministic one changes the count), so such a call is refused.
 * ------------------------------------------------------------------------
 */
#define CD_MAX_ARGS 4

PG_FUNCTION_INFO_V1(count_distinct_args_append);
PG_FUNCTION_INFO_V1(count_distinct_args_moving_append);
PG_FUNCTION_INFO_V1(count_distinct_args_moving_remove);

/* What a call site of the functions below caches in fn_extra. */
typedef struct CDArgsCache
{
	int			nargs;			/* value arguments */
	bool		literal[CD_MAX_ARGS];	/* an untyped literal: text */
	TupleDesc	tupdesc;		/* the row type, blessed */
	int32		keytypmod;		/* its canonical typmod (-1: comparator) */
	Datum		values[CD_MAX_ARGS];
	bool		isnull[CD_MAX_ARGS];
	const CDKeyType *set_kt;	/* the last set that passed the checks */

	/*
	 * The key type of the last state that passed the checks, if its keys
	 * are encoded from the arguments directly (cd_record_takes_rows).  As
	 * set_kt, set only where the cache lives in the query context the key
	 * type lives in; until then &no_set_keytype.
	 */
	const CDKeyType *row_kt;
} CDArgsCache;

/*
 * The collation of value argument i (0-based) of type typid: from the
 * Aggref in an Agg node; in a window frame the call's input collation, if
 * it is the only collatable argument (else an ERROR).
 */
static Oid
args_collation(FunctionCallInfo fcinfo, int i, int nargs, Oid typid)
{
	Aggref	   *aggref;
	int			ncollatable = 0;
	int			j;

	if (!type_is_collatable(typid))
		return InvalidOid;
	aggref = AggGetAggref(fcinfo);
	if (aggref != NULL && list_length(aggref->args) >= nargs)
	{
		TargetEntry *te = (TargetEntry *) list_nth(aggref->args, i);
		Oid			coll = exprCollation((Node *) te->expr);

		return OidIsValid(coll) ? coll : DEFAULT_COLLATION_OID;
	}
	for (j = 0; j < nargs; j++)
	{
		Oid			t = get_fn_expr_argtype(fcinfo->flinfo, j + 1);

		if (t == UNKNOWNOID || type_is_collatable(t))
			ncollatable++;
	}
	if (ncollatable > 1)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("count_distinct with two or more arguments of collatable types is not supported as a window function"),
				 errdetail("A window function is not told each argument's collation."),
				 errhint("Count the row instead: count_distinct((a, b)).")));
	return OidIsValid(PG_GET_COLLATION()) ? PG_GET_COLLATION() :
		DEFAULT_COLLATION_OID;
}

/* The call site's cache, built at its first call. */
static CDArgsCache *
args_cache(FunctionCallInfo fcinfo)
{
	CDArgsCache *c = (CDArgsCache *) fcinfo->flinfo->fn_extra;
	MemoryContext old;
	TupleDesc	d;
	int			nargs;
	int			i;

	if (likely(c != NULL))
		return c;
	nargs = PG_NARGS() - 1;
	if (nargs < 2 || nargs > CD_MAX_ARGS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("count_distinct takes between 2 and %d values per row, not %d",
						CD_MAX_ARGS, nargs)));
	c = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(CDArgsCache));
	c->nargs = nargs;
	old = MemoryContextSwitchTo(fcinfo->flinfo->fn_mcxt);
	d = CreateTemplateTupleDesc(nargs);
	for (i = 0; i < nargs; i++)
	{
		Oid			typid = get_fn_expr_argtype(fcinfo->flinfo, i + 1);
		char		name[16];

		if (!OidIsValid(typid))
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("could not determine the input data types of count_distinct")));
		/* an untyped literal is text, as in ROW('a', 'b') */
		if (typid == UNKNOWNOID)
		{
			c->literal[i] = true;
			typid = TEXTOID;
		}
		if (get_typtype(typid) == TYPTYPE_PSEUDO)
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("count_distinct cannot count values of type %s",
							format_type_be(typid))));
		snprintf(name, sizeof(name), "f%d", i + 1);
		TupleDescInitEntry(d, (AttrNumber) (i + 1), name, typid, -1, 0);
		TupleDescInitEntryCollation(d, (AttrNumber) (i + 1),
									args_collation(fcinfo, i, nargs, typid));
	}
	c->tupdesc = BlessTupleDesc(d);
	MemoryContextSwitchTo(old);
	c->keytypmod = cd_record_rowtype_typmod(c->tupdesc);
	c->set_kt = &no_set_keytype;
	c->row_kt = &no_set_keytype;
	fcinfo->flinfo->fn_extra = c;
	return c;
}

/*
 * The row of the call's value arguments, for a state of key type kt (NULL:
 * none yet): its key, encoded directly where kt is the cached row_kt, else
 * a tuple formed in CurrentMemoryContext.
 */
static Datum
args_row(FunctionCallInfo fcinfo, CDArgsCache *c, const CDKeyType *kt)
{
	int			i;

	for (i = 0; i < c->nargs; i++)
	{
		c->isnull[i] = PG_ARGISNULL(i + 1);
		if (c->isnull[i])
			c->values[i] = (Datum) 0;
		else if (unlikely(c->literal[i]))
			c->values[i] = CStringGetTextDatum(PG_GETARG_CSTRING(i + 1));
		else
			c->values[i] = PG_GETARG_DATUM(i + 1);
	}
	if (likely(kt == c->row_kt))
		return cd_record_row_datum(kt, c->values, c->isnull);
	return HeapTupleGetDatum(heap_form_tuple(c->tupdesc, c->values,
											 c->isnull));
}

/*
 * Remember kt, a state's key type that passed the checks, where the cache
 * cannot outlive it: as set_kt (for_set), and as row_kt if its keys can be
 * encoded from the arguments.
 */
static void
args_remember_keytype(FunctionCallInfo fcinfo, CDArgsCache *c,
					  const CDKeyType *kt, bool for_set)
{
	if (fcinfo->flinfo->fn_mcxt != cd_query_context(fcinfo))
		return;
	if (for_set)
		c->set_kt = kt;
	if (cd_record_takes_rows(kt, c->keytypmod))
		c->row_kt = kt;
}

/* The key type of the rows (the first row tells the record's). */
static const CDKeyType *
args_keytype(FunctionCallInfo fcinfo, bool for_set, Datum row)
{
	return cd_registry_keytype_typmod(fcinfo, RECORDOID,
									  cd_record_value_typmod(row),
									  PG_GET_COLLATION(), for_set);
}

/* ERROR unless kt is a record key type (a state of these functions). */
static inline void
check_args_keytype(const CDKeyType *kt)
{
	if (unlikely(kt->typid != RECORDOID))
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("aggregate state holds values of type %s, not %s",
						format_type_be(kt->typid),
						format_type_be(RECORDOID))));
}

/*
 * count_distinct_args_append(state internal, a "any", b "any", ...)
 *	-> internal
 *
 * Never skips a row: a row of NULLs is a value.  The row type of values
 * added to a set is checked per row by the record key type (one
 * comparison).
 */
Datum
count_distinct_args_append(PG_FUNCTION_ARGS)
{
	CDArgsCache *c;
	CDSet	   *set = NULL;
	CDAlloc    *alloc = NULL;
	CDAlloc		local;
	Datum		row;

	check_aggregate(fcinfo, "count_distinct_args_append");
	c = args_cache(fcinfo);
	if (!PG_ARGISNULL(0))
	{
		set = (CDSet *) PG_GETARG_POINTER(0);
		if (unlikely(set->kt != c->set_kt))
		{
			if (!cd_registry_is_set_keytype(set->kt))
				cd_error_wrong_state(fcinfo, "a count_distinct set");
			check_args_keytype(set->kt);
			args_remember_keytype(fcinfo, c, set->kt, true);
		}
	}
	row = args_row(fcinfo, c, set == NULL ? NULL : set->kt);
	if (set == NULL || cd_set_needs_alloc(set))
	{
		MemoryContext aggcontext = aggregate_context(fcinfo, "count_distinct_args_append");

		alloc = cd_registry_alloc(fcinfo, aggcontext, &local);
		if (set == NULL)
			set = cd_set_create(args_keytype(fcinfo, true, row), alloc);
	}
	set = cd_set_add_value(set, row, alloc);
	PG_RETURN_POINTER(set);
}

/*
 * count_distinct_args_moving_append(state internal, a "any", b "any", ...)
 *	-> internal
 */
Datum
count_distinct_args_moving_append(PG_FUNCTION_ARGS)
{
	CDMoving   *m = moving_state(fcinfo, "count_distinct_args_moving_append");
	CDArgsCache *c = args_cache(fcinfo);
	Datum		row;

	if (m->kt != NULL && unlikely(m->kt != c->row_kt))
	{
		check_args_keytype(m->kt);
		args_remember_keytype(fcinfo, c, m->kt, false);
	}
	row = args_row(fcinfo, c, m->kt);
	if (m->kt == NULL)
		cdmov_set_keytype(m, args_keytype(fcinfo, false, row));
	cdmov_add(m, row);
	PG_RETURN_POINTER(m);
}

/*
 * count_distinct_args_moving_remove(state internal, a "any", b "any", ...)
 *	-> internal
 *
 * NULL (PostgreSQL then restarts the frame's aggregation) if the row was
 * never added, which only volatile arguments can bring about.
 */
Datum
count_distinct_args_moving_remove(PG_FUNCTION_ARGS)
{
	CDMoving   *m;
	CDArgsCache *c;

	check_aggregate(fcinfo, "count_distinct_args_moving_remove");
	m = moving_arg(fcinfo, 0);
	if (m == NULL || m->kt == NULL)
		PG_RETURN_NULL();
	c = args_cache(fcinfo);
	if (unlikely(m->kt != c->row_kt))
	{
		check_args_keytype(m->kt);
		args_remember_keytype(fcinfo, c, m->kt, false);
	}
	if (!cdmov_remove(m, args_row(fcinfo, c, m->kt)))
		PG_RETURN_NULL();
	PG_RETURN_POINTER(m);
}
