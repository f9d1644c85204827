/*
 * Test fixture: a count_distinct 2.0.0 catalog as 2.0.0's script left it on
 * a server without parallel aggregation (before 9.6), brought along by
 * pg_upgrade: no combine, serialize or deserialize functions, the four
 * aggregates without them.  The test driver installs this as
 * count_distinct--2.0.0.sql (after 2.0.0.sql) and updates it.
 */

CREATE OR REPLACE FUNCTION count_distinct_append(internal, anyelement)
    RETURNS internal
    AS 'count_distinct', 'count_distinct_append'
    LANGUAGE C IMMUTABLE;

CREATE OR REPLACE FUNCTION count_distinct_elements_append(internal, anyarray)
    RETURNS internal
    AS 'count_distinct', 'count_distinct_elements_append'
    LANGUAGE C IMMUTABLE;

CREATE OR REPLACE FUNCTION count_distinct(internal)
    RETURNS bigint
    AS 'count_distinct', 'count_distinct'
    LANGUAGE C IMMUTABLE;

CREATE OR REPLACE FUNCTION array_agg_distinct(internal, anynonarray)
    RETURNS anyarray
    AS 'count_distinct', 'array_agg_distinct_type_by_element'
    LANGUAGE C IMMUTABLE;

CREATE OR REPLACE FUNCTION array_agg_distinct(internal, anyarray)
    RETURNS anyarray
    AS 'count_distinct', 'array_agg_distinct_type_by_array'
    LANGUAGE C IMMUTABLE;

CREATE AGGREGATE count_distinct(anyelement) (
    SFUNC = count_distinct_append,
    STYPE = internal,
    FINALFUNC = count_distinct
);

CREATE AGGREGATE array_agg_distinct(anynonarray) (
    SFUNC = count_distinct_append,
    STYPE = internal,
    FINALFUNC = array_agg_distinct,
    FINALFUNC_EXTRA
);

CREATE AGGREGATE count_distinct_elements(anyarray) (
    SFUNC = count_distinct_elements_append,
    STYPE = internal,
    FINALFUNC = count_distinct
);

CREATE AGGREGATE array_agg_distinct_elements(anyarray) (
    SFUNC = count_distinct_elements_append,
    STYPE = internal,
    FINALFUNC = array_agg_distinct,
    FINALFUNC_EXTRA
);
