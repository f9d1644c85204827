/*-------------------------------------------------------------------------
 *
 * dset_plan.c
 *	  Stored sets: planner support for cardinality(distinct_set).
 *
 * cardinality(distinct_set_union_agg(s)) is the usual rollup question
 * ("distinct users per week from daily sets"); answered as written, the
 * aggregate's final function encodes the whole union as a stored set only
 * for cardinality() to read its count.  The support function of
 * cardinality(distinct_set) (SupportRequestSimplify) replaces such a call
 * by the counting aggregate that shares the set aggregate's transition,
 * combine, serialize and deserialize functions and whose final function
 * counts the state:
 *
 *	  cardinality(distinct_set_union_agg(s))      distinct_set_union_cardinality_agg(s)
 *	  cardinality(distinct_set_intersect_agg(s))  distinct_set_intersect_cardinality_agg(s)
 *
 * for plain aggregate calls (with their FILTER, DISTINCT, ORDER BY kept) and
 * for window calls alike; and the set operators by functions that count
 * their result without building it (retention: cardinality(a & b)):
 *
 *	  cardinality(a & b)   distinct_set_intersect_cardinality(a, b)
 *	  cardinality(a | b)   distinct_set_union_cardinality(a, b)
 *	  cardinality(a - b)   distinct_set_except_cardinality(a, b)
 *  The result is the same number; EXPLAIN VERBOSE
 * shows the counting aggregate.  The aggregates are found by name in the
 * schema of cardinality(distinct_set) itself, with the argument type of the
 * call, so a relocated extension still matches and nothing else does.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_aggregate.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/supportnodes.h"
#include "parser/parse_func.h"
#include "utils/lsyscache.h"

#include "dset.h"

PG_FUNCTION_INFO_V1(distinct_set_cardinality_support);

/* the function nspname.name(argtype), or InvalidOid */
static Oid
function_in(const char *nspname, const char *name, Oid argtype)
{
	List	   *qualified = list_make2(makeString(pstrdup(nspname)),
									   makeString(pstrdup(name)));

	return LookupFuncName(qualified, 1, &argtype, true);
}

/*
 * The counting aggregate standing in for cardinality(aggfnoid(...)), where
 * cardinality is the function cardfn, or InvalidOid.
 */
static Oid
counting_aggregate(Oid cardfn, Oid aggfnoid, Oid settype)
{
	static const char *const pairs[][2] = {
		{"distinct_set_union_agg", "distinct_set_union_cardinality_agg"},
		{"distinct_set_intersect_agg", "distinct_set_intersect_cardinality_agg"},
	};
	char	   *nspname = get_namespace_name(get_func_namespace(cardfn));
	int			i;

	if (nspname == NULL)
		return InvalidOid;
	for (i = 0; i < lengthof(pairs); i++)
	{
		if (function_in(nspname, pairs[i][0], settype) == aggfnoid)
			return function_in(nspname, pairs[i][1], settype);
	}
	return InvalidOid;
}

/*
 * The function counting the result of cardinality(fn(a, b)), where
 * cardinality is the function cardfn and fn a set operator's function, or
 * InvalidOid.
 */
static Oid
counting_function(Oid cardfn, Oid fn, Oid settype)
{
	static const char *const pairs[][2] = {
		{"distinct_set_intersect", "distinct_set_intersect_cardinality"},
		{"distinct_set_union", "distinct_set_union_cardinality"},
		{"distinct_set_except", "distinct_set_except_cardinality"},
	};
	char	   *nspname = get_namespace_name(get_func_namespace(cardfn));
	Oid			argtypes[2] = {settype, settype};
	int			i;

	if (nspname == NULL)
		return InvalidOid;
	for (i = 0; i < lengthof(pairs); i++)
	{
		List	   *name = list_make2(makeString(pstrdup(nspname)),
									  makeString(pstrdup(pairs[i][0])));

		if (LookupFuncName(name, 2, argtypes, true) == fn)
		{
			name = list_make2(makeString(pstrdup(nspname)),
							  makeString(pstrdup(pairs[i][1])));
			return LookupFuncName(name, 2, argtypes, true);
		}
	}
	return InvalidOid;
}

/*
 * distinct_set_cardinality_support(internal) -> internal
 */
Datum
distinct_set_cardinality_support(PG_FUNCTION_ARGS)
{
	Node	   *rawreq = (Node *) PG_GETARG_POINTER(0);
	SupportRequestSimplify *req;
	FuncExpr   *call;
	Node	   *arg;
	Oid			target;

	if (!IsA(rawreq, SupportRequestSimplify))
		PG_RETURN_POINTER(NULL);
	req = (SupportRequestSimplify *) rawreq;
	call = req->fcall;
	if (list_length(call->args) != 1)
		PG_RETURN_POINTER(NULL);
	arg = (Node *) linitial(call->args);

	if (IsA(arg, Aggref))
	{
		Aggref	   *agg = (Aggref *) arg;
		Aggref	   *counting;

		if (agg->aggkind != AGGKIND_NORMAL || agg->aggsplit != AGGSPLIT_SIMPLE)
			PG_RETURN_POINTER(NULL);
		target = counting_aggregate(call->funcid, agg->aggfnoid, agg->aggtype);
		if (!OidIsValid(target))
			PG_RETURN_POINTER(NULL);
		counting = copyObject(agg);
		counting->aggfnoid = target;
		counting->aggtype = INT8OID;
		counting->aggcollid = InvalidOid;
		PG_RETURN_POINTER(counting);
	}
	if (IsA(arg, OpExpr) || IsA(arg, FuncExpr))
	{
		List	   *args;
		Oid			fn;

		if (IsA(arg, OpExpr))
		{
			fn = get_opcode(((OpExpr *) arg)->opno);
			args = ((OpExpr *) arg)->args;
		}
		else
		{
			fn = ((FuncExpr *) arg)->funcid;
			args = ((FuncExpr *) arg)->args;
		}
		if (list_length(args) != 2)
			PG_RETURN_POINTER(NULL);
		target = counting_function(call->funcid, fn, exprType(arg));
		if (!OidIsValid(target))
			PG_RETURN_POINTER(NULL);
		PG_RETURN_POINTER(makeFuncExpr(target, INT8OID, copyObject(args), InvalidOid,
									   InvalidOid, COERCE_EXPLICIT_CALL));
	}
	if (IsA(arg, WindowFunc))
	{
		WindowFunc *win = (WindowFunc *) arg;
		WindowFunc *counting;

		if (!win->winagg)
			PG_RETURN_POINTER(NULL);
		target = counting_aggregate(call->funcid, win->winfnoid, win->wintype);
		if (!OidIsValid(target))
			PG_RETURN_POINTER(NULL);
		counting = copyObject(win);
		counting->winfnoid = target;
		counting->wintype = INT8OID;
		counting->wincollid = InvalidOid;
		PG_RETURN_POINTER(counting);
	}
	PG_RETURN_POINTER(NULL);
}
