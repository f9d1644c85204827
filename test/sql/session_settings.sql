-- Partial states carry their values exactly whatever the session's
-- settings: a range over text under a client encoding that cannot hold its
-- characters (LATIN1) or any of them (SJIS), distinct_set values under
-- extra_float_digits = 0 (0.1 + 0.2 is not 0.3), int2vector and oidvector
-- with empty vectors beside others, floats and intervals in records and
-- arrays under other output settings.  Each is compared with native
-- COUNT(DISTINCT) / array_agg(DISTINCT) in one statement, the extension's
-- aggregates in a parallel plan whose states all come from workers (the
-- leader does not take part: its client encoding is the session's, theirs
-- the database's).  (A database of its own: UTF8, whatever the cluster's.)
CREATE DATABASE cd_session_settings TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C';
\set orig_db :DBNAME
\c cd_session_settings
SET client_min_messages = warning;
CREATE EXTENSION count_distinct;
RESET client_min_messages;
CREATE TYPE textrange AS RANGE (subtype = text, collation = "C");
CREATE TYPE fpair AS (f float8, i interval);
CREATE TABLE st AS
SELECT i % 5 AS g,
       textrange((ARRAY['é', 'ü', 'a', '日'])[1 + i % 4] || (i % 3),
                 (ARRAY['é', 'ü', 'a', '日'])[1 + i % 4] || (i % 3) || 'z') AS r,
       (ARRAY['', '23', '23 25', '1 2 3'])[1 + i % 4]::oidvector AS ov,
       (ARRAY['', '1', '1 -2'])[1 + i % 3]::int2vector AS iv,
       ROW((i % 10) * 0.1::float8 + 0.2::float8,
           (ARRAY[interval '1 day', interval '24 hours', interval '1 mon 2.5 sec'])[1 + i % 3])::fpair AS fp,
       ARRAY[(i % 10) * 0.1::float8 + 0.2::float8] AS fa
FROM generate_series(1, 20000) i;
CREATE TABLE sets AS
SELECT s FROM (SELECT distinct_set_agg(0.1::float8 + 0.2::float8) UNION ALL
               SELECT distinct_set_agg(0.3::float8)) v(s),
     generate_series(1, 5000);
ALTER TABLE st SET (parallel_workers = 2);
ALTER TABLE sets SET (parallel_workers = 2);
ANALYZE st;
ANALYZE sets;
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET parallel_leader_participation = off;
-- the extension's side of the statements below: partial aggregates
EXPLAIN (COSTS OFF) SELECT count_distinct(r) n, array_agg_distinct(r) a FROM st;
SET client_encoding = 'LATIN1';
SELECT e.n = x.n AS counts, e.a = x.a AS arrays
FROM (SELECT count_distinct(r) n, array_agg_distinct(r) a FROM st) e,
     (SELECT count(DISTINCT r) n, array_agg(DISTINCT r ORDER BY r) a FROM st) x;
SELECT count(*) AS groups, count(*) FILTER (WHERE e.n = x.n AND e.a = x.a) AS same
FROM (SELECT g, count_distinct(r) n, array_agg_distinct(r) a FROM st GROUP BY g) e
JOIN (SELECT g, count(DISTINCT r) n, array_agg(DISTINCT r ORDER BY r) a FROM st GROUP BY g) x USING (g);
SET client_encoding = 'SJIS';
SELECT e.n = x.n AS counts, e.a = x.a AS arrays
FROM (SELECT count_distinct(r) n, array_agg_distinct(r) a FROM st) e,
     (SELECT count(DISTINCT r) n, array_agg(DISTINCT r ORDER BY r) a FROM st) x;
RESET client_encoding;
SET extra_float_digits = 0;
SET IntervalStyle = 'sql_standard';
EXPLAIN (COSTS OFF) SELECT count_distinct(s) n, array_agg_distinct(s) a FROM sets;
SELECT e.n = x.n AS counts, e.a = x.a AS arrays, e.n AS n
FROM (SELECT count_distinct(s) n, array_agg_distinct(s) a FROM sets) e,
     (SELECT count(DISTINCT s) n, array_agg(DISTINCT s ORDER BY s) a FROM sets) x;
SELECT e.n = x.n AS counts, e.a = x.a AS arrays, e.fn = x.fn AS array_counts, e.fa = x.fa AS float_arrays
FROM (SELECT count_distinct(fp) n, array_agg_distinct(fp) a, count_distinct(fa) fn, array_agg_distinct(fa) fa FROM st) e,
     (SELECT count(DISTINCT fp) n, array_agg(DISTINCT fp ORDER BY fp) a,
             count(DISTINCT fa) fn, array_agg(DISTINCT fa ORDER BY fa) fa FROM st) x;
RESET extra_float_digits;
RESET IntervalStyle;
-- vectors: array_agg concatenates them (and fails on vectors of different
-- lengths), so counts only
SELECT e.o = x.o AS oidvectors, e.i = x.i AS int2vectors
FROM (SELECT count_distinct(ov) o, count_distinct(iv) i FROM st) e,
     (SELECT count(DISTINCT ov) o, count(DISTINCT iv) i FROM st) x;
SELECT count_distinct(proargtypes) = (SELECT count(DISTINCT proargtypes) FROM pg_proc) AS proargtypes
FROM pg_proc;
RESET ALL;
\c :orig_db
DROP DATABASE cd_session_settings;
