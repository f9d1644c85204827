-- distinct_set through COPY ... (FORMAT binary): psql's \copy writes the
-- file on the client side (results/, beside pg_regress's output), so no
-- superuser and no server path are needed.  Sets of int4, int8, text, uuid,
-- numeric and date, empty sets, NULL and a large set are copied out and
-- back into another table, then compared with the originals (bytes) and with
-- native results over the source values.  A set whose payload has a byte
-- flipped is refused with SQLSTATE 22P03 (invalid_binary_representation).
SET extra_float_digits = 0;
\set SHOW_CONTEXT never

CREATE TABLE cb_src (ty text, g int, i4 int4, i8 int8, t text COLLATE "C", u uuid, n numeric, d date);
INSERT INTO cb_src
SELECT 'small', x % 3, x % 50 - 25, (x % 70)::int8 * 1000000007, 'v' || (x % 40), md5((x % 30)::text)::uuid,
       (x % 60) / 8.0, date '2024-02-27' + x % 10
FROM generate_series(1, 300) x;
-- a large group: 200000 scattered int4 (a set of about 430 kB), 20000 texts
INSERT INTO cb_src (ty, g, i4, t)
SELECT 'large', 9, hashint4(x), CASE WHEN x <= 20000 THEN md5(x::text) END
FROM generate_series(1, 200000) x;

CREATE TABLE cb_sets (id serial PRIMARY KEY, ty text, g int, kind text, s distinct_set);
INSERT INTO cb_sets (ty, g, kind, s)
SELECT ty, g, k.kind,
       CASE k.kind WHEN 'int4' THEN distinct_set_agg(i4) WHEN 'int8' THEN distinct_set_agg(i8)
                   WHEN 'text' THEN distinct_set_agg(t) WHEN 'uuid' THEN distinct_set_agg(u)
                   WHEN 'numeric' THEN distinct_set_agg(n) WHEN 'date' THEN distinct_set_agg(d) END
FROM cb_src, (VALUES ('int4'), ('int8'), ('text'), ('uuid'), ('numeric'), ('date')) k(kind)
GROUP BY ty, g, k.kind
ORDER BY ty, g, k.kind;
DELETE FROM cb_sets WHERE s IS NULL AND ty = 'large';
INSERT INTO cb_sets (ty, g, kind, s) VALUES
    ('empty', 0, 'int4', distinct_set('{}'::int4[])),
    ('empty', 0, 'text', distinct_set('{}'::text[])),
    ('empty', 0, 'numeric', distinct_set('{}'::numeric[])),
    ('null', 0, 'int4', NULL);
SELECT ty, kind, count(*) AS sets, sum(cardinality(s)) AS values, max(octet_length(distinct_set_send(s))) > 400000 AS over_400k
FROM cb_sets GROUP BY ty, kind ORDER BY ty, kind;

\copy cb_sets TO 'results/copy_binary_sets.bin' WITH (FORMAT binary)
CREATE TABLE cb_back (LIKE cb_sets);
\copy cb_back FROM 'results/copy_binary_sets.bin' WITH (FORMAT binary)

-- the same rows, the same bytes
SELECT count(*) AS rows_back,
       count(*) FILTER (WHERE a.s = b.s AND distinct_set_send(a.s) = distinct_set_send(b.s)) AS same_sets,
       count(*) FILTER (WHERE a.s IS NULL AND b.s IS NULL) AS both_null
FROM cb_sets a JOIN cb_back b USING (id);

-- against native results over the source values
WITH nat AS (
    SELECT ty, g, k.kind,
           CASE k.kind WHEN 'int4' THEN count(DISTINCT i4) WHEN 'int8' THEN count(DISTINCT i8)
                       WHEN 'text' THEN count(DISTINCT t) WHEN 'uuid' THEN count(DISTINCT u)
                       WHEN 'numeric' THEN count(DISTINCT n) WHEN 'date' THEN count(DISTINCT d) END AS c,
           CASE k.kind WHEN 'int4' THEN array_agg(DISTINCT i4 ORDER BY i4) FILTER (WHERE i4 IS NOT NULL)::text
                       WHEN 'int8' THEN array_agg(DISTINCT i8 ORDER BY i8) FILTER (WHERE i8 IS NOT NULL)::text
                       WHEN 'text' THEN array_agg(DISTINCT t ORDER BY t) FILTER (WHERE t IS NOT NULL)::text
                       WHEN 'uuid' THEN array_agg(DISTINCT u ORDER BY u) FILTER (WHERE u IS NOT NULL)::text
                       WHEN 'date' THEN array_agg(DISTINCT d ORDER BY d) FILTER (WHERE d IS NOT NULL)::text END AS a,
           array_agg(DISTINCT n ORDER BY n) FILTER (WHERE n IS NOT NULL) AS an
    FROM cb_src, (VALUES ('int4'), ('int8'), ('text'), ('uuid'), ('numeric'), ('date')) k(kind)
    GROUP BY ty, g, k.kind
)
SELECT b.kind, count(*) AS sets,
       bool_and(cardinality(b.s) = nat.c) AS cardinality_ok,
       bool_and(CASE b.kind WHEN 'int4' THEN distinct_set_to_array(b.s, NULL::int4)::text
                            WHEN 'int8' THEN distinct_set_to_array(b.s, NULL::int8)::text
                            WHEN 'text' THEN distinct_set_to_array(b.s, NULL::text COLLATE "C")::text
                            WHEN 'uuid' THEN distinct_set_to_array(b.s, NULL::uuid)::text
                            WHEN 'date' THEN distinct_set_to_array(b.s, NULL::date)::text END
                IS NOT DISTINCT FROM nat.a) AS values_ok,
       bool_and(b.kind <> 'numeric' OR distinct_set_to_array(b.s, NULL::numeric) = nat.an) AS numeric_ok
FROM cb_back b JOIN nat USING (ty, g, kind)
GROUP BY b.kind ORDER BY b.kind;

-- the operators on sets read back
SELECT (SELECT distinct_set_union_agg(s) FROM cb_back WHERE kind = 'int4')
       = (SELECT distinct_set_agg(i4) FROM cb_src) AS union_ok,
       (SELECT s FROM cb_back WHERE ty = 'large' AND kind = 'int4')
       @> (SELECT distinct_set_agg(i4) FROM cb_src WHERE ty = 'large' AND i4 % 7 = 0) AS contains_ok,
       (SELECT count(*) FROM cb_back a, cb_back b WHERE a.kind = 'text' AND b.kind = 'text' AND a.s && b.s) AS text_overlaps;

-- A corrupted file: one byte of a set's binary form flipped.  A bytea column
-- holds the set's binary form (distinct_set_send) with the byte changed;
-- COPY BINARY writes a bytea as its bytes, so the file is the one a
-- distinct_set column would give, with that byte flipped.  Version 1 of the
-- format has no checksum: a flip inside the keys, or one that turns the
-- element type into another with keys of the same kind, can give another
-- valid, canonical set (other values), which binary input cannot tell from a
-- genuine one; the other flips are refused with SQLSTATE 22P03.
CREATE TABLE cb_bad (id int, kind text, pos text, b bytea);
INSERT INTO cb_bad
SELECT s.id, s.kind, p.pos,
       set_byte(distinct_set_send(s.s), p.off, get_byte(distinct_set_send(s.s), p.off) # p.mask)
FROM cb_sets s,
     LATERAL (VALUES ('format version', 0, 1), ('key width', 2, 4), ('count', 7, 1),
                     ('type', 10, 1), ('middle of the keys', octet_length(distinct_set_send(s.s)) / 2, 128),
                     ('last byte', octet_length(distinct_set_send(s.s)) - 1, 1)) p(pos, off, mask)
WHERE s.ty = 'large' AND s.kind = 'int4' OR s.ty = 'small' AND s.g = 1 AND s.kind IN ('text', 'uuid', 'numeric');
-- one bit of the type's OID: text (25) becomes bytea (17), keys of the same kind
INSERT INTO cb_bad
SELECT s.id, s.kind, 'type: text to bytea',
       set_byte(distinct_set_send(s.s), 12, get_byte(distinct_set_send(s.s), 12) # 8)
FROM cb_sets s WHERE s.ty = 'small' AND s.g = 1 AND s.kind = 'text';
CREATE TABLE cb_bad_in (s distinct_set);
\set VERBOSITY default
\copy (SELECT b FROM cb_bad WHERE kind = 'int4' AND pos = 'format version') TO 'results/copy_binary_bad1.bin' WITH (FORMAT binary)
\copy cb_bad_in FROM 'results/copy_binary_bad1.bin' WITH (FORMAT binary)
\copy (SELECT b FROM cb_bad WHERE kind = 'int4' AND pos = 'count') TO 'results/copy_binary_bad2.bin' WITH (FORMAT binary)
\copy cb_bad_in FROM 'results/copy_binary_bad2.bin' WITH (FORMAT binary)
\copy (SELECT b FROM cb_bad WHERE kind = 'text' AND pos = 'middle of the keys') TO 'results/copy_binary_bad3.bin' WITH (FORMAT binary)
\copy cb_bad_in FROM 'results/copy_binary_bad3.bin' WITH (FORMAT binary)
\copy (SELECT b FROM cb_bad WHERE kind = 'numeric' AND pos = 'type') TO 'results/copy_binary_bad4.bin' WITH (FORMAT binary)
\copy cb_bad_in FROM 'results/copy_binary_bad4.bin' WITH (FORMAT binary)
SELECT count(*) AS rows_accepted FROM cb_bad_in;
-- undetectable: a flipped bit in a gap of the large int4 set's keys
\copy (SELECT b FROM cb_bad WHERE kind = 'int4' AND pos = 'middle of the keys') TO 'results/copy_binary_bad5.bin' WITH (FORMAT binary)
\copy cb_bad_in FROM 'results/copy_binary_bad5.bin' WITH (FORMAT binary)
SELECT i.s = o.s AS equals_original, cardinality(i.s) = cardinality(o.s) AS same_count,
       cardinality(i.s - o.s) > 0 AS other_values
FROM cb_bad_in i, cb_sets o WHERE o.ty = 'large' AND o.kind = 'int4';

-- every flip above, through the same validation (distinct_set_from_bytes is
-- what binary input runs); the accepted ones are canonical sets
CREATE FUNCTION cb_recv(b bytea) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    d text;
BEGIN
    PERFORM distinct_set_from_bytes(b);
    RETURN 'accepted';
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS d = PG_EXCEPTION_DETAIL;
    RETURN SQLSTATE || ': ' || SQLERRM || ' (' || d || ')';
END $$;
SELECT b.kind, b.pos, cb_recv(b.b) AS result,
       CASE WHEN cb_recv(b.b) = 'accepted'
            THEN distinct_set_send(distinct_set_from_bytes(b.b)) = b.b
                 AND distinct_set_from_bytes(b.b) <> s.s END AS canonical_other_set
FROM cb_bad b JOIN cb_sets s USING (id) ORDER BY b.id, b.pos;
