-- Errors: unsupported types, and support functions outside an aggregate.
SELECT count_distinct(p) FROM (VALUES (point '(1,2)')) s(p);
SELECT array_agg_distinct(j) FROM (VALUES ('{}'::json)) s(j);
SELECT count_distinct_elements(a) FROM (VALUES (ARRAY[point '(1,2)'])) s(a);

-- the support functions take and return "internal": SQL cannot call them
SELECT count_distinct_final(NULL::internal);
SELECT count_distinct_append(NULL::internal, 1);
