-- numeric, interval and bpchar as encoded byte keys: every trap compared to
-- native COUNT(DISTINCT) / array_agg(DISTINCT ... ORDER BY) under sorted,
-- hashed and parallel (serialized) aggregation.
SET extra_float_digits = 0;
CREATE TABLE bk_num (g int, v numeric);
INSERT INTO bk_num SELECT i % 7, x FROM (VALUES
  ('0'), ('-0'), ('0.000'), ('-0.000'), ('1'), ('1.0'), ('1.00'), ('-1'), ('-1.0'),
  ('NaN'), ('1e100'), ('-1e100'), ('1e-100'), ('-1e-100'), ('1e-16383'), ('-1e-16383'),
  ('10000'), ('10000.0000'), ('9999.9999'), ('-9999.9999'), ('0.0001'), ('-0.0001'),
  ('0.00010'), ('123.456'), ('-123.4560'), ('-123.45600001'), ('100000000'), ('99999999.99999999'),
  ('0.5'), ('0.50'), ('-0.5'), ('12345678901234567890.12345678901234567890'),
  ('-12345678901234567890.1234567890123456789')) v(lit), LATERAL (SELECT lit::numeric x) s,
  generate_series(1, 3) i;
INSERT INTO bk_num SELECT i % 7, (repeat('9', 1000) || '.5')::numeric FROM generate_series(1, 3) i;
INSERT INTO bk_num SELECT i % 7, -((repeat('9', 500) || '.' || repeat('0', 200) || '1')::numeric) FROM generate_series(1, 3) i;
INSERT INTO bk_num SELECT i % 7, round((i % 1000 - 500)::numeric / 7, i % 5) FROM generate_series(1, 5000) i;
INSERT INTO bk_num VALUES (3, NULL), (8, NULL);

CREATE TABLE bk_iv (g int, v interval);
INSERT INTO bk_iv SELECT i % 7, x FROM (VALUES
  ('0'), ('1 day'), ('24 hours'), ('1440 minutes'), ('1 mon'), ('30 days'), ('720 hours'),
  ('1 mon -1 day'), ('29 days'), ('-1 day'), ('-24 hours'), ('-1 mon 30 days'), ('1 year'), ('12 mons'), ('360 days'),
  ('-1 hour'), ('-36 hours'), ('-1 day -12 hours'), ('1 day -1 microsecond'), ('23:59:59.999999'),
  ('1 microsecond'), ('-1 microsecond'), ('178000000 years'), ('-178000000 years'),
  ('2147483647 days 2147483647 hours'), ('-2147483648 days -2147483648 hours'),
  ('1 mon 2147483647 days'), ('2 mons -2147483647 days'), ('-1 mon -2 days 3:00'), ('-1 mon -1 day 27:00')) v(lit),
  LATERAL (SELECT lit::interval x) s, generate_series(1, 3) i;
INSERT INTO bk_iv SELECT i % 7, make_interval(months => i % 13 - 6, days => i % 61 - 30, hours => i % 49 - 24)
  FROM generate_series(1, 5000) i;
INSERT INTO bk_iv VALUES (3, NULL), (8, NULL);

CREATE TABLE bk_bp (g int, v bpchar);
INSERT INTO bk_bp SELECT i % 7, x FROM (VALUES
  (''), (' '), ('   '), ('a'), ('a '), ('a   '), (' a'), ('a b'), ('a  b '), ('ab'), ('b'),
  ('A'), ('ä'), ('ä  '), ('😀'), (E'a\t'), ('a' || chr(1)), ('zz')) v(lit),
  LATERAL (SELECT lit::bpchar x) s, generate_series(1, 3) i;
INSERT INTO bk_bp SELECT i % 7, (md5((i % 300)::text) || repeat(' ', i % 4))::char(40) FROM generate_series(1, 5000) i;
INSERT INTO bk_bp VALUES (3, NULL), (8, NULL);
ANALYZE bk_num, bk_iv, bk_bp;

-- the array texts differ where native shows another member of an equality
-- class (1.0 vs 1, '24 hours' vs '1 day', 'a  ' vs 'a'): compare with "="
CREATE FUNCTION bk_check_eq(tab text) RETURNS TABLE (groups bigint, differ bigint)
LANGUAGE plpgsql AS $$
BEGIN
  RETURN QUERY EXECUTE format($q$
    SELECT count(*), count(*) FILTER (WHERE cd <> nat OR NOT (ad = na))
    FROM (SELECT g, count_distinct(v) cd, array_agg_distinct(v) ad FROM %1$I GROUP BY g) a
    JOIN (SELECT g, count(DISTINCT v) nat,
                 coalesce(array_agg(DISTINCT v ORDER BY v) FILTER (WHERE v IS NOT NULL), '{}') na
          FROM %1$I GROUP BY g) b USING (g)
  $q$, tab);
END $$;

