-- Big and many groups: many compactions and growths, checked against native.
SET jit = off;
SET max_parallel_workers_per_gather = 0;

-- one group of 1.2M distinct values, in an order that is neither sorted nor
-- random (a permutation), so every compaction merges into the middle
SELECT count_distinct(v) AS cd, count(DISTINCT v) AS nat
FROM (SELECT (i::int8 * 1000003) % 1200007 - 600000 AS v FROM generate_series(1, 1200007) i) s;

-- int8 keys spread over the whole range (all 8 radix passes), with duplicates
SELECT count_distinct(v) = count(DISTINCT v) AS same, count(DISTINCT v) > 500000 AS big
FROM (SELECT hashint8(i % 700000)::int8 * 2147483647 + i % 700000 AS v
      FROM generate_series(1, 1000000) i) s;

-- heavy hitters: half the rows hold one value, the rest distinct
SELECT count_distinct(v) AS cd, count(DISTINCT v) AS nat
FROM (SELECT CASE WHEN i % 2 = 0 THEN 7 ELSE i END AS v FROM generate_series(1, 1000000) i) s;

-- values that come sorted and in runs (the append-time run check)
SELECT count_distinct(v) AS cd, count(DISTINCT v) AS nat
FROM (SELECT i / 3 AS v FROM generate_series(1, 300000) i) s;

-- array output of a big set is in ascending order
SELECT a = (SELECT array_agg(DISTINCT v ORDER BY v) FROM (SELECT (i::int8 * 7919) % 100003 - 50000 AS v FROM generate_series(1, 300000) i) x) AS same
FROM (SELECT array_agg_distinct((i::int8 * 7919) % 100003 - 50000) a FROM generate_series(1, 300000) i) s;

-- many small groups of all sizes 0..300, each growing past several sizes
CREATE TABLE sizes AS
SELECT g, (g * 1009 + j * 7) % (g + 1) - g / 2 AS v
FROM generate_series(0, 300) g, generate_series(1, 2 * g) j;
ANALYZE sizes;
SELECT count(*) AS groups,
       count(*) FILTER (WHERE cd IS DISTINCT FROM nat OR ad IS DISTINCT FROM na) AS differ
FROM (SELECT g, count_distinct(v) cd, array_agg_distinct(v) ad FROM sizes GROUP BY g) a
FULL JOIN (SELECT g, count(DISTINCT v) nat, array_agg(DISTINCT v ORDER BY v) na FROM sizes GROUP BY g) b USING (g);
-- same in parallel
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT count(*) AS groups,
       count(*) FILTER (WHERE cd IS DISTINCT FROM nat OR ad IS DISTINCT FROM na) AS differ
FROM (SELECT g, count_distinct(v) cd, array_agg_distinct(v) ad FROM sizes GROUP BY g) a
FULL JOIN (SELECT g, count(DISTINCT v) nat, array_agg(DISTINCT v ORDER BY v) na FROM sizes GROUP BY g) b USING (g);

-- 100k groups of 1..3 values
SELECT count(*) FILTER (WHERE cd IS DISTINCT FROM nat) AS differ
FROM (SELECT i % 100000 g, count_distinct(i % 3 + i % 100000) cd FROM generate_series(1, 300000) i GROUP BY 1) a
FULL JOIN (SELECT i % 100000 g, count(DISTINCT i % 3 + i % 100000) nat FROM generate_series(1, 300000) i GROUP BY 1) b USING (g);

DROP TABLE sizes;

-- serialized states with every gap width: group k holds ~1000 int8 keys
-- about 2^k apart (so packed blocks of k or k+1 bits each), k = 0..52;
-- groups 53..62 a few keys 2^k apart and the int8 extremes (gaps of up to
-- 64 bits); states pass between the workers and the leader
CREATE TABLE gaps AS
SELECT k, (j - 500) * (1::int8 << k) + j % 2 AS v
FROM generate_series(0, 52) k, generate_series(1, 1000) j, generate_series(1, 3) r
UNION ALL
SELECT k, (j - 2) * (1::int8 << k)
FROM generate_series(53, 61) k, generate_series(0, 4) j
UNION ALL
SELECT 62, v FROM unnest(ARRAY[-9223372036854775808, -4611686018427387904, 0,
                               4611686018427387904, 9223372036854775807]::int8[]) v;
