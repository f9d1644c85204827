/*-------------------------------------------------------------------------
 *
 * legacy.c
 *	  C symbols that catalogs of count_distinct 2.0.0 and 3.0.x point at.
 *
 * "make install" of this version replaces the library file that the
 * catalog entries of 2.0.0 and 3.0.x name ("AS 'count_distinct', 'symbol'"),
 * while those entries stay until ALTER EXTENSION count_distinct UPDATE
 * replaces them.  So that such a database keeps answering queries in
 * between, every symbol they reference exists here too.  The transition,
 * combine, serialize and deserialize functions kept their names and need
 * nothing here; the final functions had other names, and delegate to this
 * version's final functions, with this version's semantics (a group with no
 * value counts 0 and gives '{}'; "=" and order of the type's btree operator
 * class).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"

/* this version's final functions (count_distinct.c) */
extern PGDLLEXPORT Datum count_distinct_final(PG_FUNCTION_ARGS);
extern PGDLLEXPORT Datum array_agg_distinct_final(PG_FUNCTION_ARGS);

/* 2.0.0 and 3.0.x: count_distinct(internal) -> bigint */
PG_FUNCTION_INFO_V1(count_distinct);

/*
 * 3.0.x (and the last 2.0.0): array_agg_distinct(internal, anynonarray) and
 * array_agg_distinct(internal, anyarray) -> anyarray, with FINALFUNC_EXTRA
 */
PG_FUNCTION_INFO_V1(array_agg_distinct_type_by_element);
PG_FUNCTION_INFO_V1(array_agg_distinct_type_by_array);

/* earlier 2.0.0 scripts: array_agg_distinct(internal, anynonarray) */
PG_FUNCTION_INFO_V1(array_agg_distinct);

Datum
count_distinct(PG_FUNCTION_ARGS)
{
	return count_distinct_final(fcinfo);
}

Datum
array_agg_distinct_type_by_element(PG_FUNCTION_ARGS)
{
	return array_agg_distinct_final(fcinfo);
}

Datum
array_agg_distinct_type_by_array(PG_FUNCTION_ARGS)
{
	return array_agg_distinct_final(fcinfo);
}

Datum
array_agg_distinct(PG_FUNCTION_ARGS)
{
	return array_agg_distinct_final(fcinfo);
}
