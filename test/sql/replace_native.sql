-- Transparent mode: count_distinct.replace_native plans count(DISTINCT x)
-- as count_distinct(x).  Every query runs twice through rn_check(): with
-- the setting off (native, the truth) and on; rn_check compares the two
-- results (all rows, sorted as text), or the two errors, and says whether
-- the plan with the setting on (EXPLAIN VERBOSE) calls count_distinct and
-- whether a native count(DISTINCT remains.
LOAD 'count_distinct';
SET extra_float_digits = 0;
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';
SET IntervalStyle = 'postgres';

CREATE FUNCTION rn_run(q text, setting text, OUT res text[], OUT err text)
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM set_config('count_distinct.replace_native', setting, true);
  BEGIN
    EXECUTE format('SELECT array_agg(r::text ORDER BY r::text) FROM (%s) r', q) INTO res;
  EXCEPTION WHEN others THEN
    err := SQLSTATE || ': ' || SQLERRM;
  END;
  PERFORM set_config('count_distinct.replace_native', 'off', true);
END $$;

CREATE FUNCTION rn_plan(q text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
  plan text := '';
  line text;
BEGIN
  PERFORM set_config('count_distinct.replace_native', 'on', true);
  BEGIN
    FOR line IN EXECUTE 'EXPLAIN (VERBOSE, COSTS OFF) ' || q LOOP
      plan := plan || line || E'\n';
    END LOOP;
  EXCEPTION WHEN others THEN
    plan := 'plan error ' || SQLSTATE;
  END;
  PERFORM set_config('count_distinct.replace_native', 'off', true);
  RETURN plan;
END $$;

CREATE FUNCTION rn_check(q text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
  n record;
  e record;
  plan text := rn_plan(q);
  how text;
BEGIN
  SELECT * INTO n FROM rn_run(q, 'off');
  SELECT * INTO e FROM rn_run(q, 'on');
  how := CASE WHEN plan LIKE 'plan error%' THEN plan
              WHEN plan LIKE '%count_distinct(%' AND plan LIKE '%count(DISTINCT%' THEN 'partly rewritten'
              WHEN plan LIKE '%count_distinct(%' THEN 'rewritten'
              ELSE 'native' END;
  IF n.err IS NOT NULL OR e.err IS NOT NULL THEN
    IF n.err IS NOT DISTINCT FROM e.err THEN
      RETURN 'same error (' || how || '): ' || n.err;
    END IF;
    RETURN 'DIFFERENT (' || how || '): off ' || coalesce(n.err, 'ok') || ', on ' || coalesce(e.err, 'ok');
  END IF;
  IF n.res IS DISTINCT FROM e.res THEN
    RETURN 'DIFFERENT (' || how || '): off ' || coalesce(n.res::text, 'no rows') || ', on ' || coalesce(e.res::text, 'no rows');
  END IF;
  RETURN 'same, ' || coalesce(array_length(n.res, 1), 0) || ' rows (' || how || ')';
END $$;

-- one column per type, with values equal under "=" but not byte-equal,
-- NULLs, NaNs, infinities, negative zeros
CREATE DOMAIN rn_posint AS int4 CHECK (VALUE > 0);
CREATE DOMAIN rn_ctext AS text COLLATE "C";
CREATE TYPE rn_mood AS ENUM ('sad', 'ok', 'happy');
CREATE TYPE rn_pair AS (a numeric, b text);
CREATE TABLE rn (id int, g int, i2 int2, i4 int4, i8 int8, f4 float4, f8 float8,
                 num numeric, b bool, c "char", o oid, d date, ts timestamp,
                 tstz timestamptz, tm time, iv interval, m money, t text,
                 tc text COLLATE "C", tp text COLLATE "POSIX", vc varchar(10),
                 bp char(4), by bytea, u uuid, ip inet, ci cidr, mac macaddr,
                 bt bit(3), vb varbit, js jsonb, j json, pt point, ia int4[],
                 ta text[], rg int4range, tv tsvector, dom rn_posint,
                 dc rn_ctext, en rn_mood, pr rn_pair);
INSERT INTO rn
SELECT i, i % 7, i % 5, i % 11, (i % 13) * 1000000000000, (ARRAY['0', '-0', 'NaN', 'Infinity', '1.5'])[i % 5 + 1]::float4,
       (ARRAY['0', '-0', 'NaN', '-Infinity', '2.5', '1e300'])[i % 6 + 1]::float8,
       (ARRAY['1.0', '1.00', '1', 'NaN', '-0', '0.000', '12345678901234567890.5'])[i % 7 + 1]::numeric,
       i % 3 = 0, chr(65 + i % 4)::"char", (i % 9)::oid, date '2000-01-01' + i % 17,
       timestamp '2000-01-01' + (i % 19) * interval '1 hour', timestamptz '2000-01-01 00:00+00' + (i % 23) * interval '1 minute',
       time '00:00' + (i % 29) * interval '1 second',
       (ARRAY['1 day', '24 hours', '1 mon', '30 days', '0'])[i % 5 + 1]::interval, (i % 4)::money,
       (ARRAY['a', 'A', 'b', 'a ', '', 'ä'])[i % 6 + 1], (ARRAY['a', 'A', 'b'])[i % 3 + 1],
       (ARRAY['x', 'X', 'y'])[i % 3 + 1], (ARRAY['p', 'q'])[i % 2 + 1],
       (ARRAY['a', 'a ', 'a  ', 'b'])[i % 4 + 1]::char(4), decode(lpad(to_hex(i % 6), 2, '0'), 'hex'),
       ('00000000-0000-0000-0000-00000000000' || (i % 8))::uuid,
       (ARRAY['10.0.0.1', '10.0.0.1/32', '10.0.0.1/8', '::1'])[i % 4 + 1]::inet,
       (ARRAY['10.0.0.0/8', '10.0.0.0/16', '::/0'])[i % 3 + 1]::cidr,
       ('08:00:2b:01:02:0' || (i % 5))::macaddr, (i % 8)::bit(3), (i % 8)::bit(3)::varbit,
       (ARRAY['{"a": 1}', '{"a": 1.0}', '[1, 2]', 'null', '{"b": [1]}'])[i % 5 + 1]::jsonb,
       '{"a": 1}'::json, point(i % 3, 0),
       ARRAY[i % 3, i % 2], ARRAY[(ARRAY['a', 'b', 'c'])[i % 3 + 1]], int4range(i % 4, i % 4 + (i % 3)),
       to_tsvector('simple', (ARRAY['a b', 'b a', 'c'])[i % 3 + 1]), i % 6 + 1,
       (ARRAY['k', 'K', 'l'])[i % 3 + 1], (ARRAY['sad', 'ok', 'happy'])[i % 3 + 1]::rn_mood,
       ROW((ARRAY['1.0', '1.00', '2'])[i % 3 + 1]::numeric, (ARRAY['a', 'b'])[i % 2 + 1])::rn_pair
FROM generate_series(1, 400) i;
-- NULLs in every column of some rows
INSERT INTO rn (id, g) SELECT i, i % 7 FROM generate_series(401, 420) i;
ANALYZE rn;
CREATE TABLE rn_empty (LIKE rn);
CREATE TABLE rn2 AS SELECT id, g, i4, t FROM rn;
ANALYZE rn2;

-- every type native accepts: the same counts, rewritten
SELECT col, rn_check(format('SELECT count(DISTINCT %I) FROM rn', col)) AS plain,
       rn_check(format('SELECT g, count(DISTINCT %I) FROM rn GROUP BY g', col)) AS grouped
FROM unnest(ARRAY['i2', 'i4', 'i8', 'f4', 'f8', 'num', 'b', 'c', 'o', 'd', 'ts', 'tstz', 'tm',
                  'iv', 'm', 't', 'tc', 'tp', 'vc', 'bp', 'by', 'u', 'ip', 'ci', 'mac', 'bt',
                  'vb', 'js', 'ia', 'ta', 'rg', 'dom', 'dc', 'en', 'pr']) AS col;
-- tsvector (whose order depends on its layout)
SELECT rn_check('SELECT count(DISTINCT tv) FROM rn') LIKE 'same, 1 rows (%' AS tsvector_same,
       rn_check('SELECT g, count(DISTINCT tv) FROM rn GROUP BY g') LIKE 'same, 7 rows (%' AS tsvector_grouped_same;
-- types without btree equality or ordering: native's error, not rewritten
SELECT col, rn_check(format('SELECT count(DISTINCT %I) FROM rn', col))
FROM unnest(ARRAY['j', 'pt']) AS col;
-- empty input and all-NULL input: 0
SELECT rn_check('SELECT count(DISTINCT i4), count(DISTINCT t), count(DISTINCT ROW(i4, t)) FROM rn_empty');
SELECT rn_check('SELECT g, count(DISTINCT i4) FROM rn_empty GROUP BY g');
SELECT rn_check('SELECT count(DISTINCT i4), count(DISTINCT t) FROM rn WHERE id > 400');
SELECT rn_check('SELECT count(DISTINCT i4) FROM rn GROUP BY GROUPING SETS ((), (g)) HAVING false');

-- expressions, records, arrays, literals
SELECT rn_check('SELECT count(DISTINCT ROW(i4, t)), count(DISTINCT ROW(num, ROW(bp))), count(DISTINCT ARRAY[ROW(i2), ROW(i4)]) FROM rn');
SELECT rn_check('SELECT count(DISTINCT i4 % 3), count(DISTINCT lower(t)), count(DISTINCT i4::text || t) FROM rn');
SELECT rn_check($q$SELECT count(DISTINCT 'a'), count(DISTINCT NULL), count(DISTINCT 1), count(DISTINCT 'a'::text) FROM rn$q$);
SELECT rn_check($q$SELECT count(DISTINCT v) FROM (VALUES ('a'), ('b'), ('a'), (NULL)) s(v)$q$);
SELECT rn_check('SELECT count(DISTINCT pr), count(DISTINCT (pr).a), count(DISTINCT dom), count(DISTINCT dom::int8) FROM rn');

-- collations: explicit, from the column, from a domain; a conflict of
-- implicit collations is native's error; ORDER BY inside the call
SELECT rn_check('SELECT count(DISTINCT t COLLATE "C"), count(DISTINCT tc), count(DISTINCT tc || tc), count(DISTINCT dc) FROM rn');
SELECT rn_check('SELECT count(DISTINCT tc || tp) FROM rn');
SELECT rn_check('SELECT count(DISTINCT x) FROM (SELECT tc || tp AS x FROM rn) s');
SELECT rn_check('SELECT count(DISTINCT (tc || tp) COLLATE "C") FROM rn');
SELECT rn_check('SELECT count(DISTINCT ta), count(DISTINCT ta COLLATE "C") FROM rn');
SELECT rn_check('SELECT count(DISTINCT t ORDER BY t), count(DISTINCT i4 ORDER BY i4 DESC) FROM rn');
-- DISTINCT by another operator family (record image equality: 1.0 and
-- 1.00 differ): native
SELECT rn_check('SELECT count(DISTINCT pr ORDER BY pr USING *<) FROM rn');
SELECT rn_check('SELECT count(DISTINCT t ORDER BY t USING ~<~) FROM rn');

-- other aggregates are untouched
SELECT rn_check('SELECT count(*), count(i4), sum(DISTINCT i4), array_agg(DISTINCT i4 ORDER BY i4) FROM rn');
SELECT rn_check('SELECT count(DISTINCT i4), sum(DISTINCT i4), count(i4), avg(i4) FROM rn');

-- every query level and clause
SELECT rn_check('SELECT g, count(DISTINCT i4) FILTER (WHERE id % 2 = 0), count(DISTINCT t) FILTER (WHERE t <> ''a'') FROM rn GROUP BY g');
SELECT rn_check('SELECT g FROM rn GROUP BY g HAVING count(DISTINCT i4) > 10 ORDER BY count(DISTINCT t)');
SELECT rn_check('SELECT g, i2, count(DISTINCT i4), count(DISTINCT t), GROUPING(g, i2) FROM rn GROUP BY ROLLUP (g, i2)');
SELECT rn_check('SELECT g, i2, count(DISTINCT num) FROM rn GROUP BY CUBE (g, i2)');
SELECT rn_check('SELECT g, b, count(DISTINCT f8) FROM rn GROUP BY GROUPING SETS ((g), (b), ())');
SELECT rn_check('SELECT * FROM (SELECT g, count(DISTINCT i4) AS n FROM rn GROUP BY g) s WHERE n > 3');
SELECT rn_check('WITH c AS (SELECT g, count(DISTINCT t) AS n FROM rn GROUP BY g) SELECT count(DISTINCT n) FROM c');
SELECT rn_check('WITH c AS MATERIALIZED (SELECT count(DISTINCT t) AS n FROM rn) SELECT * FROM c');
SELECT rn_check('SELECT id FROM rn WHERE i4 < (SELECT count(DISTINCT i2) FROM rn)');
SELECT rn_check('SELECT g, (SELECT count(DISTINCT r2.i4) FROM rn r2 WHERE r2.g = r.g) FROM rn r GROUP BY g');
SELECT rn_check('SELECT g, (SELECT count(DISTINCT r.i4) FROM (VALUES (1)) v) FROM rn r GROUP BY g');
SELECT rn_check('SELECT g FROM rn r WHERE EXISTS (SELECT 1 FROM rn r2 WHERE r2.g = r.g HAVING count(DISTINCT r2.t) > 2) GROUP BY g');
SELECT rn_check('SELECT count(DISTINCT i4) FROM rn UNION ALL SELECT count(DISTINCT t) FROM rn UNION SELECT count(DISTINCT u) FROM rn');
SELECT rn_check('SELECT g, count(DISTINCT i4) FROM rn GROUP BY g INTERSECT SELECT g, count(DISTINCT i4) FROM rn WHERE id > 0 GROUP BY g');
SELECT rn_check('SELECT g, n FROM (SELECT DISTINCT g FROM rn) a, LATERAL (SELECT count(DISTINCT t) AS n FROM rn WHERE rn.g = a.g) l');
SELECT rn_check('SELECT g, count(DISTINCT i4), sum(count(DISTINCT i4)) OVER (), rank() OVER (ORDER BY count(DISTINCT t)) FROM rn GROUP BY g');
SELECT rn_check('SELECT count(DISTINCT i4) FILTER (WHERE i4 IN (SELECT count(DISTINCT i2) FROM rn)) FROM rn');
SELECT rn_check('SELECT count(DISTINCT (SELECT count(DISTINCT i2) FROM rn r2 WHERE r2.g = r.g)) FROM rn r');
SELECT rn_check('SELECT * FROM (SELECT count(DISTINCT i4) FROM rn) a CROSS JOIN (SELECT count(DISTINCT t) FROM rn) b');

-- a query level grouping by a column without a sort operator (xid hashes
-- but does not sort): native cannot plan a count(DISTINCT) there ("could
-- not implement GROUP BY") and count_distinct, hashed, could: the level
-- stays native, with native's error; other levels are rewritten
SELECT rn_check('SELECT abs(id)::text::xid AS x, count(DISTINCT i4) FROM rn GROUP BY 1');
SELECT rn_check('SELECT abs(id)::text::xid AS x, g, count(DISTINCT i4) FROM rn GROUP BY GROUPING SETS ((1), (g))');
SELECT rn_check('SELECT abs(id)::text::xid, (SELECT count(DISTINCT r.i4) FROM (VALUES (1)) v) FROM rn r GROUP BY 1');
SELECT rn_check('SELECT count(DISTINCT n) FROM (SELECT abs(id)::text::xid AS x, count(*) AS n FROM rn GROUP BY 1) s');
SELECT rn_check('SELECT x, (SELECT count(DISTINCT i4) FROM rn WHERE g = s.n) FROM (SELECT abs(id)::text::xid AS x, count(*) AS n FROM rn GROUP BY 1) s');

-- the planner's choices with count_distinct: hash aggregation (spilling),
-- parallel aggregation, sorted
SET work_mem = '64kB';
SET enable_sort = off;
SET hash_mem_multiplier = 1;
SELECT rn_check('SELECT id % 97, count(DISTINCT t), count(DISTINCT i4) FROM rn GROUP BY 1');
RESET work_mem;
RESET enable_sort;
RESET hash_mem_multiplier;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SELECT rn_check('SELECT g, count(DISTINCT i4), count(DISTINCT t), count(DISTINCT num) FROM rn GROUP BY g');
SELECT rn_check('SELECT count(DISTINCT ROW(i4, t)), count(DISTINCT ia) FROM rn');
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
SET enable_hashagg = off;
SELECT rn_check('SELECT g, count(DISTINCT i4), count(DISTINCT t) FROM rn GROUP BY g');
RESET enable_hashagg;

-- many small groups: a plan that would hash-aggregate 10000 or more groups
-- of fewer than 100 rows each with count_distinct is planned again, native;
-- sorted, count_distinct stays
CREATE TABLE rn_small_groups AS SELECT i / 2 AS g, i % 3 AS v FROM generate_series(1, 40000) i;
ANALYZE rn_small_groups;
SELECT rn_check('SELECT g, count(DISTINCT v) FROM rn_small_groups GROUP BY g');
SET enable_hashagg = off;
SELECT rn_check('SELECT g, count(DISTINCT v) FROM rn_small_groups GROUP BY g');
RESET enable_hashagg;
-- (by the planner's estimates: it takes g % 100 to have as many groups as g)
SELECT rn_check('SELECT g % 100, count(DISTINCT v) FROM rn_small_groups GROUP BY g % 100');

-- what EXPLAIN VERBOSE shows
SET count_distinct.replace_native = on;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT g, count(DISTINCT i4), count(DISTINCT t) FILTER (WHERE id > 3) FROM rn2 GROUP BY g;
SET count_distinct.replace_native = off;

-- only the planned copy changes: views, rules, SQL function bodies
CREATE VIEW rn_view AS SELECT g, count(DISTINCT i4) AS n FROM rn GROUP BY g;
CREATE TABLE rn_log (n bigint);
CREATE TABLE rn_trigger (x int);
CREATE RULE rn_rule AS ON INSERT TO rn_trigger DO ALSO
  INSERT INTO rn_log SELECT count(DISTINCT i4) FROM rn;
CREATE FUNCTION rn_sqlfunc() RETURNS bigint LANGUAGE sql STABLE
  AS 'SELECT count(DISTINCT t) FROM rn';
SET count_distinct.replace_native = on;
SELECT rn_check('SELECT * FROM rn_view');
SELECT rn_check('SELECT rn_sqlfunc()');
SELECT rn_sqlfunc() = (SELECT count(*) FROM (SELECT DISTINCT t FROM rn WHERE t IS NOT NULL) s) AS sqlfunc_ok;
INSERT INTO rn_trigger VALUES (1);
SELECT n = (SELECT count(*) FROM (SELECT DISTINCT i4 FROM rn WHERE i4 IS NOT NULL) s) AS rule_ok FROM rn_log;
SELECT pg_get_viewdef('rn_view'::regclass) LIKE '%count(DISTINCT%' AS view_native;
SELECT pg_get_ruledef(oid) LIKE '%count(DISTINCT%' AS rule_native FROM pg_rewrite WHERE rulename = 'rn_rule';
SELECT prosrc LIKE '%count(DISTINCT%' AS function_native FROM pg_proc WHERE proname = 'rn_sqlfunc';
-- a prepared statement planned with the setting on
PREPARE rn_prep AS SELECT g, count(DISTINCT i4) FROM rn2 GROUP BY g ORDER BY g;
EXPLAIN (VERBOSE, COSTS OFF) EXECUTE rn_prep;
DEALLOCATE rn_prep;
SET count_distinct.replace_native = off;

-- an aggregate named count_distinct elsewhere, first in search_path, is
-- never used; nor one of another signature in the extension's schema
CREATE SCHEMA rn_planted;
CREATE FUNCTION rn_planted.sfunc(bigint, anyelement) RETURNS bigint
  LANGUAGE sql IMMUTABLE AS 'SELECT 42::bigint';
CREATE AGGREGATE rn_planted.count_distinct(anyelement) (
  SFUNC = rn_planted.sfunc, STYPE = bigint, INITCOND = '42');
CREATE FUNCTION public.rn_sfunc_int(bigint, int4) RETURNS bigint
  LANGUAGE sql IMMUTABLE AS 'SELECT 43::bigint';
CREATE AGGREGATE public.count_distinct(int4) (
  SFUNC = public.rn_sfunc_int, STYPE = bigint, INITCOND = '43');
SET search_path = rn_planted, public;
SELECT rn_check('SELECT g, count(DISTINCT i4), count(DISTINCT t) FROM rn GROUP BY g');
SET count_distinct.replace_native = on;
EXPLAIN (VERBOSE, COSTS OFF) SELECT count(DISTINCT i4) FROM rn2;
SET count_distinct.replace_native = off;
RESET search_path;
DROP AGGREGATE public.count_distinct(int4);
DROP FUNCTION public.rn_sfunc_int(bigint, int4);
DROP SCHEMA rn_planted CASCADE;

-- a typed overload (count_distinct_declare_type) for the argument's type
SELECT count_distinct_declare_type('rn_mood');
SELECT count_distinct_declare_type('rn_posint');
SELECT rn_check('SELECT g, count(DISTINCT en), count(DISTINCT dom), count(DISTINCT i4) FROM rn GROUP BY g');

-- EXECUTE revoked from PUBLIC: native (a plan may run as another user)
SET count_distinct.replace_native = on;
REVOKE EXECUTE ON FUNCTION count_distinct(anyelement) FROM PUBLIC;
SELECT rn_check('SELECT count(DISTINCT i4) FROM rn');
GRANT EXECUTE ON FUNCTION count_distinct(anyelement) TO PUBLIC;
SELECT rn_check('SELECT count(DISTINCT i4) FROM rn');
SET count_distinct.replace_native = off;

-- without the extension nothing is rewritten; the cached answer follows
-- DROP and CREATE EXTENSION, and a rolled back DROP
SET count_distinct.replace_native = on;
BEGIN;
SET LOCAL client_min_messages = warning;
DROP EXTENSION count_distinct CASCADE;
SELECT rn_plan('SELECT count(DISTINCT i4) FROM rn') LIKE '%count(DISTINCT i4)%' AS native_without_extension;
ROLLBACK;
SELECT rn_plan('SELECT count(DISTINCT i4) FROM rn') LIKE '%count_distinct(i4)%' AS rewritten_again;
SET count_distinct.replace_native = off;
SET client_min_messages = warning;
DROP EXTENSION count_distinct CASCADE;
RESET client_min_messages;
SET count_distinct.replace_native = on;
SELECT rn_check('SELECT g, count(DISTINCT i4), count(DISTINCT t) FROM rn GROUP BY g');
CREATE EXTENSION count_distinct;
SELECT rn_check('SELECT g, count(DISTINCT i4), count(DISTINCT t) FROM rn GROUP BY g');

-- the typed overloads declared above are not members of the extension (they
-- outlive DROP EXTENSION): drop them with their types, so that later tests
-- resolve the support functions' names as on a fresh install
SET client_min_messages = warning;
DROP DOMAIN rn_posint CASCADE;
DROP TYPE rn_mood CASCADE;
RESET client_min_messages;
