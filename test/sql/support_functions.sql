-- The support functions of the aggregates take and return "internal".
-- What any user can do with them: nothing directly; what a superuser's
-- aggregate that mixes support functions of different state kinds gets: a
-- clear error, never a crash, a wrong type or another state's memory.
-- Results of the aggregates that still work are compared with native.
\set VERBOSITY terse
CREATE ROLE regress_cd_support_user;
CREATE SCHEMA cd_support;
GRANT USAGE ON SCHEMA cd_support TO regress_cd_support_user;
SET search_path = cd_support, public;
CREATE TABLE t AS
SELECT i, i % 97 AS v, ARRAY[i % 13, i % 7] AS a, (i % 23)::text AS s
FROM generate_series(1, 5000) i;
ANALYZE t;
GRANT SELECT ON t TO regress_cd_support_user;

-- 1. a user cannot pass an "internal" value from SQL, nor make one (the
--    error differs between versions: the call does not resolve, or the
--    NULL cannot become an internal value)
SET ROLE regress_cd_support_user;
DO $$
DECLARE
    q text;
BEGIN
    FOREACH q IN ARRAY ARRAY[
        'SELECT count_distinct_final(NULL)',
        'SELECT count_distinct_combine(NULL, NULL)',
        'SELECT count_distinct_serial(NULL::internal)',
        'SELECT count_distinct_deserial(''\x00''::bytea, NULL)',
        'SELECT count_distinct_moving_final(NULL)',
        'SELECT count_distinct_moving_remove(NULL, 1)',
        'SELECT count_distinct_args_append(NULL, 1, 2)',
        'SELECT count_distinct_args_moving_append(NULL, 1, 2, 3)',
        'SELECT count_distinct_args_moving_remove(NULL, 1, 2, 3, 4)',
        'SELECT array_agg_distinct_type_final(NULL, 1)',
        'SELECT count_distinct_final(count_distinct_append(NULL, 1))',
        'SELECT count_distinct_moving_final(count_distinct_moving_append(NULL, 1))',
        'SELECT distinct_set_union_final(distinct_set_union_append(NULL, distinct_set(ARRAY[1])))']
    LOOP
        BEGIN
            EXECUTE q;
            RAISE NOTICE 'ran: %', q;
        EXCEPTION WHEN undefined_function OR cannot_coerce OR feature_not_supported THEN
            RAISE NOTICE 'refused: %', q;
        END;
    END LOOP;
END $$;
-- nor create an aggregate whose state is "internal"
CREATE AGGREGATE pg_temp.mine(anyelement) (
    SFUNC = count_distinct_append, STYPE = internal, FINALFUNC = count_distinct_final);
-- nor bind them to another state type
CREATE AGGREGATE pg_temp.mine(anyelement) (SFUNC = count_distinct_append, STYPE = anyelement);
RESET ROLE;

-- 2. aggregates a superuser defined by mixing support functions of
--    different state kinds, called by a user
-- a set's functions given a moving state, and the other way round
CREATE AGGREGATE moving_into_final(anyelement) (
    SFUNC = count_distinct_moving_append, STYPE = internal,
    FINALFUNC = count_distinct_final);
CREATE AGGREGATE set_into_moving_final(anyelement) (
    SFUNC = count_distinct_append, STYPE = internal,
    FINALFUNC = count_distinct_moving_final);
CREATE AGGREGATE moving_into_array_final(anynonarray) (
    SFUNC = count_distinct_moving_append, STYPE = internal,
    FINALFUNC = array_agg_distinct_type_final, FINALFUNC_EXTRA);
CREATE AGGREGATE set_into_array_moving_final(anynonarray) (
    SFUNC = count_distinct_append, STYPE = internal,
    FINALFUNC = array_agg_distinct_type_moving_final, FINALFUNC_EXTRA);
CREATE AGGREGATE moving_into_elements_append(anyarray) (
    SFUNC = count_distinct_elements_moving_append, STYPE = internal,
    FINALFUNC = count_distinct_final);
CREATE AGGREGATE moving_into_combine(anyelement) (
    SFUNC = count_distinct_moving_append, STYPE = internal,
    FINALFUNC = count_distinct_moving_final, COMBINEFUNC = count_distinct_combine,
    SERIALFUNC = count_distinct_serial, DESERIALFUNC = count_distinct_deserial,
    PARALLEL = SAFE);
