-- Text under a nondeterministic ICU collation: "=" ignores case here, so
-- the bytes are not the equality and the collation's comparator is used.
-- Skipped (collation_icu_1.out) where the server has no ICU collations (built
-- without ICU; 16+ lists "unicode" even then) or the encoding is not UTF8.
SELECT getdatabaseencoding() <> 'UTF8' OR
       NOT EXISTS (SELECT FROM pg_collation WHERE collprovider = 'i' AND collname <> 'unicode')
       AS skip_test \gset
\if :skip_test
\quit
\endif
CREATE COLLATION ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
SELECT count_distinct(v COLLATE ci), count(DISTINCT v COLLATE ci),
       count_distinct(v), count(DISTINCT v),
       array_length(array_agg_distinct(v COLLATE ci), 1) AS n
FROM (VALUES ('abc'), ('ABC'), ('Abc'), ('abd'), ('ABD'), ('x')) s(v);
SELECT count(*) FILTER (WHERE cd IS DISTINCT FROM nat) AS differ
FROM (SELECT i % 10 g, count_distinct((CASE WHEN i % 2 = 0 THEN upper(md5((i % 100)::text)) ELSE md5((i % 100)::text) END) COLLATE ci) cd
      FROM generate_series(1, 5000) i GROUP BY 1) a
JOIN (SELECT i % 10 g, count(DISTINCT (CASE WHEN i % 2 = 0 THEN upper(md5((i % 100)::text)) ELSE md5((i % 100)::text) END) COLLATE ci) nat
      FROM generate_series(1, 5000) i GROUP BY 1) b USING (g);

