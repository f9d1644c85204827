-- Every type against native COUNT(DISTINCT) and
-- array_agg(DISTINCT ... ORDER BY ...) computed in the same query:
-- NULLs, duplicates, each type's extreme values, -0.0/0.0, NaN, +-Infinity,
-- and the traps of byte-wise comparison (numeric 1.0 = 1.00, bpchar's
-- trailing blanks, interval '1 day' = '24 hours', jsonb numbers, floats
-- inside composites, TOASTed and compressed values, multibyte text).
SET extra_float_digits = 0;

CREATE TABLE samples (typ text, lit text);
INSERT INTO samples VALUES
  ('bool', 'true'), ('bool', 'false'), ('bool', NULL),
  ('"char"', 'a'), ('"char"', 'Z'), ('"char"', '~'), ('"char"', '!'),
  ('int2', '-32768'), ('int2', '32767'), ('int2', '0'), ('int2', '-1'), ('int2', '1'), ('int2', NULL),
  ('int4', '-2147483648'), ('int4', '2147483647'), ('int4', '0'), ('int4', '-1'), ('int4', '1'), ('int4', '-100'), ('int4', NULL),
  ('int8', '-9223372036854775808'), ('int8', '9223372036854775807'), ('int8', '0'), ('int8', '-1'), ('int8', '4294967296'), ('int8', '-4294967296'),
  ('oid', '0'), ('oid', '4294967295'), ('oid', '2147483648'), ('oid', '2147483647'), ('oid', '1'),
  ('float4', '0'), ('float4', '-0'), ('float4', 'NaN'), ('float4', '-NaN'), ('float4', 'Infinity'), ('float4', '-Infinity'),
  ('float4', '1.5'), ('float4', '-1.5'), ('float4', '3.4028235e38'), ('float4', '-3.4028235e38'), ('float4', '1e-45'), ('float4', '-1e-45'),
  ('float8', '0'), ('float8', '-0'), ('float8', 'NaN'), ('float8', '-NaN'), ('float8', 'Infinity'), ('float8', '-Infinity'),
  ('float8', '2.5'), ('float8', '-2.5'), ('float8', '1.7976931348623157e308'), ('float8', '-1.7976931348623157e308'),
  ('float8', '5e-324'), ('float8', '-5e-324'), ('float8', NULL),
  ('money', '-92233720368547758.08'), ('money', '92233720368547758.07'), ('money', '0'), ('money', '-1'), ('money', '1.01'),
  ('date', '4714-11-24 BC'), ('date', '5874897-12-31'), ('date', '2000-01-01'), ('date', '1999-12-31'), ('date', 'infinity'), ('date', '-infinity'),
  ('time', '00:00'), ('time', '24:00'), ('time', '12:34:56.789'), ('time', '23:59:59.999999'),
  ('timestamp', '4714-11-24 00:00 BC'), ('timestamp', '294276-12-31 23:59:59.999999'), ('timestamp', '2000-01-01'), ('timestamp', '1999-12-31 23:59:59.999999'),
  ('timestamp', 'infinity'), ('timestamp', '-infinity'),
  ('timestamptz', '2000-01-01 00:00+00'), ('timestamptz', '2000-01-01 01:00+01'), ('timestamptz', '1970-01-01 00:00+00'), ('timestamptz', '1960-06-01 00:00+00'),
  ('timestamptz', 'infinity'), ('timestamptz', '-infinity');

