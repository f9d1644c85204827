/*-------------------------------------------------------------------------
 *
 * replace_native.c
 *	  Transparent mode (see replace_native.h): the setting
 *	  count_distinct.replace_native, the planner hook, the rewrite of
 *	  count(DISTINCT x) Aggrefs and the cached OID of count_distinct.
 *
 * An Aggref is rewritten only when count_distinct(x) returns what native
 * count(DISTINCT x) returns, for every input:
 *	- it is count(any) (not count(*)), a plain aggregate (not ordered-set or
 *	  hypothetical), with DISTINCT over its one argument;
 *	- the DISTINCT compares with the argument type's default btree equality
 *	  (an ORDER BY ... USING inside the call can pick another operator
 *	  family, e.g. record's *=, which count_distinct does not use);
 *	- the argument's type has a default btree opclass and is not a
 *	  pseudo-type (unknown, anyarray, cstring), record and record[] aside;
 *	  count_distinct refuses exactly the types without one, as native does,
 *	  but a type native refuses stays native so its error is native's;
 *	- a collatable argument has a known, deterministic collation that is
 *	  also the Aggref's input collation (native sorts by the argument's
 *	  collation and compares with the input collation; count_distinct uses
 *	  the input collation for both).  A missing collation stays native (its
 *	  error is native's); nondeterministic collations stay native too;
 *	- its query level does not group by a column without a sort operator
 *	  (hashable only, such as xid).  Native cannot plan a DISTINCT aggregate
 *	  there: the planner never hashes the groups of a level with one, and
 *	  this column cannot be sorted ("could not implement GROUP BY"), while
 *	  count_distinct could be hash-aggregated and would answer.  The level
 *	  stays native, so the query keeps native's error.
 * The new Aggref keeps its argument, FILTER, input collation, level and
 * location; DISTINCT and ORDER BY (for count, ORDER BY can only repeat the
 * DISTINCT argument) go.
 *
 * The aggregate called is the extension's typed overload for exactly the
 * argument's type (count_distinct_declare_type) where there is one, else
 * count_distinct(anyelement); where Citus is installed, only a typed
 * overload (see count_distinct_aggregate).
 *
 * Cost: with the setting off, one test of a bool per planned statement.
 * On, a walk over the query's expressions, and per count(DISTINCT) Aggref a
 * type cache lookup; the aggregates' OIDs are looked up once per argument
 * type, then again only after pg_proc changes (CREATE or DROP
 * EXTENSION create and drop the aggregate's pg_proc row, and every change of
 * a catalog row, inserts included, invalidates the syscache entries of its
 * hash, which calls our callback in every backend of the database).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/dependency.h"
#include "catalog/indexing.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_extension.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "commands/extension.h"
#include "nodes/nodeFuncs.h"
#include "nodes/parsenodes.h"
#include "nodes/plannodes.h"
#include "optimizer/planner.h"
#include "optimizer/tlist.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/guc.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/syscache.h"
#include "utils/typcache.h"

#include "compat.h"
#include "replace_native.h"

/* pg_proc's count(any); 14+ name it in fmgroids.h, 13 does not */
#define CD_COUNT_ANY_OID	2147

bool		cd_replace_native = false;

static planner_hook_type prev_planner_hook = NULL;

/*
 * What the rewrite calls, cached until pg_proc changes (valid):
 *	ext, nsp: the extension and its schema (InvalidOid: not installed);
 *	generic: its count_distinct(anyelement) (InvalidOid: none usable);
 *	typed_only: Citus is installed in the database: its distributed
 *		aggregation runs an aggregate's support functions knowing only the
 *		aggregate's declared signature, and refuses the polymorphic one, so
 *		only typed overloads (count_distinct_declare_type) may be called;
 *	typed: the typed overloads looked up so far, (argument type, OID or
 *		InvalidOid) pairs in CacheMemoryContext.
 * inval_count counts the callback's calls, so that a lookup during which
 * pg_proc changed is not marked valid.
 */
typedef struct TypedAgg
{
	Oid			argtype;
	Oid			aggoid;
} TypedAgg;

static bool valid = false;
static Oid	ext = InvalidOid;
static Oid	nsp = InvalidOid;
static Oid	generic = InvalidOid;
static bool typed_only = false;
static List *typed = NIL;
static uint64 inval_count = 0;

static void
proc_changed(Datum arg, int cacheid, uint32 hashvalue)
{
	valid = false;
	inval_count++;
}

