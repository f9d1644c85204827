/*
 * Test fixture: a count_distinct 2.0.0 catalog, as 2.0.0's script left it
 * on a server with parallel aggregation: the parallel support functions
 * (with named parameters) on count_distinct and array_agg_distinct only,
 * count_distinct_elements without them, no array_agg_distinct_elements, and
 * array_agg_distinct's final function under its first C symbol
 * ("array_agg_distinct").  The test driver installs this as
 * count_distinct--2.0.0.sql and updates it.
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
    AS 'count_distinct', 'array_agg_distinct'
    LANGUAGE C IMMUTABLE;

CREATE OR REPLACE FUNCTION count_distinct_serial(p_pointer internal)
    RETURNS bytea
    AS 'count_distinct', 'count_distinct_serial'
    LANGUAGE C IMMUTABLE STRICT;

CREATE OR REPLACE FUNCTION count_distinct_deserial(p_value bytea, p_dummy internal)
    RETURNS internal
    AS 'count_distinct', 'count_distinct_deserial'
    LANGUAGE C IMMUTABLE STRICT;

CREATE OR REPLACE FUNCTION count_distinct_combine(p_state_1 internal, p_state_2 internal)
    RETURNS internal
    AS 'count_distinct', 'count_distinct_combine'
    LANGUAGE C IMMUTABLE;

CREATE AGGREGATE count_distinct(anyelement) (
    SFUNC = count_distinct_append,
    STYPE = internal,
    FINALFUNC = count_distinct,
    COMBINEFUNC = count_distinct_combine,
    SERIALFUNC = count_distinct_serial,
    DESERIALFUNC = count_distinct_deserial,
    PARALLEL = SAFE
);

CREATE AGGREGATE array_agg_distinct(anynonarray) (
    SFUNC = count_distinct_append,
    STYPE = internal,
    FINALFUNC = array_agg_distinct,
    FINALFUNC_EXTRA,
    COMBINEFUNC = count_distinct_combine,
    SERIALFUNC = count_distinct_serial,
    DESERIALFUNC = count_distinct_deserial,
    PARALLEL = SAFE
);

CREATE AGGREGATE count_distinct_elements(anyarray) (
    SFUNC = count_distinct_elements_append,
    STYPE = internal,
    FINALFUNC = count_distinct
);
