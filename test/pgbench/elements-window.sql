-- *_elements and window frames
\set gg random(0, 96)
SELECT 1 / (CASE WHEN count_distinct_elements(a) = (SELECT count(DISTINCT x) FROM cd_bench, unnest(a) x WHERE g = :gg)
             THEN 1 ELSE 0 END)
FROM cd_bench WHERE g = :gg;
SELECT 1 / (CASE WHEN bool_and(c = cardinality(d)) THEN 1 ELSE 0 END)
FROM (SELECT count_distinct(v % 50) OVER w AS c, array_agg_distinct(v % 50) OVER w AS d
      FROM cd_bench WHERE g = :gg WINDOW w AS (ORDER BY id ROWS 20 PRECEDING)) s;