-- a stored-set aggregate's state given to count_distinct's functions
CREATE AGGREGATE union_into_final(distinct_set) (
    SFUNC = distinct_set_union_append, STYPE = internal,
    FINALFUNC = count_distinct_final);
CREATE AGGREGATE union_into_moving_final(distinct_set) (
    SFUNC = distinct_set_union_append, STYPE = internal,
    FINALFUNC = count_distinct_moving_final);
CREATE AGGREGATE intersect_into_final(distinct_set) (
    SFUNC = distinct_set_intersect_append, STYPE = internal,
    FINALFUNC = count_distinct_final);
CREATE AGGREGATE moving_union_into_final(distinct_set) (
    SFUNC = distinct_set_union_moving_append, STYPE = internal,
    FINALFUNC = count_distinct_final);
-- and to count_distinct's serialization, in a parallel plan
CREATE AGGREGATE union_into_serial(distinct_set) (
    SFUNC = distinct_set_union_append, STYPE = internal,
    FINALFUNC = distinct_set_union_final, COMBINEFUNC = distinct_set_union_combine,
    SERIALFUNC = count_distinct_serial, DESERIALFUNC = distinct_set_union_deserial,
    PARALLEL = SAFE);
-- serialized bytes of one kind read as another: validated as input
CREATE AGGREGATE set_bytes_into_union(anyelement) (
    SFUNC = count_distinct_append, STYPE = internal,
    FINALFUNC = count_distinct_final, COMBINEFUNC = count_distinct_combine,
    SERIALFUNC = count_distinct_serial, DESERIALFUNC = distinct_set_union_deserial,
    PARALLEL = SAFE);
CREATE AGGREGATE union_bytes_into_set(distinct_set) (
    SFUNC = distinct_set_union_append, STYPE = internal,
    FINALFUNC = distinct_set_union_final, COMBINEFUNC = count_distinct_combine,
    SERIALFUNC = distinct_set_agg_serial, DESERIALFUNC = count_distinct_deserial,
    PARALLEL = SAFE);
-- the final function's declared types against the state's values
CREATE AGGREGATE values_into_elements_final(anyarray) (
    SFUNC = count_distinct_append, STYPE = internal,
    FINALFUNC = array_agg_distinct_elements_final, FINALFUNC_EXTRA);
CREATE AGGREGATE moving_values_into_elements_final(anyarray) (
    SFUNC = count_distinct_moving_append, STYPE = internal,
    FINALFUNC = array_agg_distinct_elements_moving_final, FINALFUNC_EXTRA);
CREATE AGGREGATE elements_into_array_final(anyarray) (
    SFUNC = count_distinct_elements_append, STYPE = internal,
    FINALFUNC = array_agg_distinct_array_final, FINALFUNC_EXTRA);
CREATE AGGREGATE moving_elements_into_array_final(anyarray) (
    SFUNC = count_distinct_elements_moving_append, STYPE = internal,
    FINALFUNC = array_agg_distinct_array_moving_final, FINALFUNC_EXTRA);
-- an inverse transition function given values of another type than the
-- forward function's
CREATE AGGREGATE elements_forward_values_inverse(anyarray) (
    SFUNC = count_distinct_append, STYPE = internal, FINALFUNC = count_distinct_final,
    MSFUNC = count_distinct_elements_moving_append,
    MINVFUNC = count_distinct_moving_remove, MSTYPE = internal,
    MFINALFUNC = count_distinct_moving_final);
-- a transition function given, as an inverse transition function, the
-- state of arrays that the forward function built: values of another type
CREATE AGGREGATE elements_forward_append_inverse(anyarray) (
    SFUNC = count_distinct_elements_append, STYPE = internal,
    FINALFUNC = array_agg_distinct_elements_final, FINALFUNC_EXTRA,
    MSFUNC = count_distinct_elements_append, MINVFUNC = count_distinct_append,
    MSTYPE = internal, MFINALFUNC = array_agg_distinct_elements_final,
    MFINALFUNC_EXTRA);
