/*
 * count_distinct 4.1.0 -> 4.2.0: the stored set type distinct_set, its
 * functions, aggregates, operators and operator classes, all new.  (4.2.0's
 * install script also declared the typed overloads of distinct_set_agg where
 * Citus is installed: on the way up, the last step does that.)
 */
CREATE TYPE @extschema@.distinct_set;

CREATE FUNCTION @extschema@.distinct_set_in(pg_catalog.cstring)
    RETURNS @extschema@.distinct_set
    AS 'MODULE_PATHNAME', 'distinct_set_in'
    LANGUAGE C STABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.distinct_set_out(@extschema@.distinct_set)
    RETURNS pg_catalog.cstring
    AS 'MODULE_PATHNAME', 'distinct_set_out'
    LANGUAGE C STABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.distinct_set_recv(pg_catalog.internal)
    RETURNS @extschema@.distinct_set
    AS 'MODULE_PATHNAME', 'distinct_set_recv'
    LANGUAGE C STABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.distinct_set_send(@extschema@.distinct_set)
    RETURNS pg_catalog.bytea
    AS 'MODULE_PATHNAME', 'distinct_set_send'
    LANGUAGE C STABLE STRICT PARALLEL SAFE;

/*
 * STORAGE = extended, by measurement (PostgreSQL 15, pg_column_size):
 * random keys do not compress (pglz gives up after the first kilobyte, so
 * trying costs little), but regular ones do: 1M int8 clustered in a
 * repeating pattern 1.31 MB -> 43 kB, 100k 'user_NNNNNNN' texts 311 kB ->
 * 7 kB.  cardinality() still reads a prefix only (a slice of a compressed
 * value decompresses only its beginning): 150 sets of 1M values in 4 ms
 * either way.
 */
CREATE TYPE @extschema@.distinct_set (
    INPUT = @extschema@.distinct_set_in,
    OUTPUT = @extschema@.distinct_set_out,
    RECEIVE = @extschema@.distinct_set_recv,
    SEND = @extschema@.distinct_set_send,
    INTERNALLENGTH = VARIABLE,
    ALIGNMENT = int4,
    STORAGE = extended
);

/* build */
CREATE FUNCTION @extschema@.distinct_set_agg_final(pg_catalog.internal)
    RETURNS @extschema@.distinct_set
    AS 'MODULE_PATHNAME', 'distinct_set_agg_final'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@.distinct_set_agg_moving_final(pg_catalog.internal)
    RETURNS @extschema@.distinct_set
    AS 'MODULE_PATHNAME', 'distinct_set_agg_moving_final'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

/*
 * The states and support functions of count_distinct (SSPACE, MSSPACE and
 * the moving-aggregate mode of window frames: see there).
 */
CREATE AGGREGATE @extschema@.distinct_set_agg(pg_catalog.anyelement) (
    SFUNC = @extschema@.count_distinct_append,
    STYPE = pg_catalog.internal,
    SSPACE = 88,
    FINALFUNC = @extschema@.distinct_set_agg_final,
    FINALFUNC_MODIFY = SHAREABLE,
    COMBINEFUNC = @extschema@.count_distinct_combine,
    SERIALFUNC = @extschema@.count_distinct_serial,
    DESERIALFUNC = @extschema@.count_distinct_deserial,
    MSFUNC = @extschema@.count_distinct_moving_append,
    MINVFUNC = @extschema@.count_distinct_moving_remove,
    MSTYPE = pg_catalog.internal,
    MSSPACE = 128,
    MFINALFUNC = @extschema@.distinct_set_agg_moving_final,
    MFINALFUNC_MODIFY = READ_ONLY,
    PARALLEL = SAFE
);

CREATE FUNCTION @extschema@.distinct_set(pg_catalog.anyarray)
    RETURNS @extschema@.distinct_set
    AS 'MODULE_PATHNAME', 'distinct_set_from_array'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

/* the binary form (distinct_set_send's bytes) back, validated as binary input */
CREATE FUNCTION @extschema@.distinct_set_from_bytes(pg_catalog.bytea)
    RETURNS @extschema@.distinct_set
    AS 'MODULE_PATHNAME', 'distinct_set_from_bytes'
    LANGUAGE C STABLE STRICT PARALLEL SAFE;

/*
 * read; the support function plans cardinality(distinct_set_union_agg(s))
 * and cardinality(distinct_set_intersect_agg(s)) as the counting aggregates
 * below, which skip encoding the set
 */
