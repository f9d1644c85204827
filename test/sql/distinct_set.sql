-- distinct_set: every function and operator against native SQL (UNION,
-- INTERSECT, EXCEPT, COUNT(DISTINCT), array_agg(DISTINCT ... ORDER BY)), for
-- fixed-width keys (int4, int8, float8 with -0 and NaN, date), byte keys
-- (text under "C", uuid, numeric with 1.0 = 1.00), serial and parallel.
SET extra_float_digits = 0;
SET jit = off;

-- error helper: the SQLSTATE and message of a statement, or 'ok'
CREATE FUNCTION ds_err(q text, detail boolean DEFAULT false) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    d text;
BEGIN
    EXECUTE q;
    RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS d = PG_EXCEPTION_DETAIL;
    RETURN 'ERROR ' || SQLSTATE || ': ' || SQLERRM ||
        CASE WHEN detail AND d <> '' THEN ' (' || d || ')' ELSE '' END;
END
$$;

-- groups 1-4 overlap; group 5 is small (searches instead of merges); group 6
-- has only NULLs
CREATE TABLE ds_t (g int, i4 int4, i8 int8, f8 float8, d date,
                   t text COLLATE "C", u uuid, n numeric);
INSERT INTO ds_t
SELECT x % 4 + 1,
       (x * 7) % 613 - 300,
       ((x * 13) % 997)::int8 * 1000000007 - 500000000000,
       CASE x % 50 WHEN 0 THEN '-0' WHEN 1 THEN '0' WHEN 2 THEN 'NaN'
                   WHEN 3 THEN '-Infinity' ELSE (((x * 3) % 2111) / 4.0 - 20)::float8 END,
       date '2020-01-01' + (x * 11) % 1999,
       CASE WHEN x % 17 = 0 THEN '' ELSE md5(((x * 5) % 1601)::text) END,
       md5(((x * 3) % 1301)::text)::uuid,
       CASE x % 3 WHEN 0 THEN ((x * 7) % 1511)::numeric / 10
                  WHEN 1 THEN round(((x * 7) % 1511)::numeric / 10, 3)
                  ELSE ((x * 7) % 1511) END
FROM generate_series(1, 2000) x;
INSERT INTO ds_t SELECT 5, 7, 7, 1.5, '2020-02-02', md5('7'), md5('7')::uuid, 7.0
FROM generate_series(1, 3);
INSERT INTO ds_t (g) VALUES (6), (6);
INSERT INTO ds_t (g) SELECT x % 5 + 1 FROM generate_series(1, 10) x;

-- every check for one column c of type typ: rows (check, number failed)
CREATE FUNCTION ds_check(c text, typ text)
RETURNS TABLE (col text, chk text, failed bigint) LANGUAGE plpgsql AS $f$
DECLARE
    q text;
