-- Large partial states passed within one backend as expanded objects
-- (src/state_object.c): read from their sets by a Finalize aggregate of
-- the same backend (each partition's state under a partitionwise
-- aggregate, the leader's own state under a Gather), flattened where a
-- tuple is formed (a parallel worker's queue, the first input tuple a
-- plain Finalize Aggregate copies, a spilling Finalize HashAggregate).
-- Groups of 40k-60k md5 texts (variable-size byte keys), URL-like texts
-- (front-coded), uuid and int4 (packed sets, whose states are written
-- out), against native COUNT(DISTINCT) and array_agg(DISTINCT ... ORDER BY).
CREATE TABLE so (i int, g int, t text COLLATE "C", w text COLLATE "C", u uuid, n int4)
  PARTITION BY HASH (i);
CREATE TABLE so_0 PARTITION OF so FOR VALUES WITH (MODULUS 3, REMAINDER 0);
CREATE TABLE so_1 PARTITION OF so FOR VALUES WITH (MODULUS 3, REMAINDER 1);
CREATE TABLE so_2 PARTITION OF so FOR VALUES WITH (MODULUS 3, REMAINDER 2);
INSERT INTO so
SELECT i, CASE WHEN i % 100 = 0 THEN 3 ELSE i % 3 END,
       md5((i % 40000)::text),
       'https://example.com/products/item-' || (i::int8 * 7919 % 50021)::text,
       md5((i % 45000)::text)::uuid, hashint4(i % 60000)
FROM generate_series(1, 150000) i;
INSERT INTO so VALUES (0, 4, NULL, NULL, NULL, NULL);
ANALYZE so;

CREATE FUNCTION so_check(col text) RETURNS TABLE (groups bigint, differ bigint)
LANGUAGE plpgsql AS $$
BEGIN
  RETURN QUERY EXECUTE format($q$
    SELECT count(*), count(*) FILTER (WHERE cd IS DISTINCT FROM nat OR ad IS DISTINCT FROM na)
    FROM (SELECT g, count_distinct(%1$I) cd, array_agg_distinct(%1$I) ad
          FROM so GROUP BY g) a
    FULL JOIN (SELECT g, count(DISTINCT %1$I) nat,
                      coalesce(array_agg(DISTINCT %1$I ORDER BY %1$I)
                               FILTER (WHERE %1$I IS NOT NULL), '{}') na
               FROM so GROUP BY g) n USING (g)$q$, col);
END $$;

-- one group: counts and arrays against native
CREATE FUNCTION so_check_one(col text) RETURNS TABLE (count_ok bool, array_ok bool)
LANGUAGE plpgsql AS $$
BEGIN
  RETURN QUERY EXECUTE format($q$
    SELECT (SELECT count_distinct(%1$I) FROM so) = (SELECT count(DISTINCT %1$I) FROM so),
           (SELECT array_agg_distinct(%1$I) FROM so) =
           (SELECT array_agg(DISTINCT %1$I ORDER BY %1$I) FILTER (WHERE %1$I IS NOT NULL) FROM so)
    $q$, col);
END $$;

-- does the plan of query aggregate partially (below an Append or a Gather)?
CREATE FUNCTION so_partial(query text) RETURNS bool
LANGUAGE plpgsql AS $$
DECLARE
  line text;
  found bool := false;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
    found := found OR line LIKE '%Partial%Aggregate%';
  END LOOP;
  RETURN found;
END $$;

-- partitionwise: every partition's state goes to the Finalize aggregate
-- of the same backend
SET enable_partitionwise_aggregate = on;
SET max_parallel_workers_per_gather = 0;
SET enable_sort = off;
SELECT so_partial('SELECT g, count_distinct(t) FROM so GROUP BY g') AS hashed_partial,
       so_partial('SELECT count_distinct(t) FROM so') AS plain_partial;
SELECT 't' col, * FROM so_check('t') UNION ALL SELECT 'w', * FROM so_check('w')
UNION ALL SELECT 'u', * FROM so_check('u') UNION ALL SELECT 'n', * FROM so_check('n');
SELECT 't' col, * FROM so_check_one('t') UNION ALL SELECT 'w', * FROM so_check_one('w')
UNION ALL SELECT 'u', * FROM so_check_one('u') UNION ALL SELECT 'n', * FROM so_check_one('n');
-- spilling: states of later groups flattened into the spill files
SET work_mem = '64kB';
SELECT 't' col, * FROM so_check('t') UNION ALL SELECT 'w', * FROM so_check('w')
UNION ALL SELECT 'n', * FROM so_check('n');
RESET work_mem;
RESET enable_sort;
-- sorted: states in a sort's tuples
SET enable_hashagg = off;
SELECT 't' col, * FROM so_check('t') UNION ALL SELECT 'w', * FROM so_check('w');
RESET enable_hashagg;
RESET max_parallel_workers_per_gather;
RESET enable_partitionwise_aggregate;

-- 2 workers: the workers' states flattened into their queues, the
-- leader's own read from its set
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET enable_sort = off;
SELECT 't' col, * FROM so_check('t') UNION ALL SELECT 'w', * FROM so_check('w')
UNION ALL SELECT 'u', * FROM so_check('u') UNION ALL SELECT 'n', * FROM so_check('n');
SELECT 't' col, * FROM so_check_one('t') UNION ALL SELECT 'w', * FROM so_check_one('w')
UNION ALL SELECT 'u', * FROM so_check_one('u') UNION ALL SELECT 'n', * FROM so_check_one('n');
RESET enable_sort;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;

DROP FUNCTION so_check(text);
DROP FUNCTION so_check_one(text);
DROP FUNCTION so_partial(text);
DROP TABLE so;
