-- How a stored set identifies its element type (dset.h): a built-in type by
-- its fixed OID, a domain by its OID and its base type's on disk, by name in
-- text and binary I/O.  A dropped or replaced type is refused, never read as
-- another type; its sets still print (as orphans), read back, and are bound
-- to a type again by distinct_set_recover.  Type names in input are
-- resolved with the caller's privileges.
CREATE FUNCTION id_err(q text, detail boolean DEFAULT false) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    d text;
BEGIN
    EXECUTE q;
    RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS d = PG_EXCEPTION_DETAIL;
    -- OIDs differ between runs
    RETURN 'ERROR ' || SQLSTATE || ': ' || regexp_replace(SQLERRM ||
        CASE WHEN detail AND d <> '' THEN ' (' || d || ')' ELSE '' END,
        '\m[0-9]{5,}\M', 'N', 'g');
END
$$;
-- the stored bytes, as they are on disk (the test's own cast)
CREATE CAST (distinct_set AS bytea) WITHOUT FUNCTION;

CREATE DOMAIN bobint AS int CHECK (VALUE > 0);
CREATE TABLE id_sets (k text PRIMARY KEY, s distinct_set, truth int[]);
INSERT INTO id_sets
SELECT 'small', distinct_set(a::bobint[]), a FROM (VALUES (ARRAY[3, 1, 2, 3])) v(a);
INSERT INTO id_sets
SELECT 'runs', distinct_set_agg(x::bobint), array_agg(x) FROM generate_series(1, 5000) x;
INSERT INTO id_sets
SELECT 'blocks', distinct_set_agg((x * 7919 % 100003 + 1)::bobint), array_agg(x * 7919 % 100003 + 1)
FROM generate_series(1, 3000) x;

-- on disk: the OID, no name; in the binary form: the name
SELECT k, position('bobint'::bytea IN s::bytea) = 0 AS no_name_on_disk,
       position('bobint'::bytea IN distinct_set_send(s)) > 0 AS named_in_binary,
       s::text::distinct_set = s AS text_round_trip,
       distinct_set_from_bytes(distinct_set_send(s)) = s AS binary_round_trip,
       distinct_set_to_array(s, NULL::bobint) =
           ARRAY(SELECT DISTINCT unnest(truth) ORDER BY 1)::bobint[] AS values_equal
FROM id_sets ORDER BY k;
-- canonical: equal sets, equal bytes, however written
SELECT count(DISTINCT s::bytea) AS distinct_bytes
FROM (SELECT distinct_set(ARRAY[1, 2, 3]::bobint[]) AS s
      UNION ALL SELECT s FROM id_sets WHERE k = 'small'
      UNION ALL SELECT 'bobint:{3,2,1}'::distinct_set
      UNION ALL SELECT (SELECT distinct_set_agg(x) FROM unnest(ARRAY[2, 3, 1]::bobint[]) x)
      UNION ALL SELECT distinct_set_from_bytes(distinct_set_send(s)) FROM id_sets WHERE k = 'small') x;
-- built-in types keep the bytes of format version 1
SELECT distinct_set(ARRAY[1, 2, 3])::bytea = '\x01030400000000030100000017008000000100'::bytea AS int4_bytes,
       distinct_set_send(distinct_set(ARRAY[1, 2, 3])) = distinct_set(ARRAY[1, 2, 3])::bytea AS send_is_disk;

-- the union aggregates' partial states name the type (they may be read on
-- another node): parallel, the same result as serial
CREATE TABLE id_many AS
SELECT g, distinct_set_agg(((x * 37) % 2000 + 1)::bobint) AS s
FROM generate_series(1, 20000) x, LATERAL (SELECT x % 200 AS g) gg GROUP BY g;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
CREATE FUNCTION id_plan_has(q text, node text) RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
    line text;
BEGIN
    FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
        IF line LIKE '%' || node || '%' THEN
            RETURN true;
        END IF;
    END LOOP;
    RETURN false;