#if PG_VERSION_NUM < 160000
/* 16 exported extension.c's get_extension_schema(); the same for 13-15 */
static Oid
get_extension_schema(Oid ext_oid)
{
	Oid			result = InvalidOid;
	Relation	rel;
	SysScanDesc scandesc;
	HeapTuple	tuple;
	ScanKeyData entry[1];

	rel = table_open(ExtensionRelationId, AccessShareLock);
	ScanKeyInit(&entry[0], Anum_pg_extension_oid,
				BTEqualStrategyNumber, F_OIDEQ, ObjectIdGetDatum(ext_oid));
	scandesc = systable_beginscan(rel, ExtensionOidIndexId, true,
								  NULL, 1, entry);
	tuple = systable_getnext(scandesc);
	if (HeapTupleIsValid(tuple))
		result = ((Form_pg_extension) GETSTRUCT(tuple))->extnamespace;
	systable_endscan(scandesc);
	table_close(rel, AccessShareLock);
	return result;
}
#endif

/* Does PUBLIC have EXECUTE on function fn (a NULL proacl: the default)? */
static bool
public_may_execute(Oid fn)
{
	HeapTuple	tuple;
	Datum		aclDatum;
	bool		isnull;
	bool		result;

	tuple = SearchSysCache1(PROCOID, ObjectIdGetDatum(fn));
	if (!HeapTupleIsValid(tuple))
		return false;
	aclDatum = SysCacheGetAttr(PROCOID, tuple, Anum_pg_proc_proacl, &isnull);
	if (isnull)
		result = true;
	else
		result = (aclmask(DatumGetAclP(aclDatum), ACL_ID_PUBLIC,
						  ((Form_pg_proc) GETSTRUCT(tuple))->proowner,
						  ACL_EXECUTE, ACLMASK_ANY) & ACL_EXECUTE) != 0;
	ReleaseSysCache(tuple);
	return result;
}

/*
 * count_distinct(argtype) of the extension in this database: an aggregate of
 * that name and signature in the extension's schema, returning bigint, a
 * member of the extension (nothing a user created in that schema), that
 * PUBLIC may execute (the executor checks EXECUTE on the aggregate as the
 * user who runs the plan, who may not be the one who planned it: a cached
 * plan; a revoked privilege would turn native's result into a permission
 * error).  InvalidOid if there is none.
 */
static Oid
lookup_aggregate(Oid argtype)
{
	Oid			fn;

	fn = GetSysCacheOid3(PROCNAMEARGSNSP, Anum_pg_proc_oid,
						 CStringGetDatum("count_distinct"),
						 PointerGetDatum(buildoidvector(&argtype, 1)),
						 ObjectIdGetDatum(nsp));
	if (OidIsValid(fn) &&
		get_func_prokind(fn) == PROKIND_AGGREGATE &&
		get_func_rettype(fn) == INT8OID &&
		getExtensionOfObject(ProcedureRelationId, fn) == ext &&
		public_may_execute(fn))
		return fn;
	return InvalidOid;
}

/*
 * The count_distinct to call for an argument of type argtype: the typed
 * overload for exactly that type if the extension has one, else the
 * polymorphic one (unless typed_only).  InvalidOid: stay native.
 */
static Oid
count_distinct_aggregate(Oid argtype)
{
	ListCell   *lc;
	TypedAgg   *entry;
	MemoryContext old;

	if (!valid)
	{
		uint64		before = inval_count;

		list_free_deep(typed);
		typed = NIL;
		generic = InvalidOid;
		typed_only = false;
		nsp = InvalidOid;
		ext = get_extension_oid("count_distinct", true);
		if (OidIsValid(ext))
		{
			nsp = get_extension_schema(ext);
			generic = lookup_aggregate(ANYELEMENTOID);
			typed_only = OidIsValid(get_extension_oid("citus", true));
		}
		valid = (inval_count == before);
	}
	if (!OidIsValid(ext))
		return InvalidOid;

	foreach(lc, typed)
	{
		entry = (TypedAgg *) lfirst(lc);
		if (entry->argtype == argtype)
			return OidIsValid(entry->aggoid) ? entry->aggoid :
				(typed_only ? InvalidOid : generic);
	}
	old = MemoryContextSwitchTo(CacheMemoryContext);
	entry = palloc(sizeof(TypedAgg));
	entry->argtype = argtype;
	entry->aggoid = lookup_aggregate(argtype);
	typed = lappend(typed, entry);
	MemoryContextSwitchTo(old);
	return OidIsValid(entry->aggoid) ? entry->aggoid :
		(typed_only ? InvalidOid : generic);
}