CREATE AGGREGATE elements_forward_moving_append_inverse(anyarray) (
    SFUNC = count_distinct_elements_append, STYPE = internal,
    FINALFUNC = array_agg_distinct_elements_final, FINALFUNC_EXTRA,
    MSFUNC = count_distinct_elements_moving_append,
    MINVFUNC = count_distinct_moving_append, MSTYPE = internal,
    MFINALFUNC = array_agg_distinct_elements_moving_final, MFINALFUNC_EXTRA);
-- the final functions of catalogs of 2.0.0 and 3.0.x (legacy.c)
CREATE FUNCTION legacy_count(internal) RETURNS bigint
    AS 'count_distinct', 'count_distinct' LANGUAGE C;
CREATE FUNCTION legacy_array(internal, anynonarray) RETURNS anyarray
    AS 'count_distinct', 'array_agg_distinct_type_by_element' LANGUAGE C;
CREATE AGGREGATE legacy_count_moving(anyelement) (
    SFUNC = count_distinct_moving_append, STYPE = internal, FINALFUNC = legacy_count);
CREATE AGGREGATE legacy_array_moving(anynonarray) (
    SFUNC = count_distinct_moving_append, STYPE = internal,
    FINALFUNC = legacy_array, FINALFUNC_EXTRA);
-- ... which still work on their own state
CREATE AGGREGATE legacy_count_ok(anyelement) (
    SFUNC = count_distinct_append, STYPE = internal, FINALFUNC = legacy_count);
CREATE AGGREGATE legacy_array_ok(anynonarray) (
    SFUNC = count_distinct_append, STYPE = internal,
    FINALFUNC = legacy_array, FINALFUNC_EXTRA);
-- the multi-argument aggregates' functions given the other state kind
CREATE AGGREGATE args_moving_into_final("any", "any") (
    SFUNC = count_distinct_args_moving_append, STYPE = internal,
    FINALFUNC = count_distinct_final);
CREATE AGGREGATE args_into_moving_final("any", "any") (
    SFUNC = count_distinct_args_append, STYPE = internal,
    FINALFUNC = count_distinct_moving_final);
CREATE AGGREGATE args_set_into_moving_remove("any", "any") (
    SFUNC = count_distinct_args_append, STYPE = internal, FINALFUNC = count_distinct_final,
    MSFUNC = count_distinct_args_append, MINVFUNC = count_distinct_args_moving_remove,
    MSTYPE = internal, MFINALFUNC = count_distinct_final);
CREATE AGGREGATE args_moving_into_append("any", "any") (
    SFUNC = count_distinct_args_append, STYPE = internal, FINALFUNC = count_distinct_final,
    MSFUNC = count_distinct_args_moving_append, MINVFUNC = count_distinct_args_append,
    MSTYPE = internal, MFINALFUNC = count_distinct_moving_final);

SET ROLE regress_cd_support_user;
SELECT moving_into_final(v) FROM t;
SELECT set_into_moving_final(v) FROM t;
SELECT moving_into_array_final(v) FROM t;
SELECT set_into_array_moving_final(v) FROM t;
SELECT moving_into_elements_append(a) FROM t;
SELECT union_into_final(distinct_set(a)) FROM t;
SELECT union_into_moving_final(distinct_set(a)) FROM t;
SELECT intersect_into_final(distinct_set(a)) FROM t;
SELECT moving_union_into_final(distinct_set(a)) FROM t;
SELECT values_into_elements_final(a) FROM t;
SELECT moving_values_into_elements_final(a) FROM t;
SELECT elements_into_array_final(a) FROM t;
SELECT moving_elements_into_array_final(a) FROM t;
SELECT elements_forward_values_inverse(a) OVER (ORDER BY i ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)
FROM t ORDER BY i LIMIT 3;
SELECT elements_forward_append_inverse(a) OVER (ORDER BY i ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)
FROM t ORDER BY i LIMIT 3;
SELECT elements_forward_moving_append_inverse(a) OVER (ORDER BY i ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)
FROM t ORDER BY i LIMIT 3;
SELECT args_moving_into_final(v, s) FROM t;
SELECT args_into_moving_final(v, s) FROM t;
SELECT args_set_into_moving_remove(v, i) OVER (ORDER BY i ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)
FROM t ORDER BY i LIMIT 3;
SELECT args_moving_into_append(v, i) OVER (ORDER BY i ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)
FROM t ORDER BY i LIMIT 3;
SELECT legacy_count_moving(v) FROM t;
SELECT legacy_array_moving(v) FROM t;
SELECT legacy_count_ok(v) = count(DISTINCT v) AS same,
       legacy_array_ok(s) = array_agg(DISTINCT s ORDER BY s) AS same_array
