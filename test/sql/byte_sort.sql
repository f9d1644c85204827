-- Byte keys in orders that exercise their radix sort (sort.c): prefixes of
-- many shared bytes, keys that differ only past their first 8 bytes or by
-- trailing zero bytes, the empty key, buckets above and below the radix
-- sort's cut-off, keys sharing long starts (past the radix sort's 64 bytes,
-- or followed by zero bytes, which look like shorter keys' padding), and
-- many duplicates; compared to native COUNT(DISTINCT)
-- and array_agg(DISTINCT ... ORDER BY) under hashed, sorted, parallel and
-- window aggregation.
CREATE TABLE bs (i int, g int, b bytea, t text COLLATE "C", u uuid, l bytea);
INSERT INTO bs
SELECT i, i % 5,
       CASE i % 4
         -- bytes from a small alphabet (00 0f f0 ff 7f 80 ...), 0-20 bytes
         WHEN 0 THEN decode(translate(substr(md5(i::text) || md5((i + 1)::text), 1, 2 * (i % 21)),
                                      '23456789abcdef', '00000000ff7f80'), 'hex')
         -- 10 shared bytes, then up to 4 more
         WHEN 1 THEN decode('0102030405060708090a' || substr(md5(i::text), 1, 2 * (i % 5)), 'hex')
         -- keys that differ only by trailing zero bytes
         WHEN 2 THEN decode(substr('6162', 1, 2 * (i % 3)) || repeat('00', i % 11), 'hex')
         -- few distinct values, repeated
         ELSE decode(md5((i % 97)::text), 'hex')
       END,
       CASE WHEN i % 3 = 0 THEN to_hex(i * 2654435761 % 4294967296)
            WHEN i % 3 = 1 THEN 'same-long-prefix-' || (i % 700)
            ELSE substr(md5(i::text), 1, i % 9) END,
       md5((i % 5000)::text)::uuid,
       CASE i % 5
         -- a 100-byte start, then up to 4 digits
         WHEN 0 THEN convert_to(repeat('p', 100) || (i % 3001), 'UTF8')
         -- a 37-byte start, then 0-12 more bytes
         WHEN 1 THEN convert_to(repeat('q', 37) || substr(md5(i::text), 1, i % 13), 'UTF8')
         -- a 30-byte start, then 0-12 zero bytes
         WHEN 2 THEN decode(repeat('72', 30) || repeat('00', i % 13), 'hex')
         -- a 20-byte start, a zero byte or none, then a digit or none
         WHEN 3 THEN decode(repeat('73', 20) || repeat('00', i % 2) || repeat('31', (i / 2) % 2), 'hex')
         -- 9-byte start, then 8 bytes shared by pairs of rows, then 2 more
         ELSE decode(repeat('74', 9) || substr(md5((i / 10)::text), 1, 16) || substr(md5(i::text), 1, 4), 'hex')
       END
FROM generate_series(1, 40000) i;
INSERT INTO bs VALUES (0, 0, NULL, NULL, NULL, NULL), (0, 1, '', '', NULL, '');
ANALYZE bs;

CREATE FUNCTION bs_check(col text) RETURNS TABLE (groups bigint, differ bigint)
LANGUAGE plpgsql AS $$
BEGIN
  RETURN QUERY EXECUTE format($q$
    SELECT count(*), count(*) FILTER (WHERE cd IS DISTINCT FROM nat OR ad IS DISTINCT FROM na)
    FROM (SELECT g, count_distinct(%1$I) cd, array_agg_distinct(%1$I) ad FROM bs GROUP BY g) a
    FULL JOIN (SELECT g, count(DISTINCT %1$I) nat,
                      coalesce(array_agg(DISTINCT %1$I ORDER BY %1$I)
                               FILTER (WHERE %1$I IS NOT NULL), '{}') na
               FROM bs GROUP BY g) n USING (g)$q$, col);
END $$;

CREATE FUNCTION bs_check_all(col text) RETURNS TABLE (n bigint, same boolean)
LANGUAGE plpgsql AS $$
BEGIN
  RETURN QUERY EXECUTE format($q$
    SELECT count_distinct(%1$I),
           count_distinct(%1$I) = count(DISTINCT %1$I)
           AND array_agg_distinct(%1$I) = array_agg(DISTINCT %1$I ORDER BY %1$I)
                                          FILTER (WHERE %1$I IS NOT NULL)
    FROM bs$q$, col);
END $$;

-- hashed
SET enable_sort = off;
SELECT 'b' col, * FROM bs_check('b') UNION ALL
SELECT 't', * FROM bs_check('t') UNION ALL
SELECT 'u', * FROM bs_check('u') UNION ALL
SELECT 'l', * FROM bs_check('l');
-- sorted
RESET enable_sort;
SET enable_hashagg = off;
SELECT 'b' col, * FROM bs_check('b') UNION ALL
SELECT 't', * FROM bs_check('t') UNION ALL
SELECT 'u', * FROM bs_check('u') UNION ALL
SELECT 'l', * FROM bs_check('l');
RESET enable_hashagg;
-- one group, serial and with 2 workers (serialized states)
SELECT 'b' col, * FROM bs_check_all('b') UNION ALL
SELECT 't', * FROM bs_check_all('t') UNION ALL
SELECT 'u', * FROM bs_check_all('u') UNION ALL
SELECT 'l', * FROM bs_check_all('l');
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SELECT 'b' col, * FROM bs_check_all('b') UNION ALL
SELECT 't', * FROM bs_check_all('t') UNION ALL
SELECT 'u', * FROM bs_check_all('u') UNION ALL
SELECT 'l', * FROM bs_check_all('l');
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;

-- window frames of 150 rows (their output is sorted the same way)
SELECT count(*) AS frames,
       count(*) FILTER (WHERE w.cd IS DISTINCT FROM n.nat OR w.ad IS DISTINCT FROM n.na) AS differ
FROM (SELECT i, count_distinct(b) OVER f cd, array_agg_distinct(b) OVER f ad
      FROM bs WHERE i BETWEEN 1 AND 1200
      WINDOW f AS (ORDER BY i ROWS BETWEEN 149 PRECEDING AND CURRENT ROW)) w
JOIN LATERAL (SELECT count(DISTINCT b) nat,
                     coalesce(array_agg(DISTINCT b ORDER BY b) FILTER (WHERE b IS NOT NULL), '{}') na
              FROM bs WHERE i BETWEEN w.i - 149 AND w.i AND i >= 1) n ON true;

DROP FUNCTION bs_check(text);
DROP FUNCTION bs_check_all(text);
DROP TABLE bs;