CREATE FUNCTION @extschema@.distinct_set_cardinality_support(pg_catalog.internal)
    RETURNS pg_catalog.internal
    AS 'MODULE_PATHNAME', 'distinct_set_cardinality_support'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.cardinality(@extschema@.distinct_set)
    RETURNS bigint
    AS 'MODULE_PATHNAME', 'distinct_set_cardinality'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
    SUPPORT @extschema@.distinct_set_cardinality_support;

CREATE FUNCTION @extschema@.distinct_set_to_array(@extschema@.distinct_set, pg_catalog.anyelement)
    RETURNS pg_catalog.anyarray
    AS 'MODULE_PATHNAME', 'distinct_set_to_array'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@.distinct_set_values(@extschema@.distinct_set, pg_catalog.anyelement)
    RETURNS SETOF pg_catalog.anyelement
    AS 'MODULE_PATHNAME', 'distinct_set_values'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@.distinct_set_contains(@extschema@.distinct_set, pg_catalog.anyelement)
    RETURNS boolean
    AS 'MODULE_PATHNAME', 'distinct_set_contains'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

/* combine */
/* cardinality(a & b), cardinality(a | b), cardinality(a - b) are planned as these */
CREATE FUNCTION @extschema@.distinct_set_intersect_cardinality(@extschema@.distinct_set, @extschema@.distinct_set)
    RETURNS bigint
    AS 'MODULE_PATHNAME', 'distinct_set_intersect_cardinality'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.distinct_set_union_cardinality(@extschema@.distinct_set, @extschema@.distinct_set)
    RETURNS bigint
    AS 'MODULE_PATHNAME', 'distinct_set_union_cardinality'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.distinct_set_except_cardinality(@extschema@.distinct_set, @extschema@.distinct_set)
    RETURNS bigint
    AS 'MODULE_PATHNAME', 'distinct_set_except_cardinality'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.distinct_set_union(@extschema@.distinct_set, @extschema@.distinct_set)
    RETURNS @extschema@.distinct_set
    AS 'MODULE_PATHNAME', 'distinct_set_union'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.distinct_set_intersect(@extschema@.distinct_set, @extschema@.distinct_set)
    RETURNS @extschema@.distinct_set
    AS 'MODULE_PATHNAME', 'distinct_set_intersect'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.distinct_set_except(@extschema@.distinct_set, @extschema@.distinct_set)
    RETURNS @extschema@.distinct_set
    AS 'MODULE_PATHNAME', 'distinct_set_except'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.distinct_set_contains_set(@extschema@.distinct_set, @extschema@.distinct_set)
    RETURNS boolean
    AS 'MODULE_PATHNAME', 'distinct_set_contains_set'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.distinct_set_contained(@extschema@.distinct_set, @extschema@.distinct_set)
    RETURNS boolean
    AS 'MODULE_PATHNAME', 'distinct_set_contained'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.distinct_set_overlaps(@extschema@.distinct_set, @extschema@.distinct_set)
    RETURNS boolean
    AS 'MODULE_PATHNAME', 'distinct_set_overlaps'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

/* union and intersection aggregates: the state serializes as a set */
CREATE FUNCTION @extschema@.distinct_set_union_append(pg_catalog.internal, @extschema@.distinct_set)
    RETURNS pg_catalog.internal
    AS 'MODULE_PATHNAME', 'distinct_set_union_append'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@.distinct_set_union_combine(pg_catalog.internal, pg_catalog.internal)
    RETURNS pg_catalog.internal
    AS 'MODULE_PATHNAME', 'distinct_set_union_combine'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@.distinct_set_union_final(pg_catalog.internal)
    RETURNS @extschema@.distinct_set
    AS 'MODULE_PATHNAME', 'distinct_set_union_final'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@.distinct_set_agg_serial(pg_catalog.internal)
    RETURNS pg_catalog.bytea
    AS 'MODULE_PATHNAME', 'distinct_set_agg_serial'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.distinct_set_union_count_final(pg_catalog.internal)
    RETURNS bigint
    AS 'MODULE_PATHNAME', 'distinct_set_union_count_final'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@.distinct_set_intersect_count_final(pg_catalog.internal)
    RETURNS bigint
    AS 'MODULE_PATHNAME', 'distinct_set_intersect_count_final'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

