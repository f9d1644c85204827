-- distinct_set of named composites and arrays (record and array keys,
-- key_record.h) against native SQL: UNION, INTERSECT, EXCEPT,
-- COUNT(DISTINCT), array_agg(DISTINCT ... ORDER BY) in the same statement;
-- text and binary round trips, privileges of binary input, ALTER TYPE and
-- DROP TYPE of a stored set's type, corrupt bytes; anonymous records (their
-- column types named).  Comparator-path fields stay refused (0A000).
SET extra_float_digits = 0;
SET jit = off;

CREATE FUNCTION rec_err(q text, detail boolean DEFAULT false) RETURNS text
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

CREATE DOMAIN rec_posint AS int4 CHECK (VALUE >= 0);
CREATE TYPE rec_pair AS (a int4, b text);
CREATE TYPE rec_pairc AS (a int4, b text COLLATE "C");
CREATE TYPE rec_num AS (n numeric, f float8, d rec_posint);
CREATE TYPE rec_nest AS (p rec_pair, arr int4[], x int8);
CREATE DOMAIN rec_pairdom AS rec_pair;

-- NULL fields and elements, numeric scales (1.0 = 1.00), -0.0 = 0.0, NaN,
-- text under the default collation and "C", arrays with other lower bounds
CREATE TABLE rec_t AS
SELECT i, i % 3 AS g,
       ROW(CASE WHEN i % 11 = 0 THEN NULL ELSE i % 7 END,
           CASE WHEN i % 13 = 0 THEN NULL ELSE (ARRAY['a', 'B', 'b', 'ä', 'a b', ''])[i % 6 + 1] END)::rec_pair AS p,
       ROW(i % 4, (ARRAY['x', 'Y', 'y'])[i % 3 + 1])::rec_pairc AS pc,
       ROW((ARRAY[1.0, 1.00, 2.5, NULL, 'NaN'])[i % 5 + 1]::numeric,
           (ARRAY[0.0, -0.0, 'NaN', 1.5, NULL])[i % 5 + 1]::float8,
           (i % 2)::rec_posint)::rec_num AS num,
       ROW(ROW(i % 3, 'n' || i % 2)::rec_pair,
           CASE WHEN i % 9 = 0 THEN NULL ELSE ARRAY[i % 2, NULLIF(i % 3, 0)] END,
           i % 5)::rec_nest AS nest,
       CASE i % 6 WHEN 0 THEN NULL
                  WHEN 1 THEN '{}'::int4[]
                  WHEN 2 THEN ARRAY[i % 4, NULLIF(i % 5, 0)]
                  WHEN 3 THEN '[0:1]={1,2}'::int4[]
                  WHEN 4 THEN ARRAY[[1, 2], [i % 3, 4]]
                  ELSE ARRAY[i % 4] END AS ia,
       ARRAY[(ARRAY['a', 'B', NULL])[i % 3 + 1], (ARRAY['b', 'ä'])[i % 2 + 1]] AS ta,
       ARRAY[(ARRAY[1.0, 1.00, -0.5])[i % 3 + 1]]::numeric[] AS na,
       ARRAY[ROW(i % 2, 'z')::rec_pair] AS pa
FROM generate_series(1, 400) i;

-- one set per column: cardinality against COUNT(DISTINCT), values against
-- the native distinct values (both ways), in SQL's order where that is
-- comparable as text (no numeric scales)
SELECT cardinality(distinct_set_agg(p)) = count(DISTINCT p) AS p,
       cardinality(distinct_set_agg(pc)) = count(DISTINCT pc) AS pc,
       cardinality(distinct_set_agg(num)) = count(DISTINCT num) AS num,
       cardinality(distinct_set_agg(nest)) = count(DISTINCT nest) AS nest,
       cardinality(distinct_set_agg(ia)) = count(DISTINCT ia) AS ia,
       cardinality(distinct_set_agg(ta)) = count(DISTINCT ta) AS ta,
       cardinality(distinct_set_agg(na)) = count(DISTINCT na) AS na,
       cardinality(distinct_set_agg(pa)) = count(DISTINCT pa) AS pa,
       cardinality(distinct_set_agg(p::rec_pairdom)) = count(DISTINCT p) AS dom