FROM t;
-- in parallel plans: the partial states pass through the serialization
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET parallel_leader_participation = off;
EXPLAIN (COSTS OFF) SELECT moving_into_combine(v) FROM t;
SELECT moving_into_combine(v) FROM t;
SELECT union_into_serial(distinct_set(a)) FROM t;
SELECT set_bytes_into_union(v) FROM t;
SELECT union_bytes_into_set(distinct_set(a)) FROM t;
-- the aggregates of the extension in the same plans still agree with native
SELECT count_distinct(v) = count(DISTINCT v) AS same,
       array_agg_distinct(s) = array_agg(DISTINCT s ORDER BY s) AS same_array,
       count_distinct_elements(a) = (SELECT count(DISTINCT e) FROM t, unnest(a) e) AS same_elements
FROM t;
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET parallel_leader_participation;
-- and over sliding window frames, where the inverse transition functions
-- check the value's type
SELECT count(*) AS rows,
       count(*) FILTER (WHERE cd <> native OR ad <> na OR ce <> ne) AS differ
FROM (SELECT count_distinct(v) OVER w AS cd,
             (SELECT count(DISTINCT t2.v) FROM t t2 WHERE t2.i BETWEEN t.i - 20 AND t.i) AS native,
             array_agg_distinct(s) OVER w AS ad,
             (SELECT array_agg(DISTINCT t2.s ORDER BY t2.s) FROM t t2 WHERE t2.i BETWEEN t.i - 20 AND t.i) AS na,
             count_distinct_elements(a) OVER w AS ce,
             (SELECT count(DISTINCT e) FROM t t2, unnest(t2.a) e WHERE t2.i BETWEEN t.i - 20 AND t.i) AS ne
      FROM t WHERE i <= 400
      WINDOW w AS (ORDER BY i ROWS BETWEEN 20 PRECEDING AND CURRENT ROW)) s;
RESET ROLE;

-- 3. the stored-set aggregates' support functions (dset_agg.c) in
--    aggregates a superuser defined by mixing them with each other's and
--    count_distinct's, called by a user
-- count_distinct's states given to their final functions
CREATE AGGREGATE set_into_union_final(anyelement) (
    SFUNC = count_distinct_append, STYPE = internal,
    FINALFUNC = distinct_set_union_final);
CREATE AGGREGATE set_into_union_count_final(anyelement) (
    SFUNC = count_distinct_append, STYPE = internal,
    FINALFUNC = distinct_set_union_count_final);
CREATE AGGREGATE set_into_intersect_final(anyelement) (
    SFUNC = count_distinct_append, STYPE = internal,
    FINALFUNC = distinct_set_intersect_final);
CREATE AGGREGATE set_into_intersect_count_final(anyelement) (
    SFUNC = count_distinct_append, STYPE = internal,
    FINALFUNC = distinct_set_intersect_count_final);
CREATE AGGREGATE set_into_moving_union_final(anyelement) (
    SFUNC = count_distinct_append, STYPE = internal,
    FINALFUNC = distinct_set_union_moving_final);
CREATE AGGREGATE moving_into_moving_union_count_final(anyelement) (
    SFUNC = count_distinct_moving_append, STYPE = internal,
    FINALFUNC = distinct_set_union_moving_count_final);
-- distinct_set_agg's two final functions given each other's state
CREATE AGGREGATE moving_into_dset_agg_final(anyelement) (
    SFUNC = count_distinct_moving_append, STYPE = internal,
    FINALFUNC = distinct_set_agg_final);
CREATE AGGREGATE set_into_dset_agg_moving_final(anyelement) (
    SFUNC = count_distinct_append, STYPE = internal,
    FINALFUNC = distinct_set_agg_moving_final);
-- the union's, the intersection's and the moving union's states given to
-- each other's final functions and to distinct_set_agg's
CREATE AGGREGATE moving_union_into_union_final(distinct_set) (
    SFUNC = distinct_set_union_moving_append, STYPE = internal,
    FINALFUNC = distinct_set_union_final);
