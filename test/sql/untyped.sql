-- An untyped literal ('a', NULL) is counted as text, as count(DISTINCT 'a')
-- counts it: count_distinct(unknown).  Typed calls resolve as before, to
-- count_distinct(anyelement), with their own type's equality.
\set VERBOSITY terse
SELECT count_distinct('a') = count(DISTINCT 'a') AS literal,
       count_distinct(NULL) = count(DISTINCT NULL) AS null_literal,
       count_distinct('a') AS one, count_distinct(NULL) AS zero;
-- per row of a table, grouped, in a window frame
CREATE TABLE untyped_t AS SELECT i, i % 3 AS g FROM generate_series(1, 1000) i;
SELECT count(*) AS groups,
       count(*) FILTER (WHERE a = n AND z = nz) AS same
FROM (SELECT g, count_distinct('x') a, count(DISTINCT 'x') n,
             count_distinct(NULL) z, count(DISTINCT NULL) nz
      FROM untyped_t GROUP BY g) s;
SELECT count(*) FILTER (WHERE c <> 1) AS wrong
FROM (SELECT count_distinct('x') OVER (ORDER BY i ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) c
      FROM untyped_t) s;
-- in parallel: states of the literal's text travel between processes
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
ALTER TABLE untyped_t SET (parallel_workers = 2);
EXPLAIN (COSTS OFF)
SELECT e.c = x.c AS same, e.z = x.z AS same_null
FROM (SELECT count_distinct('é') c, count_distinct(NULL) z FROM untyped_t) e,
     (SELECT count(DISTINCT 'é') c, count(DISTINCT NULL) z FROM untyped_t) x;
SELECT e.c = x.c AS same, e.z = x.z AS same_null
FROM (SELECT count_distinct('é') c, count_distinct(NULL) z FROM untyped_t) e,
     (SELECT count(DISTINCT 'é') c, count(DISTINCT NULL) z FROM untyped_t) x;
RESET ALL;
-- typed calls keep the polymorphic aggregate: the aggregates a view calls
CREATE DOMAIN untyped_d AS text CHECK (VALUE <> '');
CREATE VIEW untyped_v AS
SELECT count_distinct(1) a, count_distinct('x'::untyped_d) b, count_distinct(ARRAY['q']) c,
       count_distinct('z'::varchar) d, count_distinct(ROW(1, 'r')) e,
       count_distinct('y'::name) f, count_distinct('w') g, count_distinct(NULL) h;
SELECT aggfnoid, count(*)
FROM (SELECT (regexp_matches(ev_action, ':aggfnoid (\d+)', 'g'))[1]::oid::regprocedure::text AS aggfnoid
      FROM pg_rewrite WHERE ev_class = 'untyped_v'::regclass) s
GROUP BY 1 ORDER BY 1;
-- a domain keeps its type (array_agg_distinct gives the base type's array,
-- as array_agg does)
SELECT pg_typeof(array_agg_distinct(x)) = pg_typeof(array_agg(x)) AS same_type
FROM (VALUES ('a'::untyped_d), ('b')) v(x);
-- (citext: citext.sql, which runs with this overload installed)
-- array_agg has no form for an untyped literal, nor has array_agg_distinct
SELECT array_agg('a');
SELECT array_agg_distinct('a');
DROP VIEW untyped_v;
DROP DOMAIN untyped_d;
DROP TABLE untyped_t;