BEGIN
    EXECUTE format($q$CREATE TEMP TABLE ds_sets AS
        SELECT g, distinct_set_agg(%1$I) AS s FROM ds_t GROUP BY g$q$, c);
    col := c;

    chk := 'agg = array_agg(DISTINCT)';
    EXECUTE format($q$SELECT count(*) FROM ds_sets s JOIN (
        SELECT g, array_agg(DISTINCT %1$I ORDER BY %1$I) FILTER (WHERE %1$I IS NOT NULL) AS a
        FROM ds_t GROUP BY g) n USING (g)
        WHERE distinct_set_to_array(s.s, NULL::%2$s) IS DISTINCT FROM n.a
          AND NOT (s.s IS NULL AND n.a IS NULL)$q$, c, typ) INTO failed;
    RETURN NEXT;

    chk := 'cardinality = count(DISTINCT)';
    EXECUTE format($q$SELECT count(*) FROM ds_sets s JOIN (
        SELECT g, count(DISTINCT %1$I) AS n FROM ds_t GROUP BY g) n USING (g)
        WHERE coalesce(cardinality(s.s), 0) <> n.n$q$, c) INTO failed;
    RETURN NEXT;

    chk := 'values = to_array';
    EXECUTE format($q$SELECT count(*) FROM ds_sets s
        WHERE ARRAY(SELECT distinct_set_values(s.s, NULL::%1$s))
              IS DISTINCT FROM distinct_set_to_array(s.s, NULL::%1$s)
          AND s.s IS NOT NULL$q$, typ) INTO failed;
    RETURN NEXT;

    chk := 'distinct_set(array) = agg';
    EXECUTE format($q$SELECT count(*) FROM ds_sets s JOIN (
        SELECT g, distinct_set(array_agg(%1$I)) AS s FROM ds_t GROUP BY g) n USING (g)
        WHERE s.s IS DISTINCT FROM n.s AND s.s IS NOT NULL$q$, c) INTO failed;
    RETURN NEXT;

    chk := 'text and binary round trips';
    SELECT count(*) INTO failed FROM ds_sets s
    WHERE s.s IS NOT NULL
      AND (s.s::text::distinct_set <> s.s OR s.s::text::distinct_set::text <> s.s::text
           OR distinct_set_from_bytes(distinct_set_send(s.s)) <> s.s);
    RETURN NEXT;

    chk := 'cardinality of | & - = count of UNION INTERSECT EXCEPT';
    EXECUTE format($q$SELECT count(*) FROM ds_sets a, ds_sets b
        WHERE a.s IS NOT NULL AND b.s IS NOT NULL AND (
            cardinality(a.s | b.s) <> (SELECT count(*) FROM (
                SELECT %1$I FROM ds_t WHERE g = a.g AND %1$I IS NOT NULL UNION
                SELECT %1$I FROM ds_t WHERE g = b.g AND %1$I IS NOT NULL) x)
         OR cardinality(a.s & b.s) <> (SELECT count(*) FROM (
                SELECT %1$I FROM ds_t WHERE g = a.g AND %1$I IS NOT NULL INTERSECT
                SELECT %1$I FROM ds_t WHERE g = b.g) x)
         OR cardinality(distinct_set_intersect(a.s, b.s)) <> (SELECT count(*) FROM (
                SELECT %1$I FROM ds_t WHERE g = a.g AND %1$I IS NOT NULL INTERSECT
                SELECT %1$I FROM ds_t WHERE g = b.g) x)
         OR cardinality(a.s - b.s) <> (SELECT count(*) FROM (
                SELECT %1$I FROM ds_t WHERE g = a.g AND %1$I IS NOT NULL EXCEPT
                SELECT %1$I FROM ds_t WHERE g = b.g) x))$q$, c) INTO failed;
    RETURN NEXT;

    chk := '| & - = UNION INTERSECT EXCEPT';
    EXECUTE format($q$SELECT count(*) FROM ds_sets a, ds_sets b
        WHERE a.s IS NOT NULL AND b.s IS NOT NULL AND (
            distinct_set_to_array(a.s | b.s, NULL::%2$s) <> ARRAY(
                SELECT %1$I FROM ds_t WHERE g = a.g AND %1$I IS NOT NULL UNION
                SELECT %1$I FROM ds_t WHERE g = b.g AND %1$I IS NOT NULL ORDER BY 1)
         OR distinct_set_to_array(a.s & b.s, NULL::%2$s) <> ARRAY(
                SELECT %1$I FROM ds_t WHERE g = a.g AND %1$I IS NOT NULL INTERSECT
                SELECT %1$I FROM ds_t WHERE g = b.g ORDER BY 1)
         OR distinct_set_to_array(a.s - b.s, NULL::%2$s) <> ARRAY(
                SELECT %1$I FROM ds_t WHERE g = a.g AND %1$I IS NOT NULL EXCEPT
                SELECT %1$I FROM ds_t WHERE g = b.g ORDER BY 1)
         OR (a.s = b.s) <> NOT EXISTS (
                (SELECT %1$I FROM ds_t WHERE g = a.g AND %1$I IS NOT NULL EXCEPT
                 SELECT %1$I FROM ds_t WHERE g = b.g) UNION ALL
                (SELECT %1$I FROM ds_t WHERE g = b.g AND %1$I IS NOT NULL EXCEPT
                 SELECT %1$I FROM ds_t WHERE g = a.g))
         OR (a.s <> b.s) = (a.s = b.s)
         OR (a.s | b.s) <> (b.s | a.s)
         OR (a.s & b.s) <> (b.s & a.s))$q$, c, typ) INTO failed;
    RETURN NEXT;

    chk := '@> <@ && against EXCEPT / INTERSECT';
    EXECUTE format($q$SELECT count(*) FROM ds_sets a, ds_sets b
        WHERE a.s IS NOT NULL AND b.s IS NOT NULL AND (
            (a.s @> b.s) <> NOT EXISTS (
                SELECT %1$I FROM ds_t WHERE g = b.g AND %1$I IS NOT NULL EXCEPT
                SELECT %1$I FROM ds_t WHERE g = a.g)
         OR (b.s <@ a.s) <> (a.s @> b.s)
         OR (a.s && b.s) <> EXISTS (
                SELECT %1$I FROM ds_t WHERE g = a.g AND %1$I IS NOT NULL INTERSECT
                SELECT %1$I FROM ds_t WHERE g = b.g)
         OR (a.s @> (a.s & b.s)) IS NOT TRUE
         OR ((a.s - b.s) && b.s) IS NOT FALSE)$q$, c) INTO failed;
    RETURN NEXT;

    chk := 'contains = EXISTS';
    EXECUTE format($q$SELECT count(*) FROM ds_sets a, (SELECT DISTINCT %1$I AS v FROM ds_t WHERE %1$I IS NOT NULL) v
        WHERE a.s IS NOT NULL AND distinct_set_contains(a.s, v.v) <>
              EXISTS (SELECT FROM ds_t WHERE g = a.g AND %1$I = v.v)$q$, c) INTO failed;
    RETURN NEXT;

    chk := 'union_agg = COUNT(DISTINCT), array_agg(DISTINCT)';
    EXECUTE format($q$SELECT count(*) FROM
        (SELECT distinct_set_union_agg(s) AS s FROM ds_sets) a,
        (SELECT count(DISTINCT %1$I) AS n,
                array_agg(DISTINCT %1$I ORDER BY %1$I) FILTER (WHERE %1$I IS NOT NULL) AS arr
         FROM ds_t) n
        WHERE cardinality(a.s) <> n.n OR distinct_set_to_array(a.s, NULL::%2$s) <> n.arr$q$, c, typ)
        INTO failed;
    RETURN NEXT;

    chk := 'cardinality(union_agg), cardinality(intersect_agg) = COUNT(DISTINCT)';
    EXECUTE format($q$SELECT count(*) FROM
        (SELECT g %% 2 AS k, cardinality(distinct_set_union_agg(s)) AS u,
                cardinality(distinct_set_union_agg(s) FILTER (WHERE g <> 3)) AS uf,
                cardinality(distinct_set_intersect_agg(s)) AS i
         FROM ds_sets GROUP BY 1) a JOIN
        (SELECT g %% 2 AS k, count(DISTINCT %1$I) AS u,
                count(DISTINCT %1$I) FILTER (WHERE g <> 3) AS uf
         FROM ds_t GROUP BY 1) n USING (k) LEFT JOIN
        (SELECT k, count(*) AS i
         FROM (SELECT g %% 2 AS k, %1$I, count(DISTINCT g) AS ng FROM ds_t
               WHERE %1$I IS NOT NULL GROUP BY 1, 2) x
         JOIN (SELECT g %% 2 AS k, count(*) AS nsets FROM ds_sets
               WHERE s IS NOT NULL GROUP BY 1) y USING (k)
         WHERE ng = nsets GROUP BY k) i USING (k)
        WHERE a.u <> n.u OR a.uf IS DISTINCT FROM n.uf OR a.i IS DISTINCT FROM coalesce(i.i, 0)$q$, c)
        INTO failed;
    RETURN NEXT;

    chk := 'intersect_agg = INTERSECT';
    EXECUTE format($q$SELECT count(*) FROM
        (SELECT distinct_set_intersect_agg(s) AS s FROM ds_sets WHERE g <= 4) a
        WHERE distinct_set_to_array(a.s, NULL::%2$s) <> ARRAY(
            SELECT %1$I FROM ds_t WHERE g = 1 AND %1$I IS NOT NULL
            INTERSECT SELECT %1$I FROM ds_t WHERE g = 2
            INTERSECT SELECT %1$I FROM ds_t WHERE g = 3
            INTERSECT SELECT %1$I FROM ds_t WHERE g = 4 ORDER BY 1)$q$, c, typ) INTO failed;
    RETURN NEXT;

    DROP TABLE ds_sets;