FROM rec_t;
SELECT distinct_set_to_array(distinct_set_agg(p), NULL::rec_pair) = array_agg(DISTINCT p ORDER BY p) AS p,
       distinct_set_to_array(distinct_set_agg(pc), NULL::rec_pairc) = array_agg(DISTINCT pc ORDER BY pc) AS pc,
       distinct_set_to_array(distinct_set_agg(num), NULL::rec_num) = array_agg(DISTINCT num ORDER BY num) AS num,
       distinct_set_to_array(distinct_set_agg(nest), NULL::rec_nest) = array_agg(DISTINCT nest ORDER BY nest) AS nest,
       distinct_set_to_array(distinct_set_agg(p), NULL::rec_pair)::text = array_agg(DISTINCT p ORDER BY p)::text AS p_text
FROM rec_t;
-- arrays: arrays of arrays do not exist, so the values as rows
CREATE TABLE rec_sets AS
SELECT g, distinct_set_agg(p) AS p, distinct_set_agg(num) AS num,
       distinct_set_agg(nest) AS nest, distinct_set_agg(ia) AS ia,
       distinct_set_agg(ta) AS ta, distinct_set_agg(na) AS na,
       distinct_set_agg(pa) AS pa
FROM rec_t GROUP BY g;
SELECT g,
       (SELECT count(*) FROM ((SELECT v FROM distinct_set_values(ia, NULL::int4[]) v
                               EXCEPT SELECT ia FROM rec_t t WHERE t.g = s.g AND ia IS NOT NULL)
                              UNION ALL
                              (SELECT ia FROM rec_t t WHERE t.g = s.g AND ia IS NOT NULL
                               EXCEPT SELECT v FROM distinct_set_values(ia, NULL::int4[]) v)) x) AS ia_diff,
       (SELECT count(*) FROM ((SELECT v FROM distinct_set_values(ta, NULL::text[]) v
                               EXCEPT SELECT ta FROM rec_t t WHERE t.g = s.g)
                              UNION ALL
                              (SELECT ta FROM rec_t t WHERE t.g = s.g
                               EXCEPT SELECT v FROM distinct_set_values(ta, NULL::text[]) v)) x) AS ta_diff,
       (SELECT count(*) FROM ((SELECT v FROM distinct_set_values(na, NULL::numeric[]) v
                               EXCEPT SELECT na FROM rec_t t WHERE t.g = s.g)
                              UNION ALL
                              (SELECT na FROM rec_t t WHERE t.g = s.g
                               EXCEPT SELECT v FROM distinct_set_values(na, NULL::numeric[]) v)) x) AS na_diff,
       (SELECT count(*) FROM ((SELECT v FROM distinct_set_values(pa, NULL::rec_pair[]) v
                               EXCEPT SELECT pa FROM rec_t t WHERE t.g = s.g)
                              UNION ALL
                              (SELECT pa FROM rec_t t WHERE t.g = s.g
                               EXCEPT SELECT v FROM distinct_set_values(pa, NULL::rec_pair[]) v)) x) AS pa_diff,
       (SELECT array_agg(v::text ORDER BY o) FROM distinct_set_values(ia, NULL::int4[]) WITH ORDINALITY x(v, o))
       = (SELECT array_agg(v::text ORDER BY v) FROM (SELECT DISTINCT ia FROM rec_t t WHERE t.g = s.g AND ia IS NOT NULL) y(v)) AS ia_order,
       (SELECT array_agg(v::text ORDER BY o) FROM distinct_set_values(ta, NULL::text[]) WITH ORDINALITY x(v, o))
       = (SELECT array_agg(v::text ORDER BY v) FROM (SELECT DISTINCT ta FROM rec_t t WHERE t.g = s.g) y(v)) AS ta_order