-- variable-length and pass-by-reference types
INSERT INTO samples VALUES
  ('text', ''), ('text', 'a'), ('text', 'A'), ('text', 'b'), ('text', 'ä'), ('text', 'ß'), ('text', '😀'),
  ('text', 'abc'), ('text', 'abc '), ('text', NULL),
  ('varchar', ''), ('varchar', 'x'), ('varchar', 'X'), ('varchar', 'x '), ('varchar', 'é'),
  ('bpchar', 'a'), ('bpchar', 'a '), ('bpchar', 'a  '), ('bpchar', ''), ('bpchar', ' '), ('bpchar', 'b'),
  ('char(3)', 'a'), ('char(3)', 'a '), ('char(3)', 'ab'),
  ('name', 'abc'), ('name', 'ABC'), ('name', ''), ('name', 'abd'),
  ('bytea', '\x'), ('bytea', '\x00'), ('bytea', '\x0000'), ('bytea', '\xff'), ('bytea', '\x00ff'), ('bytea', '\x7f80'),
  ('uuid', '00000000-0000-0000-0000-000000000000'), ('uuid', 'ffffffff-ffff-ffff-ffff-ffffffffffff'),
  ('uuid', '7fffffff-0000-0000-0000-000000000000'), ('uuid', '80000000-0000-0000-0000-000000000000'),
  ('uuid', 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11'), ('uuid', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'),
  ('numeric', '1'), ('numeric', '1.0'), ('numeric', '1.00'), ('numeric', '-0'), ('numeric', '0.000'),
  ('numeric', 'NaN'), ('numeric', '1e100'), ('numeric', '-1e-100'),
  ('numeric', '123.456'), ('numeric', '-123.4560'),
  ('interval', '1 day'), ('interval', '24 hours'), ('interval', '1440 minutes'), ('interval', '1 mon'),
  ('interval', '30 days'), ('interval', '-1 day'), ('interval', '0'), ('interval', '1 year'), ('interval', '12 mons'),
  ('macaddr', '08:00:2b:01:02:03'), ('macaddr', '08-00-2b-01-02-03'), ('macaddr', 'ff:ff:ff:ff:ff:ff'), ('macaddr', '00:00:00:00:00:00'),
  ('macaddr8', '08:00:2b:01:02:03:04:05'), ('macaddr8', '08002b0102030405'), ('macaddr8', 'ff:ff:ff:ff:ff:ff:ff:ff'),
  ('inet', '10.0.0.1'), ('inet', '10.0.0.1/32'), ('inet', '10.0.0.1/8'), ('inet', '::1'), ('inet', '192.168.0.0/16'),
  ('cidr', '10.0.0.0/8'), ('cidr', '10.0.0.0/16'), ('cidr', '::/0'), ('cidr', '10.0.0.0/8'),
  ('jsonb', '{"a": 1.0}'), ('jsonb', '{"a": 1}'), ('jsonb', '{"a": 1.00}'), ('jsonb', '[1, 2]'), ('jsonb', '[2, 1]'),
  ('jsonb', 'null'), ('jsonb', '"x"'), ('jsonb', '{}'), ('jsonb', '{"b": 1, "a": 2}'), ('jsonb', '{"a": 2, "b": 1}'),
  ('bit(3)', '101'), ('bit(3)', '000'), ('bit(3)', '111'),
  ('varbit', ''), ('varbit', '0'), ('varbit', '00'), ('varbit', '1'), ('varbit', '101'), ('varbit', '1010'),
  ('mood', 'happy'), ('mood', 'sad'), ('mood', 'ok'),
  ('int4[]', '{1,2}'), ('int4[]', '{2}'), ('int4[]', '{}'), ('int4[]', '{NULL}'), ('int4[]', '{{1,2},{3,4}}'), ('int4[]', '{1,2,3,4}'),
  ('float8[]', '{0}'), ('float8[]', '{-0}'), ('float8[]', '{NaN}'), ('float8[]', '{-NaN}'),
  ('pair', '(1,0)'), ('pair', '(1,-0)'), ('pair', '(1,NaN)'), ('pair', '(2,)'), ('pair', '(,)'), ('pair', '(-1,1.5)'),
  ('int4range', '[1,5)'), ('int4range', '[1,4]'), ('int4range', 'empty'), ('int4range', '(,)'), ('int4range', '[-3,0)'),
  ('tstzrange', '[2000-01-01 00:00+00,2001-01-01)'), ('tstzrange', '[2000-01-01 01:00+01,2001-01-01)'),
  ('timetz', '00:00+01'), ('timetz', '23:00+00'), ('timetz', '12:00-05'),
  ('pg_lsn', '0/0'), ('pg_lsn', 'FFFFFFFF/FFFFFFFF'), ('pg_lsn', '1/0'),
  ('tsvector', 'a b'), ('tsvector', 'b a'), ('tsvector', 'a:1 b:2'),
  ('dtext', 'x'), ('dtext', 'y');