CREATE AGGREGATE union_into_moving_union_final(distinct_set) (
    SFUNC = distinct_set_union_append, STYPE = internal,
    FINALFUNC = distinct_set_union_moving_final);
CREATE AGGREGATE union_into_moving_union_count_final(distinct_set) (
    SFUNC = distinct_set_union_append, STYPE = internal,
    FINALFUNC = distinct_set_union_moving_count_final);
CREATE AGGREGATE union_into_intersect_final(distinct_set) (
    SFUNC = distinct_set_union_append, STYPE = internal,
    FINALFUNC = distinct_set_intersect_final);
CREATE AGGREGATE union_into_intersect_count_final(distinct_set) (
    SFUNC = distinct_set_union_append, STYPE = internal,
    FINALFUNC = distinct_set_intersect_count_final);
CREATE AGGREGATE intersect_into_union_final(distinct_set) (
    SFUNC = distinct_set_intersect_append, STYPE = internal,
    FINALFUNC = distinct_set_union_final);
CREATE AGGREGATE intersect_into_union_count_final(distinct_set) (
    SFUNC = distinct_set_intersect_append, STYPE = internal,
    FINALFUNC = distinct_set_union_count_final);
CREATE AGGREGATE intersect_into_moving_union_final(distinct_set) (
    SFUNC = distinct_set_intersect_append, STYPE = internal,
    FINALFUNC = distinct_set_union_moving_final);
CREATE AGGREGATE union_into_dset_agg_final(distinct_set) (
    SFUNC = distinct_set_union_append, STYPE = internal,
    FINALFUNC = distinct_set_agg_final);
CREATE AGGREGATE moving_union_into_dset_agg_moving_final(distinct_set) (
    SFUNC = distinct_set_union_moving_append, STYPE = internal,
    FINALFUNC = distinct_set_agg_moving_final);
-- a transition function given, by an inverse transition function, the
-- state of another kind that it returned, and an inverse transition
-- function given the forward function's state of another kind
CREATE AGGREGATE union_forward_moving_inverse(distinct_set) (
    SFUNC = distinct_set_union_append, STYPE = internal,
    FINALFUNC = distinct_set_union_final,
    MSFUNC = distinct_set_union_append, MINVFUNC = distinct_set_union_moving_remove,
    MSTYPE = internal, MFINALFUNC = distinct_set_union_final);
CREATE AGGREGATE moving_forward_union_inverse(distinct_set) (
    SFUNC = distinct_set_union_append, STYPE = internal,
    FINALFUNC = distinct_set_union_final,
    MSFUNC = distinct_set_union_moving_append, MINVFUNC = distinct_set_union_append,
    MSTYPE = internal, MFINALFUNC = distinct_set_union_moving_final);
CREATE AGGREGATE moving_forward_intersect_inverse(distinct_set) (
    SFUNC = distinct_set_union_append, STYPE = internal,
    FINALFUNC = distinct_set_union_final,
    MSFUNC = distinct_set_union_moving_append, MINVFUNC = distinct_set_intersect_append,
    MSTYPE = internal, MFINALFUNC = distinct_set_union_moving_final);
CREATE AGGREGATE union_forward_moving_append_inverse(distinct_set) (
    SFUNC = distinct_set_union_append, STYPE = internal,
    FINALFUNC = distinct_set_union_final,
    MSFUNC = distinct_set_union_append, MINVFUNC = distinct_set_union_moving_append,
    MSTYPE = internal, MFINALFUNC = distinct_set_union_final);
CREATE AGGREGATE intersect_forward_union_inverse(distinct_set) (
    SFUNC = distinct_set_intersect_append, STYPE = internal,
    FINALFUNC = distinct_set_intersect_final,
    MSFUNC = distinct_set_intersect_append, MINVFUNC = distinct_set_union_append,
    MSTYPE = internal, MFINALFUNC = distinct_set_intersect_final);
