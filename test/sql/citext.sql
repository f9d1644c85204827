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
-- With the typed overloads declared (as where Citus is installed), citext
-- resolves to count_distinct(text) through an implicit cast, which would
-- count by text's "=": refused, until the citext overloads are declared.
BEGIN;
SELECT count_distinct_declare_builtin_types();
CREATE TABLE ct AS SELECT v::citext AS v FROM (VALUES ('abc'), ('ABC'), ('x')) s(v);
SAVEPOINT s;
SELECT count_distinct(v) FROM ct;
ROLLBACK TO s;
SELECT count_distinct(v::text) AS text_explicit, count(DISTINCT v::text) AS native_text FROM ct;
SELECT count_distinct_declare_type('citext');
SELECT count_distinct(v), count(DISTINCT v), array_length(array_agg_distinct(v), 1) AS n FROM ct;
ROLLBACK;
DROP EXTENSION citext;
