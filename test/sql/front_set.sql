-- Large sets of byte keys that share long prefixes become front-coded
-- (src/frontset.c): groups of 60k-120k URL-like text and bytea values
-- (past 64 kB, compressing well), with repeats, next to small groups, and
-- uuid values (sharing little: a worker's large state of them stays
-- front-coded in the leader only, as it is no larger there),
-- compared with native COUNT(DISTINCT) and array_agg(DISTINCT ... ORDER BY)
-- under hashed, sorted, parallel and spilling aggregation, and through the
-- stored set type.
CREATE TABLE fs (i int, g int, t text COLLATE "C", b bytea, u uuid, x text COLLATE "C");
INSERT INTO fs
SELECT i, CASE WHEN i % 50 = 0 THEN 3 + i % 7 ELSE i % 3 END,
       'https://example.com/products/item-' || (i::int8 * 7919 % 200003)::text,
       convert_to('/home/user/data/' || to_hex(i::int8 * 2654435761 % 150001), 'UTF8'),
       md5((i % 170003)::text)::uuid,
       CASE WHEN i % 3 = 0 THEN 'one-start:' || lpad((i % 90001)::text, 22, '0')
            ELSE md5((i % 160001)::text) END
FROM generate_series(1, 300000) i;
-- keys that end in zero bytes, the empty key, NULLs
INSERT INTO fs SELECT i, i % 3, '', decode(repeat('00', i % 5), 'hex') FROM generate_series(1, 30) i;
INSERT INTO fs VALUES (0, 1, NULL, NULL), (0, 11, NULL, NULL);
ANALYZE fs;

CREATE FUNCTION fs_check(col text) RETURNS TABLE (groups bigint, differ bigint)
LANGUAGE plpgsql AS $$
BEGIN
  RETURN QUERY EXECUTE format($q$
    SELECT count(*), count(*) FILTER (WHERE cd IS DISTINCT FROM nat OR ad IS DISTINCT FROM na
                                         OR sc IS DISTINCT FROM nat)
    FROM (SELECT g, count_distinct(%1$I) cd, array_agg_distinct(%1$I) ad,
                 coalesce(cardinality(distinct_set_agg(%1$I)), 0) sc
          FROM fs GROUP BY g) a
    FULL JOIN (SELECT g, count(DISTINCT %1$I) nat,
                      coalesce(array_agg(DISTINCT %1$I ORDER BY %1$I)
                               FILTER (WHERE %1$I IS NOT NULL), '{}') na
               FROM fs GROUP BY g) n USING (g)$q$, col);
END $$;

-- hashed
SET enable_sort = off;
SELECT 't' col, * FROM fs_check('t') UNION ALL SELECT 'b', * FROM fs_check('b')
UNION ALL SELECT 'u', * FROM fs_check('u');
-- hashed, spilling: states serialized to disk and combined
SET work_mem = '64kB';
SELECT 't' col, * FROM fs_check('t') UNION ALL SELECT 'b', * FROM fs_check('b');
RESET work_mem;
RESET enable_sort;
-- sorted
SET enable_hashagg = off;
SELECT 't' col, * FROM fs_check('t') UNION ALL SELECT 'b', * FROM fs_check('b');
RESET enable_hashagg;

-- one group, serial and with 2 workers (front-coded states serialized,
-- deserialized and combined with variable-size ones)
CREATE TEMP TABLE fs_native AS
SELECT count(DISTINCT t) nt, array_agg(DISTINCT t ORDER BY t) FILTER (WHERE t IS NOT NULL) ta,
       count(DISTINCT b) nb, array_agg(DISTINCT b ORDER BY b) FILTER (WHERE b IS NOT NULL) ba,
       count(DISTINCT u) nu, array_agg(DISTINCT u ORDER BY u) FILTER (WHERE u IS NOT NULL) ua
FROM fs;
SELECT (SELECT count_distinct(t) FROM fs) = nt AS t_count,
       (SELECT array_agg_distinct(t) FROM fs) = ta AS t_array,
       (SELECT count_distinct(b) FROM fs) = nb AS b_count,
       (SELECT array_agg_distinct(b) FROM fs) = ba AS b_array,
       (SELECT distinct_set_to_array(distinct_set_agg(t), NULL::text) FROM fs) = ta AS t_stored,
       (SELECT count_distinct(u) FROM fs) = nu AS u_count,
       (SELECT array_agg_distinct(u) FROM fs) = ua AS u_array
FROM fs_native;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
CREATE TEMP TABLE fs_par AS
SELECT count_distinct(t) ct, array_agg_distinct(t) ta, count_distinct(b) cb,
       array_agg_distinct(b) ba, distinct_set_agg(t) st,
       count_distinct(u) cu, array_agg_distinct(u) ua
FROM fs;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
SELECT p.ct = n.nt AS t_count, p.ta = n.ta AS t_array, p.cb = n.nb AS b_count,
       p.ba = n.ba AS b_array, distinct_set_to_array(p.st, NULL::text) = n.ta AS t_stored,
       p.cu = n.nu AS u_count, p.ua = n.ua AS u_array
FROM fs_par p, fs_native n;
-- keys of one length, 2 workers: the leader counts the workers' states
-- over records (32 bytes: md5 text, and a third with one start of 10
-- bytes, whose first 8 bytes tie)
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
CREATE TEMP TABLE fs_par_x AS SELECT count_distinct(x) cx FROM fs;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
SELECT cx = (SELECT count(DISTINCT x) FROM fs) AS x_count FROM fs_par_x;
-- grouped, 2 workers: uuid
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET enable_sort = off;
SELECT 'u' col, * FROM fs_check('u');
RESET enable_sort;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;

DROP FUNCTION fs_check(text);
DROP TABLE fs;
