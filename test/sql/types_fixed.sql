-- Every fixed-width type against native COUNT(DISTINCT) and
-- array_agg(DISTINCT ... ORDER BY ...) computed in the same query:
-- NULLs, duplicates, each type's extreme values, -0.0/0.0, NaN, +-Infinity.
SET extra_float_digits = 0;

CREATE TABLE samples (typ text, lit text);
INSERT INTO samples VALUES
  ('bool', 'true'), ('bool', 'false'), ('bool', NULL),
  ('"char"', 'a'), ('"char"', 'Z'), ('"char"', '\001'), ('"char"', '\377'), ('"char"', '\200'), ('"char"', '\177'),
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
  RETURN QUERY EXECUTE $q$
    SELECT (SELECT count_distinct(v) FROM tv),
           (SELECT count_distinct(v) = count(DISTINCT v) FROM tv),
           (SELECT array_agg_distinct(v) = coalesce(array_agg(DISTINCT v ORDER BY v) FILTER (WHERE v IS NOT NULL), '{}')
              FROM tv),
           (SELECT bool_and(cd = nat AND ad = na) FROM (
              SELECT g, count_distinct(v) cd, count(DISTINCT v) nat, array_agg_distinct(v) ad,
                     coalesce(array_agg(DISTINCT v ORDER BY v) FILTER (WHERE v IS NOT NULL), '{}') na
              FROM tv GROUP BY g) s),
           (SELECT count_distinct_elements(a) = (SELECT count(DISTINCT v) FROM tv)
                   AND array_agg_distinct_elements(a) =
                       (SELECT array_agg(DISTINCT v ORDER BY v) FILTER (WHERE v IS NOT NULL) FROM tv)
              FROM (SELECT array_agg(v) a FROM tv GROUP BY g) s)
  $q$;
  DROP TABLE tv;
END $$;

SELECT typ, c.* FROM (SELECT DISTINCT typ FROM samples) t, check_type(t.typ) c ORDER BY typ;

-- the traps of a bytewise comparison, spelled out
SELECT count_distinct(v), count(DISTINCT v) FROM (VALUES (0.0::float8), (-0.0), ('NaN'), ('-NaN'), ('NaN'::float8 * 0)) s(v);
SELECT count_distinct(v), count(DISTINCT v) FROM (VALUES (0.0::float4), (-0.0), ('NaN'), ('-NaN')) s(v);
SELECT array_agg_distinct(v) FROM (VALUES (1), (-1), (-2147483648), (2147483647), (0), (-5)) s(v);
SELECT array_agg_distinct(v) FROM (VALUES (1.5::float8), (-1.5), ('-Infinity'), ('Infinity'), ('NaN'), (-0.0), (0.0)) s(v);
SELECT array_agg_distinct(v) FROM (VALUES ('\377'::"char"), ('a'), ('\001')) s(v);
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
