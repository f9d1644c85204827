-- The stored sets of pg_upgrade_setup.sql, after pg_upgrade, against the
-- source tables: one line per check, "name|t" when it holds
-- (test/pg-upgrade.sh).  psql variable amcheck: the amcheck extension is
-- available.
\pset format unaligned
\pset tuples_only on
SET client_min_messages = warning;

CREATE FUNCTION pg_temp.upg_checks(p_ty text) RETURNS TABLE (name text, ok boolean)
LANGUAGE plpgsql AS $$
DECLARE
    r upg_types;
    elem text;
    pair int[];
    res boolean;
BEGIN
    SELECT * INTO r FROM upg_types WHERE ty = p_ty;
    elem := split_part(r.typ, ' ', 1);
    -- the native results per group, from one pass over the source table
    DROP TABLE IF EXISTS pg_temp.nat_d, pg_temp.nat;
    EXECUTE format('CREATE TEMP TABLE nat_d AS SELECT DISTINCT g, v FROM src_%s', r.ty);
    ANALYZE nat_d;
    EXECUTE format($q$
        CREATE TEMP TABLE nat AS
        SELECT t.g, coalesce(n.c, 0) AS c, coalesce(n.a, '{}') AS a, coalesce(n.s, distinct_set('{}'::%1$s[])) AS s
        FROM generate_series(0, 5) t(g)
             LEFT JOIN (SELECT g, count(*) AS c, array_agg(v ORDER BY v) AS a, distinct_set_agg(v) AS s
                        FROM nat_d GROUP BY g) n USING (g)$q$, elem);
    EXECUTE format($q$
        SELECT count(*) = 6 AND bool_and(cardinality(t.s) = n.c) FROM sets_%1$s t JOIN nat n USING (g)$q$, r.ty) INTO res;
    name := r.ty || ': cardinality = count(DISTINCT v)'; ok := res; RETURN NEXT;

    EXECUTE format($q$
        SELECT count(*) = 6 AND bool_and(distinct_set_to_array(t.s, NULL::%2$s) = n.a)
        FROM sets_%1$s t JOIN nat n USING (g)$q$, r.ty, r.typ) INTO res;
    name := r.ty || ': distinct_set_to_array = array_agg(DISTINCT v ORDER BY v)'; ok := res; RETURN NEXT;

    EXECUTE format($q$
        SELECT count(*) = 6 AND bool_and(t.s = n.s AND distinct_set_send(t.s) = distinct_set_send(n.s))
        FROM sets_%1$s t JOIN nat n USING (g)$q$, r.ty) INTO res;
    name := r.ty || ': equal (and the same bytes) to distinct_set_agg(v) recomputed'; ok := res; RETURN NEXT;

    EXECUTE format($q$
        SELECT bool_and(s::text::distinct_set = s AND distinct_set_from_bytes(distinct_set_send(s)) = s)
        FROM sets_%1$s$q$, r.ty) INTO res;
    name := r.ty || ': text and binary forms read back equal'; ok := res; RETURN NEXT;

    -- membership of values of groups 2 and 3 in the sets of groups 2 and 4:
    -- samples (a large set of byte keys is decoded for every call)
    EXECUTE format($q$
        SELECT count(*) > 300 AND bool_and(distinct_set_contains(b.s, a.v) = (n.v IS NOT NULL))
        FROM src_%1$s a JOIN sets_%1$s b ON b.g IN (2, 4)
             LEFT JOIN nat_d n ON n.g = b.g AND n.v = a.v
        WHERE a.g IN (2, 3)
          AND hashtext(a.v::text) %% (CASE WHEN b.g = 2 AND a.g = 2 THEN 1 WHEN b.g = 2 THEN 20
                                           WHEN a.g = 2 THEN 5 ELSE 100 END) = 0$q$, r.ty) INTO res;
    name := r.ty || ': distinct_set_contains'; ok := res; RETURN NEXT;

    -- operators on pairs of groups, against one native pass over both
    FOREACH pair SLICE 1 IN ARRAY ARRAY[[3, 4], [2, 5], [0, 3], [1, 5], [4, 5], [2, 2]]
    LOOP
        EXECUTE format($q$
            WITH x AS (SELECT v, bool_or(g = %2$s) AS ina, bool_or(g = %3$s) AS inb
                       FROM nat_d WHERE g IN (%2$s, %3$s) GROUP BY v),
                 n AS (SELECT coalesce(distinct_set_agg(v), e) AS u,
                              coalesce(distinct_set_agg(v) FILTER (WHERE ina AND inb), e) AS i,
                              coalesce(distinct_set_agg(v) FILTER (WHERE ina AND NOT inb), e) AS amb,
                              coalesce(distinct_set_agg(v) FILTER (WHERE inb AND NOT ina), e) AS bma,
                              coalesce(bool_and(ina), true) AS b_in_a, coalesce(bool_and(inb), true) AS a_in_b,
                              coalesce(bool_or(ina AND inb), false) AS overlap
                       FROM x, (SELECT distinct_set('{}'::%4$s[]) AS e) e GROUP BY e),
                 s AS (SELECT (SELECT s FROM sets_%1$s WHERE g = %2$s) AS a,
                              (SELECT s FROM sets_%1$s WHERE g = %3$s) AS b)
            SELECT (a | b) = u AND (b | a) = u AND (a & b) = i AND (b & a) = i
                   AND (a - b) = amb AND (b - a) = bma
                   AND (a @> b) = b_in_a AND (b <@ a) = b_in_a AND (b @> a) = a_in_b AND (a <@ b) = a_in_b
                   AND (a && b) = overlap AND (b && a) = overlap
                   AND (a = b) = (b_in_a AND a_in_b) AND (a <> b) = NOT (b_in_a AND a_in_b)
                   AND ((a < b) OR (a > b) OR (a = b)) AND (a <= b) = NOT (a > b)
                   AND cardinality(a | b) = cardinality(a) + cardinality(b) - cardinality(a & b)
            FROM n, s$q$, r.ty, pair[1], pair[2], elem) INTO res;
        name := format('%s: | & - @> <@ && = <> < on groups %s and %s', r.ty, pair[1], pair[2]);
        ok := res; RETURN NEXT;
    END LOOP;

    EXECUTE format($q$
        SELECT (SELECT distinct_set_union_agg(s) FROM sets_%1$s) = (SELECT distinct_set_agg(v) FROM nat_d)
           AND (SELECT distinct_set_intersect_agg(s) FROM sets_%1$s WHERE g IN (2, 5))
               = (SELECT distinct_set_agg(v) FROM (SELECT v FROM src_%1$s WHERE g = 2
                                                   INTERSECT SELECT v FROM src_%1$s WHERE g = 5) i)$q$, r.ty) INTO res;
    name := r.ty || ': distinct_set_union_agg, distinct_set_intersect_agg'; ok := res; RETURN NEXT;