/* sliding window frames: each key's number of the frame's sets (dset_agg.c) */
CREATE FUNCTION @extschema@.distinct_set_union_moving_append(pg_catalog.internal, @extschema@.distinct_set)
    RETURNS pg_catalog.internal
    AS 'MODULE_PATHNAME', 'distinct_set_union_moving_append'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@.distinct_set_union_moving_remove(pg_catalog.internal, @extschema@.distinct_set)
    RETURNS pg_catalog.internal
    AS 'MODULE_PATHNAME', 'distinct_set_union_moving_remove'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@.distinct_set_union_moving_final(pg_catalog.internal)
    RETURNS @extschema@.distinct_set
    AS 'MODULE_PATHNAME', 'distinct_set_union_moving_final'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@.distinct_set_union_moving_count_final(pg_catalog.internal)
    RETURNS bigint
    AS 'MODULE_PATHNAME', 'distinct_set_union_moving_count_final'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@.distinct_set_union_deserial(pg_catalog.bytea, pg_catalog.internal)
    RETURNS pg_catalog.internal
    AS 'MODULE_PATHNAME', 'distinct_set_union_deserial'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.distinct_set_intersect_append(pg_catalog.internal, @extschema@.distinct_set)
    RETURNS pg_catalog.internal
    AS 'MODULE_PATHNAME', 'distinct_set_intersect_append'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@.distinct_set_intersect_combine(pg_catalog.internal, pg_catalog.internal)
    RETURNS pg_catalog.internal
    AS 'MODULE_PATHNAME', 'distinct_set_intersect_combine'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@.distinct_set_intersect_final(pg_catalog.internal)
    RETURNS @extschema@.distinct_set
    AS 'MODULE_PATHNAME', 'distinct_set_intersect_final'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@.distinct_set_intersect_deserial(pg_catalog.bytea, pg_catalog.internal)
    RETURNS pg_catalog.internal
    AS 'MODULE_PATHNAME', 'distinct_set_intersect_deserial'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

/*
 * SSPACE: the state struct and its first stack of runs; the runs come with
 * the first set.  The final functions merge the union's stack in place and
 * leave the state valid for more rows.
 */
CREATE AGGREGATE @extschema@.distinct_set_union_agg(@extschema@.distinct_set) (
    SFUNC = @extschema@.distinct_set_union_append,
    STYPE = pg_catalog.internal,
    SSPACE = 400,
    FINALFUNC = @extschema@.distinct_set_union_final,
    FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = @extschema@.distinct_set_union_combine,
    SERIALFUNC = @extschema@.distinct_set_agg_serial,
    DESERIALFUNC = @extschema@.distinct_set_union_deserial,
    MSFUNC = @extschema@.distinct_set_union_moving_append,
    MINVFUNC = @extschema@.distinct_set_union_moving_remove,
    MSTYPE = pg_catalog.internal,
    MSSPACE = 400,
    MFINALFUNC = @extschema@.distinct_set_union_moving_final,
    MFINALFUNC_MODIFY = READ_ONLY,
    PARALLEL = SAFE
);

CREATE AGGREGATE @extschema@.distinct_set_intersect_agg(@extschema@.distinct_set) (
    SFUNC = @extschema@.distinct_set_intersect_append,
    STYPE = pg_catalog.internal,
    SSPACE = 400,
    FINALFUNC = @extschema@.distinct_set_intersect_final,
    FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = @extschema@.distinct_set_intersect_combine,
    SERIALFUNC = @extschema@.distinct_set_agg_serial,
    DESERIALFUNC = @extschema@.distinct_set_intersect_deserial,
    PARALLEL = SAFE
);

/* the number of values of the union / intersection, without building it */
CREATE AGGREGATE @extschema@.distinct_set_union_cardinality_agg(@extschema@.distinct_set) (
    SFUNC = @extschema@.distinct_set_union_append,
    STYPE = pg_catalog.internal,
    SSPACE = 400,
    FINALFUNC = @extschema@.distinct_set_union_count_final,
    FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = @extschema@.distinct_set_union_combine,
    SERIALFUNC = @extschema@.distinct_set_agg_serial,
    DESERIALFUNC = @extschema@.distinct_set_union_deserial,
    MSFUNC = @extschema@.distinct_set_union_moving_append,
    MINVFUNC = @extschema@.distinct_set_union_moving_remove,
    MSTYPE = pg_catalog.internal,
    MSSPACE = 400,
    MFINALFUNC = @extschema@.distinct_set_union_moving_count_final,
    MFINALFUNC_MODIFY = READ_ONLY,
    PARALLEL = SAFE
);

