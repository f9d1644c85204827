-- Stored sets (distinct_set) that a dump must restore equal: every key
-- layout, byte keys, a domain (by name), an index, a view; run on a fresh
-- database of the current version (60-upgrade.sh).
CREATE DOMAIN ds_pos AS int CHECK (VALUE > 0);
CREATE TABLE ds_stored (k text PRIMARY KEY, s distinct_set);
INSERT INTO ds_stored VALUES
    ('int4 blocks', (SELECT distinct_set_agg(x * 7 % 1000) FROM generate_series(1, 5000) x)),
    ('int4 runs', (SELECT distinct_set_agg(x) FROM generate_series(1, 100000) x WHERE x % 1000 > 10)),
    ('int8', (SELECT distinct_set_agg(x::int8 * 1000000007) FROM generate_series(-500, 500) x)),
    ('float8', distinct_set(ARRAY['-0', 'NaN', '-Infinity', 1.5, 1e-300]::float8[])),
    ('date', (SELECT distinct_set_agg(date '2020-01-01' + x) FROM generate_series(0, 400, 3) x)),
    ('text', (SELECT distinct_set_agg(md5(x::text)) FROM generate_series(1, 3000) x)),
    ('text quoting', distinct_set(ARRAY['', 'a b', '"', '\', '{}', ',', 'é', 'NULL'])),
    ('uuid', (SELECT distinct_set_agg(md5(x::text)::uuid) FROM generate_series(1, 500) x)),
    ('numeric', distinct_set(ARRAY[1.0, 1.00, -2.5, 1e100, 'NaN', 0]::numeric[])),
    ('domain', distinct_set(ARRAY[3, 1, 2]::ds_pos[])),
    ('empty', distinct_set('{}'::int[]));
CREATE INDEX ON ds_stored USING hash (s);
CREATE TABLE ds_digest AS
SELECT md5(string_agg(k || ':' || distinct_set_send(s)::text, ',' ORDER BY k)) AS digest FROM ds_stored;
CREATE VIEW ds_view AS SELECT k, cardinality(s) AS n, s | s AS u FROM ds_stored;
