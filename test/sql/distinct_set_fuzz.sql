-- distinct_set: random mutations of valid text and binary forms (a
-- deterministic, in-server complement to the libFuzzer harness of
-- test/fuzz/, which has no text or byte keys).  Every input must either
-- be refused with an input error, or be accepted and then round-trip
-- exactly.  Prints the failures: none.
SELECT setseed(0.18);

CREATE FUNCTION ds_mutate(s bytea) RETURNS bytea LANGUAGE plpgsql AS $$
DECLARE
    r bytea := s;
    i int;
    k int := 1 + (random() * 3)::int;
BEGIN
    FOR j IN 1 .. k LOOP
        i := (random() * greatest(length(r) - 1, 0))::int;
        CASE (random() * 4)::int
            WHEN 0 THEN IF length(r) > 0 THEN r := set_byte(r, i, (random() * 255)::int); END IF;
            WHEN 1 THEN r := substr(r, 1, i) || substr(r, i + 2);            -- delete a byte
            WHEN 2 THEN r := substr(r, 1, i) || set_byte('\x00'::bytea, 0, (random() * 255)::int) || substr(r, i + 1);
            WHEN 3 THEN IF length(r) > 0 THEN r := set_byte(r, i, get_byte(r, i) # (1 << (random() * 7)::int)); END IF;
            ELSE r := substr(r, 1, i);                                      -- truncate
        END CASE;
    END LOOP;
    RETURN r;
END
$$;

CREATE TABLE ds_seeds AS SELECT s FROM (VALUES
    ('integer:{-5,1,2,3,100,2147483647}'::distinct_set),
    ('integer:{1,2,3,4,5,6,7,8,9,10,20,21,22}'),
    ('bigint:{-9223372036854775808,0,7,1000000000000}'),
    ('double precision:{-Infinity,-1.5,0,1e-300,NaN}'),
    ('text:{"",a,ab,abc,b,"c d","\"",é}'),
    ('uuid:{00000000-0000-0000-0000-000000000001,ffffffff-ffff-ffff-ffff-ffffffffffff}'),
    ('numeric:{-1.5,0,1,100,1e100,0.000001}'),
    ('date:{2020-01-01,2020-01-02,2024-02-29,infinity}'),
    ('boolean:{f,t}'),
    ('smallint:{}'),
    ('character:{a,"b  ",c}'),
    ('bytea:{"\\x00","\\x0001","\\xff"}'),
    ('interval:{"1 day","24 hours",1s}'),
    ('timestamp with time zone:{"2020-01-01 00:00:00+00"}')
) v(s);
SELECT s FROM ds_seeds;

-- binary: the seeds' bytes, mutated
CREATE TABLE ds_bin_results (st text, bad boolean);
DO $$
DECLARE
    seed bytea;
    m bytea;
    r distinct_set;
BEGIN
    FOR i IN 1 .. 3000 LOOP
        SELECT distinct_set_send(s) INTO seed FROM ds_seeds OFFSET (i % 14) LIMIT 1;
        m := ds_mutate(seed);
        BEGIN
            r := distinct_set_from_bytes(m);
            INSERT INTO ds_bin_results VALUES ('accepted', distinct_set_send(r) <> m
                OR r::text::distinct_set <> r OR cardinality(r) <> cardinality(r::text::distinct_set));
        EXCEPTION WHEN OTHERS THEN
            -- 22P03 the format; 42704 a type that does not exist; 0A000
            -- one that cannot be stored; 42883 one without btree ordering;
            -- 22008 / 22007 / 22003 a value out of its type's range;
            -- 54000 over the size limit
            INSERT INTO ds_bin_results VALUES (SQLSTATE, SQLSTATE NOT IN
                ('22P03', '42704', '0A000', '42883', '22008', '22007', '22003', '54000'));
        END;
    END LOOP;
END
$$;
-- (which SQLSTATEs occur depends on the server's random(): not shown)
SELECT count(*) AS inputs, count(*) FILTER (WHERE st = 'accepted') > 0 AS some_accepted,
       count(*) FILTER (WHERE st <> 'accepted') > 0 AS some_refused
FROM ds_bin_results;
SELECT st AS failed FROM ds_bin_results WHERE bad GROUP BY st ORDER BY st;

-- text: the seeds' text forms, mutated
CREATE TABLE ds_text_results (st text, bad boolean);
DO $$
DECLARE
    seed text;
    m text;
    r distinct_set;
BEGIN
    FOR i IN 1 .. 3000 LOOP
        SELECT s::text INTO seed FROM ds_seeds OFFSET (i % 14) LIMIT 1;
        BEGIN
            m := convert_from(ds_mutate(convert_to(seed, 'UTF8')), 'UTF8');
            r := m::distinct_set;
            INSERT INTO ds_text_results VALUES ('accepted',
                r::text::distinct_set <> r OR distinct_set_from_bytes(distinct_set_send(r)) <> r);
        EXCEPTION WHEN OTHERS THEN
            INSERT INTO ds_text_results VALUES (SQLSTATE, SQLSTATE NOT IN
                ('22P02', '42704', '42601', '0A000', '22003', '22007', '22008', '22021', '22023',
                 '22P05', '2200H', '42846', '42P01', '22001', '22026', '22004', '22009', '3F000'));
        END;
    END LOOP;
END
$$;
-- (which SQLSTATEs occur depends on the server's random(): not shown)
SELECT count(*) AS inputs, count(*) FILTER (WHERE st = 'accepted') > 0 AS some_accepted,
       count(*) FILTER (WHERE st <> 'accepted') > 0 AS some_refused
FROM ds_text_results;
SELECT st AS failed FROM ds_text_results WHERE bad GROUP BY st ORDER BY st;

DROP TABLE ds_seeds, ds_bin_results, ds_text_results;
DROP FUNCTION ds_mutate(bytea);