FROM rec_sets s ORDER BY g;
-- a composite's values as rows (SETOF a composite: its columns)
SELECT (SELECT count(*) FROM ((SELECT (v.*)::rec_pair FROM distinct_set_values(s.p, NULL::rec_pair) v
                               EXCEPT SELECT p FROM rec_t)
                              UNION ALL
                              (SELECT p FROM rec_t
                               EXCEPT SELECT (v.*)::rec_pair FROM distinct_set_values(s.p, NULL::rec_pair) v)) x) AS p_diff
FROM (SELECT distinct_set_union_agg(p) AS p FROM rec_sets) s;
SELECT * FROM distinct_set_values((SELECT distinct_set_agg(p) FROM rec_t WHERE (p).a = 1 AND (p).b IN ('a', 'b')), NULL::rec_pair);

-- union, intersect, except, containment, overlap against native set
-- operations, for each pair of groups and each column kind
CREATE FUNCTION rec_check(col text) RETURNS TABLE (ga int, gb int, ok boolean)
LANGUAGE plpgsql AS $$
BEGIN
    RETURN QUERY EXECUTE format($q$
    SELECT a.g, b.g,
           cardinality(a.%1$I | b.%1$I) = (SELECT count(*) FROM (SELECT %1$I FROM rec_t WHERE g = a.g AND %1$I::text IS NOT NULL UNION SELECT %1$I FROM rec_t WHERE g = b.g AND %1$I::text IS NOT NULL) x)
       AND cardinality(a.%1$I & b.%1$I) = (SELECT count(*) FROM (SELECT %1$I FROM rec_t WHERE g = a.g AND %1$I::text IS NOT NULL INTERSECT SELECT %1$I FROM rec_t WHERE g = b.g AND %1$I::text IS NOT NULL) x)
       AND cardinality(a.%1$I - b.%1$I) = (SELECT count(*) FROM (SELECT %1$I FROM rec_t WHERE g = a.g AND %1$I::text IS NOT NULL EXCEPT SELECT %1$I FROM rec_t WHERE g = b.g AND %1$I::text IS NOT NULL) x)
       AND distinct_set_union_cardinality(a.%1$I, b.%1$I) = cardinality(a.%1$I | b.%1$I)
       AND distinct_set_intersect_cardinality(a.%1$I, b.%1$I) = cardinality(a.%1$I & b.%1$I)
       AND distinct_set_except_cardinality(a.%1$I, b.%1$I) = cardinality(a.%1$I - b.%1$I)
       AND (a.%1$I @> b.%1$I) = NOT EXISTS (SELECT %1$I FROM rec_t WHERE g = b.g AND %1$I::text IS NOT NULL EXCEPT SELECT %1$I FROM rec_t WHERE g = a.g)
       AND (a.%1$I && b.%1$I) = EXISTS (SELECT %1$I FROM rec_t WHERE g = a.g AND %1$I::text IS NOT NULL INTERSECT SELECT %1$I FROM rec_t WHERE g = b.g)
       AND (a.%1$I | b.%1$I) = (SELECT distinct_set_agg(%1$I) FROM rec_t WHERE g IN (a.g, b.g))
       AND ((a.%1$I & b.%1$I) | (a.%1$I - b.%1$I)) = a.%1$I
       AND (a.%1$I = b.%1$I) = NOT EXISTS ((SELECT %1$I FROM rec_t WHERE g = a.g AND %1$I::text IS NOT NULL EXCEPT SELECT %1$I FROM rec_t WHERE g = b.g)
                                           UNION ALL
                                           (SELECT %1$I FROM rec_t WHERE g = b.g AND %1$I::text IS NOT NULL EXCEPT SELECT %1$I FROM rec_t WHERE g = a.g))
    FROM rec_sets a, rec_sets b ORDER BY 1, 2$q$, col);