-- long values: compressed inline and stored out of line (TOAST)
INSERT INTO samples SELECT 'text', repeat('x', 3000);
INSERT INTO samples SELECT 'text', repeat('x', 2999) || 'y';
INSERT INTO samples SELECT 'text', string_agg(md5(i::text), '') FROM generate_series(1, 300) i;
INSERT INTO samples SELECT 'bytea', decode(string_agg(md5(i::text), ''), 'hex') FROM generate_series(1, 300) i;
INSERT INTO samples SELECT 'numeric', repeat('9', 1000) || '.5';

CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy');
CREATE TYPE pair AS (a int, f float8);
CREATE DOMAIN dtext AS text;
CREATE DOMAIN posint AS int4 CHECK (VALUE > 0);
CREATE DOMAIN dfloat AS float8;
INSERT INTO samples SELECT 'posint', lit FROM samples WHERE typ = 'int4' AND lit::int4 > 0;
INSERT INTO samples SELECT 'dfloat', lit FROM samples WHERE typ = 'float8';

-- Each value 3 times, in 3 groups, plus groups that are empty or all NULL.
-- Returns, per type, the distinct count and whether everything matched native.
CREATE FUNCTION check_type(typ text)
RETURNS TABLE (distinct_values bigint, counts_match bool, arrays_match bool,
               groups_match bool, elements_match bool)
LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format($q$
    CREATE TEMP TABLE tv AS
    SELECT s.lit::%1$s AS v, (row_number() OVER ()) %% 3 AS g
    FROM samples s, generate_series(1, 3) r
    WHERE s.typ = %2$L
    UNION ALL SELECT NULL::%1$s, 10   -- a group with only NULL
  $q$, typ, typ);
  IF typ LIKE '%[]' THEN
    -- array values: count_distinct only (array_agg_distinct takes non-arrays)
    RETURN QUERY EXECUTE $q$
      SELECT (SELECT count_distinct(v) FROM tv),
             (SELECT count_distinct(v) = count(DISTINCT v) FROM tv),
             NULL::bool,
             (SELECT bool_and(cd = nat) FROM (
                SELECT g, count_distinct(v) cd, count(DISTINCT v) nat FROM tv GROUP BY g) s),
             NULL::bool
    $q$;
  ELSE
    RETURN QUERY EXECUTE $q$
      SELECT (SELECT count_distinct(v) FROM tv),
             (SELECT count_distinct(v) = count(DISTINCT v) FROM tv),
             (SELECT array_agg_distinct(v) = coalesce(array_agg(DISTINCT v ORDER BY v) FILTER (WHERE v IS DISTINCT FROM NULL), '{}')
                FROM tv),
             (SELECT bool_and(cd = nat AND ad = na) FROM (
                SELECT g, count_distinct(v) cd, count(DISTINCT v) nat, array_agg_distinct(v) ad,
                       coalesce(array_agg(DISTINCT v ORDER BY v) FILTER (WHERE v IS DISTINCT FROM NULL), '{}') na
                FROM tv GROUP BY g) s),
             (SELECT count_distinct_elements(a) = (SELECT count(DISTINCT v) FROM tv)
                     AND array_agg_distinct_elements(a) =
                         (SELECT array_agg(DISTINCT v ORDER BY v) FILTER (WHERE v IS DISTINCT FROM NULL) FROM tv)
                FROM (SELECT array_agg(v) a FROM tv GROUP BY g) s)
    $q$;
  END IF;
  DROP TABLE tv;
END $$;

SELECT typ, c.* FROM (SELECT DISTINCT typ FROM samples) t, check_type(t.typ) c ORDER BY typ COLLATE "C";

