/*
 * From count_distinct 3.0.0, 3.0.1 and 3.0.2 (the previous implementation;
 * the three have the same catalog).
 *
 * The combine, serialize and deserialize functions of 3.0.x have named
 * parameters (p_pointer, ...), which CREATE OR REPLACE FUNCTION cannot
 * remove.  They are moved aside under other names; the install script then
 * creates this version's functions and points the aggregates at them with
 * CREATE OR REPLACE AGGREGATE (which keeps each aggregate's identity, so
 * views, rules and functions using them stay), and the old ones are dropped
 * at the end, together with the old final functions.
 */
ALTER FUNCTION count_distinct_combine(internal, internal) RENAME TO count_distinct_combine_3_0;
ALTER FUNCTION count_distinct_serial(internal) RENAME TO count_distinct_serial_3_0;
ALTER FUNCTION count_distinct_deserial(bytea, internal) RENAME TO count_distinct_deserial_3_0;

-- @install script@

/* no aggregate points at these any more */
DROP FUNCTION count_distinct_combine_3_0(internal, internal);
DROP FUNCTION count_distinct_serial_3_0(internal);
DROP FUNCTION count_distinct_deserial_3_0(bytea, internal);
DROP FUNCTION count_distinct(internal);
DROP FUNCTION array_agg_distinct(internal, anynonarray);
DROP FUNCTION array_agg_distinct(internal, anyarray);