END
$$;
SELECT col, bool_and(ok) AS all_ok, count(*)
FROM unnest(ARRAY['p', 'num', 'nest', 'ia', 'ta', 'na', 'pa']) col, rec_check(col)
GROUP BY col ORDER BY col;
-- the aggregates over sets, against native
SELECT distinct_set_union_agg(p) = (SELECT distinct_set_agg(p) FROM rec_t) AS union_agg,
       cardinality(distinct_set_intersect_agg(ia)) =
         (SELECT count(*) FROM (SELECT ia FROM rec_t WHERE g = 0 AND ia IS NOT NULL INTERSECT
                                SELECT ia FROM rec_t WHERE g = 1 INTERSECT
                                SELECT ia FROM rec_t WHERE g = 2) x) AS intersect_agg,
       distinct_set_union_cardinality_agg(nest) = (SELECT count(DISTINCT nest) FROM rec_t) AS union_card_agg,
       distinct_set_intersect_cardinality_agg(ta) =
         (SELECT count(*) FROM (SELECT ta FROM rec_t WHERE g = 0 INTERSECT
                                SELECT ta FROM rec_t WHERE g = 1 INTERSECT
                                SELECT ta FROM rec_t WHERE g = 2) x) AS intersect_card_agg
FROM rec_sets;
-- contains, against native membership
SELECT bool_and(distinct_set_contains(s.p, t.p) = (EXISTS (SELECT 1 FROM rec_t u WHERE u.g = s.g AND u.p = t.p))) AS p,
       bool_and(distinct_set_contains(s.ia, t.ia) = (EXISTS (SELECT 1 FROM rec_t u WHERE u.g = s.g AND u.ia = t.ia))) AS ia,
       bool_and(distinct_set_contains(s.nest, t.nest) = (EXISTS (SELECT 1 FROM rec_t u WHERE u.g = s.g AND u.nest = t.nest))) AS nest
FROM rec_sets s, rec_t t WHERE t.i <= 60;
-- from arrays; window frames (the moving-aggregate state)
SELECT distinct_set(array_agg(p)) = distinct_set_agg(p) AS from_array,
       distinct_set(array_agg(p::rec_pairdom)) = distinct_set_agg(p::rec_pairdom) AS from_domain_array
FROM rec_t;
SELECT bool_and(cardinality(w) = (SELECT count(DISTINCT p) FROM rec_t u WHERE u.i BETWEEN x.i - 5 AND x.i)) AS window_ok
FROM (SELECT i, distinct_set_agg(p) OVER (ORDER BY i ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) AS w FROM rec_t) x;
-- parallel: partial states of the set aggregates name the layout
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SELECT distinct_set_union_agg(p) = (SELECT distinct_set_agg(p) FROM rec_t) AS parallel_union,
       distinct_set_union_agg(ia) = (SELECT distinct_set_agg(ia) FROM rec_t) AS parallel_union_ia
FROM rec_sets;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;

-- canonical bytes: the same set built in any order, from any source, is the
-- same bytes; text and binary round trips
SELECT distinct_set_send(a) = distinct_set_send(b) AS same_bytes
FROM (SELECT distinct_set_agg(p ORDER BY i) AS a, distinct_set_agg(p ORDER BY i DESC) AS b FROM rec_t) x;
SELECT col,
       bool_and(v::text::distinct_set = v) AS text_round_trip,
       bool_and(distinct_set_from_bytes(distinct_set_send(v)) = v) AS binary_round_trip
FROM rec_sets, LATERAL (VALUES ('p', p), ('num', num), ('nest', nest), ('ia', ia),
                               ('ta', ta), ('na', na), ('pa', pa)) c(col, v)