/* Does count_distinct count values of this argument as native does? */
static bool
argument_ok(Node *arg, Oid inputcollid, Oid eqop)
{
	Oid			argtype = exprType(arg);
	Oid			basetype = getBaseType(argtype);
	TypeCacheEntry *tce;

	if (get_typtype(basetype) == TYPTYPE_PSEUDO &&
		basetype != RECORDOID && basetype != RECORDARRAYOID)
		return false;
	tce = lookup_type_cache(basetype, TYPECACHE_EQ_OPR | TYPECACHE_LT_OPR);
	if (!OidIsValid(tce->eq_opr) || !OidIsValid(tce->lt_opr) ||
		eqop != tce->eq_opr)
		return false;
	if (tce->typlen < 0 && tce->typlen != -1)
		return false;
	if (type_is_collatable(basetype))
	{
		Oid			collation = exprCollation(arg);

		if (!OidIsValid(collation) || collation != inputcollid ||
			!get_collation_isdeterministic(collation))
			return false;
	}
	return true;
}

/*
 * The rewrite of one statement: rewritten counts the Aggrefs rewritten, and
 * aggoids lists the aggregates they now call.
 */
typedef struct RewriteContext
{
	int			rewritten;
	List	   *aggoids;
	List	   *levels;			/* per enclosing query level, innermost
								 * first: may its Aggrefs be rewritten? */
} RewriteContext;

/* Rewrite one Aggref into count_distinct if it qualifies (file header). */
static void
rewrite_aggref(Aggref *aggref, RewriteContext *cxt)
{
	TargetEntry *tle;
	SortGroupClause *sgc;
	Oid			aggoid;

	if (aggref->aggfnoid != CD_COUNT_ANY_OID || aggref->aggdistinct == NIL ||
		aggref->agglevelsup >= list_length(cxt->levels) ||
		!list_nth_int(cxt->levels, aggref->agglevelsup) ||
		aggref->aggkind != AGGKIND_NORMAL || aggref->aggstar ||
		aggref->aggvariadic || aggref->aggdirectargs != NIL ||
		list_length(aggref->args) != 1 ||
		list_length(aggref->aggdistinct) != 1)
		return;
	tle = linitial_node(TargetEntry, aggref->args);
	sgc = linitial_node(SortGroupClause, aggref->aggdistinct);
	if (tle->resjunk || sgc->tleSortGroupRef != tle->ressortgroupref ||
		!argument_ok((Node *) tle->expr, aggref->inputcollid, sgc->eqop))
		return;
	aggoid = count_distinct_aggregate(exprType((Node *) tle->expr));
	if (!OidIsValid(aggoid))
		return;

	cxt->rewritten++;
	cxt->aggoids = list_append_unique_oid(cxt->aggoids, aggoid);
	aggref->aggfnoid = aggoid;
	aggref->aggdistinct = NIL;
	aggref->aggorder = NIL;
	tle->ressortgroupref = 0;
	/* set by the planner (as for the parser's Aggrefs) */
	aggref->aggtranstype = InvalidOid;
#if PG_VERSION_NUM >= 160000
	aggref->aggpresorted = false;
#endif
}

/*
 * Every Aggref of every query level: query_tree_walker visits a Query's
 * target list, quals, HAVING, range table (subqueries in FROM, function
 * and VALUES expressions), CTEs and the rest; expression_tree_walker
 * reaches sublinks' queries, and an Aggref's arguments and FILTER (which
 * may hold sublinks).  Entering a Query pushes whether its own Aggrefs may
 * be rewritten (its GROUP BY columns all sortable, file header), which an
 * Aggref of an outer level (agglevelsup) looks up.
 */
static bool
rewrite_walker(Node *node, void *context)
{
	RewriteContext *cxt = (RewriteContext *) context;

	if (node == NULL)
		return false;
	if (IsA(node, Query))
	{
		Query	   *query = (Query *) node;
		bool		result;

		cxt->levels = lcons_int(grouping_is_sortable(query->groupClause),
								cxt->levels);
		result = query_tree_walker(query, rewrite_walker, context, 0);
		cxt->levels = list_delete_first(cxt->levels);
		return result;
	}
	if (IsA(node, Aggref))
		rewrite_aggref((Aggref *) node, (RewriteContext *) context);
	return expression_tree_walker(node, rewrite_walker, context);
}

/* Does the statement have a count(DISTINCT) at all (before copying it)? */
static bool
candidate_walker(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Query))
		return query_tree_walker((Query *) node, candidate_walker, context, 0);
	if (IsA(node, Aggref) &&
		((Aggref *) node)->aggfnoid == CD_COUNT_ANY_OID &&
		((Aggref *) node)->aggdistinct != NIL)
		return true;
	return expression_tree_walker(node, candidate_walker, context);
}

/* Does an expression call one of the aggregates in context (a List)? */
static bool
calls_walker(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Aggref) &&
		list_member_oid((List *) context, ((Aggref *) node)->aggfnoid))
		return true;
	return expression_tree_walker(node, calls_walker, context);
}