END
$$;
SELECT id_plan_has('SELECT distinct_set_union_agg(s) FROM id_many', 'Partial Aggregate') AS parallel_plan;
SELECT distinct_set_union_agg(s) = distinct_set(ARRAY(SELECT (x * 37) % 2000 + 1 FROM generate_series(1, 20000) x)::bobint[])
       AS parallel_union_equal
FROM id_many;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
RESET parallel_leader_participation;

-- the type is dropped: refused, naming the type it was; the count is still read
DROP DOMAIN bobint;
SELECT id_err($$SELECT distinct_set_to_array(s, NULL::int) FROM id_sets$$, true);
SELECT id_err($$SELECT s | s FROM id_sets$$);
SELECT id_err($$SELECT distinct_set_union_agg(s) FROM id_sets$$);
SELECT k, cardinality(s) = cardinality(truth::int[]) - (k = 'small')::int AS count_read FROM id_sets ORDER BY k;
-- ... printed as an orphan, which input reads back (a dump restores it),
-- through the text and the binary form alike
SELECT k, s::text LIKE '(orphaned):\\x%' AS orphan_form,
       s::text::distinct_set::text = s::text AS text_round_trip,
       distinct_set_from_bytes(distinct_set_send(s)) = s::text::distinct_set AS binary_form_same,
       cardinality(s::text::distinct_set) = cardinality(s) AS count_kept
FROM id_sets ORDER BY k;
SELECT id_err($$SELECT distinct_set_to_array(s::text::distinct_set, NULL::int) FROM id_sets$$, true);
-- ... and never bound to a type by itself: a new domain of the same name
CREATE DOMAIN bobint AS int CHECK (VALUE > 0);
SELECT id_err($$SELECT distinct_set_to_array(s, NULL::bobint) FROM id_sets$$);
SELECT id_err($$SELECT distinct_set_to_array(s::text::distinct_set, NULL::bobint) FROM id_sets$$);
-- recovery: bound to a type the caller names, every value checked as it
CREATE TABLE id_restored AS SELECT k, s::text::distinct_set AS s FROM id_sets;
CREATE DOMAIN bigger AS int CHECK (VALUE > 3);
SELECT id_err($$SELECT distinct_set_recover(s, NULL::bigger) FROM id_sets WHERE k = 'small'$$);
SELECT id_err($$SELECT distinct_set_recover(s, NULL::date) FROM id_sets$$, true);
SELECT id_err($$SELECT distinct_set_recover(s, NULL::int8) FROM id_restored$$, true);
SELECT k,
       distinct_set_to_array(distinct_set_recover(i.s, NULL::bobint), NULL::bobint) =
           ARRAY(SELECT DISTINCT unnest(truth) ORDER BY 1)::bobint[] AS recovered_equal,
       distinct_set_recover(i.s, NULL::bobint) = distinct_set(truth::bobint[]) AS same_set,
       distinct_set_recover(r.s, NULL::bobint) = distinct_set(truth::bobint[]) AS same_from_orphan,
       (SELECT count(*) FROM (
           SELECT x FROM distinct_set_values(distinct_set_recover(i.s, NULL::int), NULL::int) x
           EXCEPT SELECT unnest(truth)) d) = 0
       AND (SELECT count(*) FROM (
           SELECT unnest(truth) EXCEPT
           SELECT x FROM distinct_set_values(distinct_set_recover(i.s, NULL::int), NULL::int) x) d) = 0
           AS as_int_equal
FROM id_sets i JOIN id_restored r USING (k) ORDER BY k;
-- a set of a live type can be bound to another domain over its base type
SELECT distinct_set_recover(distinct_set(ARRAY[4, 5]), NULL::bigger),
       id_err($$SELECT distinct_set_recover(distinct_set(ARRAY[3, 4]), NULL::bigger)$$);

