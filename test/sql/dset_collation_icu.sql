-- A domain over text under a nondeterministic collation: its values can be
-- equal without equal bytes, so no stored set holds them; refused on every
-- path (text and binary input, arrays, aggregates, recovery), naming the
-- domain, whatever the collation of the call.  Skipped
-- (dset_collation_icu_1.out) where the server has no ICU collations or the
-- encoding is not UTF8.
SELECT getdatabaseencoding() <> 'UTF8' OR
       NOT EXISTS (SELECT FROM pg_collation WHERE collprovider = 'i' AND collname <> 'unicode')
       AS skip_test \gset
\if :skip_test
\quit
\endif
CREATE FUNCTION ci_err(q text) RETURNS text
LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE q;
    RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
    RETURN 'ERROR ' || SQLSTATE || ': ' || SQLERRM;
END
$$;
CREATE COLLATION ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
CREATE DOMAIN ci_text AS text COLLATE ci;
CREATE TABLE ci_t (v ci_text);
INSERT INTO ci_t VALUES ('a'), ('A'), ('b');
-- what the set would have to agree with
SELECT count(DISTINCT v) AS native FROM ci_t;
SELECT ci_err($$SELECT 'ci_text:{a,A}'::distinct_set$$) AS text_input;
SELECT ci_err($$SELECT distinct_set_from_bytes('\x0105000000000002027075626c69630063695f74657874000000000161000161'::bytea)$$) AS binary_input;
SELECT ci_err($$SELECT distinct_set(ARRAY['a', 'A']::ci_text[])$$) AS from_array;
SELECT ci_err($$SELECT distinct_set_agg(v) FROM ci_t$$) AS agg;
SELECT ci_err($$SELECT distinct_set_agg(v COLLATE "C") FROM ci_t$$) AS agg_under_c;
SELECT ci_err($$SELECT distinct_set(array_agg(v COLLATE "C")) FROM ci_t$$) AS array_under_c;
SELECT ci_err($$SELECT distinct_set_recover(distinct_set(ARRAY['a', 'A']), NULL::ci_text)$$) AS recover;
-- a domain over it, and the same domain under a deterministic collation
CREATE DOMAIN ci_text2 AS ci_text;
SELECT ci_err($$SELECT 'ci_text2:{a}'::distinct_set$$) AS nested_domain;
CREATE DOMAIN c_text AS text COLLATE "C";
SELECT cardinality('c_text:{a,A}'::distinct_set) = (SELECT count(DISTINCT v COLLATE "C") FROM ci_t WHERE v COLLATE "C" IN ('a', 'A')) AS deterministic_ok;
-- count_distinct still accepts it, as native does
SELECT count_distinct(v) = count(DISTINCT v) AS count_distinct_same FROM ci_t;
-- a composite whose text column is given a nondeterministic collation after
-- sets of it were stored: the sets are then of no type (printed as orphans,
-- so pg_dump still reads them), never read under the new layout; given the
-- collation back, they are the sets they were
CREATE TYPE ci_pair AS (a int, t text);
CREATE TABLE ci_sets AS
SELECT distinct_set_agg(ROW(i % 3, v)::ci_pair) AS ds FROM ci_t, generate_series(1, 4) i;
ALTER TYPE ci_pair ALTER ATTRIBUTE t TYPE text COLLATE ci;
SELECT left(ds::text, 11) AS printed, cardinality(ds) AS cardinality,
       ci_err($$SELECT distinct_set_contains(ds, ROW(1, 'a')::ci_pair) FROM ci_sets$$) AS contains
FROM ci_sets;
ALTER TYPE ci_pair ALTER ATTRIBUTE t TYPE text COLLATE "default";
SELECT ds = (SELECT distinct_set_agg(ROW(i % 3, v)::ci_pair) FROM ci_t, generate_series(1, 4) i) AS same_set,
       cardinality(ds) = (SELECT count(DISTINCT ROW(i % 3, v::text COLLATE "default")) FROM ci_t, generate_series(1, 4) i) AS same_count
FROM ci_sets;
DROP TABLE ci_sets;
DROP TYPE ci_pair;
DROP TABLE ci_t;
DROP DOMAIN c_text;
DROP DOMAIN ci_text2;
DROP DOMAIN ci_text;
DROP COLLATION ci;
