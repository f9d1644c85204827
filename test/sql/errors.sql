-- Errors.  A type without btree equality or ordering fails at the first row
-- with the same error as native COUNT(DISTINCT) (shown next to it).
SELECT count_distinct(p) FROM (VALUES (point '(1,2)')) s(p);
SELECT count(DISTINCT p) FROM (VALUES (point '(1,2)')) s(p);
SELECT array_agg_distinct(j) FROM (VALUES ('{}'::json)) s(j);
SELECT count(DISTINCT j) FROM (VALUES ('{}'::json)) s(j);
SELECT count_distinct(x) FROM (VALUES ('1'::xid)) s(x);
SELECT count(DISTINCT x) FROM (VALUES ('1'::xid)) s(x);
SELECT count_distinct_elements(a) FROM (VALUES (ARRAY[point '(1,2)'])) s(a);
-- no rows: no error (native does not look at the type either)
SELECT count_distinct(p) FROM (SELECT point '(1,2)' WHERE false) s(p);

-- the support functions take and return "internal": SQL cannot call them
SELECT count_distinct_final(NULL::internal);
SELECT count_distinct_append(NULL::internal, 1);
