-- numeric infinities (PostgreSQL 14+): equal to themselves, sorted at the ends
-- Skipped (numeric_infinity_1.out) on PostgreSQL 13.
SELECT current_setting('server_version_num')::int < 140000 AS skip_test \gset
\if :skip_test
\quit
\endif
SELECT count_distinct(v), count(DISTINCT v),
       array_agg_distinct(v) = array_agg(DISTINCT v ORDER BY v) AS same_order,
       array_agg_distinct(v)
FROM (VALUES ('Infinity'::numeric), ('-Infinity'), ('NaN'), ('0'), ('Infinity'), ('1e100'), ('-0.00')) s(v);
