/* count_distinct 4.0.0 */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION count_distinct" to load this file. \quit

/* transition functions: add one value / all elements of one array */
CREATE FUNCTION count_distinct_append(internal, anyelement)
    RETURNS internal
    AS 'MODULE_PATHNAME', 'count_distinct_append'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION count_distinct_elements_append(internal, anyarray)
    RETURNS internal
    AS 'MODULE_PATHNAME', 'count_distinct_elements_append'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

/* combine, serialize, deserialize: shared by all four aggregates */
CREATE FUNCTION count_distinct_combine(internal, internal)
    RETURNS internal
    AS 'MODULE_PATHNAME', 'count_distinct_combine'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION count_distinct_serial(internal)
    RETURNS bytea
    AS 'MODULE_PATHNAME', 'count_distinct_serial'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION count_distinct_deserial(bytea, internal)
    RETURNS internal
    AS 'MODULE_PATHNAME', 'count_distinct_deserial'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

/* final functions */
CREATE FUNCTION count_distinct_final(internal)
    RETURNS bigint
    AS 'MODULE_PATHNAME', 'count_distinct_final'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION array_agg_distinct_type_final(internal, anynonarray)
    RETURNS anyarray
    AS 'MODULE_PATHNAME', 'array_agg_distinct_final'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION array_agg_distinct_elements_final(internal, anyarray)
    RETURNS anyarray
    AS 'MODULE_PATHNAME', 'array_agg_distinct_final'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

/*
 * SSPACE: a new group's state is one 64-byte chunk (header and the first
 * few keys) plus the allocator's chunk header; groups that grow are handled
 * by spilling hash aggregation.
 */
CREATE AGGREGATE count_distinct(anyelement) (
    SFUNC = count_distinct_append,
    STYPE = internal,
    SSPACE = 80,
    FINALFUNC = count_distinct_final,
    COMBINEFUNC = count_distinct_combine,
    SERIALFUNC = count_distinct_serial,
    DESERIALFUNC = count_distinct_deserial,
    PARALLEL = SAFE
);

CREATE AGGREGATE count_distinct_elements(anyarray) (
    SFUNC = count_distinct_elements_append,
    STYPE = internal,
    SSPACE = 80,
    FINALFUNC = count_distinct_final,
    COMBINEFUNC = count_distinct_combine,
    SERIALFUNC = count_distinct_serial,
    DESERIALFUNC = count_distinct_deserial,
    PARALLEL = SAFE
);

CREATE AGGREGATE array_agg_distinct(anynonarray) (
    SFUNC = count_distinct_append,
    STYPE = internal,
    SSPACE = 80,
    FINALFUNC = array_agg_distinct_type_final,
    FINALFUNC_EXTRA,
    COMBINEFUNC = count_distinct_combine,
    SERIALFUNC = count_distinct_serial,
    DESERIALFUNC = count_distinct_deserial,
    PARALLEL = SAFE
);

CREATE AGGREGATE array_agg_distinct_elements(anyarray) (
    SFUNC = count_distinct_elements_append,
    STYPE = internal,
    SSPACE = 80,
    FINALFUNC = array_agg_distinct_elements_final,
    FINALFUNC_EXTRA,
    COMBINEFUNC = count_distinct_combine,
    SERIALFUNC = count_distinct_serial,
    DESERIALFUNC = count_distinct_deserial,
    PARALLEL = SAFE
);
