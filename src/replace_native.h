/*-------------------------------------------------------------------------
 *
 * replace_native.h
 *	  Transparent mode: the setting count_distinct.replace_native and the
 *	  planner hook that plans an unmodified count(DISTINCT x) as
 *	  count_distinct(x).
 *
 * When the setting is on, the hook rewrites, before the standard planner
 * runs, every Aggref of the query being planned (every query level:
 * subqueries in FROM, CTEs, sublinks, set operations, HAVING, FILTER,
 * grouping sets) that is count(any) with DISTINCT over one argument, whose
 * DISTINCT uses the type's default equality, and whose argument count_distinct
 * counts with the same equality (see replace_native.c for the exact rules).
 * The rewritten Aggref keeps its argument, FILTER and input collation.  It
 * calls the extension's own count_distinct: the typed overload for the
 * argument's type where there is one, else count_distinct(anyelement) (not
 * where Citus is installed), found by OID in the extension's schema (never
 * through search_path) and cached until pg_proc changes.  Nothing is rewritten when the setting is off (checked first),
 * in a database without the extension, or while an extension script runs.
 *
 * A statement whose plan would hash-aggregate many small groups with
 * count_distinct is planned again without the rewrite (replace_native.c).
 *
 * Only the query being planned changes: the planner may scribble on its
 * input, and every caller of the planner hands it a tree that is its own
 * (plancache.c plans a copy of the cached query, the rewriter copies view
 * and rule definitions, the parse analysis hooks such as
 * pg_stat_statements' have already computed the query's identifier), so
 * stored views, rules, function bodies and the statistics' query texts keep
 * count(DISTINCT ...).
 *
 *-------------------------------------------------------------------------
 */
#ifndef CD_REPLACE_NATIVE_H
#define CD_REPLACE_NATIVE_H

#include "postgres.h"

extern PGDLLIMPORT bool cd_replace_native;

/* _PG_init: define the setting, install the hook (chained to the previous) */
extern void cd_replace_native_init(void);

#endif							/* CD_REPLACE_NATIVE_H */