GROUP BY col ORDER BY col;
-- the text form names the type; values in SQL's order
SELECT distinct_set_agg(p) FROM rec_t WHERE (p).a = 2;
SELECT distinct_set_agg(ia) FROM rec_t WHERE i <= 12;
SELECT distinct_set_agg(p::rec_pairdom) FROM rec_t WHERE (p).a = 3 AND (p).b < 'b';
SELECT 'rec_pair:{"(1,x)","(1,x)","(,)","(0,)"}'::distinct_set;
SELECT 'integer[]:{"{1,2}","[0:1]={1,2}","{}","{NULL}"}'::distinct_set;
SELECT distinct_set_element_type(distinct_set_agg(nest)), distinct_set_element_type(distinct_set_agg(ia))
FROM rec_t;
-- the binary form: a layout of the type and its fields, named (binary
-- input resolves names with the caller's privileges)
SELECT distinct_set_send('rec_pair:{"(1,a)"}'::distinct_set);
SELECT distinct_set_send('integer[]:{"{1}"}'::distinct_set);
-- COPY BINARY
CREATE TABLE rec_copy (s distinct_set);
COPY rec_sets (p) TO '/dev/null' WITH (FORMAT binary);
CREATE TEMP TABLE rec_bin AS SELECT distinct_set_send(p) AS b, p FROM rec_sets;
SELECT bool_and(distinct_set_from_bytes(b) = p) AS from_bytes FROM rec_bin;

-- anonymous records: sets of the canonical row type of their column types
-- (stored with the column types, not their collations), against native
CREATE TABLE rec_anon AS
SELECT g, distinct_set_agg(((p).a, (p).b)) AS ab,
       distinct_set_agg(((p).a, (p).b COLLATE "C", num, ia)) AS wide,
       distinct_set_agg((nest, (p).a)) AS nested
FROM rec_t GROUP BY g;
SELECT g,
       cardinality(ab) = (SELECT count(DISTINCT ((p).a, (p).b)) FROM rec_t t WHERE t.g = s.g) AS ab,
       cardinality(wide) = (SELECT count(DISTINCT ((p).a, (p).b, num, ia)) FROM rec_t t WHERE t.g = s.g) AS wide,
       cardinality(nested) = (SELECT count(DISTINCT (nest, (p).a)) FROM rec_t t WHERE t.g = s.g) AS nested,
       (SELECT count(*) FROM ((SELECT a, b FROM distinct_set_values(ab, NULL::record) AS v(a int, b text)
                               EXCEPT SELECT (p).a, (p).b FROM rec_t t WHERE t.g = s.g)
                              UNION ALL
                              (SELECT (p).a, (p).b FROM rec_t t WHERE t.g = s.g
                               EXCEPT SELECT a, b FROM distinct_set_values(ab, NULL::record) AS v(a int, b text))) x) AS ab_diff,
       distinct_set_to_array(ab, NULL::record)::text =
         (SELECT array_agg(DISTINCT ((p).a, (p).b) ORDER BY ((p).a, (p).b))::text FROM rec_t t WHERE t.g = s.g) AS ab_order,
       ab::text::distinct_set = ab AND wide::text::distinct_set = wide AND nested::text::distinct_set = nested AS text_round_trip,
       distinct_set_from_bytes(distinct_set_send(ab)) = ab AND distinct_set_from_bytes(distinct_set_send(wide)) = wide
         AND distinct_set_from_bytes(distinct_set_send(nested)) = nested AS binary_round_trip
FROM rec_anon s ORDER BY g;
SELECT a.g, b.g,
       cardinality(a.ab | b.ab) = (SELECT count(*) FROM (SELECT (p).a, (p).b FROM rec_t WHERE g = a.g UNION SELECT (p).a, (p).b FROM rec_t WHERE g = b.g) x) AS union_ok,
       cardinality(a.ab & b.ab) = (SELECT count(*) FROM (SELECT (p).a, (p).b FROM rec_t WHERE g = a.g INTERSECT SELECT (p).a, (p).b FROM rec_t WHERE g = b.g) x) AS intersect_ok,
       cardinality(a.ab - b.ab) = (SELECT count(*) FROM (SELECT (p).a, (p).b FROM rec_t WHERE g = a.g EXCEPT SELECT (p).a, (p).b FROM rec_t WHERE g = b.g) x) AS except_ok
FROM rec_anon a, rec_anon b WHERE a.g <= b.g ORDER BY 1, 2;
SELECT distinct_set_union_agg(ab) = (SELECT distinct_set_agg(((p).a, (p).b)) FROM rec_t) AS union_agg,
       distinct_set_union_agg(wide) = (SELECT distinct_set_agg(((p).a, (p).b, num, ia)) FROM rec_t) AS collation_not_stored
FROM rec_anon;
SELECT bool_and(distinct_set_contains(s.ab, ((t.p).a, (t.p).b)) =
                EXISTS (SELECT 1 FROM rec_t u WHERE u.g = s.g AND (u.p).a IS NOT DISTINCT FROM (t.p).a
                                                              AND (u.p).b IS NOT DISTINCT FROM (t.p).b)) AS contains_ok
FROM rec_anon s, rec_t t WHERE t.i <= 60;
SELECT distinct_set(ARRAY[(1, 'a'::text), (2, 'b'::text), (1, 'a'::text)]) =
       (SELECT distinct_set_agg(r) FROM (VALUES ((2, 'b'::text)), ((1, 'a'::text))) v(r)) AS from_array,
       distinct_set(ARRAY[(1, 'a'::text), (2, 'b'::text), (1, 'a'::text)]);
SELECT distinct_set_agg((i % 2, ROW(i, 'x')::rec_pair)) FROM generate_series(1, 3) i;
SELECT 'record(integer, text):{"(2,a)","(1,b)","(2,a)"}'::distinct_set,
       'record(numeric(10,2), "char", text[]):{"(1.0,a,{x})","(1.00,a,{x})"}'::distinct_set,
       'RECORD (rec_pair):{"(\"(1,x)\")"}'::distinct_set,
       'record():{"()"}'::distinct_set;
SELECT distinct_set_send('record(integer, text):{"(1,a)"}'::distinct_set);
SELECT rec_err($$SELECT distinct_set_agg((1, 'a'::text)) | distinct_set_agg((1, 1))$$);
SELECT rec_err($$SELECT 'record(integer, nosuchtype):{}'::distinct_set$$);
SELECT rec_err($$SELECT 'record(integer, text:{}'::distinct_set$$);
SELECT rec_err($$SELECT 'record(integer, jsonb):{}'::distinct_set$$);
SELECT rec_err($$SELECT * FROM distinct_set_values('record(integer, text):{"(1,a)"}', NULL::record) AS v(a int, b int)$$);
-- a nested composite altered: the set of records of it is refused too
CREATE TYPE rec_inner AS (x int4);
CREATE TABLE rec_anon_stored AS SELECT distinct_set_agg((i, ROW(i)::rec_inner)) AS s FROM generate_series(1, 3) i;
ALTER TYPE rec_inner ADD ATTRIBUTE y int4;
SELECT rec_err($$SELECT cardinality(s | s) FROM rec_anon_stored$$) AS altered, s::text LIKE '(orphaned):%' AS orphan
FROM rec_anon_stored;
ALTER TYPE rec_inner DROP ATTRIBUTE y;
SELECT s FROM rec_anon_stored;
DROP TABLE rec_anon, rec_anon_stored;
DROP TYPE rec_inner;

-- refused: anonymous records without column types, comparator-path
-- fields, nondeterministic collations (0A000)
SELECT rec_err($$SELECT distinct_set_agg((i, '{}'::jsonb)) FROM rec_t$$, true);
SELECT rec_err($$SELECT distinct_set('{}'::record[])$$);
CREATE TYPE rec_json AS (a int4, j jsonb);
SELECT rec_err($$SELECT distinct_set_agg(ROW(1, '{}')::rec_json)$$);
SELECT rec_err($$SELECT distinct_set_agg(ARRAY['{}'::jsonb])$$);
SELECT rec_err($$SELECT 'rec_json:{}'::distinct_set$$);

-- corrupt bytes: every truncation, and every single byte changed, of a set
-- of composites and of arrays is refused or reads back as a valid set
-- (22P03 in binary input; never a crash, never a set that differs from
-- its own canonical form)
CREATE FUNCTION rec_fuzz(b bytea) RETURNS TABLE (outcome text, n bigint)
LANGUAGE plpgsql AS $$
DECLARE
    i int;
    v int;
    r text;
    res text[] := '{}';
    s distinct_set;
BEGIN
    FOR i IN 0 .. length(b) - 1 LOOP
        BEGIN
            s := distinct_set_from_bytes(substr(b, 1, i));
            r := CASE WHEN distinct_set_from_bytes(distinct_set_send(s)) = s THEN 'ok' ELSE 'NOT CANONICAL' END;
        EXCEPTION WHEN OTHERS THEN
            r := SQLSTATE;
        END;
        res := res || ('truncated ' || r);
        FOREACH v IN ARRAY ARRAY[0, 1, 2, 5, 127, 128, 255] LOOP
            CONTINUE WHEN get_byte(b, i) = v;
            BEGIN
                s := distinct_set_from_bytes(set_byte(b, i, v));
                r := CASE WHEN distinct_set_from_bytes(distinct_set_send(s)) = s THEN 'ok' ELSE 'NOT CANONICAL' END;
            EXCEPTION WHEN OTHERS THEN
                r := SQLSTATE;
            END;
            res := res || ('changed ' || r);
        END LOOP;
    END LOOP;
    RETURN QUERY SELECT x, count(*) FROM unnest(res) x GROUP BY x ORDER BY x;
END
$$;
SELECT * FROM rec_fuzz(distinct_set_send('rec_pair:{"(1,a)","(2,)","(,b)"}'::distinct_set));
SELECT * FROM rec_fuzz(distinct_set_send('integer[]:{"{1,NULL}","[2:2]={3}","{{1},{2}}"}'::distinct_set));
SELECT * FROM rec_fuzz(distinct_set_send('rec_nest:{"(\"(1,a)\",\"{1,2}\",3)"}'::distinct_set));
-- crafted: a layout nested deeper than any type
SELECT rec_err(format('SELECT distinct_set_from_bytes(%L)',
                      '\x0105000000000000'::bytea || decode(repeat('0502010000040f', 40), 'hex') ||
                      '\x010000001700'::bytea));

-- a non-superuser without USAGE on the type's schema: text and binary
-- input refuse the type alike (one error for missing and not usable);
-- stored sets of it are read as PostgreSQL reads its values
CREATE SCHEMA rec_priv;
CREATE TYPE rec_priv.secret AS (a int4, b int4);
CREATE TABLE rec_private AS
SELECT distinct_set_agg(ROW(i, i % 3)::rec_priv.secret) AS s FROM generate_series(1, 10) i;
SELECT distinct_set_send(s) AS secret_bytes FROM rec_private \gset
SELECT distinct_set_send(distinct_set_agg((i, ROW(i, i)::rec_priv.secret))) AS anon_bytes
FROM generate_series(1, 3) i \gset
REVOKE ALL ON SCHEMA rec_priv FROM PUBLIC;
CREATE ROLE rec_user;
GRANT SELECT ON rec_private TO rec_user;
SET ROLE rec_user;
SELECT rec_err($$SELECT 'rec_priv.secret:{"(1,2)"}'::distinct_set$$, true) AS text_input;
SELECT rec_err(format('SELECT distinct_set_from_bytes(%L)', :'secret_bytes'), true) AS binary_input;
SELECT rec_err(format('SELECT distinct_set_from_bytes(%L)',
                      replace(:'secret_bytes', encode('secret', 'hex'), encode('nosuch', 'hex'))), true) AS binary_missing;
SELECT rec_err(format('SELECT distinct_set_from_bytes(%L)', :'anon_bytes'), true) AS binary_input_field;
SELECT rec_err($$SELECT 'record(int, rec_priv.secret):{}'::distinct_set$$, true) AS text_input_field;
SELECT cardinality(s), cardinality(s | s) FROM rec_private;
RESET ROLE;
DROP TABLE rec_private;
DROP OWNED BY rec_user;
DROP ROLE rec_user;
DROP SCHEMA rec_priv CASCADE;

-- ALTER TYPE and DROP TYPE of a stored set's type: the set is refused (or
-- printed as an orphan), never read under the new layout;
-- distinct_set_recover binds it again, checking every value
CREATE TYPE rec_alt AS (a int4, b int4);
CREATE TYPE rec_outer AS (o rec_alt, z int2);
CREATE TABLE rec_stored AS
SELECT distinct_set_agg(ROW(i, -i)::rec_alt) AS s,
       distinct_set_agg(ROW(ROW(i, i)::rec_alt, 1)::rec_outer) AS o,
       distinct_set_agg(ARRAY[ROW(i, 0)::rec_alt]) AS arr
