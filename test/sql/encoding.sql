-- Text inside partial states is written in the database encoding, whatever
-- the session's client encoding: states of enums, records and arrays of
-- text, jsonb, citext-like comparator keys travel between parallel workers
-- with a client encoding that cannot represent their characters.
-- (A database of its own: UTF8, whatever the cluster's default.)
CREATE DATABASE cd_encoding TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C';
\set orig_db :DBNAME
\c cd_encoding
SET client_min_messages = warning;
CREATE EXTENSION count_distinct;
RESET client_min_messages;
CREATE TYPE greek AS ENUM ('alpha', 'λάμδα', 'ωμέγα', 'plain');
CREATE TYPE pair AS (n int, s text);
CREATE TABLE enc_t AS
SELECT i % 5 AS g,
       (ARRAY['alpha', 'λάμδα', 'ωμέγα', 'plain']::greek[])[1 + i % 4] AS e,
       ROW(i % 3, 'λ' || (i % 11))::pair AS r,
       'σ' || (i % 7) AS s,
       ARRAY['ω' || (i % 13), 'x'] AS a,
       jsonb_build_object('κ', i % 17) AS j
FROM generate_series(1, 20000) i;
ANALYZE enc_t;
-- LATIN1 has no Greek letters: a send function would fail to convert them
SET client_encoding = 'LATIN1';
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET enable_sort = off;
EXPLAIN (COSTS OFF) SELECT g, count_distinct(e), count_distinct(r) FROM enc_t GROUP BY g;
SELECT count(*) AS groups,
       count(*) FILTER (WHERE (a.*) IS DISTINCT FROM (b.*)) AS differ
FROM (SELECT g, count_distinct(e) e, count_distinct(r) r, count_distinct(a) a,
             count_distinct(j) j, count_distinct(ROW(s, e)) x
      FROM enc_t GROUP BY g) a
FULL JOIN (SELECT g, count(DISTINCT e) e, count(DISTINCT r) r, count(DISTINCT a) a,
                  count(DISTINCT j) j, count(DISTINCT ROW(s, e)) x
           FROM enc_t GROUP BY g) b USING (g);
-- one group, combined from the workers, and the values themselves
SELECT array_agg_distinct(e) = (SELECT array_agg(DISTINCT e ORDER BY e) FROM enc_t) AS same_enums,
       array_agg_distinct(a) = (SELECT array_agg(DISTINCT a ORDER BY a) FROM enc_t) AS same_arrays,
       count_distinct(j) = (SELECT count(DISTINCT j) FROM enc_t) AS same_jsonb
FROM enc_t;
RESET ALL;
-- Front-coded text keys (a stored set's binary form, as a partial state's)
-- are checked for their encoding from the character where the prefix they
-- share with the key before ends: 'a' and the first byte of 'é' shared,
-- then 'é' whole, is not UTF-8, though the new bytes alone are.  The two
-- keys' bytes end the binary form: shared 0, 3 bytes 61 c3 a9; shared 2,
-- 1 byte aa ('aé', 'aê').
CREATE TABLE enc_keys AS
SELECT distinct_set_send(distinct_set_agg(v)) AS b, distinct_set_agg(v) AS s
FROM (VALUES ('aé'), ('aê')) t(v);
SELECT right(encode(b, 'hex'), 16) AS keys, distinct_set_from_bytes(b) = s AS same
FROM enc_keys;
-- shared 2 ('a', c3), then c3 a9: refused as not valid text
SELECT distinct_set_from_bytes(substring(b FROM 1 FOR length(b) - 3) || '\x0202c3a9'::bytea)
FROM enc_keys;
-- shared 2, then b0 (U+00F0): accepted
SELECT distinct_set_from_bytes(substring(b FROM 1 FOR length(b) - 3) || '\x0201b0'::bytea)
       = distinct_set(ARRAY['aé', 'að']) AS same
FROM enc_keys;
DROP TABLE enc_keys;
-- The bytes checked (from the character the shared prefix ends in) are
-- taken 8 at a time while they are ASCII other than NUL; anything else goes
-- to the encoding's check.  Keys 'a1', 'a2'; the second replaced by 'a1'
-- whole shared (01 01 32 -> 02 0a), then 10 bytes: a NUL or an 0xff in the
-- first 8 (refused), a NUL last (refused), 9 letters then a lone c3
-- (refused); ten digits, 8 letters then 'é' (accepted).
CREATE TABLE enc_keys AS
SELECT distinct_set_send(distinct_set_agg(v)) AS b, distinct_set_agg(v) AS s
FROM (VALUES ('a1'), ('a2')) t(v);
SELECT right(encode(b, 'hex'), 10) AS keys, distinct_set_from_bytes(b) = s AS same
FROM enc_keys;
SELECT distinct_set_from_bytes(substring(b FROM 1 FOR length(b) - 3) || '\x020a6162630065666768696a'::bytea)
FROM enc_keys;
SELECT distinct_set_from_bytes(substring(b FROM 1 FOR length(b) - 3) || '\x020a6162ff6465666768696a'::bytea)
FROM enc_keys;
SELECT distinct_set_from_bytes(substring(b FROM 1 FOR length(b) - 3) || '\x020a61626364656667686900'::bytea)
FROM enc_keys;
SELECT distinct_set_from_bytes(substring(b FROM 1 FOR length(b) - 3) || '\x020a616263646566676869c3'::bytea)
FROM enc_keys;
SELECT distinct_set_from_bytes(substring(b FROM 1 FOR length(b) - 3) || '\x020a30313233343536373839'::bytea)
       = distinct_set(ARRAY['a1', 'a10123456789']) AS digits,
       distinct_set_from_bytes(substring(b FROM 1 FOR length(b) - 3) || '\x020a6162636465666768c3a9'::bytea)
       = distinct_set(ARRAY['a1', 'a1abcdefghé']) AS letters_then_e
FROM enc_keys;
DROP TABLE enc_keys;
\c :orig_db
DROP DATABASE cd_encoding;