-- Records and arrays with a field or element under the nondeterministic
-- collation: such a field has no byte key, so the record (or array) takes
-- the comparator path (record_cmp / array_cmp with the field's collation),
-- and must count what native counts: 'abc' and 'ABC' are one field value.
CREATE TABLE ci_t AS
SELECT i, i % 3 AS k, i % 5 AS g,
       (CASE WHEN i % 4 = 0 THEN NULL WHEN i % 2 = 0 THEN upper(md5((i % 7)::text))
             ELSE md5((i % 7)::text) END) COLLATE ci AS v,
       ARRAY[CASE WHEN i % 3 = 0 THEN 'A' ELSE 'a' END, (i % 4)::text,
             CASE WHEN i % 11 = 0 THEN NULL ELSE 'x' END] COLLATE ci AS a
FROM generate_series(1, 3000) i;
ANALYZE ci_t;
CREATE TYPE ci_rec AS (k int4, v text COLLATE ci);
SELECT count_distinct((k, v)) AS anon, count(DISTINCT (k, v)) AS native_anon,
       count_distinct(k, v) AS two_args,
       count_distinct((k, v)::ci_rec) AS named, count(DISTINCT (k, v)::ci_rec) AS native_named,
       count_distinct(a) AS arrays, count(DISTINCT a) AS native_arrays,
       count_distinct((k, a)) AS with_array, count(DISTINCT (k, a)) AS native_with_array,
       count_distinct((k, v COLLATE "C")) AS bytes, count(DISTINCT (k, v COLLATE "C")) AS native_bytes
FROM ci_t;
-- per group, the distinct values themselves (array "=" compares the
-- records under the field's collation; which of the equal spellings is
-- returned may differ from native's)
SELECT bool_and(cd = nat) AS counts_equal,
       bool_and(ad = nad) AS records_equal,
       bool_and(ad2 = nad2) AS named_equal,
       bool_and(aa = naa) AS arrays_equal,
       bool_and(ad_len < ad_c_len) AS fewer_than_bytewise
FROM (SELECT g, count_distinct(k, v) AS cd, count(DISTINCT (k, v)) AS nat,
             array_agg_distinct((k, v)) AS ad,
             array_agg(DISTINCT (k, v) ORDER BY (k, v)) AS nad,
             array_agg_distinct((k, v)::ci_rec) AS ad2,
             array_agg(DISTINCT (k, v)::ci_rec ORDER BY (k, v)::ci_rec) AS nad2,
             array_agg_distinct(ROW(a)) AS aa,
             array_agg(DISTINCT ROW(a) ORDER BY ROW(a)) AS naa,
             cardinality(array_agg_distinct((k, v))) AS ad_len,
             cardinality(array_agg_distinct((k, v COLLATE "C"))) AS ad_c_len
      FROM ci_t GROUP BY g) s;

-- parallel plans: the states of the comparator path carry the field's
-- collation by name
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
CREATE FUNCTION pg_temp.plan_of(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  plan text := '';
  line text;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
    plan := plan || line || E'\n';
  END LOOP;
  RETURN plan;
END $$;
SELECT pg_temp.plan_of('SELECT g, count_distinct((k, v)), array_agg_distinct(ROW(a)) FROM ci_t GROUP BY g')
       ~ 'Partial' AS partial;
SELECT count(*) AS groups,
       count(*) FILTER (WHERE e.n IS DISTINCT FROM (SELECT count(DISTINCT (k, v)) FROM ci_t t2 WHERE t2.g = e.g)
                           OR e.ad IS DISTINCT FROM (SELECT array_agg(DISTINCT ROW(a) ORDER BY ROW(a)) FROM ci_t t2 WHERE t2.g = e.g))
         AS differ
FROM (SELECT g, count_distinct((k, v)) AS n, array_agg_distinct(ROW(a)) AS ad FROM ci_t GROUP BY g) e;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
RESET parallel_leader_participation;

-- window frames: a row leaving the frame cancels an equal record that
-- entered with other bytes; against native over the rows array_agg(i)
-- puts in the same frame
CREATE TABLE ci_w AS SELECT * FROM ci_t WHERE i <= 400;
SELECT count(*) AS nrows,
       count(*) FILTER (WHERE s.cd IS DISTINCT FROM l.n OR s.cd2 IS DISTINCT FROM l.n
                           OR s.ad IS DISTINCT FROM l.na OR s.ca IS DISTINCT FROM l.nca) AS ndiffer
FROM (SELECT count_distinct((k, v)) OVER w AS cd, count_distinct(k, v) OVER w AS cd2,
             array_agg_distinct((k, v)) OVER w AS ad, count_distinct(a) OVER w AS ca,
             array_agg(i) OVER w AS ids
      FROM ci_w WINDOW w AS (ORDER BY i ROWS BETWEEN 5 PRECEDING AND CURRENT ROW)) s,
     LATERAL (SELECT count(DISTINCT (t2.k, t2.v)) AS n,
                     coalesce(array_agg(DISTINCT (t2.k, t2.v) ORDER BY (t2.k, t2.v)), '{}') AS na,
                     count(DISTINCT t2.a) AS nca
              FROM ci_w t2 WHERE t2.i = ANY (s.ids)) l;
SELECT count(*) AS nrows,
       count(*) FILTER (WHERE s.cd IS DISTINCT FROM l.n OR s.ca IS DISTINCT FROM l.nca) AS ndiffer
FROM (SELECT count_distinct((k, v)::ci_rec) OVER w AS cd, count_distinct((k, a)) OVER w AS ca,
             array_agg(i) OVER w AS ids
      FROM ci_w WINDOW w AS (PARTITION BY k ORDER BY g RANGE BETWEEN 1 PRECEDING AND CURRENT ROW)) s,
     LATERAL (SELECT count(DISTINCT (t2.k, t2.v)::ci_rec) AS n, count(DISTINCT (t2.k, t2.a)) AS nca
              FROM ci_w t2 WHERE t2.i = ANY (s.ids)) l;

DROP TABLE ci_w;

-- transparent mode: count(DISTINCT) of text and arrays under the
-- nondeterministic collation stays native; the record is rewritten (its
-- comparator path compares with record_cmp and the field's collation, as
-- native does); every result equals native's
LOAD 'count_distinct';
CREATE FUNCTION pg_temp.rn_calls(q text) RETURNS bool LANGUAGE plpgsql AS $$
DECLARE
  plan text := '';
  line text;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (VERBOSE, COSTS OFF) ' || q LOOP
    plan := plan || line || E'\n';
  END LOOP;
  RETURN plan ~ 'count_distinct';
END $$;
CREATE TABLE ci_native AS
SELECT g, count(DISTINCT v) AS nv, count(DISTINCT a) AS na, count(DISTINCT (k, v)) AS nr
FROM ci_t GROUP BY g;
SET count_distinct.replace_native = on;
SELECT pg_temp.rn_calls('SELECT count(DISTINCT v) FROM ci_t') AS text_rewritten,
       pg_temp.rn_calls('SELECT count(DISTINCT a) FROM ci_t') AS array_rewritten,
       pg_temp.rn_calls('SELECT count(DISTINCT (k, v)) FROM ci_t') AS record_rewritten,
       pg_temp.rn_calls('SELECT count(DISTINCT v COLLATE "C") FROM ci_t') AS bytes_rewritten;
SELECT count(*) AS groups,
       count(*) FILTER (WHERE (s.nv, s.na, s.nr) IS DISTINCT FROM (n.nv, n.na, n.nr)) AS differ
FROM (SELECT g, count(DISTINCT v) AS nv, count(DISTINCT a) AS na, count(DISTINCT (k, v)) AS nr
      FROM ci_t GROUP BY g) s FULL JOIN ci_native n USING (g);
RESET count_distinct.replace_native;

DROP TABLE ci_native;
DROP TABLE ci_t;
DROP TYPE ci_rec;
DROP COLLATION ci;