END $$;

SELECT c.name, c.ok FROM upg_types t, pg_temp.upg_checks(t.ty) c ORDER BY t.ty;

SELECT 'all_sets: one row per set of sets_*, the same values',
       count(*) = 37 AND count(*) FILTER (WHERE a.s = coalesce(i4.s, i8.s, tx.s, u.s, n.s, d.s)) = 36
FROM all_sets a
     LEFT JOIN sets_int4 i4 ON a.ty = 'int4' AND i4.g = a.g LEFT JOIN sets_int8 i8 ON a.ty = 'int8' AND i8.g = a.g
     LEFT JOIN sets_text tx ON a.ty = 'text' AND tx.g = a.g LEFT JOIN sets_uuid u ON a.ty = 'uuid' AND u.g = a.g
     LEFT JOIN sets_numeric n ON a.ty = 'numeric' AND n.g = a.g LEFT JOIN sets_date d ON a.ty = 'date' AND d.g = a.g;
SELECT 'large sets are stored out of line (toasted), over 1 MB each',
       (SELECT count(*) FROM all_sets WHERE pg_column_size(s) > 1024 * 1024) >= 4
       AND pg_relation_size((SELECT reltoastrelid FROM pg_class WHERE relname = 'all_sets')) > 8 * 1024 * 1024;
SELECT 'a set of a domain (referenced by name)',
       distinct_set_to_array(s, NULL::upg_pos)::text = '{1,2,3}' AND s::text = 'upg_pos:{1,2,3}'
FROM all_sets WHERE ty = 'domain';
SELECT 'text sets order by their argument''s collation',
       distinct_set_to_array(s, NULL::text COLLATE upg_coll) = (SELECT array_agg(DISTINCT v ORDER BY v) FROM src_text WHERE g = 2)
FROM sets_text WHERE g = 2;

-- the indexes: every set found through them
SET enable_seqscan = off;
SET enable_bitmapscan = off;
CREATE FUNCTION pg_temp.plan(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    l text;
    res text := '';
BEGIN
    FOR l IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
        res := res || l || E'\n';
    END LOOP;
    RETURN res;
END $$;
SELECT 'hash and btree indexes: used for s = const',
       pg_temp.plan($$SELECT g FROM all_sets WHERE s = 'integer:{7}'$$) LIKE '%Index Scan using all_sets_s_hash%'
       AND pg_temp.plan($$SELECT g FROM small_sets WHERE s = 'integer:{7}'$$) LIKE '%Index Scan using small_sets_s_btree%';
SELECT 'hash index: every set found once', bool_and((SELECT count(*) FROM all_sets b WHERE b.s = a.s) = 1)
FROM all_sets a;
SELECT 'btree index: every small set found once', bool_and((SELECT count(*) FROM small_sets b WHERE b.s = a.s) = 1)
       AND count(*) >= 20
FROM small_sets a;
SELECT 'btree index: an ordered index scan gives the sort order',
       (SELECT array_agg(ty || g ORDER BY s) FROM small_sets)
       = (SELECT array_agg(ty || g) FROM (SELECT ty, g FROM small_sets ORDER BY s) o);
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT 'btree index: sort order equals a sequential sort',
       (SELECT array_agg(ty || g ORDER BY s) FROM small_sets)
       = (SELECT array_agg(ty || g) FROM (SELECT ty, g FROM small_sets ORDER BY s) o);
\if :amcheck
CREATE EXTENSION IF NOT EXISTS amcheck;
SELECT 'btree index: amcheck bt_index_check (heapallindexed)',
       (SELECT true FROM bt_index_check('small_sets_s_btree', true));
\endif
-- the indexes still take new entries
BEGIN;
INSERT INTO small_sets VALUES ('int4', 99, distinct_set(ARRAY[-5, 5]));
INSERT INTO all_sets VALUES ('int4', 99, distinct_set(ARRAY[-5, 5]));
SET LOCAL enable_seqscan = off;
SET LOCAL enable_bitmapscan = off;
SELECT 'indexes take new sets after the upgrade',
       (SELECT count(*) FROM small_sets WHERE s = 'integer:{5,-5}') = 1
       AND (SELECT count(*) FROM all_sets WHERE s = 'integer:{-5,5}') = 1;
ROLLBACK;