-- the element type, NULL for a set without one; in a CHECK constraint, a
-- dependency that keeps the type from being dropped
SELECT k, distinct_set_element_type(i.s) AS dropped, distinct_set_element_type(r.s) AS orphan,
       distinct_set_element_type(distinct_set_recover(i.s, NULL::bobint)) AS recovered
FROM id_sets i JOIN id_restored r USING (k) ORDER BY k;
SELECT distinct_set_element_type('integer:{1}'), distinct_set_element_type('text:{}');
CREATE DOMAIN kept AS int;
CREATE TABLE id_bound (s distinct_set CHECK (distinct_set_element_type(s) = 'kept'::regtype));
INSERT INTO id_bound VALUES ('kept:{1,2}');
SELECT id_err($$INSERT INTO id_bound VALUES ('integer:{1,2}')$$);
SELECT id_err($$DROP DOMAIN kept$$);
SELECT distinct_set_to_array(s, NULL::kept) FROM id_bound;
DROP TABLE id_bound;
DROP DOMAIN kept;

-- the issue's reproducer: a date domain dropped and recreated as int4 with a
-- CHECK is refused, never read as the new domain
CREATE DOMAIN evdate AS date;
CREATE TABLE id_dates AS
SELECT distinct_set(ARRAY['2024-01-01', 'infinity']::evdate[]) AS s;
DROP DOMAIN evdate;
CREATE DOMAIN evdate AS int4 CHECK (VALUE BETWEEN 0 AND 10);
SELECT id_err($$SELECT distinct_set_to_array(s, NULL::evdate) FROM id_dates$$);
SELECT id_err($$SELECT distinct_set_to_array(s, NULL::int4) FROM id_dates$$);
SELECT id_err($$SELECT distinct_set_recover(s, NULL::evdate) FROM id_dates$$, true);
SELECT distinct_set_to_array(distinct_set_recover(s, NULL::date), NULL::date)
       = ARRAY['2024-01-01', 'infinity']::date[] AS dates_recovered
FROM id_dates;
DROP DOMAIN evdate;

-- stored bytes that point at a type by OID (written here through the test's
-- own cast): bound only to a domain over the base type written
CREATE CAST (bytea AS distinct_set) WITHOUT FUNCTION;
CREATE DOMAIN odom AS int CHECK (VALUE < 100);
CREATE DOMAIN ddom AS date;
CREATE FUNCTION id_local(typ regtype, base regtype) RETURNS distinct_set
LANGUAGE sql AS $$
SELECT ('\x0103040000000002'::bytea || '\x03'::bytea ||
        int4send(typ::oid::int4) || int4send(base::oid::int4) ||
        '\x00800000010203'::bytea)::distinct_set
$$;
SELECT distinct_set_to_array(id_local('odom', 'int4'), NULL::odom) AS bound;
SELECT id_err($$SELECT distinct_set_to_array(id_local('ddom', 'int4'), NULL::ddom)$$, true);
SELECT id_err($$SELECT distinct_set_to_array(id_local('odom', 'date'), NULL::odom)$$, true);
SELECT id_local('ddom', 'int4')::text LIKE '(orphaned):%' AS mismatched_is_orphan;

-- format version 1 on disk (as 4.2.0 wrote them): a domain by name, read
-- by name; a text round trip rewrites it in the current form
CREATE DOMAIN ds_dom AS int CHECK (VALUE > 0);
CREATE TABLE id_legacy AS
SELECT '\x0103040000000002027075626c69630064735f646f6d0000800000010203'::bytea::distinct_set AS s;
SELECT s, distinct_set_to_array(s, NULL::ds_dom), s::bytea = distinct_set_send(s) AS bytes_kept,
       s::text::distinct_set = distinct_set(ARRAY[1, 5]::ds_dom[]) AS rewritten_equal,
       position('ds_dom'::bytea IN s::text::distinct_set::bytea) = 0 AS rewritten_by_oid