-- the traps, spelled out: ours next to native
SELECT count_distinct(v), count(DISTINCT v), array_agg_distinct(v)
FROM (VALUES (1.0::numeric), (1.00), (1), (2.50), (2.5)) s(v);
SELECT count_distinct(v), count(DISTINCT v) FROM (VALUES ('a'::bpchar), ('a '), ('a    ')) s(v);
SELECT count_distinct(v), count(DISTINCT v) FROM (VALUES ('1 day'::interval), ('24 hours'), ('1440 minutes')) s(v);
SELECT count_distinct(v), count(DISTINCT v) FROM (VALUES ('{"a":1.0}'::jsonb), ('{"a":1}')) s(v);
SELECT count_distinct(v), count(DISTINCT v) FROM (VALUES (ROW(1, -0.0::float8)), (ROW(1, 0.0::float8))) s(v);
-- the same text under "C" and under the default collation
SELECT count_distinct(v COLLATE "C") AS c_count, count_distinct(v) AS default_count,
       array_agg_distinct(v COLLATE "C") = array_agg(DISTINCT v COLLATE "C" ORDER BY v COLLATE "C") AS c_order,
       array_agg_distinct(v) = array_agg(DISTINCT v ORDER BY v) AS default_order
FROM (VALUES ('b'), ('B'), ('a'), ('_'), ('ä'), ('A'), ('b')) s(v);
-- arrays of arrays: count_distinct over array values counts distinct arrays
SELECT count_distinct(a), count(DISTINCT a) FROM (VALUES ('{1,2}'::int[]), ('{1,2}'), ('{2,1}'), ('{{1,2}}')) s(a);
SELECT count_distinct_elements(a), array_agg_distinct_elements(a)
FROM (VALUES ('{b,a}'::text[]), ('{c,NULL,a}'), (NULL)) s(a);

-- the traps of a bytewise comparison, spelled out
SELECT count_distinct(v), count(DISTINCT v) FROM (VALUES (0.0::float8), (-0.0), ('NaN'), ('-NaN'), ('NaN'::float8 * 0)) s(v);
SELECT count_distinct(v), count(DISTINCT v) FROM (VALUES (0.0::float4), (-0.0), ('NaN'), ('-NaN')) s(v);
SELECT array_agg_distinct(v) FROM (VALUES (1), (-1), (-2147483648), (2147483647), (0), (-5)) s(v);
SELECT array_agg_distinct(v) FROM (VALUES (1.5::float8), (-1.5), ('-Infinity'), ('Infinity'), ('NaN'), (-0.0), (0.0)) s(v);
-- "char" orders as unsigned: bytes 128-255 after 0-127
SELECT count_distinct(v) = count(DISTINCT v) AS counts_match,
       array_agg_distinct(v) = array_agg(DISTINCT v ORDER BY v) AS arrays_match,
       count_distinct(v) AS n
FROM (SELECT (i % 256 - 128)::"char" AS v FROM generate_series(1, 1000) i) s;
SELECT array_agg_distinct(v) FROM (VALUES (4294967295::oid), (0), (2147483648)) s(v);

-- empty input, all-NULL input
SELECT count_distinct(v), array_agg_distinct(v) FROM (SELECT 1::int WHERE false) s(v);
SELECT count_distinct(v), array_agg_distinct(v) FROM (SELECT NULL::int8 FROM generate_series(1, 5)) s(v);
SELECT count_distinct_elements(a), array_agg_distinct_elements(a)
  FROM (VALUES ('{}'::int[]), ('{NULL,NULL}'), (NULL)) s(a);
SELECT pg_typeof(array_agg_distinct(v)), pg_typeof(array_agg_distinct_elements(ARRAY[v]))
  FROM (VALUES (1::posint)) s(v);

-- multi-dimensional arrays are flattened
SELECT count_distinct_elements(a), array_agg_distinct_elements(a)
  FROM (VALUES ('{{1,2},{3,NULL}}'::int[]), ('{{{3}},{{4}}}'), ('[5:6]={6,7}')) s(a);

DROP FUNCTION check_type(text);
DROP TABLE samples;
DROP DOMAIN posint;
DROP DOMAIN dfloat;
DROP DOMAIN dtext;
DROP TYPE mood;
DROP TYPE pair;
