/* count_distinct 4.1.0 */

/*
 * The update scripts (count_distinct--OLD--4.1.0.sql) are built from this
 * file (see sql/update/): every object here is created with CREATE OR
 * REPLACE, so that the same statements also bring an existing catalog of an
 * older version up to this one.
 */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION count_distinct" to load this file. \quit

/* transition functions: add one value / all elements of one array */
CREATE OR REPLACE FUNCTION count_distinct_append(internal, anyelement)
    RETURNS internal
    AS 'MODULE_PATHNAME', 'count_distinct_append'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION count_distinct_elements_append(internal, anyarray)
    RETURNS internal
    AS 'MODULE_PATHNAME', 'count_distinct_elements_append'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

/* combine, serialize, deserialize: shared by all four aggregates */
CREATE OR REPLACE FUNCTION count_distinct_combine(internal, internal)
    RETURNS internal
    AS 'MODULE_PATHNAME', 'count_distinct_combine'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION count_distinct_serial(internal)
    RETURNS bytea
    AS 'MODULE_PATHNAME', 'count_distinct_serial'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION count_distinct_deserial(bytea, internal)
    RETURNS internal
    AS 'MODULE_PATHNAME', 'count_distinct_deserial'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

/* final functions */
CREATE OR REPLACE FUNCTION count_distinct_final(internal)
    RETURNS bigint
    AS 'MODULE_PATHNAME', 'count_distinct_final'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION array_agg_distinct_type_final(internal, anynonarray)
    RETURNS anyarray
    AS 'MODULE_PATHNAME', 'array_agg_distinct_final'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION array_agg_distinct_elements_final(internal, anyarray)
    RETURNS anyarray
    AS 'MODULE_PATHNAME', 'array_agg_distinct_final'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION array_agg_distinct_array_final(internal, anyarray)
    RETURNS anyarray
    AS 'MODULE_PATHNAME', 'array_agg_distinct_array_final'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

/*
 * moving-aggregate mode (window frames): add / remove one row, and final
 * functions that only read the state
 */
CREATE OR REPLACE FUNCTION count_distinct_moving_append(internal, anyelement)
    RETURNS internal
    AS 'MODULE_PATHNAME', 'count_distinct_moving_append'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION count_distinct_moving_remove(internal, anyelement)
    RETURNS internal
    AS 'MODULE_PATHNAME', 'count_distinct_moving_remove'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION count_distinct_elements_moving_append(internal, anyarray)
    RETURNS internal
    AS 'MODULE_PATHNAME', 'count_distinct_elements_moving_append'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION count_distinct_elements_moving_remove(internal, anyarray)
    RETURNS internal
    AS 'MODULE_PATHNAME', 'count_distinct_elements_moving_remove'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION count_distinct_moving_final(internal)
    RETURNS bigint
    AS 'MODULE_PATHNAME', 'count_distinct_moving_final'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION array_agg_distinct_type_moving_final(internal, anynonarray)
    RETURNS anyarray
    AS 'MODULE_PATHNAME', 'array_agg_distinct_moving_final'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION array_agg_distinct_elements_moving_final(internal, anyarray)
    RETURNS anyarray
    AS 'MODULE_PATHNAME', 'array_agg_distinct_moving_final'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION array_agg_distinct_array_moving_final(internal, anyarray)
    RETURNS anyarray
    AS 'MODULE_PATHNAME', 'array_agg_distinct_array_moving_final'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

/*
 * SSPACE: a new group's state, measured under hash aggregation (PostgreSQL
 * 15): 64 bytes for fixed-width keys (one header-free slot), 88 bytes for
 * variable-size keys (one 64-byte chunk holding the set's header and its
 * first entries, with its chunk header).  The polymorphic aggregates
 * declare the larger:
 * the typed overloads cover the fixed-width types.  Groups that grow are
 * handled by spilling hash aggregation.
 *
 * FINALFUNC_MODIFY = SHAREABLE: the final functions compact the set
 * (same values, another layout), which other final functions sharing the
 * state may still read.  A window function needs a READ_ONLY final
 * function, so PostgreSQL runs every window frame in moving-aggregate mode
 * (MSFUNC, MINVFUNC, MFINALFUNC: a state that counts each value's rows, so
 * rows can leave the frame), running frames included.  MSSPACE: the state
 * and its tree, before any value.
 */
