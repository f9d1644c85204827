/*
 * count_distinct 3.0.0, 3.0.1, 3.0.2 -> 4.0.0 (3.0.x: the previous
 * implementation; the three have the same catalog).
 *
 * The combine, serialize and deserialize functions of 3.0.x have named
 * parameters (p_pointer, ...), which CREATE OR REPLACE FUNCTION cannot
 * remove.  They are moved aside under other names, 4.0.0's functions are
 * created, the aggregates are pointed at them with CREATE OR REPLACE
 * AGGREGATE (which keeps each aggregate's identity, so views, rules and
 * functions using them stay), and the old functions are dropped, together
 * with the old final functions.  Every object altered, replaced or dropped
 * here is a member of the extension in a 3.0.x catalog.
 */
ALTER FUNCTION @extschema@.count_distinct_combine(pg_catalog.internal, pg_catalog.internal)
    RENAME TO count_distinct_combine_3_0;
ALTER FUNCTION @extschema@.count_distinct_serial(pg_catalog.internal)
    RENAME TO count_distinct_serial_3_0;
ALTER FUNCTION @extschema@.count_distinct_deserial(pg_catalog.bytea, pg_catalog.internal)
    RENAME TO count_distinct_deserial_3_0;

/* transition functions: 4.0.0's library and attributes */
CREATE OR REPLACE FUNCTION @extschema@.count_distinct_append(pg_catalog.internal, pg_catalog.anyelement)
    RETURNS pg_catalog.internal
    AS 'MODULE_PATHNAME', 'count_distinct_append'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION @extschema@.count_distinct_elements_append(pg_catalog.internal, pg_catalog.anyarray)
    RETURNS pg_catalog.internal
    AS 'MODULE_PATHNAME', 'count_distinct_elements_append'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

/* new in 4.0.0 */
CREATE FUNCTION @extschema@.count_distinct_combine(pg_catalog.internal, pg_catalog.internal)
    RETURNS pg_catalog.internal
    AS 'MODULE_PATHNAME', 'count_distinct_combine'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@.count_distinct_serial(pg_catalog.internal)
    RETURNS pg_catalog.bytea
    AS 'MODULE_PATHNAME', 'count_distinct_serial'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.count_distinct_deserial(pg_catalog.bytea, pg_catalog.internal)
    RETURNS pg_catalog.internal
    AS 'MODULE_PATHNAME', 'count_distinct_deserial'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.count_distinct_final(pg_catalog.internal)
    RETURNS bigint
    AS 'MODULE_PATHNAME', 'count_distinct_final'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@.array_agg_distinct_type_final(pg_catalog.internal, pg_catalog.anynonarray)
    RETURNS pg_catalog.anyarray
    AS 'MODULE_PATHNAME', 'array_agg_distinct_final'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@.array_agg_distinct_elements_final(pg_catalog.internal, pg_catalog.anyarray)
    RETURNS pg_catalog.anyarray
    AS 'MODULE_PATHNAME', 'array_agg_distinct_final'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

/* the aggregates, in place */
CREATE OR REPLACE AGGREGATE @extschema@.count_distinct(pg_catalog.anyelement) (
    SFUNC = @extschema@.count_distinct_append,
    STYPE = pg_catalog.internal,
    SSPACE = 80,
    FINALFUNC = @extschema@.count_distinct_final,
    COMBINEFUNC = @extschema@.count_distinct_combine,
    SERIALFUNC = @extschema@.count_distinct_serial,
    DESERIALFUNC = @extschema@.count_distinct_deserial,
    PARALLEL = SAFE
);

CREATE OR REPLACE AGGREGATE @extschema@.count_distinct_elements(pg_catalog.anyarray) (
    SFUNC = @extschema@.count_distinct_elements_append,
    STYPE = pg_catalog.internal,
    SSPACE = 80,
    FINALFUNC = @extschema@.count_distinct_final,
    COMBINEFUNC = @extschema@.count_distinct_combine,
    SERIALFUNC = @extschema@.count_distinct_serial,
    DESERIALFUNC = @extschema@.count_distinct_deserial,
    PARALLEL = SAFE
);

CREATE OR REPLACE AGGREGATE @extschema@.array_agg_distinct(pg_catalog.anynonarray) (
    SFUNC = @extschema@.count_distinct_append,
    STYPE = pg_catalog.internal,
    SSPACE = 80,
    FINALFUNC = @extschema@.array_agg_distinct_type_final,
    FINALFUNC_EXTRA,
    COMBINEFUNC = @extschema@.count_distinct_combine,
    SERIALFUNC = @extschema@.count_distinct_serial,
    DESERIALFUNC = @extschema@.count_distinct_deserial,
    PARALLEL = SAFE
);

CREATE OR REPLACE AGGREGATE @extschema@.array_agg_distinct_elements(pg_catalog.anyarray) (
    SFUNC = @extschema@.count_distinct_elements_append,
    STYPE = pg_catalog.internal,
    SSPACE = 80,
    FINALFUNC = @extschema@.array_agg_distinct_elements_final,
    FINALFUNC_EXTRA,
    COMBINEFUNC = @extschema@.count_distinct_combine,
    SERIALFUNC = @extschema@.count_distinct_serial,
    DESERIALFUNC = @extschema@.count_distinct_deserial,
    PARALLEL = SAFE
);

/* no aggregate points at these any more */
DROP FUNCTION @extschema@.count_distinct_combine_3_0(pg_catalog.internal, pg_catalog.internal);
DROP FUNCTION @extschema@.count_distinct_serial_3_0(pg_catalog.internal);
DROP FUNCTION @extschema@.count_distinct_deserial_3_0(pg_catalog.bytea, pg_catalog.internal);
DROP FUNCTION @extschema@.count_distinct(pg_catalog.internal);
DROP FUNCTION @extschema@.array_agg_distinct(pg_catalog.internal, pg_catalog.anynonarray);
DROP FUNCTION @extschema@.array_agg_distinct(pg_catalog.internal, pg_catalog.anyarray);
