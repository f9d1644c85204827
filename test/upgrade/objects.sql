-- Data, and objects that use the aggregates: views on each of them, a
-- materialized view, a rule, SQL functions.  The upgrade driver creates
-- them in a database still on an old catalog (or a fresh one) and checks
-- them with checks.sql before and after ALTER EXTENSION ... UPDATE and
-- pg_dump / pg_restore.  psql variables (true/false):
--   view_ae   create v_array_elements (array_agg_distinct_elements exists)
--   view_aa   create v_array_array (array_agg_distinct(anyarray) exists)
--   atomic    create a function with a SQL-standard body (PostgreSQL 14+),
--             which depends on the aggregate
\set ON_ERROR_STOP 1
CREATE TABLE t (g int, i int, f float8, s text, a int[]);
INSERT INTO t
SELECT n % 7,
       CASE WHEN n % 11 = 0 THEN NULL ELSE (n * 7919) % 501 - 250 END,
       CASE n % 13 WHEN 0 THEN NULL WHEN 1 THEN 0.0 WHEN 2 THEN '-0' WHEN 3 THEN 'NaN'
                   WHEN 4 THEN '-NaN' ELSE ((n * 31) % 97)::float8 / 4 - 10 END,
       md5((n % 300)::text),
       CASE WHEN n % 17 = 0 THEN NULL ELSE ARRAY[n % 23 - 11, (n * 3) % 41, NULLIF(n % 5, 0)] END
FROM generate_series(1, 20000) n;
-- a group with no value at all, and one whose arrays have no element
INSERT INTO t SELECT 100, NULL, NULL, NULL, NULL FROM generate_series(1, 10);
INSERT INTO t VALUES (101, NULL, NULL, NULL, '{}'), (101, NULL, NULL, NULL, '{NULL}');
ANALYZE t;

CREATE VIEW v_count AS
SELECT g, count_distinct(i) AS ci, count_distinct(f) AS cf, count_distinct(s) AS cs
FROM t GROUP BY g;
CREATE VIEW v_elements AS
SELECT g, count_distinct_elements(a) AS ca FROM t GROUP BY g;
CREATE VIEW v_array AS
SELECT g, array_agg_distinct(i) AS ai, array_agg_distinct(f) AS af, array_agg_distinct(s) AS ats
FROM t GROUP BY g;
\if :view_ae
CREATE VIEW v_array_elements AS
SELECT g, array_agg_distinct_elements(a) AS aa FROM t GROUP BY g;
\endif
\if :view_aa
CREATE VIEW v_array_array AS
SELECT g, array_agg_distinct(a) AS aa FROM t WHERE cardinality(a) = 3 GROUP BY g;
\endif
CREATE MATERIALIZED VIEW mv AS
SELECT g, count_distinct(i) AS ci, array_agg_distinct(i) AS ai FROM t GROUP BY g;

CREATE TABLE rule_src (x int);
CREATE TABLE rule_log (g int, ci bigint, ca bigint);
CREATE RULE rule_cd AS ON INSERT TO rule_src DO ALSO
    INSERT INTO rule_log
    SELECT t.g, count_distinct(t.i), count_distinct_elements(t.a) FROM t WHERE t.g = NEW.x GROUP BY t.g;

CREATE FUNCTION f_sql(int) RETURNS bigint LANGUAGE sql STABLE
    AS $$ SELECT count_distinct(i) FROM t WHERE g = $1 $$;
\if :atomic
CREATE FUNCTION f_atomic(int) RETURNS bigint LANGUAGE sql STABLE
BEGIN ATOMIC
    SELECT count_distinct(i) FROM t WHERE g = $1;
END;
\endif