-- in parallel plans: the serial function given a set and a moving union's
-- state, the combine functions given states of another deserial function
CREATE AGGREGATE set_into_dset_serial(anyelement) (
    SFUNC = count_distinct_append, STYPE = internal,
    FINALFUNC = count_distinct_final, COMBINEFUNC = count_distinct_combine,
    SERIALFUNC = distinct_set_agg_serial, DESERIALFUNC = count_distinct_deserial,
    PARALLEL = SAFE);
CREATE AGGREGATE moving_union_into_dset_serial(distinct_set) (
    SFUNC = distinct_set_union_moving_append, STYPE = internal,
    FINALFUNC = distinct_set_union_moving_final, COMBINEFUNC = distinct_set_union_combine,
    SERIALFUNC = distinct_set_agg_serial, DESERIALFUNC = distinct_set_union_deserial,
    PARALLEL = SAFE);
CREATE AGGREGATE set_into_union_combine(anyelement) (
    SFUNC = count_distinct_append, STYPE = internal,
    FINALFUNC = count_distinct_final, COMBINEFUNC = distinct_set_union_combine,
    SERIALFUNC = count_distinct_serial, DESERIALFUNC = count_distinct_deserial,
    PARALLEL = SAFE);
CREATE AGGREGATE set_into_intersect_combine(anyelement) (
    SFUNC = count_distinct_append, STYPE = internal,
    FINALFUNC = count_distinct_final, COMBINEFUNC = distinct_set_intersect_combine,
    SERIALFUNC = count_distinct_serial, DESERIALFUNC = count_distinct_deserial,
    PARALLEL = SAFE);
CREATE AGGREGATE intersect_bytes_into_union_combine(distinct_set) (
    SFUNC = distinct_set_union_append, STYPE = internal,
    FINALFUNC = distinct_set_union_final, COMBINEFUNC = distinct_set_union_combine,
    SERIALFUNC = distinct_set_agg_serial, DESERIALFUNC = distinct_set_intersect_deserial,
    PARALLEL = SAFE);
CREATE AGGREGATE union_bytes_into_intersect_combine(distinct_set) (
    SFUNC = distinct_set_intersect_append, STYPE = internal,
    FINALFUNC = distinct_set_intersect_final, COMBINEFUNC = distinct_set_intersect_combine,
    SERIALFUNC = distinct_set_agg_serial, DESERIALFUNC = distinct_set_union_deserial,
    PARALLEL = SAFE);

SET ROLE regress_cd_support_user;
SELECT set_into_union_final(v) FROM t;
SELECT set_into_union_count_final(v) FROM t;
SELECT set_into_intersect_final(v) FROM t;
SELECT set_into_intersect_count_final(v) FROM t;
SELECT set_into_moving_union_final(v) FROM t;
SELECT moving_into_moving_union_count_final(v) FROM t;
SELECT moving_into_dset_agg_final(v) FROM t;
SELECT set_into_dset_agg_moving_final(v) FROM t;
SELECT moving_union_into_union_final(distinct_set(a)) FROM t;
SELECT union_into_moving_union_final(distinct_set(a)) FROM t;
SELECT union_into_moving_union_count_final(distinct_set(a)) FROM t;
SELECT union_into_intersect_final(distinct_set(a)) FROM t;
SELECT union_into_intersect_count_final(distinct_set(a)) FROM t;
SELECT intersect_into_union_final(distinct_set(a)) FROM t;
SELECT intersect_into_union_count_final(distinct_set(a)) FROM t;
SELECT intersect_into_moving_union_final(distinct_set(a)) FROM t;
SELECT union_into_dset_agg_final(distinct_set(a)) FROM t;
SELECT moving_union_into_dset_agg_moving_final(distinct_set(a)) FROM t;
SELECT union_forward_moving_inverse(distinct_set(a)) OVER w
FROM t WINDOW w AS (ORDER BY i ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) ORDER BY i LIMIT 3;
SELECT moving_forward_union_inverse(distinct_set(a)) OVER w
FROM t WINDOW w AS (ORDER BY i ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) ORDER BY i LIMIT 3;
SELECT moving_forward_intersect_inverse(distinct_set(a)) OVER w
FROM t WINDOW w AS (ORDER BY i ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) ORDER BY i LIMIT 3;
SELECT union_forward_moving_append_inverse(distinct_set(a)) OVER w
FROM t WINDOW w AS (ORDER BY i ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) ORDER BY i LIMIT 3;
SELECT intersect_forward_union_inverse(distinct_set(a)) OVER w
FROM t WINDOW w AS (ORDER BY i ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) ORDER BY i LIMIT 3;
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET parallel_leader_participation = off;
EXPLAIN (COSTS OFF) SELECT union_bytes_into_intersect_combine(distinct_set(a)) FROM t;
SELECT set_into_dset_serial(v) FROM t;
SELECT moving_union_into_dset_serial(distinct_set(a)) FROM t;
SELECT set_into_union_combine(v) FROM t;
SELECT set_into_intersect_combine(v) FROM t;
SELECT intersect_bytes_into_union_combine(distinct_set(a)) FROM t;
SELECT union_bytes_into_intersect_combine(distinct_set(a)) FROM t;
-- the stored-set aggregates in the same plans still agree with SQL: the
-- union with the distinct elements, the intersection with the elements
-- of every row
SELECT distinct_set_to_array(distinct_set_union_agg(distinct_set(a)), NULL::int)
           = (SELECT array_agg(DISTINCT e ORDER BY e) FROM t, unnest(a) e) AS same_union,
       distinct_set_union_cardinality_agg(distinct_set(a))
           = (SELECT count(DISTINCT e) FROM t, unnest(a) e) AS same_union_count,
       distinct_set_to_array(distinct_set_intersect_agg(distinct_set(ARRAY[1, i % 5])), NULL::int)
           = (SELECT array_agg(e ORDER BY e) FROM
                (SELECT e FROM t, unnest(ARRAY[1, i % 5]) e GROUP BY e
                 HAVING count(DISTINCT i) = (SELECT count(*) FROM t)) x) AS same_intersection,
       distinct_set_intersect_cardinality_agg(distinct_set(ARRAY[1, i % 5])) = 1 AS same_intersection_count,
       distinct_set_to_array(distinct_set_agg(v), NULL::int)
           = array_agg(DISTINCT v ORDER BY v) AS same_agg