FROM generate_series(1, 3) i;
SELECT s, o, arr FROM rec_stored;
-- ADD ATTRIBUTE, then DROP it again: the same layout, read again
ALTER TYPE rec_alt ADD ATTRIBUTE c int4;
SELECT rec_err($$SELECT cardinality(s | s) FROM rec_stored$$, true) AS added;
SELECT rec_err($$SELECT cardinality(o | o) FROM rec_stored$$) AS nested,
       rec_err($$SELECT cardinality(arr | arr) FROM rec_stored$$) AS in_array;
SELECT s FROM rec_stored;
ALTER TYPE rec_alt DROP ATTRIBUTE c;
SELECT s, o, arr FROM rec_stored;
-- ALTER ATTRIBUTE ... TYPE: another key layout
ALTER TYPE rec_alt ALTER ATTRIBUTE b TYPE int8;
SELECT rec_err($$SELECT distinct_set_values(s, NULL::rec_alt) FROM rec_stored$$) AS altered;
SELECT s FROM rec_stored;
ALTER TYPE rec_alt ALTER ATTRIBUTE b TYPE int4;
SELECT cardinality(s | s) AS same_again FROM rec_stored;
-- DROP ATTRIBUTE: refused; distinct_set_recover binds the keys to a type
-- of the same layout, checking each value
ALTER TYPE rec_alt DROP ATTRIBUTE b;
SELECT rec_err($$SELECT s & s FROM rec_stored$$) AS dropped_attribute;
CREATE TYPE rec_alt2 AS (a int4, b int4);
SELECT distinct_set_recover(s, NULL::rec_alt2) FROM rec_stored;
SELECT rec_err($$SELECT distinct_set_recover(s, NULL::rec_alt) FROM rec_stored$$) AS other_layout;
SELECT rec_err($$SELECT distinct_set_recover(s, NULL::rec_pairc) FROM rec_stored$$) AS other_types;
-- DROP TYPE and CREATE it again: another OID, no type for the set; its dump
-- (the text form) restores the orphan
DROP TYPE rec_alt CASCADE;
CREATE TYPE rec_alt AS (a int4, b int4);
SELECT regexp_replace(rec_err($$SELECT cardinality(s | s) FROM rec_stored$$, true), '(type|OID) [0-9]+', '\1 N', 'g') AS recreated;
SELECT s::text::distinct_set::text = s::text AS orphan_round_trip, distinct_set_element_type(s) IS NULL AS no_type
FROM rec_stored;
SELECT distinct_set_recover(s, NULL::rec_alt) = (SELECT distinct_set_agg(ROW(i, -i)::rec_alt) FROM generate_series(1, 3) i) AS recovered
FROM rec_stored;

DROP TABLE rec_stored, rec_copy, rec_sets, rec_t;
DROP TYPE rec_outer, rec_alt, rec_alt2, rec_json, rec_nest, rec_num, rec_pairdom, rec_pair, rec_pairc;
DROP DOMAIN rec_posint;
DROP FUNCTION rec_err(text, boolean), rec_check(text), rec_fuzz(bytea);
