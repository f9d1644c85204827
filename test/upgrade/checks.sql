-- The objects of objects.sql against native results: one line per check,
-- "name|t" when it holds.  Same psql variables as objects.sql, and partial
-- (true: the aggregates have combine functions, so a parallel plan must
-- aggregate partially).
\pset format unaligned
\pset tuples_only on
CREATE TEMP TABLE nat AS
SELECT g, count(DISTINCT i) AS ci, count(DISTINCT f) AS cf, count(DISTINCT s) AS cs,
       coalesce(array_agg(DISTINCT i ORDER BY i) FILTER (WHERE i IS NOT NULL), '{}') AS ai,
       coalesce(array_agg(DISTINCT f ORDER BY f) FILTER (WHERE f IS NOT NULL), '{}') AS af,
       coalesce(array_agg(DISTINCT s ORDER BY s) FILTER (WHERE s IS NOT NULL), '{}') AS ats
FROM t GROUP BY g;
CREATE TEMP TABLE nat_e AS
SELECT g, count(DISTINCT e) AS ca,
       coalesce(array_agg(DISTINCT e ORDER BY e) FILTER (WHERE e IS NOT NULL), '{}') AS aa
FROM t LEFT JOIN LATERAL unnest(t.a) e ON true GROUP BY g;
CREATE TEMP TABLE nat_a AS
SELECT g, array_agg(DISTINCT a ORDER BY a) AS aa FROM t WHERE cardinality(a) = 3 GROUP BY g;

SELECT 'view on count_distinct', count(*) = 0
FROM v_count v FULL JOIN nat n USING (g) WHERE (v.ci, v.cf, v.cs) IS DISTINCT FROM (n.ci, n.cf, n.cs);
SELECT 'view on count_distinct_elements', count(*) = 0
FROM v_elements v FULL JOIN nat_e n USING (g) WHERE v.ca IS DISTINCT FROM n.ca;
SELECT 'view on array_agg_distinct', count(*) = 0
FROM v_array v FULL JOIN nat n USING (g) WHERE (v.ai, v.af, v.ats) IS DISTINCT FROM (n.ai, n.af, n.ats);
\if :view_ae
SELECT 'view on array_agg_distinct_elements', count(*) = 0
FROM v_array_elements v FULL JOIN nat_e n USING (g) WHERE v.aa IS DISTINCT FROM n.aa;
\endif
\if :view_aa
SELECT 'view on array_agg_distinct(anyarray)', count(*) = 0
FROM v_array_array v FULL JOIN nat_a n USING (g) WHERE v.aa IS DISTINCT FROM n.aa;
\endif
-- a group without values: 0 and '{}'
SELECT 'empty group', ci = 0 AND cf = 0 AND cs = 0 AND ai = '{}' AND af = '{}'
FROM v_count JOIN v_array USING (g) WHERE g = 100;
REFRESH MATERIALIZED VIEW mv;
SELECT 'materialized view', count(*) = 0
FROM mv FULL JOIN nat n USING (g) WHERE (mv.ci, mv.ai) IS DISTINCT FROM (n.ci, n.ai);
TRUNCATE rule_log;
INSERT INTO rule_src SELECT g FROM nat;
SELECT 'rule', count(*) = 0
FROM rule_log r FULL JOIN nat n USING (g) FULL JOIN nat_e e USING (g)
WHERE (r.ci, r.ca) IS DISTINCT FROM (n.ci, e.ca);
SELECT 'SQL function', count(*) = 0 FROM nat WHERE f_sql(g) IS DISTINCT FROM ci;
\if :atomic
SELECT 'SQL function with a SQL-standard body', count(*) = 0 FROM nat WHERE f_atomic(g) IS DISTINCT FROM ci;
\endif

-- parallel aggregation: the serialize, deserialize and combine functions
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET enable_sort = off;
CREATE FUNCTION pg_temp.plan(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    r text;
    res text := '';
BEGIN
    FOR r IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
        res := res || r || E'\n';
    END LOOP;
    RETURN res;
END
$$;
\if :partial
SELECT 'parallel plan', pg_temp.plan('SELECT * FROM v_count') LIKE '%Partial%Aggregate%';
\endif
SELECT 'view on count_distinct, parallel', count(*) = 0
FROM v_count v FULL JOIN nat n USING (g) WHERE (v.ci, v.cf, v.cs) IS DISTINCT FROM (n.ci, n.cf, n.cs);
SELECT 'view on array_agg_distinct, parallel', count(*) = 0
FROM v_array v FULL JOIN nat n USING (g) WHERE (v.ai, v.af, v.ats) IS DISTINCT FROM (n.ai, n.af, n.ats);
