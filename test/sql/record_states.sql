-- Serialized states whose record keys a user controls, read by the
-- validating decoder of partial states (count_distinct_deserial): every
-- mutation of a crafted state of anonymous records (int4, bytea) is refused
-- with 22P03, or read as a valid state and counted exactly; never a crash,
-- never another count.
--
-- The bytes come through another serialization function, string_agg's
-- (PostgreSQL 16+), in an aggregate a superuser mixed (as in
-- support_functions.sql): it writes the length of the first delimiter in
-- 4 bytes, then the delimiter, then the value.  A state of byte keys starts
-- with version 2, encoding 5 (byte keys), 0, 0: so the delimiter is the
-- state's next 0x02050000 bytes (the header and most of a first key of that
-- size, the record (-2147483648, 'xxx...')), and the value the rest of the
-- state (the end of that key, then the keys mutated).
-- Skipped (record_states_1.out) before PostgreSQL 16, which has no such
-- function to mix.
SELECT current_setting('server_version_num')::int < 160000 AS skip_test \gset
\if :skip_test
\quit
\endif
SET search_path = public;

-- a varint (LEB128, as front coding writes lengths)
CREATE FUNCTION pg_temp.leb(v bigint) RETURNS bytea LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  r bytea := '\x';
BEGIN
  WHILE v >= 128 LOOP
    r := r || set_byte('\x00'::bytea, 0, (128 + v % 128)::int);
    v := v / 128;
  END LOOP;
  RETURN r || set_byte('\x00'::bytea, 0, v::int);
END $$;

-- the header after the first 4 bytes: record (REF_OID 2249), no
-- collation, 2 columns: int4 (23) without and text (25) with a collation
-- ("C", 950); then 4 keys
\set head '\\x01000008c9000002010000001700010000001901000003b600000004'
-- after the big key: (1, ''), (2, 'ab'), (3, NULL), front-coded: the
-- length of the prefix shared with the key before and of the rest
-- (varints), the rest; a record key is per column 0x01 and the column's
-- key (int4: big-endian, sign bit flipped; text: its bytes, then 0x00) or
-- 0x02 for NULL
\set small '\\x01068000000101000405020161620004020302'

CREATE TABLE rs_crafted (v bytea, d bytea);
ALTER TABLE rs_crafted ALTER v SET STORAGE EXTERNAL, ALTER d SET STORAGE EXTERNAL;
CREATE TABLE rs_cases (id int, what text, head bytea, small bytea);
CREATE TABLE rs_out (id int, outcome text);
CREATE AGGREGATE rs_bytes_into_count(bytea, bytea) (
    SFUNC = bytea_string_agg_transfn, STYPE = internal,
    FINALFUNC = count_distinct_final, COMBINEFUNC = count_distinct_combine,
    SERIALFUNC = string_agg_serialize, DESERIALFUNC = count_distinct_deserial,
    PARALLEL = SAFE);
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET parallel_leader_participation = off;
EXPLAIN (COSTS OFF) SELECT rs_bytes_into_count(v, d) FROM rs_crafted;

-- the delimiter for a header: the header, the big key's shared-prefix
-- length (0) and length (a varint of 4 bytes), and the key up to its
-- terminating 0x00, which the value starts with
CREATE FUNCTION pg_temp.delimiter(head bytea) RETURNS bytea LANGUAGE sql AS $$
  SELECT head || '\x00'::bytea || pg_temp.leb(n + 7) || '\x010000000001'::bytea
         || convert_to(repeat('x', n), 'UTF8')
  FROM (SELECT x'02050000'::int - 11 - length(head) AS n) s
$$;

