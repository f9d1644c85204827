--
-- distinct_set at its limits: sets of runs (a few bytes each) holding up to
-- 134217727 int8 values (1 GB of keys, the most a stored set holds), on
-- every operator and aggregate.  Truths are arithmetic: the runs' starts
-- and lengths are known.  A stored result over the limits (4294967295
-- values, 1 GB of keys) fails with 54000; counting forms are exact past
-- 2^32.  No query here decodes such a set: each runs in a few MB.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS count_distinct;
RESET client_min_messages;
CREATE SCHEMA dset_limits;

-- LEB128 varint of v, as hex
CREATE FUNCTION dset_limits.varint(v numeric) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    r text := '';
    b int;
BEGIN
    LOOP
        b := (v % 128)::int;
        v := floor(v / 128);
        IF v > 0 THEN
            r := r || lpad(to_hex(b + 128), 2, '0');
        ELSE
            RETURN r || lpad(to_hex(b), 2, '0');
        END IF;
    END LOOP;
END $$;

-- a stored set of int8 (w = 8) or int4 (w = 4) in the runs layout (format
-- version 1, dset.h): runs starts[i] .. starts[i] + lens[i] - 1, ascending,
-- not adjacent
CREATE FUNCTION dset_limits.int8_runs(starts int8[], lens int8[], w int DEFAULT 8)
RETURNS distinct_set
LANGUAGE plpgsql AS $$
DECLARE
    total numeric := 0;
    body text;
    prevend numeric;