CREATE AGGREGATE @extschema@.distinct_set_intersect_cardinality_agg(@extschema@.distinct_set) (
    SFUNC = @extschema@.distinct_set_intersect_append,
    STYPE = pg_catalog.internal,
    SSPACE = 400,
    FINALFUNC = @extschema@.distinct_set_intersect_count_final,
    FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = @extschema@.distinct_set_intersect_combine,
    SERIALFUNC = @extschema@.distinct_set_agg_serial,
    DESERIALFUNC = @extschema@.distinct_set_intersect_deserial,
    PARALLEL = SAFE
);

/*
 * Comparison and hashing: of the stored bytes, which are canonical (equal
 * sets, equal bytes).  The btree order is a total order consistent with
 * "=", for indexes, sorting and merge joins; it is not an order of the
 * values (sets of one type order by their count first).
 */
CREATE FUNCTION @extschema@.distinct_set_eq(@extschema@.distinct_set, @extschema@.distinct_set)
    RETURNS boolean AS 'MODULE_PATHNAME', 'distinct_set_eq'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

CREATE FUNCTION @extschema@.distinct_set_ne(@extschema@.distinct_set, @extschema@.distinct_set)
    RETURNS boolean AS 'MODULE_PATHNAME', 'distinct_set_ne'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

CREATE FUNCTION @extschema@.distinct_set_lt(@extschema@.distinct_set, @extschema@.distinct_set)
    RETURNS boolean AS 'MODULE_PATHNAME', 'distinct_set_lt'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

CREATE FUNCTION @extschema@.distinct_set_le(@extschema@.distinct_set, @extschema@.distinct_set)
    RETURNS boolean AS 'MODULE_PATHNAME', 'distinct_set_le'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

CREATE FUNCTION @extschema@.distinct_set_gt(@extschema@.distinct_set, @extschema@.distinct_set)
    RETURNS boolean AS 'MODULE_PATHNAME', 'distinct_set_gt'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

CREATE FUNCTION @extschema@.distinct_set_ge(@extschema@.distinct_set, @extschema@.distinct_set)
    RETURNS boolean AS 'MODULE_PATHNAME', 'distinct_set_ge'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

CREATE FUNCTION @extschema@.distinct_set_cmp(@extschema@.distinct_set, @extschema@.distinct_set)
    RETURNS integer AS 'MODULE_PATHNAME', 'distinct_set_cmp'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

CREATE FUNCTION @extschema@.distinct_set_hash(@extschema@.distinct_set)
    RETURNS integer AS 'MODULE_PATHNAME', 'distinct_set_hash'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

CREATE FUNCTION @extschema@.distinct_set_hash_extended(@extschema@.distinct_set, bigint)
    RETURNS bigint AS 'MODULE_PATHNAME', 'distinct_set_hash_extended'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;


/*
 * Operators and operator classes.  Commutators and negators are named with
 * their schema (OPERATOR(schema.op)), so they are this extension's, created
 * as shells by the first operator that names them and filled in by their
 * own CREATE OPERATOR.
 */

CREATE OPERATOR @extschema@.| (
    LEFTARG = @extschema@.distinct_set, RIGHTARG = @extschema@.distinct_set,
    FUNCTION = @extschema@.distinct_set_union,
    COMMUTATOR = OPERATOR(@extschema@.|));

CREATE OPERATOR @extschema@.& (
    LEFTARG = @extschema@.distinct_set, RIGHTARG = @extschema@.distinct_set,
    FUNCTION = @extschema@.distinct_set_intersect,
    COMMUTATOR = OPERATOR(@extschema@.&));

CREATE OPERATOR @extschema@.- (
    LEFTARG = @extschema@.distinct_set, RIGHTARG = @extschema@.distinct_set,
    FUNCTION = @extschema@.distinct_set_except);

CREATE OPERATOR @extschema@.@> (
    LEFTARG = @extschema@.distinct_set, RIGHTARG = @extschema@.distinct_set,
    FUNCTION = @extschema@.distinct_set_contains_set,
    COMMUTATOR = OPERATOR(@extschema@.<@), RESTRICT = pg_catalog.contsel, JOIN = pg_catalog.contjoinsel);

CREATE OPERATOR @extschema@.<@ (
    LEFTARG = @extschema@.distinct_set, RIGHTARG = @extschema@.distinct_set,
    FUNCTION = @extschema@.distinct_set_contained,
    COMMUTATOR = OPERATOR(@extschema@.@>), RESTRICT = pg_catalog.contsel, JOIN = pg_catalog.contjoinsel);