END
$f$;

SELECT c.* FROM (VALUES ('i4', 'int4'), ('i8', 'int8'), ('f8', 'float8'), ('d', 'date'),
                        ('t', 'text'), ('u', 'uuid'), ('n', 'numeric')) v(c, typ),
     ds_check(v.c, v.typ) c;

-- small sets as text
SELECT distinct_set_agg(i4) FROM ds_t WHERE g = 5;
SELECT distinct_set_agg(f8) FROM ds_t WHERE f8 IN ('-0', '0', 'NaN', '-Infinity');
SELECT distinct_set(ARRAY[1.0, 1.00, 2.50, 2.5, NULL]::numeric[]);
SELECT distinct_set(ARRAY['b', 'a', 'b', 'c d', '', NULL, 'é"\']::text[]);
SELECT distinct_set(ARRAY[true, false, true]);
SELECT distinct_set('{}'::int[]), cardinality(distinct_set('{}'::int[]));
SELECT distinct_set_agg(g) FROM ds_t WHERE false;
SELECT 'integer:{3, 1,2,2}'::distinct_set, ' bigint :{}'::distinct_set,
       'double precision:{NaN,-0,0,1e300}'::distinct_set,
       'character varying(3):{abc,a}'::distinct_set;
-- values in the order of the call's collation, stored in byte order
SELECT distinct_set_to_array(distinct_set(ARRAY['b', 'B', 'a', 'A']), NULL::text COLLATE "C"),
       distinct_set(ARRAY['b', 'B', 'a', 'A'] COLLATE "C") =
       distinct_set(ARRAY['b', 'B', 'a', 'A'] COLLATE "POSIX");
-- NULLs: a NULL set gives NULL, no rows, NULL
SELECT distinct_set_to_array(NULL, NULL::int), cardinality(NULL::distinct_set),
       (SELECT count(*) FROM distinct_set_values(NULL, NULL::int)),
       distinct_set_contains('integer:{1}', NULL::int);

-- a set's type is remembered by reference: a domain by name
CREATE DOMAIN ds_dom AS int CHECK (VALUE > 0);
SELECT distinct_set(ARRAY[2, 1]::ds_dom[]);
SELECT distinct_set_to_array('ds_dom:{3,1}', NULL::ds_dom),
       distinct_set_to_array('ds_dom:{3,1}', NULL::int);
SELECT ds_err($$SELECT 'ds_dom:{0}'::distinct_set$$);

-- format fixtures (version 1): stored bytes that every later version must
-- read, and write again unchanged
SELECT left(s::text, 80) AS s, distinct_set_send(s) = b AS same_bytes
FROM (VALUES
    ('\x01030400000000030100000017008000000100'::bytea),
    ('\x0103080100000004010000001400047ffffffffffffffb0003000500f79f94a58d1d00'),
    ('\x010408000000000401000002bd00000fffffffffffff3f000000000000f0fffffffffffffffbdfffffffffffffff0f'),
    ('\x01050000000000050100000019000000000161010162020163000162'),
    ('\x01050000000000020100000b86000010000000000000000000000000000000010010ffffffffffffffffffffffffffffffff'),
    ('\x010500000000000401000006a4000008027fff270e1387ff00010300050480000001040164'),
    ('\x0103040000000003010000043a0080001c890b00702f'),
    ('\x01010100000000020100000010000000'),
    ('\x0103020000000000010000001500'),
    ('\x0103040000000002027075626c69630064735f646f6d0000800000010203'),
    ('\x010304010000012c0100000017000180000001ab02'),
    ('\x01030401000003c00100000017000a800000045f035f035f035f035f035f035f035f035f035f')
) f(b), LATERAL (SELECT distinct_set_from_bytes(b) AS s) x;

-- the btree and hash operator classes: GROUP BY, DISTINCT, joins, indexes
CREATE TABLE ds_sets AS SELECT g, distinct_set_agg(i4) AS s FROM ds_t GROUP BY g;
INSERT INTO ds_sets SELECT g + 10, s FROM ds_sets;
SET enable_sort = off;
SELECT count(*), count(DISTINCT s) FROM ds_sets;
SELECT count(*) FROM (SELECT s FROM ds_sets GROUP BY s) x;
RESET enable_sort;
SET enable_hashagg = off;
SELECT count(*) FROM (SELECT s FROM ds_sets GROUP BY s) x;
RESET enable_hashagg;
SET enable_mergejoin = off;
SET enable_nestloop = off;
SELECT count(*) FROM ds_sets a JOIN ds_sets b ON a.s = b.s;
RESET enable_mergejoin;
SET enable_hashjoin = off;
SELECT count(*) FROM ds_sets a JOIN ds_sets b ON a.s = b.s;
RESET enable_hashjoin;
RESET enable_nestloop;
CREATE INDEX ON ds_sets (s);
CREATE INDEX ds_sets_hash ON ds_sets USING hash (s);
SET enable_seqscan = off;
SELECT g FROM ds_sets WHERE s = (SELECT s FROM ds_sets WHERE g = 5) ORDER BY g;
RESET enable_seqscan;
SELECT array_agg(g ORDER BY s, g) = array_agg(g ORDER BY distinct_set_send(s), g) AS byte_order,
       bool_and(s <= s AND s >= s AND NOT s < s AND NOT s > s) AS reflexive
FROM ds_sets;
-- cardinality reads the header of an out-of-line value only
CREATE TABLE ds_big AS SELECT distinct_set_agg(x * 3) AS s FROM generate_series(1, 200000) x;
SELECT cardinality(s), pg_column_size(s) < 100000 AS small,
       distinct_set_contains(s, 299997), distinct_set_contains(s, 299998)
FROM ds_big;

-- distinct_set_contains reads block headers or runs only: every value near
-- and between the keys of a few layouts, against the values themselves
CREATE TABLE ds_lay AS SELECT k, distinct_set(a) AS s, a FROM (VALUES
    ('blocks', ARRAY(SELECT x * 3 + x % 7 FROM generate_series(-300, 700) x)),
    ('runs', ARRAY(SELECT x FROM generate_series(1, 1000) x WHERE x % 97 > 5)),
    ('wide gaps', ARRAY(SELECT (x * 65537) # (x << 20) FROM generate_series(1, 300) x))
) v(k, a);
SELECT k, (s::text::distinct_set = s) AS round_trip, left(distinct_set_send(s)::text, 10) AS header,
    (SELECT count(*) FROM (SELECT DISTINCT v FROM unnest(a) u, LATERAL (VALUES (u - 1), (u), (u + 1)) w(v)) c
     WHERE distinct_set_contains(s, c.v) <> (c.v = ANY (a))) AS failed
FROM ds_lay ORDER BY 1;
SELECT (SELECT count(*) FROM (SELECT DISTINCT v FROM unnest(a) u, LATERAL (VALUES (u - 1), (u), (u + 1)) w(v)) c
        WHERE distinct_set_contains(s, c.v) <> (c.v = ANY (a))) AS failed_int8
FROM (SELECT a, distinct_set(a) AS s
      FROM (SELECT ARRAY(SELECT x::int8 * 100000000000 FROM generate_series(-200, 200) x) AS a) x) y;
DROP TABLE ds_lay;

-- parallel: distinct_set_agg (count_distinct's partial states) and the
-- union and intersection aggregates (their own)
CREATE TABLE ds_par AS SELECT x % 1000 AS g, (x * 7919) % 50000 + 100 AS v
FROM generate_series(1, 200000) x;
INSERT INTO ds_par SELECT g, v FROM generate_series(0, 999) g, generate_series(1, 50) v;
CREATE TABLE ds_par_sets AS SELECT g, distinct_set_agg(v) AS s FROM ds_par GROUP BY g;
ANALYZE ds_par;
ANALYZE ds_par_sets;
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET enable_sort = off;
EXPLAIN (COSTS OFF) SELECT distinct_set_agg(v) FROM ds_par;
SELECT cardinality(distinct_set_agg(v)) = (SELECT count(DISTINCT v) FROM ds_par) FROM ds_par;
SELECT count(*) FROM (SELECT g, distinct_set_agg(v) AS s FROM ds_par GROUP BY g) p
JOIN ds_par_sets USING (g) WHERE p.s <> ds_par_sets.s;
EXPLAIN (COSTS OFF) SELECT distinct_set_union_agg(s), distinct_set_intersect_agg(s) FROM ds_par_sets;
SELECT distinct_set_union_agg(s) = (SELECT distinct_set_agg(v) FROM ds_par),
       distinct_set_intersect_agg(s) = (SELECT distinct_set(array_agg(v)) FROM
           (SELECT v FROM ds_par GROUP BY v HAVING count(DISTINCT g) = 1000) x)
FROM ds_par_sets;
SELECT count(*) FROM
    (SELECT g % 7 AS k, distinct_set_union_agg(s) AS s FROM ds_par_sets GROUP BY 1) a
    JOIN (SELECT g % 7 AS k, distinct_set_agg(v) AS s FROM ds_par GROUP BY 1) b USING (k)
WHERE a.s <> b.s;
RESET enable_sort;
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;

-- cardinality(distinct_set_union_agg(s)) and cardinality(distinct_set_intersect_agg(s))
-- are planned as counting aggregates that do not build the set: plain,
-- grouped, parallel, with FILTER, DISTINCT and ORDER BY, and over windows
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT cardinality(distinct_set_union_agg(s)), cardinality(distinct_set_intersect_agg(s)) FROM ds_par_sets;
SELECT cardinality(distinct_set_union_agg(s)) = (SELECT count(DISTINCT v) FROM ds_par) AS union_ok,
       cardinality(distinct_set_intersect_agg(s)) =
           (SELECT count(*) FROM (SELECT v FROM ds_par GROUP BY v HAVING count(DISTINCT g) = 1000) x) AS intersect_ok
FROM ds_par_sets;
SELECT count(*) AS groups, count(*) FILTER (WHERE a.n <> b.n OR a.nf <> b.nf OR a.nd <> b.n OR a.no <> b.n) AS failed
FROM (SELECT g % 7 AS k, cardinality(distinct_set_union_agg(s)) AS n,
             cardinality(distinct_set_union_agg(s) FILTER (WHERE g % 3 = 0)) AS nf,
             cardinality(distinct_set_union_agg(DISTINCT s)) AS nd,
             cardinality(distinct_set_union_agg(s ORDER BY g DESC)) AS no
      FROM ds_par_sets GROUP BY 1) a
JOIN (SELECT g % 7 AS k, count(DISTINCT v) AS n, count(DISTINCT v) FILTER (WHERE g % 3 = 0) AS nf
      FROM ds_par GROUP BY 1) b USING (k);
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
-- in HAVING, and with the set itself in the same query (one transition state)
SELECT g % 3 AS k, cardinality(distinct_set_union_agg(s)) AS n,
       cardinality(distinct_set_union_agg(s)) = cardinality(distinct_set_to_array(distinct_set_union_agg(s), 0)) AS same
FROM ds_par_sets GROUP BY 1 HAVING cardinality(distinct_set_union_agg(s)) > 0 ORDER BY 1;
-- cardinality of the set operators: counted without building the set
EXPLAIN (VERBOSE, COSTS OFF)
SELECT cardinality(a.s & b.s), cardinality(a.s | b.s), cardinality(a.s - b.s)
FROM ds_par_sets a, ds_par_sets b WHERE a.g = 1 AND b.g = 2;
-- dense keys (a bitmap), disjoint ranges, an empty set, and sparse keys,
-- against native INTERSECT / UNION / EXCEPT
SELECT x,
       cardinality(distinct_set(a) & distinct_set(b)) =
           (SELECT count(*) FROM (SELECT unnest(a) INTERSECT SELECT unnest(b)) q) AS i_ok,
       cardinality(distinct_set(a) | distinct_set(b)) =
           (SELECT count(*) FROM (SELECT unnest(a) UNION SELECT unnest(b)) q) AS u_ok,
       cardinality(distinct_set(a) - distinct_set(b)) =
           (SELECT count(*) FROM (SELECT unnest(a) EXCEPT SELECT unnest(b)) q) AS d_ok
FROM (VALUES ('dense', ARRAY(SELECT generate_series(1, 3000, 2)::int8),
                       ARRAY(SELECT generate_series(1000, 5000, 3)::int8)),
             ('disjoint', ARRAY[1, 2, 3]::int8[], ARRAY[7, 8]::int8[]),
             ('empty', '{}'::int8[], ARRAY[7, 8]::int8[]),
             ('sparse', ARRAY(SELECT x::int8 * 1000003 FROM generate_series(1, 3000, 2) x),
                        ARRAY(SELECT x::int8 * 1000003 FROM generate_series(1000, 5000, 3) x))) v(x, a, b)
ORDER BY 1;
-- sets of runs (read in place and merged run by run): runs that overlap,
-- adjoin, interleave, two long runs, single keys between runs, against native
-- INTERSECT / UNION / EXCEPT, value by value; and their union and
-- intersection aggregates against native UNION / INTERSECT of all of them
CREATE TEMP TABLE ds_runs (x text, a int4[], b int4[]);
INSERT INTO ds_runs VALUES
    ('overlap', ARRAY(SELECT i FROM generate_series(0, 19999) i WHERE i % 10 < 6),
                ARRAY(SELECT i FROM generate_series(0, 19999) i WHERE (i + 3) % 10 < 6)),
    ('adjoin', ARRAY(SELECT i FROM generate_series(0, 19999) i WHERE i % 20 < 10),
               ARRAY(SELECT i FROM generate_series(0, 19999) i WHERE i % 20 >= 10)),
    ('inside', ARRAY(SELECT i FROM generate_series(0, 19999) i WHERE i % 50 < 40),
               ARRAY(SELECT i FROM generate_series(0, 29999) i WHERE i % 50 BETWEEN 5 AND 9 OR i % 700 = 45)),
    ('two runs', ARRAY(SELECT i FROM generate_series(-30000, 30000) i WHERE abs(i) > 10000),
                 ARRAY(SELECT i FROM generate_series(-20000, 20000) i)),
    ('extremes', ARRAY(SELECT i FROM generate_series(-2147483648, -2147480000) i) ||
                 ARRAY(SELECT i FROM generate_series(2147480000, 2147483647) i),
                 ARRAY(SELECT i FROM generate_series(2147481000, 2147483647) i WHERE i % 3 > 0));
SELECT x,
       distinct_set_to_array(distinct_set(a) & distinct_set(b), 0) =
           ARRAY(SELECT unnest(a) INTERSECT SELECT unnest(b) ORDER BY 1) AS i_ok,
       distinct_set_to_array(distinct_set(a) | distinct_set(b), 0) =
           ARRAY(SELECT unnest(a) UNION SELECT unnest(b) ORDER BY 1) AS u_ok,
       distinct_set_to_array(distinct_set(a) - distinct_set(b), 0) =
           ARRAY(SELECT unnest(a) EXCEPT SELECT unnest(b) ORDER BY 1) AS d_ok,
       distinct_set_to_array(distinct_set(b) - distinct_set(a), 0) =
           ARRAY(SELECT unnest(b) EXCEPT SELECT unnest(a) ORDER BY 1) AS d2_ok,
       cardinality(distinct_set(a) & distinct_set(b)) =
           (SELECT count(*) FROM (SELECT unnest(a) INTERSECT SELECT unnest(b)) q) AS ic_ok,
       (distinct_set(a) @> distinct_set(b)) =
           NOT EXISTS (SELECT unnest(b) EXCEPT SELECT unnest(a)) AS c_ok,
       (distinct_set(a) <@ distinct_set(b)) =
           NOT EXISTS (SELECT unnest(a) EXCEPT SELECT unnest(b)) AS c2_ok,
       (distinct_set(a) && distinct_set(b)) =
           EXISTS (SELECT unnest(a) INTERSECT SELECT unnest(b)) AS o_ok
FROM ds_runs ORDER BY 1;
SELECT distinct_set_to_array(distinct_set_union_agg(s), 0) =
           ARRAY(SELECT DISTINCT v FROM ds_runs, unnest(a || b) v ORDER BY 1) AS union_ok,
       distinct_set_to_array(distinct_set_intersect_agg(s) FILTER (WHERE x <> 'extremes'), 0) =
           ARRAY(SELECT unnest(a) FROM ds_runs WHERE x = 'overlap'
                 INTERSECT SELECT unnest(b) FROM ds_runs WHERE x = 'overlap'
                 INTERSECT SELECT unnest(a) FROM ds_runs WHERE x = 'adjoin'
                 INTERSECT SELECT unnest(a) FROM ds_runs WHERE x = 'inside'
                 INTERSECT SELECT unnest(a) FROM ds_runs WHERE x = 'two runs'
                 INTERSECT SELECT unnest(b) FROM ds_runs WHERE x = 'two runs'
                 ORDER BY 1) AS intersect_ok,
       cardinality(distinct_set_intersect_agg(s) FILTER (WHERE x <> 'extremes')) > 0 AS nonempty
FROM (SELECT x, distinct_set(a) AS s FROM ds_runs UNION ALL SELECT x, distinct_set(b) FROM ds_runs
      WHERE x IN ('overlap', 'two runs')) q;
-- an aggregate of the outer query inside a subquery, grouping sets, and
-- EXCLUDE in a frame, against native counts
SELECT k, (SELECT cardinality(distinct_set_union_agg(q.s)) FROM (VALUES (1)) o(x)) =
          (SELECT count(DISTINCT v) FROM ds_par p WHERE p.g % 3 = q.k) AS outer_ok
FROM (SELECT g % 3 AS k, s FROM ds_par_sets) q GROUP BY k ORDER BY k;
SELECT k, n = (SELECT count(DISTINCT v) FROM ds_par p WHERE k IS NULL OR p.g % 2 = k) AS sets_ok
FROM (SELECT g % 2 AS k, cardinality(distinct_set_union_agg(s)) AS n
      FROM ds_par_sets GROUP BY GROUPING SETS ((g % 2), ())) z ORDER BY k;
SELECT count(*) AS frames, count(*) FILTER (WHERE n IS DISTINCT FROM r) AS failed
FROM (SELECT cardinality(distinct_set_union_agg(s) OVER (ORDER BY g ROWS BETWEEN 1 PRECEDING
                                                           AND 1 FOLLOWING EXCLUDE CURRENT ROW)) AS n,
             (SELECT count(DISTINCT v) FROM ds_par p WHERE p.g IN (q.g - 1, q.g + 1) AND p.g < 40) AS r
      FROM (SELECT g, s FROM ds_par_sets WHERE g < 40) q) z;
-- spilling HashAggregate (work_mem 64kB: the states go to disk through the
-- serial / deserial functions): the union and its counting form, against
-- native results
CREATE TABLE ds_sp AS SELECT x % 3000 AS g, (x::int8 * 7919 % 20011)::int AS v FROM generate_series(1, 300000) x;
CREATE TABLE ds_sp_sets AS SELECT g, g % 500 AS k, distinct_set_agg(v) AS s FROM ds_sp GROUP BY g;
ANALYZE ds_sp_sets;
SET work_mem = '64kB';
SET enable_sort = off;
SET max_parallel_workers_per_gather = 0;
SELECT count(*) AS groups, count(*) FILTER (WHERE a.n <> b.n OR a.u <> b.u) AS failed
FROM (SELECT k, cardinality(distinct_set_union_agg(s)) AS n, distinct_set_union_agg(s) AS u
      FROM ds_sp_sets GROUP BY k) a
JOIN (SELECT g % 500 AS k, count(DISTINCT v) AS n, distinct_set_agg(v) AS u FROM ds_sp GROUP BY 1) b USING (k);
RESET work_mem;
RESET enable_sort;
RESET max_parallel_workers_per_gather;
DROP TABLE ds_sp, ds_sp_sets;
-- not rewritten: a set that is not an aggregate's, an aggregate of another schema
EXPLAIN (VERBOSE, COSTS OFF) SELECT cardinality(s) FROM ds_par_sets;
CREATE SCHEMA ds_other;
CREATE AGGREGATE ds_other.distinct_set_union_agg(distinct_set) (
    SFUNC = distinct_set_union, STYPE = distinct_set);
EXPLAIN (VERBOSE, COSTS OFF) SELECT cardinality(ds_other.distinct_set_union_agg(s)) FROM ds_par_sets;
SELECT cardinality(ds_other.distinct_set_union_agg(s)) = (SELECT count(DISTINCT v) FROM ds_par) FROM ds_par_sets;
DROP SCHEMA ds_other CASCADE;
-- window frames, sliding and running
SELECT count(*) AS frames, count(*) FILTER (WHERE n IS DISTINCT FROM r OR i IS DISTINCT FROM ri OR c IS DISTINCT FROM rc) AS failed
FROM (SELECT cardinality(distinct_set_union_agg(s) OVER w) AS n,
             cardinality(distinct_set_intersect_agg(s) OVER w) AS i,
             cardinality(distinct_set_union_agg(s) OVER (ORDER BY g)) AS c,
             (SELECT count(DISTINCT v) FROM ds_par p WHERE p.g BETWEEN q.g - 2 AND q.g) AS r,
             (SELECT count(*) FROM (SELECT v FROM ds_par p WHERE p.g BETWEEN q.g - 2 AND q.g
                  GROUP BY v HAVING count(DISTINCT p.g) = least(q.g + 1, 3)) x) AS ri,
             (SELECT count(DISTINCT v) FROM ds_par p WHERE p.g <= q.g) AS rc
      FROM (SELECT g, s FROM ds_par_sets WHERE g < 40) q
      WINDOW w AS (ORDER BY g ROWS BETWEEN 2 PRECEDING AND CURRENT ROW)) z;

-- window frames: distinct_set_agg in moving-aggregate mode (count_distinct's
-- state), union and intersection recomputed per frame
SELECT count(*) AS frames,
       count(*) FILTER (WHERE distinct_set_to_array(s, NULL::int) IS DISTINCT FROM a) AS failed
FROM (SELECT distinct_set_agg(v) OVER w AS s, array_agg_distinct(v) OVER w AS a
      FROM (SELECT x, CASE WHEN x % 11 = 0 THEN NULL ELSE (x * 7) % 13 END AS v
            FROM generate_series(1, 300) x) t
      WINDOW w AS (ORDER BY x ROWS BETWEEN 10 PRECEDING AND CURRENT ROW)) z;
SELECT count(*) AS frames, count(*) FILTER (WHERE u IS DISTINCT FROM r OR i IS DISTINCT FROM n) AS failed
FROM (SELECT d,
             distinct_set_union_agg(s) OVER w AS u,
             distinct_set_intersect_agg(s) OVER w AS i,
             (SELECT distinct_set_agg(v) FROM ds_par p WHERE p.g BETWEEN q.g - 2 AND q.g) AS r,
             (SELECT distinct_set(array_agg(v)) FROM (SELECT v FROM ds_par p WHERE p.g BETWEEN q.g - 2 AND q.g
                  GROUP BY v HAVING count(DISTINCT p.g) = least(q.g + 1, 3)) x) AS n
      FROM (SELECT g, g AS d, s FROM ds_par_sets WHERE g < 40) q
      WINDOW w AS (ORDER BY g ROWS BETWEEN 2 PRECEDING AND CURRENT ROW)) z;

-- sliding frames of distinct_set_union_agg: a count per key of a dense range
-- (sets enter and leave), or a plain union computed again per frame (a sparse
-- set, byte keys, more than 255 sets in a frame); NULL and empty sets among
-- them; against the raw rows
CREATE TABLE ds_mv AS
SELECT g, CASE WHEN g % 17 = 5 THEN NULL
               WHEN g = 200 THEN 1000000000
               ELSE (g * 37 + x * 101) % 1000 END AS v
FROM generate_series(1, 400) g, generate_series(1, 40 + g % 90) x
WHERE g % 23 <> 7;
CREATE TABLE ds_mv_sets AS
SELECT g.g, CASE WHEN g.g % 23 = 7 THEN 'integer:{}'::distinct_set
                 ELSE (SELECT distinct_set_agg(v) FROM ds_mv m WHERE m.g = g.g) END AS s
FROM generate_series(1, 400) g;
SELECT w, count(*) AS frames,
       count(*) FILTER (WHERE n IS DISTINCT FROM r OR u IS DISTINCT FROM ru) AS failed
FROM (SELECT 'rows 6 preceding' AS w, g,
             cardinality(distinct_set_union_agg(s) OVER (ORDER BY g ROWS 6 PRECEDING)) AS n,
             distinct_set_union_agg(s) OVER (ORDER BY g ROWS 6 PRECEDING) AS u,
             (SELECT count(DISTINCT v) FROM ds_mv m WHERE m.g BETWEEN q.g - 6 AND q.g) AS r,
             (SELECT distinct_set_agg(v) FROM ds_mv m WHERE m.g BETWEEN q.g - 6 AND q.g) AS ru
      FROM ds_mv_sets q
      UNION ALL
      SELECT '2 preceding, 2 following', g,
             cardinality(distinct_set_union_agg(s) OVER (ORDER BY g ROWS BETWEEN 2 PRECEDING AND 2 FOLLOWING)),
             distinct_set_union_agg(s) OVER (ORDER BY g ROWS BETWEEN 2 PRECEDING AND 2 FOLLOWING),
             (SELECT count(DISTINCT v) FROM ds_mv m WHERE m.g BETWEEN q.g - 2 AND q.g + 2),
             (SELECT distinct_set_agg(v) FROM ds_mv m WHERE m.g BETWEEN q.g - 2 AND q.g + 2)
      FROM ds_mv_sets q
      UNION ALL
      SELECT 'rows 300 preceding', g,
             cardinality(distinct_set_union_agg(s) OVER (ORDER BY g ROWS 300 PRECEDING)),
             distinct_set_union_agg(s) OVER (ORDER BY g ROWS 300 PRECEDING),
             (SELECT count(DISTINCT v) FROM ds_mv m WHERE m.g BETWEEN q.g - 300 AND q.g),
             (SELECT distinct_set_agg(v) FROM ds_mv m WHERE m.g BETWEEN q.g - 300 AND q.g)
      FROM ds_mv_sets q
      UNION ALL
      SELECT 'text, rows 3 preceding', g,
             cardinality(distinct_set_union_agg(t) OVER (ORDER BY g ROWS 3 PRECEDING)),
             NULL,
             (SELECT count(DISTINCT v::text) FROM ds_mv m WHERE m.g BETWEEN q.g - 3 AND q.g),
             NULL
      FROM (SELECT g, (SELECT distinct_set_agg(v::text) FROM ds_mv m WHERE m.g = s.g) AS t
            FROM ds_mv_sets s WHERE g <= 120) q) z
GROUP BY w ORDER BY w;
DROP TABLE ds_mv, ds_mv_sets;

-- the union's bitmap encoded in both layouts (runs: flag 1 in byte 3), the
-- same bytes as the set built from the values
WITH s AS (SELECT g, distinct_set(ARRAY(SELECT x FROM generate_series(g * 1000, g * 1000 + 1500) x)) AS s
           FROM generate_series(1, 50) g)
SELECT distinct_set_union_agg(s) = distinct_set(ARRAY(SELECT generate_series(1000, 51500))) AS same,
       get_byte(distinct_set_send(distinct_set_union_agg(s)), 3) AS flags
FROM s;
WITH s AS (SELECT g, distinct_set(ARRAY(SELECT x FROM generate_series(g * 1000, g * 1000 + 1500, 3) x)) AS s
           FROM generate_series(1, 50) g)
SELECT distinct_set_union_agg(s) = distinct_set(ARRAY(SELECT x FROM generate_series(1, 50) g,
                                                      generate_series(g * 1000, g * 1000 + 1500, 3) x)) AS same,
       get_byte(distinct_set_send(distinct_set_union_agg(s)), 3) AS flags
FROM s;

-- running frames: the union's state (a bitmap here) keeps growing after
-- each frame's result
SELECT count(*) AS frames, count(*) FILTER (WHERE u IS DISTINCT FROM r) AS failed
FROM (SELECT distinct_set_union_agg(s) OVER (ORDER BY g) AS u,
             (SELECT distinct_set_agg(v) FROM ds_par p WHERE p.g <= q.g) AS r
      FROM (SELECT g, s FROM ds_par_sets WHERE g < 30) q) z;

-- errors
-- element types without a canonical form (compared by their comparator)
SELECT ds_err($$SELECT distinct_set_agg(j) FROM (VALUES ('{"a":1}'::jsonb)) x(j)$$);
SELECT ds_err($$SELECT distinct_set(ARRAY['[1,2)'::int4range])$$);
SELECT ds_err($$SELECT 'jsonb:{}'::distinct_set$$);
SELECT ds_err($$SELECT distinct_set_agg(ARRAY['{}'::jsonb])$$);
-- arrays of arrays: their elements
SELECT distinct_set(ARRAY[ARRAY[3, 1], ARRAY[1, NULL]]);
-- mixed element types: 42804, naming both
SELECT ds_err($$SELECT 'integer:{1}'::distinct_set | 'bigint:{1}'$$);
SELECT ds_err($$SELECT 'integer:{1}'::distinct_set @> 'text:{1}'$$);
SELECT ds_err($$SELECT distinct_set_union_agg(s) FROM (VALUES ('integer:{1}'::distinct_set), ('bigint:{1}')) x(s)$$);
SELECT ds_err($$SELECT distinct_set_intersect_agg(s) FROM (VALUES ('integer:{1}'::distinct_set), ('date:{}')) x(s)$$);
SELECT ds_err($$SELECT distinct_set_to_array('integer:{1}', NULL::bigint)$$);
SELECT ds_err($$SELECT distinct_set_contains('integer:{1}', 1::bigint)$$);
SELECT ds_err($$SELECT * FROM distinct_set_values('integer:{1}', 'x'::text)$$);
-- sets of different types are not equal
SELECT 'integer:{1}'::distinct_set = 'bigint:{1}'::distinct_set;
-- text input: 22P02
SELECT ds_err($$SELECT '{1,2}'::distinct_set$$);
SELECT ds_err($$SELECT 'integer{1}'::distinct_set$$);
SELECT ds_err($$SELECT ':{1}'::distinct_set$$);
SELECT ds_err($$SELECT 'integer:'::distinct_set$$);
SELECT ds_err($$SELECT 'integer:{1,x}'::distinct_set$$);
SELECT ds_err($$SELECT 'integer:{1,NULL}'::distinct_set$$);
SELECT ds_err($$SELECT 'integer:{{1},{2}}'::distinct_set$$);
SELECT ds_err($$SELECT 'integer:{1}x'::distinct_set$$);
SELECT ds_err($$SELECT 'nosuchtype:{1}'::distinct_set$$);
-- binary input: 22P03 for anything that is not exactly what is written
SELECT b, ds_err(format('SELECT distinct_set_from_bytes(%L)', b), true)
FROM unnest(ARRAY[
    '\x',                                               -- empty
    '\x01030400000000',                                 -- short header
    '\x02030400000000030100000017008000000100',         -- version 2
    '\x01030402000000030100000017008000000100',         -- flags
    '\x01030401000000000100000017000000',               -- runs of nothing
    '\x0103040100000004010000001700048000000100000000000000', -- runs, longer than blocks
    '\x0103040100000003010000001700018000000105',       -- runs of more keys
    '\x0103040100000003010000001700018000000101',       -- runs of fewer keys
    '\x010304010000000301000000170002800000010000',     -- runs past the end
    '\x010304010000000301000000170001fffffffe02',       -- a key out of range
    '\x010408010000000201000002bd0001fff800000000000001', -- NaN and a NaN
    '\x01030800000000030100000017008000000100',         -- width of int8
    '\x01050000000000030100000017008000000100',         -- encoding of text
    '\x01030400000000000100000017008000000100',         -- bytes left over
    '\x0103040000000003010000001700800000010000',       -- bytes left over
    '\x01030400000000030100000017008000000102',         -- gaps missing
    '\x010304000000000301000000170080000001',           -- truncated key
    '\x01030400ffffffff0100000017008000000100',         -- count over the limit
    '\x01030400000000030100000017010000006480000001',   -- a collation
    '\x0103040000000003070000001700800000010000',       -- bad type reference
    '\x0103040000000000010000ffff00',                   -- no such type OID
    '\x0105000000000002010000001900000161000161',       -- text keys not increasing
    '\x010500000000000201000000190000016101000162',     -- a key equal to the last
    '\x0105000000000002010000001900000161020162',       -- shares more than it has
    '\x0105000000000001010000001900000280ff',           -- invalid UTF-8
    '\x010408000000000101000002bd007fffffffffffffff',   -- -0 not folded into 0
    '\x0103040000000000027067' ||                       -- int4 by name, not OID
        '5f636174616c6f6700696e74340000',
    '\x010304000000000002787800696e74340000',           -- no such schema
    '\x0103040000000001010000043a00fffffd78',           -- a date out of range
    '\x0103040000000001027075626c69630064735f646f6d000080000000' -- breaks ds_dom's CHECK
]::bytea[]) b;

DROP TABLE ds_t, ds_sets, ds_big, ds_par, ds_par_sets;
DROP DOMAIN ds_dom;
DROP FUNCTION ds_check(text, text);
DROP FUNCTION ds_err(text, boolean);
