-- requires: pg14
-- numeric infinities (PostgreSQL 14+): equal to themselves, sorted at the ends
SELECT count_distinct(v), count(DISTINCT v),
       array_agg_distinct(v) = array_agg(DISTINCT v ORDER BY v) AS same_order,
       array_agg_distinct(v)
FROM (VALUES ('Infinity'::numeric), ('-Infinity'), ('NaN'), ('0'), ('Infinity'), ('1e100'), ('-0.00')) s(v);
