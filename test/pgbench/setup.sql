-- table for test/drivers/40-concurrency.sh
DROP TABLE IF EXISTS cd_bench;
CREATE TABLE cd_bench AS
    SELECT i AS id, i % 97 AS g, (i * 7919) % 20011 AS v, ((i * 31) % 1000) / 8.0::float8 AS f,
           ARRAY[i % 53, i % 59, NULL] AS a
    FROM generate_series(1, 100000) i;
ANALYZE cd_bench;