BEGIN
    FOR i IN 1 .. array_length(starts, 1) LOOP
        total := total + lens[i];
    END LOOP;
    body := dset_limits.varint(array_length(starts, 1));
    FOR i IN 1 .. array_length(starts, 1) LOOP
        IF i = 1 THEN
            body := body || CASE w WHEN 8
                THEN lpad(to_hex(starts[1] # (-9223372036854775808)::int8), 16, '0')
                ELSE lpad(to_hex(starts[1] + 2147483648), 8, '0') END;
        ELSE
            body := body || dset_limits.varint(starts[i]::numeric - prevend - 2);
        END IF;
        body := body || dset_limits.varint(lens[i] - 1);
        prevend := starts[i]::numeric + lens[i] - 1;
    END LOOP;
    RETURN distinct_set_from_bytes(decode('0103' || lpad(to_hex(w), 2, '0') || '01'
                                          || lpad(to_hex(total::int8), 8, '0')
                                          || CASE w WHEN 8 THEN '0100000014' ELSE '0100000017' END
                                          || '00' || body, 'hex'));
END $$;

-- the helper against the type's own encoder
SELECT dset_limits.int8_runs('{1,100}', '{50,50}')
       = distinct_set(array(SELECT g::int8 FROM generate_series(1, 50) g
                            UNION ALL SELECT g FROM generate_series(100, 149) g)) AS helper_ok,
       dset_limits.int8_runs('{-5,100}', '{50,50}', 4)
       = distinct_set(array(SELECT g FROM generate_series(-5, 44) g
                            UNION ALL SELECT g FROM generate_series(100, 149) g)) AS helper4_ok;

-- M: the most int8 values a stored set holds (1 GB of keys)
CREATE TEMP TABLE big (i int, s distinct_set);
INSERT INTO big
SELECT i, dset_limits.int8_runs(ARRAY[i * 134217727::int8], '{134217727}')
FROM generate_series(0, 32) i;
SELECT count(*), sum(cardinality(s)) = 33 * 134217727::numeric AS total,
       max(octet_length(distinct_set_send(s))) < 40 AS small
FROM big;

-- what 4.2.0 stored for the union of big (its count cut to 32 bits): a
-- header saying 134217695 values over one run of 4429184991 is refused
SELECT distinct_set_from_bytes(decode('0103080107ffffdf010000001400' || '01'
       || '8000000000000000' || dset_limits.varint(4429184990), 'hex'));

-- one more value is refused
SELECT dset_limits.int8_runs('{0}', '{134217728}');

-- 33 adjacent runs: their union is 4429185 ... values, past 2^32
SELECT cardinality(distinct_set_union_agg(s)) = 33 * 134217727::numeric AS union_count_exact FROM big;
SELECT distinct_set_union_cardinality_agg(s) = 33 * 134217727::numeric AS union_count_exact FROM big;
SELECT cardinality(distinct_set_union_agg(s)) = 32 * 134217727::numeric AS below_2_32 FROM big WHERE i < 32;
-- stored: over 4294967295 values, and over 1 GB of keys
SELECT distinct_set_union_agg(s) IS NULL FROM big;
SELECT distinct_set_union_agg(s) IS NULL FROM big WHERE i < 2;
-- the union over the union's own result, in a subquery: still refused
SELECT cardinality(u) FROM (SELECT distinct_set_union_agg(s) AS u FROM big) x;
-- grouped: two groups, each exact
SELECT i % 2 AS g, cardinality(distinct_set_union_agg(s)) = count(*) * 134217727::numeric AS exact
FROM big GROUP BY 1 ORDER BY 1;

-- window frames: running and sliding, counted exactly; stored, refused
SELECT bool_and(c = (i + 1) * 134217727::numeric) AS running_exact
FROM (SELECT i, cardinality(distinct_set_union_agg(s) OVER (ORDER BY i)) AS c FROM big) x;
SELECT bool_and(c = least(i + 1, 3) * 134217727::numeric) AS sliding_exact
FROM (SELECT i, cardinality(distinct_set_union_agg(s) OVER (ORDER BY i ROWS 2 PRECEDING)) AS c
      FROM big) x;
SELECT count(u) FROM (SELECT distinct_set_union_agg(s) OVER (ORDER BY i ROWS 1 PRECEDING) AS u
                      FROM big) x;
SELECT bool_and(u = s) AS one_row_frames
FROM (SELECT s, distinct_set_union_agg(s) OVER (ORDER BY i ROWS CURRENT ROW) AS u FROM big) x;

-- the intersection aggregate: sets sharing one run
CREATE TEMP TABLE shared AS
SELECT i, dset_limits.int8_runs(ARRAY[-1000000 * i::int8, 1000000000], ARRAY[1000, 134217727 - 1000])
       AS s
FROM generate_series(1, 20) i;
SELECT distinct_set_intersect_agg(s) = dset_limits.int8_runs('{1000000000}', '{134216727}') AS intersect_exact,
       cardinality(distinct_set_intersect_agg(s)) = 134216727 AS count_exact,
       distinct_set_intersect_cardinality_agg(s) = 134216727 AS count_agg_exact
FROM shared;
SELECT bool_and(c = CASE WHEN i = 1 THEN 134217727 ELSE 134216727 END) AS intersect_frames
FROM (SELECT i, cardinality(distinct_set_intersect_agg(s) OVER (ORDER BY i ROWS 1 PRECEDING)) AS c
      FROM shared) x;
SELECT bool_and(c = 134217727 + 1000 * (i > 1)::int) AS union_frames
FROM (SELECT i, s, cardinality(distinct_set_union_agg(s) OVER (ORDER BY i ROWS 1 PRECEDING)) AS c
      FROM shared) x;

-- operators on two sets of 1 GB of keys each, overlapping by half
CREATE TEMP TABLE two AS
SELECT dset_limits.int8_runs('{0}', '{134217727}') AS a,
       dset_limits.int8_runs('{67108864}', '{134217727}') AS b;
SELECT a | b FROM two;
SELECT cardinality(a | b) = 2 * 134217727 - (134217727 - 67108864) AS union_count,
       distinct_set_union_cardinality(a, b) = 2 * 134217727 - (134217727 - 67108864) AS union_count_fn,
       cardinality(a & b) = 134217727 - 67108864 AS intersect_count,
       cardinality(a - b) = 67108864 AS except_count,
       cardinality(b - a) = 134217727 - (134217727 - 67108864) AS except_count2
FROM two;
SELECT (a & b) = dset_limits.int8_runs('{67108864}', '{67108863}') AS intersect_exact,
       (a - b) = dset_limits.int8_runs('{0}', '{67108864}') AS except_exact,
       (b - a) = dset_limits.int8_runs('{134217727}', '{67108864}') AS except_exact2,
       (a | a) = a AS union_self,
       (a & a) = a AS intersect_self,
       cardinality(a - a) = 0 AS except_self
FROM two;
SELECT a @> (a & b) AS contains, (a & b) <@ b AS contained, NOT a @> b AS not_contains,
       NOT b <@ a AS not_contained, a && b AS overlaps,
       NOT a && dset_limits.int8_runs('{500000000}', '{1000}') AS not_overlaps,
       a @> a AS contains_self
FROM two;
SELECT a = a AS eq, a <> b AS ne, (a < b) = (distinct_set_send(a) < distinct_set_send(b)) AS lt_is_bytes,
       cardinality(a) = 134217727 AS card,
       distinct_set_contains(a, 134217726::int8) AS has_last,
       NOT distinct_set_contains(a, 134217727::int8) AS not_past_last,
       NOT distinct_set_contains(b, 67108863::int8) AS not_before_first
FROM two;
-- more values than an array holds, or its 1 GB: refused
SELECT distinct_set_to_array(a, NULL::int8) IS NULL FROM two;
SELECT cardinality(s), distinct_set_to_array(s, NULL::int4) IS NULL
FROM (SELECT dset_limits.int8_runs('{-100000000,100}', '{100000000,100000000}', 4) AS s) x;
-- int4 sets: one of 2^28 - 1 values (1 GB of keys) and its neighbour
SELECT cardinality(dset_limits.int8_runs('{-2147483648}', '{268435455}', 4) | dset_limits.int8_runs('{2000000000}', '{1000}', 4))
       = 268435455 + 1000 AS int4_count_past_1gb;
SELECT dset_limits.int8_runs('{-2147483648}', '{268435455}', 4) | dset_limits.int8_runs('{2000000000}', '{1000}', 4);
SELECT cardinality(dset_limits.int8_runs('{-2147483648}', '{268435455}', 4) - dset_limits.int8_runs('{2000000000}', '{1000}', 4)) = 268435455 AS int4_max;
SELECT dset_limits.int8_runs('{2147482648}', '{1000}', 4) = distinct_set(array(SELECT g FROM generate_series(2147482648, 2147483647) g))
       AS int4_top_helper;
-- many runs against one: a set of every third value in 0 .. 3M
CREATE TEMP TABLE third AS
SELECT distinct_set(array(SELECT g::int8 FROM generate_series(0, 3000000, 3) g)) AS t;
SELECT cardinality(a & t) = 1000001 AS sparse_intersect,
       cardinality(t - a) = 0 AS sparse_except,
       cardinality(a - t) = 134217727 - 1000001 AS sparse_except2,
       a @> t AS sparse_contains,
       (a & t) = t AS sparse_intersect_eq
FROM two, third;

-- values and arrays of run sets, against generate_series
SELECT (SELECT array_agg(v ORDER BY v) FROM distinct_set_values(s, NULL::int8) v)
       = (SELECT array_agg(g) FROM (SELECT generate_series(10, 1009)::int8 g
                                    UNION ALL SELECT generate_series(5000, 5099)) x)
       AS values_exact,
       distinct_set_to_array(s, NULL::int8)
       = (SELECT array_agg(g) FROM (SELECT generate_series(10, 1009)::int8 g
                                    UNION ALL SELECT generate_series(5000, 5099)) x)
       AS array_exact
FROM (SELECT dset_limits.int8_runs('{10,5000}', '{1000,100}') AS s) x;

-- cancelling: a 200 ms statement_timeout ends an operation on a large
-- set within 2 s
CREATE FUNCTION dset_limits.timed(q text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    t0 timestamptz := clock_timestamp();
BEGIN
    EXECUTE q;
    RETURN 'completed';
EXCEPTION WHEN query_canceled THEN
    RETURN CASE WHEN clock_timestamp() - t0 < interval '2 s' THEN 'canceled in time'
                ELSE 'canceled late: ' || (clock_timestamp() - t0)::text END;
END $$;
SET statement_timeout = '200ms';
SELECT dset_limits.timed('SELECT count(*) FROM two, distinct_set_values(a, NULL::int8)');
SELECT dset_limits.timed('SELECT cardinality(distinct_set_union_agg(s)) FROM (SELECT distinct_set(array(SELECT g::int8 FROM generate_series(i, 40000000, 7) g)) AS s FROM generate_series(1, 3) i) x');
RESET statement_timeout;

-- mixed inputs, against native COUNT(DISTINCT) and array_agg(DISTINCT):
-- sets of runs, sparse sets (merged as arrays) and dense ones (a bitmap)
-- in one aggregate, plain, grouped, over window frames and in parallel
CREATE TEMP TABLE mixv (g int, k int, v int8);
INSERT INTO mixv
SELECT g, k, v FROM generate_series(1, 4) g, generate_series(1, 12) k,
LATERAL (
    SELECT x::int8 AS v FROM generate_series(k * 1000, k * 1000 + 5000) x WHERE k % 3 = 0
    UNION ALL
    SELECT (hashint4(x * k + g) % 1000000)::int8 FROM generate_series(1, 3000) x WHERE k % 3 = 1
    UNION ALL
    SELECT x::int8 FROM generate_series(g * 100, g * 100 + 20000, 2) x WHERE k % 3 = 2
) y;
CREATE INDEX ON mixv (g, k, v);
CREATE TEMP TABLE mix AS
SELECT g, k, distinct_set_agg(v) AS s FROM mixv GROUP BY g, k;
CREATE TEMP TABLE mix1 AS SELECT k, v FROM mixv WHERE g = 1;
CREATE INDEX ON mix1 (k, v);
ANALYZE mixv;
ANALYZE mix1;
SELECT count(*) AS sets, count(*) FILTER (WHERE octet_length(distinct_set_send(s)) < 40) AS run_sets
FROM mix;
SELECT bool_and(u = n) AS union_by_group
FROM (SELECT g, distinct_set_union_agg(s) AS u FROM mix GROUP BY g) a
JOIN (SELECT g, distinct_set_agg(v) AS n FROM mixv GROUP BY g) b USING (g);
SELECT bool_and(c = n) AS union_count_by_group
FROM (SELECT g, cardinality(distinct_set_union_agg(s)) AS c FROM mix GROUP BY g) a
JOIN (SELECT g, count(DISTINCT v) AS n FROM mixv GROUP BY g) b USING (g);
SELECT bool_and(u = n) AS union_frames
FROM (SELECT g, k, distinct_set_union_agg(s) OVER (PARTITION BY g ORDER BY k ROWS 2 PRECEDING) AS u
      FROM mix) a
JOIN (SELECT m.g, m.k, (SELECT distinct_set_agg(v) FROM mixv x
                        WHERE x.g = m.g AND x.k BETWEEN m.k - 2 AND m.k) AS n
      FROM mix m) b USING (g, k);
SELECT bool_and(c = n) AS union_running_counts
FROM (SELECT g, k, cardinality(distinct_set_union_agg(s) OVER (PARTITION BY g ORDER BY k)) AS c
      FROM mix) a
JOIN (SELECT m.g, m.k, (SELECT count(DISTINCT v) FROM mixv x WHERE x.g = m.g AND x.k <= m.k) AS n
      FROM mix m) b USING (g, k);
-- intersections of each kind with each other
SELECT bool_and(i = n) AS intersect_pairs, bool_and(cardinality(i) = cardinality(a.s & b.s)) AS op_agrees
FROM mix a JOIN mix b ON a.g = b.g AND a.k < b.k,
LATERAL (SELECT distinct_set_intersect_agg(s) AS i FROM (VALUES (a.s), (b.s)) v(s)) x,
LATERAL (SELECT distinct_set(array(SELECT v FROM mix1 WHERE k = a.k
                                   INTERSECT SELECT v FROM mix1 WHERE k = b.k)) AS n) y
WHERE a.g = 1;
SELECT bool_and((a.s | b.s) = distinct_set(array(SELECT v FROM mix1 WHERE k IN (a.k, b.k))))
       AS union_pairs,
       bool_and((a.s - b.s) = distinct_set(array(SELECT v FROM mix1 WHERE k = a.k
                                                 EXCEPT SELECT v FROM mix1 WHERE k = b.k)))
       AS except_pairs,
       bool_and((a.s @> b.s) = NOT EXISTS (SELECT v FROM mix1 WHERE k = b.k
                                           EXCEPT SELECT v FROM mix1 WHERE k = a.k))
       AS contains_pairs,
       bool_and((a.s && b.s) = EXISTS (SELECT v FROM mix1 WHERE k = b.k
                                       INTERSECT SELECT v FROM mix1 WHERE k = a.k))
       AS overlaps_pairs,
       bool_and(cardinality(a.s | b.s) = (SELECT count(DISTINCT v) FROM mix1 WHERE k IN (a.k, b.k)))
       AS union_count_pairs
FROM mix a, mix b WHERE a.g = 1 AND b.g = 1;
-- parallel: partial states of every kind combined
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
CREATE TABLE dset_limits_mix WITH (parallel_workers = 2) AS SELECT * FROM mix;
EXPLAIN (COSTS OFF)
SELECT distinct_set_union_agg(s) FROM dset_limits_mix;
SELECT distinct_set_union_agg(s) = (SELECT distinct_set_agg(v) FROM mixv) AS parallel_union,
       distinct_set_union_cardinality_agg(s) = (SELECT count(DISTINCT v) FROM mixv) AS parallel_count,
       cardinality(distinct_set_intersect_agg(s))
       = (SELECT count(*) FROM (SELECT v FROM mixv GROUP BY v
                                HAVING count(DISTINCT (g, k)) = 48) x) AS parallel_intersect
FROM dset_limits_mix;
SELECT distinct_set_intersect_agg(s) = (SELECT distinct_set(array(SELECT v FROM mixv WHERE k = 3
                                        INTERSECT SELECT v FROM mixv WHERE k = 6))) AS parallel_intersect2
FROM dset_limits_mix WHERE k IN (3, 6);
SELECT g, distinct_set_union_agg(s) = (SELECT distinct_set_agg(v) FROM mixv x WHERE x.g = m.g) AS parallel_grouped
FROM dset_limits_mix m GROUP BY g ORDER BY g;
DROP TABLE dset_limits_mix;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;

-- sets of keys two or three apart (the blocks layout, but too many keys for
-- their bytes to be decoded: merged as runs), against SQL set operations
CREATE TEMP TABLE ev AS
SELECT i, distinct_set(array(SELECT g::int8 FROM generate_series(i * 7, 50000 + i * 5000, 2 + i % 3) g)) AS s,
       array(SELECT g::int8 FROM generate_series(i * 7, 50000 + i * 5000, 2 + i % 3) g) AS a
FROM generate_series(0, 9) i;
SELECT bool_and((x.s | y.s) = distinct_set(x.a || y.a)) u,
       bool_and((x.s & y.s) = distinct_set(array(SELECT unnest(x.a) INTERSECT SELECT unnest(y.a)))) i,
       bool_and((x.s - y.s) = distinct_set(array(SELECT unnest(x.a) EXCEPT SELECT unnest(y.a)))) e,
       bool_and(cardinality(x.s | y.s) = (SELECT count(DISTINCT v) FROM unnest(x.a || y.a) v)) uc,
       bool_and(cardinality(x.s & y.s) = (SELECT count(*) FROM (SELECT unnest(x.a) INTERSECT SELECT unnest(y.a)) z)) ic,
       bool_and((x.s @> y.s) = NOT EXISTS (SELECT unnest(y.a) EXCEPT SELECT unnest(x.a))) c, bool_and((x.s && y.s) = EXISTS (SELECT unnest(y.a) INTERSECT SELECT unnest(x.a))) o
FROM ev x, ev y WHERE x.i < 5 AND y.i < 5;
SELECT distinct_set_union_agg(s) = (SELECT distinct_set_agg(v) FROM ev, unnest(a) v) AS uagg,
       distinct_set_intersect_agg(s) = distinct_set(array(SELECT v FROM ev, unnest(a) v GROUP BY v HAVING count(*) = 10)) AS iagg,
       cardinality(distinct_set_union_agg(s)) = (SELECT count(DISTINCT v) FROM ev, unnest(a) v) AS ucount
FROM ev;
SELECT bool_and(u = (SELECT distinct_set_agg(v) FROM ev e2, unnest(a) v WHERE e2.i BETWEEN e.i - 2 AND e.i)) AS frames
FROM (SELECT i, distinct_set_union_agg(s) OVER (ORDER BY i ROWS 2 PRECEDING) AS u FROM ev) e;

DROP SCHEMA dset_limits CASCADE;