/*
 * Many small groups: does the plan hash-aggregate count_distinct (called
 * from its input rows, not combining partial states) into at least
 * CD_RN_SMALL_GROUPS groups of fewer than CD_RN_SMALL_GROUP_ROWS input rows
 * each on average, by the planner's estimates?  There each group's set
 * costs more than native's sort of the few values (README "Performance":
 * native is faster with groups of tens of values), and a sort-based plan of
 * count_distinct is only as fast as native.
 */
#define CD_RN_SMALL_GROUPS		10000
#define CD_RN_SMALL_GROUP_ROWS	100

static bool small_groups_plan(Plan *plan, List *aggoids);

static bool
small_groups_list(List *plans, List *aggoids)
{
	ListCell   *lc;

	foreach(lc, plans)
	{
		if (small_groups_plan((Plan *) lfirst(lc), aggoids))
			return true;
	}
	return false;
}

static bool
small_groups_plan(Plan *plan, List *aggoids)
{
	if (plan == NULL)
		return false;
	check_stack_depth();
	if (IsA(plan, Agg))
	{
		Agg		   *agg = (Agg *) plan;

		if ((agg->aggstrategy == AGG_HASHED || agg->aggstrategy == AGG_MIXED) &&
			!DO_AGGSPLIT_COMBINE(agg->aggsplit) &&
			plan->lefttree != NULL &&
			plan->plan_rows >= CD_RN_SMALL_GROUPS &&
			plan->lefttree->plan_rows < plan->plan_rows * CD_RN_SMALL_GROUP_ROWS &&
			(calls_walker((Node *) plan->targetlist, aggoids) ||
			 calls_walker((Node *) plan->qual, aggoids)))
			return true;
	}
	switch (nodeTag(plan))
	{
		case T_Append:
			return small_groups_list(((Append *) plan)->appendplans, aggoids);
		case T_MergeAppend:
			return small_groups_list(((MergeAppend *) plan)->mergeplans, aggoids);
		case T_SubqueryScan:
			return small_groups_plan(((SubqueryScan *) plan)->subplan, aggoids);
		case T_CustomScan:
			if (small_groups_list(((CustomScan *) plan)->custom_plans, aggoids))
				return true;
			break;
		default:
			break;
	}
	return small_groups_plan(plan->lefttree, aggoids) ||
		small_groups_plan(plan->righttree, aggoids);
}

static PlannedStmt *
plan_with_chain(Query *parse, const char *query_string, int cursorOptions,
				ParamListInfo boundParams)
{
	if (prev_planner_hook)
		return prev_planner_hook(parse, query_string, cursorOptions,
								 boundParams);
	return standard_planner(parse, query_string, cursorOptions, boundParams);
}

/*
 * The planner hook.  The query is changed in place: the planner may scribble
 * on its input (replace_native.h), and does so itself.  A statement with a
 * count(DISTINCT) is copied first: if its plan hash-aggregates many small
 * groups with count_distinct (small_groups_plan), the copy is planned
 * instead, unchanged (the hooks before this one then run twice for it).
 */
static PlannedStmt *
cd_planner(Query *parse, const char *query_string, int cursorOptions,
		   ParamListInfo boundParams)
{
	Query	   *original;
	RewriteContext cxt;
	PlannedStmt *result;

	if (!cd_replace_native || creating_extension ||
		!query_tree_walker(parse, candidate_walker, NULL, 0))
		return plan_with_chain(parse, query_string, cursorOptions, boundParams);

	original = copyObject(parse);
	cxt.rewritten = 0;
	cxt.aggoids = NIL;
	cxt.levels = NIL;
	(void) rewrite_walker((Node *) parse, &cxt);
	if (cxt.rewritten == 0)
		return plan_with_chain(parse, query_string, cursorOptions, boundParams);

	result = plan_with_chain(parse, query_string, cursorOptions, boundParams);
	if (small_groups_plan(result->planTree, cxt.aggoids) ||
		small_groups_list(result->subplans, cxt.aggoids))
		result = plan_with_chain(original, query_string, cursorOptions,
								 boundParams);
	return result;
}

void
cd_replace_native_init(void)
{
	DefineCustomBoolVariable("count_distinct.replace_native",
							 "Plans count(DISTINCT x) as count_distinct(x).",
							 "Where the results are the same: count(DISTINCT) of one argument "
							 "of a type with default btree equality, under a deterministic collation.",
							 &cd_replace_native,
							 false,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);
	CacheRegisterSyscacheCallback(PROCOID, proc_changed, (Datum) 0);
	prev_planner_hook = planner_hook;
	planner_hook = cd_planner;
}
