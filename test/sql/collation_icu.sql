-- Text under a nondeterministic ICU collation: "=" ignores case here, so
-- the bytes are not the equality and the collation's comparator is used.
-- Skipped (collation_icu_1.out) where the server has no ICU collations (built
-- without ICU; 16+ lists "unicode" even then) or the encoding is not UTF8.
SELECT getdatabaseencoding() <> 'UTF8' OR
       NOT EXISTS (SELECT FROM pg_collation WHERE collprovider = 'i' AND collname <> 'unicode')
       AS skip_test \gset
\if :skip_test
\quit
\endif
CREATE COLLATION ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
SELECT count_distinct(v COLLATE ci), count(DISTINCT v COLLATE ci),
       count_distinct(v), count(DISTINCT v),
       array_length(array_agg_distinct(v COLLATE ci), 1) AS n
FROM (VALUES ('abc'), ('ABC'), ('Abc'), ('abd'), ('ABD'), ('x')) s(v);
SELECT count(*) FILTER (WHERE cd IS DISTINCT FROM nat) AS differ
FROM (SELECT i % 10 g, count_distinct((CASE WHEN i % 2 = 0 THEN upper(md5((i % 100)::text)) ELSE md5((i % 100)::text) END) COLLATE ci) cd
      FROM generate_series(1, 5000) i GROUP BY 1) a
JOIN (SELECT i % 10 g, count(DISTINCT (CASE WHEN i % 2 = 0 THEN upper(md5((i % 100)::text)) ELSE md5((i % 100)::text) END) COLLATE ci) nat
      FROM generate_series(1, 5000) i GROUP BY 1) b USING (g);
DROP COLLATION ci;
