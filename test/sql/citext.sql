-- An extension type (citext, from contrib): its "=" ignores case.
-- Skipped (citext_1.out) where contrib's citext is not installed.
SELECT NOT EXISTS (SELECT FROM pg_available_extensions WHERE name = 'citext') AS skip_test \gset
\if :skip_test
\quit
\endif
CREATE EXTENSION IF NOT EXISTS citext;
SELECT count_distinct(v), count(DISTINCT v),
       array_length(array_agg_distinct(v), 1) AS n,
       array_agg_distinct(v) = array_agg(DISTINCT v ORDER BY v) FILTER (WHERE v IS NOT NULL) AS same
FROM (VALUES ('abc'::citext), ('ABC'), ('Abc'), ('abd'), (''), ('ß'), (NULL)) s(v);
SELECT count(*) FILTER (WHERE cd IS DISTINCT FROM nat) AS differ
FROM (SELECT i % 10 g, count_distinct(CASE WHEN i % 2 = 0 THEN upper(md5((i % 100)::text)) ELSE md5((i % 100)::text) END::citext) cd
      FROM generate_series(1, 5000) i GROUP BY 1) a
JOIN (SELECT i % 10 g, count(DISTINCT CASE WHEN i % 2 = 0 THEN upper(md5((i % 100)::text)) ELSE md5((i % 100)::text) END::citext) nat
      FROM generate_series(1, 5000) i GROUP BY 1) b USING (g);
DROP EXTENSION citext;