-- the cases: the valid state; each byte of the keys after the big one
-- flipped in its lowest bit (each such query moves 34 MB through a
-- parallel worker: a sample, not every mutation); and mutations of the
-- header and the keys that keep the lengths right but break a rule
INSERT INTO rs_cases VALUES (0, 'valid', :'head', :'small');
INSERT INTO rs_cases
SELECT 1000 + p, 'key byte ' || p || ' xor 1', :'head',
       set_byte(:'small'::bytea, p, get_byte(:'small'::bytea, p) # 1)
FROM generate_series(0, length(:'small'::bytea) - 1) p;
INSERT INTO rs_cases VALUES
  -- the column types: int8 (20), text without a collation, bytea (17)
  -- with one, jsonb (3802: no byte key), record (2249: not as a column);
  -- one column, three columns
  (10, 'int8 column', '\x01000008c9000002010000001400010000001901000003b600000004', :'small'),
  (11, 'text column, no collation', '\x01000008c900000201000000170001000000190000000004', :'small'),
  (12, 'bytea column, a collation', '\x01000008c9000002010000001700010000001101000003b600000004', :'small'),
  (13, 'jsonb column', '\x01000008c90000020100000017000100000eda0000000004', :'small'),
  (14, 'record column', '\x01000008c900000201000008c900010000001901000003b600000004', :'small'),
  (15, 'one column', '\x01000008c900000101000000170000000004', :'small'),
  (16, 'three columns', '\x01000008c9000003010000001700010000001901000003b601000000170000000004', :'small'),
  -- keys out of order, repeated, not front-coded with the longest prefix
  (20, 'keys swapped', :'head', '\x01088000000201616200040301010004020302'),
  (21, 'key repeated', '\x01000008c9000002010000001700010000001901000003b600000005',
   '\x010680000001010007000405020161620004020302'),
  (22, 'prefix not the longest', :'head', '\x0106800000010100030600020161620004020302'),
  -- inside a key: text that is not UTF8, a field marker 0x03, a key that
  -- ends inside its int4, text without its terminator; one key fewer or
  -- more than the header says
  (30, 'text not UTF8', :'head', '\x01078000000101ff000405020161620004020302'),
  (31, 'marker 03', :'head', '\x01068000000101000405020161620004020303'),
  (32, 'key ends in its int4', :'head', '\x010680000001010004050201616200040103'),
  (33, 'text not terminated', '\x01000008c9000002010000001700010000001901000003b600000003',
   '\x0106800000010100040402016162'),
  (34, 'three keys said', '\x01000008c9000002010000001700010000001901000003b600000003', :'small'),
  (35, 'five keys said', '\x01000008c9000002010000001700010000001901000003b600000005', :'small');

DO $$
DECLARE
  r record;
  c bigint;
  st text;
  last_head bytea;
BEGIN
  INSERT INTO rs_crafted VALUES (NULL, NULL);
  FOR r IN SELECT * FROM rs_cases ORDER BY head, id LOOP
    IF r.head IS DISTINCT FROM last_head THEN
      UPDATE rs_crafted SET d = pg_temp.delimiter(r.head);
      last_head := r.head;
    END IF;
    UPDATE rs_crafted SET v = '\x00'::bytea || r.small;
    BEGIN
      EXECUTE 'SELECT rs_bytes_into_count(v, d) FROM rs_crafted' INTO c;
      INSERT INTO rs_out VALUES (r.id, 'count ' || c);
    EXCEPTION WHEN others THEN
      GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE;
      INSERT INTO rs_out VALUES (r.id, 'refused ' || st);
    END;
  END LOOP;
END $$;

-- the valid state is read (4 records), and the targeted mutations are
-- refused
SELECT id, what, outcome FROM rs_cases JOIN rs_out USING (id) WHERE id < 1000 ORDER BY id;
-- every byte mutation: refused (22P03, or 08P01 for bytes left over), or
-- counted as the number of
-- keys its header says (which only the key mutations keep valid)
SELECT count(*) AS mutations,
       count(*) FILTER (WHERE outcome IN ('refused 22P03', 'refused 08P01')) AS refused,
       count(*) FILTER (WHERE outcome LIKE 'count %') AS counted,
       count(*) FILTER (WHERE outcome LIKE 'count %'
                          AND outcome <> 'count ' || ('x' || encode(substr(head, length(head) - 3), 'hex'))::bit(32)::int)
         AS counted_wrong,
       string_agg(DISTINCT outcome, ', ') FILTER (WHERE outcome NOT LIKE 'count %' AND outcome NOT IN ('refused 22P03', 'refused 08P01'))
         AS other_outcomes
FROM rs_cases JOIN rs_out USING (id) WHERE id >= 1000;

RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET parallel_leader_participation;
DROP AGGREGATE rs_bytes_into_count(bytea, bytea);
DROP TABLE rs_crafted, rs_cases, rs_out;