CREATE OPERATOR @extschema@.&& (
    LEFTARG = @extschema@.distinct_set, RIGHTARG = @extschema@.distinct_set,
    FUNCTION = @extschema@.distinct_set_overlaps,
    COMMUTATOR = OPERATOR(@extschema@.&&), RESTRICT = pg_catalog.contsel, JOIN = pg_catalog.contjoinsel);

CREATE OPERATOR @extschema@.= (
    LEFTARG = @extschema@.distinct_set, RIGHTARG = @extschema@.distinct_set,
    FUNCTION = @extschema@.distinct_set_eq,
    COMMUTATOR = OPERATOR(@extschema@.=), NEGATOR = OPERATOR(@extschema@.<>), RESTRICT = pg_catalog.eqsel, JOIN = pg_catalog.eqjoinsel, HASHES, MERGES);

CREATE OPERATOR @extschema@.<> (
    LEFTARG = @extschema@.distinct_set, RIGHTARG = @extschema@.distinct_set,
    FUNCTION = @extschema@.distinct_set_ne,
    COMMUTATOR = OPERATOR(@extschema@.<>), NEGATOR = OPERATOR(@extschema@.=), RESTRICT = pg_catalog.neqsel, JOIN = pg_catalog.neqjoinsel);

CREATE OPERATOR @extschema@.< (
    LEFTARG = @extschema@.distinct_set, RIGHTARG = @extschema@.distinct_set,
    FUNCTION = @extschema@.distinct_set_lt,
    COMMUTATOR = OPERATOR(@extschema@.>), NEGATOR = OPERATOR(@extschema@.>=), RESTRICT = pg_catalog.scalarltsel, JOIN = pg_catalog.scalarltjoinsel);

CREATE OPERATOR @extschema@.<= (
    LEFTARG = @extschema@.distinct_set, RIGHTARG = @extschema@.distinct_set,
    FUNCTION = @extschema@.distinct_set_le,
    COMMUTATOR = OPERATOR(@extschema@.>=), NEGATOR = OPERATOR(@extschema@.>), RESTRICT = pg_catalog.scalarlesel, JOIN = pg_catalog.scalarlejoinsel);

CREATE OPERATOR @extschema@.> (
    LEFTARG = @extschema@.distinct_set, RIGHTARG = @extschema@.distinct_set,
    FUNCTION = @extschema@.distinct_set_gt,
    COMMUTATOR = OPERATOR(@extschema@.<), NEGATOR = OPERATOR(@extschema@.<=), RESTRICT = pg_catalog.scalargtsel, JOIN = pg_catalog.scalargtjoinsel);

CREATE OPERATOR @extschema@.>= (
    LEFTARG = @extschema@.distinct_set, RIGHTARG = @extschema@.distinct_set,
    FUNCTION = @extschema@.distinct_set_ge,
    COMMUTATOR = OPERATOR(@extschema@.<=), NEGATOR = OPERATOR(@extschema@.<), RESTRICT = pg_catalog.scalargesel, JOIN = pg_catalog.scalargejoinsel);

/*
 * Each operator class in a family of its own, created first: CREATE
 * OPERATOR CLASS without FAMILY would use an existing family of the same
 * name instead of failing.
 */
CREATE OPERATOR FAMILY @extschema@.distinct_set_ops USING btree;

CREATE OPERATOR CLASS @extschema@.distinct_set_ops
    DEFAULT FOR TYPE @extschema@.distinct_set USING btree FAMILY @extschema@.distinct_set_ops AS
        OPERATOR 1 @extschema@.<,
        OPERATOR 2 @extschema@.<=,
        OPERATOR 3 @extschema@.=,
        OPERATOR 4 @extschema@.>=,
        OPERATOR 5 @extschema@.>,
        FUNCTION 1 @extschema@.distinct_set_cmp(@extschema@.distinct_set, @extschema@.distinct_set);

CREATE OPERATOR FAMILY @extschema@.distinct_set_hash_ops USING hash;

CREATE OPERATOR CLASS @extschema@.distinct_set_hash_ops
    DEFAULT FOR TYPE @extschema@.distinct_set USING hash FAMILY @extschema@.distinct_set_hash_ops AS
        OPERATOR 1 @extschema@.=,
        FUNCTION 1 @extschema@.distinct_set_hash(@extschema@.distinct_set),
        FUNCTION 2 @extschema@.distinct_set_hash_extended(@extschema@.distinct_set, bigint);

