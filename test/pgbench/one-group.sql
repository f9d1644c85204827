-- one group, a random slice; a mismatch divides by zero
\set lo random(1, 90000)
\set n random(1, 10000)
SELECT 1 / (CASE WHEN count_distinct(v) = count(DISTINCT v)
                  AND count_distinct(f) = count(DISTINCT f)
                  AND array_agg_distinct(g) = coalesce(array_agg(DISTINCT g ORDER BY g), '{}')
             THEN 1 ELSE 0 END)
FROM cd_bench WHERE id BETWEEN :lo AND :lo + :n;