CREATE OR REPLACE AGGREGATE count_distinct(anyelement) (
    SFUNC = count_distinct_append,
    STYPE = internal,
    SSPACE = 88,
    FINALFUNC = count_distinct_final,
    FINALFUNC_MODIFY = SHAREABLE,
    COMBINEFUNC = count_distinct_combine,
    SERIALFUNC = count_distinct_serial,
    DESERIALFUNC = count_distinct_deserial,
    MSFUNC = count_distinct_moving_append,
    MINVFUNC = count_distinct_moving_remove,
    MSTYPE = internal,
    MSSPACE = 128,
    MFINALFUNC = count_distinct_moving_final,
    MFINALFUNC_MODIFY = READ_ONLY,
    PARALLEL = SAFE
);

CREATE OR REPLACE AGGREGATE count_distinct_elements(anyarray) (
    SFUNC = count_distinct_elements_append,
    STYPE = internal,
    SSPACE = 88,
    FINALFUNC = count_distinct_final,
    FINALFUNC_MODIFY = SHAREABLE,
    COMBINEFUNC = count_distinct_combine,
    SERIALFUNC = count_distinct_serial,
    DESERIALFUNC = count_distinct_deserial,
    MSFUNC = count_distinct_elements_moving_append,
    MINVFUNC = count_distinct_elements_moving_remove,
    MSTYPE = internal,
    MSSPACE = 128,
    MFINALFUNC = count_distinct_moving_final,
    MFINALFUNC_MODIFY = READ_ONLY,
    PARALLEL = SAFE
);

CREATE OR REPLACE AGGREGATE array_agg_distinct(anynonarray) (
    SFUNC = count_distinct_append,
    STYPE = internal,
    SSPACE = 88,
    FINALFUNC = array_agg_distinct_type_final,
    FINALFUNC_EXTRA,
    FINALFUNC_MODIFY = SHAREABLE,
    COMBINEFUNC = count_distinct_combine,
    SERIALFUNC = count_distinct_serial,
    DESERIALFUNC = count_distinct_deserial,
    MSFUNC = count_distinct_moving_append,
    MINVFUNC = count_distinct_moving_remove,
    MSTYPE = internal,
    MSSPACE = 128,
    MFINALFUNC = array_agg_distinct_type_moving_final,
    MFINALFUNC_EXTRA,
    MFINALFUNC_MODIFY = READ_ONLY,
    PARALLEL = SAFE
);

CREATE OR REPLACE AGGREGATE array_agg_distinct_elements(anyarray) (
    SFUNC = count_distinct_elements_append,
    STYPE = internal,
    SSPACE = 88,
    FINALFUNC = array_agg_distinct_elements_final,
    FINALFUNC_EXTRA,
    FINALFUNC_MODIFY = SHAREABLE,
    COMBINEFUNC = count_distinct_combine,
    SERIALFUNC = count_distinct_serial,
    DESERIALFUNC = count_distinct_deserial,
    MSFUNC = count_distinct_elements_moving_append,
    MINVFUNC = count_distinct_elements_moving_remove,
    MSTYPE = internal,
    MSSPACE = 128,
    MFINALFUNC = array_agg_distinct_elements_moving_final,
    MFINALFUNC_EXTRA,
    MFINALFUNC_MODIFY = READ_ONLY,
    PARALLEL = SAFE
);

/*
 * arrays of arrays: like native array_agg(anyarray), one more dimension
 * (arrays are variable-size keys: SSPACE as above)
 */
CREATE OR REPLACE AGGREGATE array_agg_distinct(anyarray) (
    SFUNC = count_distinct_append,
    STYPE = internal,
    SSPACE = 176,
    FINALFUNC = array_agg_distinct_array_final,
    FINALFUNC_EXTRA,
    FINALFUNC_MODIFY = SHAREABLE,
    COMBINEFUNC = count_distinct_combine,
    SERIALFUNC = count_distinct_serial,
    DESERIALFUNC = count_distinct_deserial,
    MSFUNC = count_distinct_moving_append,
    MINVFUNC = count_distinct_moving_remove,
    MSTYPE = internal,
    MSSPACE = 128,
    MFINALFUNC = array_agg_distinct_array_moving_final,
    MFINALFUNC_EXTRA,
    MFINALFUNC_MODIFY = READ_ONLY,
    PARALLEL = SAFE
);