FROM id_legacy;
-- ... its domain dropped: an orphan of unknown base type, recovered by its
-- key encoding
DROP DOMAIN ds_dom;
SELECT id_err($$SELECT distinct_set_to_array(s, NULL::int) FROM id_legacy$$);
SELECT s::text::distinct_set::text = s::text AS orphan_round_trip,
       distinct_set_recover(s, NULL::int) = distinct_set(ARRAY[1, 5]) AS recovered,
       id_err($$SELECT distinct_set_recover(s, NULL::int8) FROM id_legacy$$, true) AS other_width
FROM id_legacy;
DROP CAST (bytea AS distinct_set);

-- orphans in binary input: checked like any set
SELECT id_err($$SELECT distinct_set_from_bytes('\x01030400000000020400000000000080000001020300'::bytea)$$, true),
       id_err($$SELECT distinct_set_from_bytes('\x01030400000000020400000019000080000001'::bytea)$$, true),
       id_err($$SELECT distinct_set_from_bytes('\x010304000000000203000040000000001700008000000102'::bytea)$$, true);
SELECT id_err($$SELECT '(orphaned):{1,2}'::distinct_set$$),
       id_err($$SELECT '(orphaned):\x01030400000000030100000017008000000100'::distinct_set$$);

-- COPY (FORMAT binary): names on the wire, OIDs on disk
\copy (SELECT k, s FROM id_sets) TO 'results/dset_identity.bin' WITH (FORMAT binary)
CREATE TABLE id_copy (k text, s distinct_set);
\copy id_copy FROM 'results/dset_identity.bin' WITH (FORMAT binary)
SELECT count(*) AS rows, count(*) FILTER (WHERE c.s = i.s::text::distinct_set) AS equal,
       count(*) FILTER (WHERE distinct_set_recover(c.s, NULL::int) = distinct_set(i.truth)) AS recovered
FROM id_copy c JOIN id_sets i USING (k);
CREATE TABLE id_live AS SELECT k, distinct_set_recover(s, NULL::bobint) AS s FROM id_sets;
\copy id_live TO 'results/dset_identity_live.bin' WITH (FORMAT binary)
CREATE TABLE id_live_copy (k text, s distinct_set);
\copy id_live_copy FROM 'results/dset_identity_live.bin' WITH (FORMAT binary)
SELECT count(*) AS rows, count(*) FILTER (WHERE c.s = i.s) AS equal,
       bool_and(position('bobint'::bytea IN c.s::bytea) = 0) AS by_oid
FROM id_live_copy c JOIN id_live i USING (k);

-- privileges: a type in a schema the caller may not use is neither looked
-- up nor run (its CHECK would raise a NOTICE), and the error is the one of a
-- type that does not exist
CREATE SCHEMA priv;
CREATE FUNCTION priv.noisy(int) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
    RAISE NOTICE 'secretd check ran on %', $1;
    RETURN $1 > 0;
END
$$;
CREATE DOMAIN priv.secretd AS int CHECK (priv.noisy(VALUE));
CREATE SCHEMA semi;
CREATE DOMAIN semi.hidden AS int;
REVOKE ALL ON SCHEMA priv FROM PUBLIC;
REVOKE ALL ON TYPE semi.hidden FROM PUBLIC;
GRANT USAGE ON SCHEMA semi TO PUBLIC;
-- as the owner: the CHECK runs
SELECT 'priv.secretd:{1}'::distinct_set;
CREATE TABLE id_private AS SELECT 'priv.secretd:{1,2}'::distinct_set AS s;
CREATE ROLE id_user;
GRANT SELECT ON id_private TO id_user;
SET ROLE id_user;
SELECT id_err($$SELECT 'priv.secretd:{1}'::distinct_set$$, true),
       id_err($$SELECT 'priv.nosuchtype:{1}'::distinct_set$$, true);
SELECT id_err($$SELECT 'nosuchschema.secretd:{1}'::distinct_set$$, true),
       id_err($$SELECT 'semi.hidden:{1}'::distinct_set$$, true);