FROM t;
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET parallel_leader_participation;
-- and over sliding window frames
SELECT count(*) AS rows,
       count(*) FILTER (WHERE u IS DISTINCT FROM nu OR uc <> nuc OR d IS DISTINCT FROM nd) AS differ
FROM (SELECT distinct_set_to_array(distinct_set_union_agg(distinct_set(a)) OVER w, NULL::int) AS u,
             (SELECT array_agg(DISTINCT e ORDER BY e) FROM t t2, unnest(t2.a) e
              WHERE t2.i BETWEEN t.i - 20 AND t.i) AS nu,
             distinct_set_union_cardinality_agg(distinct_set(a)) OVER w AS uc,
             (SELECT count(DISTINCT e) FROM t t2, unnest(t2.a) e
              WHERE t2.i BETWEEN t.i - 20 AND t.i) AS nuc,
             distinct_set_to_array(distinct_set_agg(v) OVER w, NULL::int) AS d,
             (SELECT array_agg(DISTINCT t2.v ORDER BY t2.v) FROM t t2
              WHERE t2.i BETWEEN t.i - 20 AND t.i) AS nd
      FROM t WHERE i <= 400
      WINDOW w AS (ORDER BY i ROWS BETWEEN 20 PRECEDING AND CURRENT ROW)) s;
RESET ROLE;

