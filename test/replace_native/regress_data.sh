#!/usr/bin/env bash
# Writes synthetic stand-ins for the data files of PostgreSQL's regression
# tests (onek, tenk, person, emp, student, stud_emp, streets, agg), which the
# copies of its SQL files this project runs do not come with:
#
#   bash test/replace_native/regress_data.sh PSQL DB DIR   -> DIR/data/*.data
#
# test_setup.sql and aggregates.sql then COPY them in unchanged (with
# abs_srcdir = DIR).  The rows are generated in SQL from generate_series
# only, so every run writes the same bytes.  They are not PostgreSQL's rows:
# the queries run twice, count_distinct.replace_native off and on, and only
# the two outputs are compared, so any data serves; these have duplicates
# and NULLs in the columns the queries aggregate so that count(DISTINCT)
# meets both.  The unique1/unique2 columns stay unique and non-null (a
# permutation of 0..n-1 and 0..n-1) as the tests' joins and indexes expect.
set -eu
psql=$1 db=$2 dir=$3
mkdir -p "$dir/data"
chmod 755 "$dir" "$dir/data"   # COPY FROM a file is read by the server
emit() {   # emit FILE QUERY
    "$psql" -X -q -v ON_ERROR_STOP=1 -d "$db" -c "COPY ($2) TO STDOUT" >"$dir/data/$1"
    chmod 644 "$dir/data/$1"
}
# onek and tenk: n rows; 7919 is prime, so unique1 = i * 7919 % n is a
# permutation of 0..n-1 for n = 1000 and 10000
thousands() {
    cat <<SQL
SELECT u1, i, u1 % 2, CASE WHEN i % 97 = 5 THEN NULL ELSE u1 % 4 END, u1 % 10, u1 % 20,
       CASE WHEN i % 89 = 3 THEN NULL ELSE u1 % 100 END, u1 % 1000, u1 % 2000, u1 % 5000,
       CASE WHEN i % 101 = 7 THEN NULL ELSE u1 END, (u1 % 100) * 2 + 1, (u1 % 100) * 2,
       chr(65 + u1 % 26) || chr(65 + u1 / 26 % 26) || chr(65 + u1 / 676 % 26) || 'AAxxx',
       chr(65 + i % 26) || chr(65 + i / 26 % 26) || chr(65 + i / 676 % 26) || 'AAxxx',
       CASE WHEN i % 113 = 11 THEN NULL ELSE (ARRAY['AAAAxx', 'HHHHxx', 'OOOOxx', 'VVVVxx'])[u1 % 4 + 1] END
FROM (SELECT i, i * 7919 % $1 AS u1 FROM generate_series(0, $1 - 1) i) s ORDER BY i
SQL
}
emit onek.data "$(thousands 1000)"
emit tenk.data "$(thousands 10000)"
people="(ARRAY['mike', 'joe', 'sally', 'sharon', 'denise', 'jeff', 'cim', 'linda'])[i % 8 + 1],
        CASE WHEN i % 7 = 3 THEN NULL ELSE 18 + i % 13 END, point(i % 9, i % 5)"
emit person.data "SELECT $people FROM generate_series(1, 50) i"
emit emp.data "SELECT $people, 1000 + i % 6 * 500, (ARRAY['sharon', 'mike', NULL])[i % 3 + 1] FROM generate_series(1, 12) i"
emit student.data "SELECT $people, CASE WHEN i % 5 = 0 THEN NULL ELSE (i % 4) * 0.9 END FROM generate_series(1, 15) i"
emit stud_emp.data "SELECT $people, 600 + i % 2 * 100, 'sharon', (i % 3) * 1.1, i % 4 * 25 FROM generate_series(1, 6) i"
emit streets.data "SELECT (ARRAY['I- 580', 'I- 880', 'State Hwy 13', 'State Hwy 92', 'Main St', 'Main St'])[i % 6 + 1],
        ('[(' || i % 11 || ',' || i % 7 || '),(' || (i % 11) + 1 || ',' || i % 3 || ')]')::path
    FROM generate_series(1, 40) i"
emit agg.data "SELECT CASE WHEN i % 6 = 0 THEN NULL ELSE (i % 4) * 42 END, ((i % 5) * 7.5)::float4 FROM generate_series(1, 24) i"