SET search_path = priv, public;
SELECT id_err($$SELECT 'secretd:{1}'::distinct_set$$, true),
       id_err($$SELECT 'nosuchtype:{1}'::distinct_set$$, true);
RESET search_path;
-- binary input: priv.secretd, priv.nosuchtype, nosuchschema.secretd, semi.hidden
SELECT id_err(format('SELECT distinct_set_from_bytes(%L)',
                     '\x01030400000000010270726976'::bytea || b || '\x000080000001'::bytea), true)
FROM (VALUES ('\x00736563726574640000'::bytea), ('\x006e6f7375636874797065000000'::bytea)) v(b);
SELECT id_err($$SELECT distinct_set_from_bytes('\x0103040000000001026e6f73756368736368656d610073656372657464000080000001'::bytea)$$),
       id_err($$SELECT distinct_set_from_bytes('\x01030400000000010273656d690068696464656e000080000001'::bytea)$$);
-- stored sets of a private type are read (as PostgreSQL reads arrays of it),
-- in text, binary and aggregates, parallel or not
SELECT s::text, cardinality(s), distinct_set_send(s) IS NOT NULL AS sent,
       cardinality(s | s) AS union_count
FROM id_private;
SELECT cardinality(distinct_set_union_agg(s)) FROM id_private;
RESET ROLE;
-- a built-in type whose USAGE was revoked from PUBLIC: text input and binary
-- input (integer keys of built-in types are checked in place) refuse it alike
BEGIN;
REVOKE USAGE ON TYPE int8 FROM PUBLIC;
SET LOCAL ROLE id_user;
SELECT id_err($$SELECT 'int8:{1,2}'::distinct_set$$, true) AS text_input,
       id_err($$SELECT distinct_set_from_bytes('\x0103080000000002010000001400800000000000000100'::bytea)$$, true) AS binary_input;
ROLLBACK;
DROP TABLE id_private;
DROP OWNED BY id_user;
DROP ROLE id_user;
DROP SCHEMA priv CASCADE;
DROP SCHEMA semi CASCADE;

-- values returned as a domain: its constraints checked (issue 35), the
-- array typed as the domain's
CREATE DOMAIN posint AS int CHECK (VALUE > 0);
CREATE DOMAIN small AS int CHECK (VALUE < 10);
SELECT id_err($$SELECT distinct_set_to_array('integer:{-1,2}', NULL::posint)$$),
       id_err($$SELECT distinct_set_values('integer:{-1,2}', NULL::posint)$$),
       id_err($$SELECT distinct_set_to_array('posint:{1,20}', NULL::small)$$);
SELECT a, pg_typeof(a) FROM (SELECT distinct_set_to_array('integer:{1,2}', NULL::posint) AS a) x;
SELECT array_agg(v ORDER BY v) = ARRAY[1, 2]::posint[] AS own_domain,
       array_agg(DISTINCT pg_typeof(v)) AS types
FROM distinct_set_values('posint:{2,1}', NULL::posint) v;
SELECT array_agg(v ORDER BY v) AS other_domain, array_agg(DISTINCT pg_typeof(v)) AS types
FROM distinct_set_values('posint:{2,1}', NULL::small) v;
SELECT count(*) AS none FROM distinct_set_values(NULL, NULL::posint) v;
SELECT distinct_set_to_array('posint:{2,1}', NULL::int) AS base, pg_typeof(distinct_set_to_array('posint:{2,1}', NULL::int));
-- a constraint added to the set's own domain since the set was written
CREATE TABLE id_later AS SELECT 'posint:{1,50}'::distinct_set AS s;
ALTER DOMAIN posint ADD CONSTRAINT below_20 CHECK (VALUE < 20) NOT VALID;
SELECT id_err($$SELECT distinct_set_to_array(s, NULL::posint) FROM id_later$$),
       distinct_set_to_array(s, NULL::int) AS as_base FROM id_later;
DROP TABLE id_later;
DROP DOMAIN posint;
DROP DOMAIN small;

DROP CAST (distinct_set AS bytea);