-- bytes that a user controls, written by another serialization function
-- (string_agg's, PostgreSQL 16+: the state's first 4 bytes are the length
-- of the first delimiter, then come the delimiter and the value), read by a
-- stored-set deserialization function: a set's header and keys followed by
-- bytes of padding are refused, never copied into a result (earlier
-- versions have no such function to mix: the same line is printed)
CREATE TABLE crafted (b bytea, d bytea);
GRANT SELECT ON crafted TO regress_cd_support_user;
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET parallel_leader_participation = off;
DO $$
BEGIN
    IF current_setting('server_version_num')::int < 160000 THEN
        RAISE NOTICE 'bytes of another serialization function: refused';
        RETURN;
    END IF;
    -- a set of runs (kept as it is when read as a state): version 1, keys
    -- of 4 bytes, the runs layout, which make the delimiter's length
    INSERT INTO crafted
    SELECT '\x00', rest || decode(repeat('00', x'01030401'::int - length(rest)), 'hex')
    FROM (SELECT substr(s, 5) AS rest
          FROM (SELECT distinct_set_send(distinct_set(ARRAY(SELECT generate_series(1, 1000)))) AS s) x
          WHERE substr(s, 1, 4) = '\x01030401') y;
    EXECUTE 'CREATE AGGREGATE bytes_into_union(bytea, bytea) (
        SFUNC = bytea_string_agg_transfn, STYPE = internal,
        FINALFUNC = distinct_set_union_final, COMBINEFUNC = distinct_set_union_combine,
        SERIALFUNC = string_agg_serialize, DESERIALFUNC = distinct_set_union_deserial,
        PARALLEL = SAFE)';
    SET ROLE regress_cd_support_user;
    BEGIN
        EXECUTE 'SELECT bytes_into_union(b, d) FROM crafted';
        RAISE NOTICE 'bytes of another serialization function: ran';
    EXCEPTION WHEN invalid_binary_representation THEN
        RAISE NOTICE 'bytes of another serialization function: refused';
    END;
    RESET ROLE;
    EXECUTE 'DROP AGGREGATE bytes_into_union(bytea, bytea)';
END $$;
-- the same with float8 sets in the runs layout: first the key of -0
-- (non-canonical: encoding writes 0's), then the key of 0 (canonical), each
-- followed by runs of one key two apart (longer than the blocks layout of
-- the same keys): read in place, a state's keys are checked per run and
-- its layout against the shorter one, so both are refused, never copied
-- into a result whose "=" and contents would not be those of its values
DO $$
DECLARE
    -- the delimiter's length is the set's first 4 bytes: version 1, float
    -- keys (4), 8 bytes wide, the runs layout
    len int := x'01040801'::int;
    -- after the count (4 bytes), float8's reference (5), no collation (1),
    -- the number of runs (4 bytes as a varint), the first key (8) and its
    -- length (1): runs of 2 bytes each, and one more in the value
    pairs int := (len - 23) / 2;
    nruns int := pairs + 2;
    leb text := '';
    n int := nruns;
    first text;
    detail text;
BEGIN
    IF current_setting('server_version_num')::int < 160000 THEN
        RAISE NOTICE 'first key 7fffffffffffffff: refused: A key is not in canonical form.';
        RAISE NOTICE 'first key 8000000000000000: refused: The keys are not in their shorter layout.';
        RETURN;
    END IF;
    WHILE n >= 128 LOOP
        leb := leb || lpad(to_hex((n % 128) + 128), 2, '0');
        n := n / 128;
    END LOOP;
    leb := leb || lpad(to_hex(n), 2, '0');
    EXECUTE 'CREATE AGGREGATE bytes_into_union(bytea, bytea) (
        SFUNC = bytea_string_agg_transfn, STYPE = internal,
        FINALFUNC = distinct_set_union_final, COMBINEFUNC = distinct_set_union_combine,
        SERIALFUNC = string_agg_serialize, DESERIALFUNC = distinct_set_union_deserial,
        PARALLEL = SAFE)';
    FOREACH first IN ARRAY ARRAY['7fffffffffffffff', '8000000000000000'] LOOP
        TRUNCATE crafted;
        INSERT INTO crafted
        SELECT '\x0000', decode(lpad(to_hex(nruns), 8, '0') || '01000002bd' || '00' || leb
                                || first || '00', 'hex')
                         || decode(repeat('00', 2 * pairs), 'hex');
        SET ROLE regress_cd_support_user;
        BEGIN
            EXECUTE 'SELECT bytes_into_union(b, d) FROM crafted';
            RAISE NOTICE 'first key %: ran', first;
        EXCEPTION WHEN invalid_binary_representation THEN
            GET STACKED DIAGNOSTICS detail = PG_EXCEPTION_DETAIL;
            RAISE NOTICE 'first key %: refused: %', first, detail;
        END;
        RESET ROLE;
    END LOOP;
    EXECUTE 'DROP AGGREGATE bytes_into_union(bytea, bytea)';
END $$;
DROP TABLE crafted;
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET parallel_leader_participation;

DROP SCHEMA cd_support CASCADE;
DROP ROLE regress_cd_support_user;
RESET search_path;