ANALYZE gaps;
SELECT count(*) AS groups,
       count(*) FILTER (WHERE cd IS DISTINCT FROM nat OR ad IS DISTINCT FROM na) AS differ
FROM (SELECT k, count_distinct(v) cd, array_agg_distinct(v) ad FROM gaps GROUP BY k) a
FULL JOIN (SELECT k, count(DISTINCT v) nat, array_agg(DISTINCT v ORDER BY v) na FROM gaps GROUP BY k) b USING (k);
-- and as int4 / int2 where they fit
SELECT count(*) AS groups,
       count(*) FILTER (WHERE cd IS DISTINCT FROM nat OR ad IS DISTINCT FROM na) AS differ
FROM (SELECT k, count_distinct(v::int4) cd, array_agg_distinct(v::int4) ad FROM gaps WHERE k < 21 GROUP BY k) a
FULL JOIN (SELECT k, count(DISTINCT v::int4) nat, array_agg(DISTINCT v::int4 ORDER BY v::int4) na FROM gaps WHERE k < 21 GROUP BY k) b USING (k);
SELECT count(*) AS groups,
       count(*) FILTER (WHERE cd IS DISTINCT FROM nat OR ad IS DISTINCT FROM na) AS differ
FROM (SELECT k, count_distinct(v::int2) cd, array_agg_distinct(v::int2) ad FROM gaps WHERE k < 5 GROUP BY k) a
FULL JOIN (SELECT k, count(DISTINCT v::int2) nat, array_agg(DISTINCT v::int2 ORDER BY v::int2) na FROM gaps WHERE k < 5 GROUP BY k) b USING (k);
-- one group: three large states of interleaved keys merged by the leader
SELECT (SELECT count_distinct(v) FROM gaps) AS cd, (SELECT count(DISTINCT v) FROM gaps) AS nat;
DROP TABLE gaps;

-- parallel partial states around the size where a deserialized state stays
-- packed as sent (64 kB of keys: 16384 int4): groups of 30k..60k distinct
-- keys split between the leader and two workers, so states of both kinds
-- meet in the leader in every order; the leader keeps the large ones as
-- runs and counts their union, or merges them for arrays and stored sets
CREATE TABLE par_sizes AS
SELECT g, ((i::int8 * 7919) % (30000 + g * 5000))::int4 - 20000 AS v
FROM generate_series(0, 6) g, generate_series(1, 2 * (30000 + g * 5000)) i;
INSERT INTO par_sizes SELECT 7, i FROM generate_series(1, 300000) i;
INSERT INTO par_sizes SELECT 8, i % 5 FROM generate_series(1, 1000) i;
ANALYZE par_sizes;
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET enable_sort = off;
SELECT count(*) AS groups,
       count(*) FILTER (WHERE cd IS DISTINCT FROM nat OR ad IS DISTINCT FROM na
                        OR ds IS DISTINCT FROM nat) AS differ
FROM (SELECT g, count_distinct(v) cd, array_agg_distinct(v) ad,
             cardinality(distinct_set_agg(v)) ds FROM par_sizes GROUP BY g) a
FULL JOIN (SELECT g, count(DISTINCT v) nat, array_agg(DISTINCT v ORDER BY v) na
           FROM par_sizes GROUP BY g) b USING (g);
-- one group of all of them, and the finalize step spilling (64 kB)
SELECT (SELECT count_distinct(v) FROM par_sizes) AS cd,
       (SELECT count(DISTINCT v) FROM par_sizes) AS nat;
SET work_mem = '64kB';
SELECT count(*) AS groups,
       count(*) FILTER (WHERE cd IS DISTINCT FROM nat) AS differ
FROM (SELECT g, count_distinct(v) cd FROM par_sizes GROUP BY g) a
FULL JOIN (SELECT g, count(DISTINCT v) nat FROM par_sizes GROUP BY g) b USING (g);
RESET work_mem;
RESET enable_sort;
DROP TABLE par_sizes;