-- sorted (GroupAggregate)
SET enable_hashagg = off;
SELECT t, c.* FROM unnest(ARRAY['bk_num', 'bk_iv', 'bk_bp']) t, bk_check_eq(t) c;
RESET enable_hashagg;
-- hashed
SET enable_sort = off;
SELECT t, c.* FROM unnest(ARRAY['bk_num', 'bk_iv', 'bk_bp']) t, bk_check_eq(t) c;
RESET enable_sort;
-- parallel: states serialized in workers, deserialized and combined
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
SET enable_sort = off;
EXPLAIN (COSTS OFF) SELECT g, count_distinct(v) FROM bk_num GROUP BY g;
SELECT t, c.* FROM unnest(ARRAY['bk_num', 'bk_iv', 'bk_bp']) t, bk_check_eq(t) c;
SELECT count_distinct(v) = (SELECT count(DISTINCT v) FILTER (WHERE v IS NOT NULL) FROM bk_num) AS same FROM bk_num;
SELECT count_distinct(v) = (SELECT count(DISTINCT v) FILTER (WHERE v IS NOT NULL) FROM bk_iv) AS same FROM bk_iv;
SELECT count_distinct(v) = (SELECT count(DISTINCT v) FILTER (WHERE v IS NOT NULL) FROM bk_bp) AS same FROM bk_bp;
SELECT array_agg_distinct(v) = (SELECT array_agg(DISTINCT v ORDER BY v) FILTER (WHERE v IS NOT NULL) FROM bk_num) AS same FROM bk_num;
SELECT array_agg_distinct(v) = (SELECT array_agg(DISTINCT v ORDER BY v) FILTER (WHERE v IS NOT NULL) FROM bk_iv) AS same FROM bk_iv;
SELECT array_agg_distinct(v) = (SELECT array_agg(DISTINCT v ORDER BY v) FILTER (WHERE v IS NOT NULL) FROM bk_bp) AS same FROM bk_bp;
RESET enable_sort;
RESET parallel_leader_participation;
RESET max_parallel_workers_per_gather;
RESET min_parallel_table_scan_size;
RESET parallel_tuple_cost;
RESET parallel_setup_cost;

-- the representative shown: the normalized value (native shows one of them)
SELECT array_agg_distinct(v) FROM (VALUES (1.0::numeric), (1.00), (2.50), (-0.0), (1e3), (1.5e-3), ('NaN')) s(v);
SELECT array_agg_distinct(v) FROM (VALUES ('24 hours'::interval), ('36 hours'), ('-36 hours'), ('30 days'), ('1 mon -1 day'), ('-1 hour')) s(v);
SELECT array_agg_distinct(v) FROM (VALUES ('ab  '::char(4)), ('ab'), ('    '), ('')) s(v);
-- bpchar under a deterministic collation other than C: distinct by bytes,
-- ordered by the collation (like text)
SELECT array_agg_distinct(v COLLATE "POSIX") = array_agg(DISTINCT v COLLATE "POSIX" ORDER BY v COLLATE "POSIX") FILTER (WHERE v IS NOT NULL) AS posix_order,
       count_distinct(v COLLATE "C") = count(DISTINCT v COLLATE "C") AS c_count
FROM bk_bp;
-- domains over the encoded types
CREATE DOMAIN bk_dnum AS numeric;
SELECT count_distinct(v::bk_dnum), count(DISTINCT v::bk_dnum),
       array_agg_distinct(v::bk_dnum) = array_agg(DISTINCT v::bk_dnum ORDER BY v::bk_dnum) FILTER (WHERE v IS NOT NULL) AS same
FROM bk_num;
-- elements
SELECT count_distinct_elements(a) = (SELECT count(DISTINCT v) FROM bk_iv),
       array_agg_distinct_elements(a) = (SELECT array_agg(DISTINCT v ORDER BY v) FILTER (WHERE v IS NOT NULL) FROM bk_iv)
FROM (SELECT g, array_agg(v) a FROM bk_iv GROUP BY g) s;

DROP DOMAIN bk_dnum;
DROP FUNCTION bk_check_eq(text);
DROP TABLE bk_num, bk_iv, bk_bp;

-- Sorted parts whose keys all have one length merge as records of one size
-- (varset.c: merge_uniform): one group large enough for many compactions,
-- with duplicates; keys of 0, 16 (uuid), 32 and 160 bytes (a 4-byte entry
-- header); and a set whose keys change length after its first compactions
-- (it merges the general way from then on).  Against native results.
CREATE TABLE bk_uni AS
  SELECT i,
         md5((i % 60000)::text) AS m,
         repeat(md5((i % 60000)::text), 5) AS m5,
         md5((i % 60000)::text)::uuid AS u,
         CASE WHEN i % 9 = 0 THEN '' ELSE 'x' END AS e,
         CASE WHEN i > 150000 AND i % 3 = 0 THEN md5(i::text) || 'z' ELSE md5((i % 60000)::text) END AS late
  FROM generate_series(1, 200000) i;
SET enable_sort = off;
SELECT count_distinct(m) = count(DISTINCT m) AS m,
       count_distinct(m5) = count(DISTINCT m5) AS m5,
       count_distinct(u) = count(DISTINCT u) AS u,
       count_distinct(e) = count(DISTINCT e) AS e,
       count_distinct(late) = count(DISTINCT late) AS late
FROM bk_uni;
SELECT array_agg_distinct(m) = array_agg(DISTINCT m ORDER BY m) AS m,
       array_agg_distinct(m5) = array_agg(DISTINCT m5 ORDER BY m5) AS m5,
       array_agg_distinct(u) = array_agg(DISTINCT u ORDER BY u) AS u,
       array_agg_distinct(late) = array_agg(DISTINCT late ORDER BY late) AS late
FROM bk_uni;
-- hashed, 7 groups, and ascending input (each tail lands after the sorted part)
SELECT count(*) AS groups, bool_and(cd = nat) AS all_equal FROM (
  SELECT i % 7 AS g, count_distinct(m) AS cd, count(DISTINCT m) AS nat
  FROM bk_uni GROUP BY 1) s;
SELECT count_distinct(lpad(i::text, 12, '0')) = count(DISTINCT lpad(i::text, 12, '0')) AS ascending
FROM generate_series(1, 150000) i;
RESET enable_sort;
DROP TABLE bk_uni;
