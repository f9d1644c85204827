#!/usr/bin/env bash
# Stored sets whose element type was dropped, through pg_dump: a database
# holding sets of a domain (written by this version: the type by OID; and in
# the by-name form of format version 1 that 4.2.0 wrote, stored through a
# binary-coercible cast) whose domain is then dropped.  pg_dump must not
# fail (plain and custom format); the restored database holds the same
# orphaned sets (the same bytes as the original's text form reads back),
# and distinct_set_recover brings the values back, equal to the values
# kept beside them in an int[] column (SQL set comparison), while a domain
# recreated under the old name binds to nothing by itself.  Sets of named
# composites and arrays (their layout) the same way, and after ALTER TYPE.
#
# Uses the cluster from test/run-all.sh (PGHOST, PGPORT, ...,
# CD_CLUSTER_BINDIR).  Prints "N passed, N failed"; exits non-zero on any
# failure.
set -u
BIN=${CD_CLUSTER_BINDIR:-$(dirname "$(command -v psql)")}
export PGOPTIONS="${PGOPTIONS:-} -c client_min_messages=warning"
tmp=$(mktemp -d)
chmod 755 "$tmp"
passed=0
failed=0
ok() { echo "ok: $1"; passed=$((passed + 1)); }
bad() { echo "FAIL: $1"; failed=$((failed + 1)); }

psql_db() {   # psql_db DB ARGS...: quiet, stop on the first error
    local db=$1
    shift
    "$BIN/psql" -X -q -At -v ON_ERROR_STOP=1 -d "$db" "$@"
}

dbs=""
cleanup() {
    local db
    for db in $dbs; do
        "$BIN/psql" -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1
    done
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

new_db() {    # new_db NAME: an empty database (template0)
    psql_db postgres -c "DROP DATABASE IF EXISTS $1" -c "CREATE DATABASE $1 TEMPLATE template0" >/dev/null \
        || return 1
    dbs="$dbs $1"
}

check() {     # check DB LABEL QUERY: the query returns t
    local res
    res=$(psql_db "$1" -c "$3" 2>&1)
    if [ "$res" = t ]; then ok "$2"; else bad "$2 ($res)"; fi
}

db=cd_dsid
if ! new_db $db || ! psql_db $db >/dev/null 2>"$tmp/err" <<'EOF'
CREATE EXTENSION count_distinct;
CREATE DOMAIN bobint AS int CHECK (VALUE > 0);
CREATE TABLE sets (k text PRIMARY KEY, s distinct_set, truth int[]);
INSERT INTO sets
SELECT 'small', distinct_set(ARRAY[3, 1, 2]::bobint[]), ARRAY[3, 1, 2]
UNION ALL
SELECT 'runs', distinct_set_agg(x::bobint), array_agg(x) FROM generate_series(1, 100000) x WHERE x % 1000 > 5
UNION ALL
SELECT 'blocks', distinct_set_agg((x * 7919 % 1000003 + 1)::bobint), array_agg(DISTINCT x * 7919 % 1000003 + 1)
FROM generate_series(1, 20000) x;
-- the by-name form of format version 1 (4.2.0's): bobint {1, 5}
CREATE CAST (bytea AS distinct_set) WITHOUT FUNCTION;
INSERT INTO sets VALUES ('legacy',
    '\x0103040000000002027075626c696300626f62696e740000800000010203'::bytea::distinct_set, ARRAY[1, 5]);
DROP CAST (bytea AS distinct_set);
CREATE INDEX ON sets USING hash (s);
-- the text form before the type is dropped
CREATE TABLE before AS SELECT k, s::text AS t FROM sets;
DROP DOMAIN bobint;
EOF
then
    bad "creating the database"; cat "$tmp/err"
    echo "$passed passed, $failed failed"; exit 1
fi
res=$(psql_db $db -c "SELECT distinct_set_to_array(s, NULL::int) FROM sets WHERE k = 'small'" 2>&1)
case "$res" in
    *"element type "*" of a distinct_set does not exist"*) ok "reading a set of the dropped domain: $res" ;;
    *) bad "reading a set of the dropped domain: $res" ;;
esac
check $db "every set prints as an orphan" \
    "SELECT bool_and(s::text LIKE '(orphaned):%') FROM sets"

for fmt in plain custom; do
    target=${db}_$fmt
    if [ $fmt = plain ]; then
        "$BIN/pg_dump" -d $db -f "$tmp/dump.sql" 2>"$tmp/err"
    else
        "$BIN/pg_dump" -Fc -d $db -f "$tmp/dump.bin" 2>"$tmp/err"
    fi
    if [ $? -eq 0 ]; then ok "pg_dump ($fmt) of a database with orphaned sets"; else
        bad "pg_dump ($fmt)"; cat "$tmp/err"; continue
    fi
    if ! new_db $target; then bad "creating $target"; continue; fi
    if [ $fmt = plain ]; then
        psql_db $target -f "$tmp/dump.sql" >/dev/null 2>"$tmp/err"
    else
        "$BIN/pg_restore" --exit-on-error -d $target "$tmp/dump.bin" 2>"$tmp/err"
    fi
    if [ $? -eq 0 ]; then ok "restore ($fmt)"; else bad "restore ($fmt)"; cat "$tmp/err"; continue; fi
    check $target "restored ($fmt): four orphans, text input gives back the same bytes" \
        "SELECT count(*) = 4 AND bool_and(s = s::text::distinct_set AND s::text LIKE '(orphaned):%') FROM sets"
    # the original's orphans read back identically from the dump
    orig=$(psql_db $db -c "SELECT string_agg(k || '=' || md5(s::text), ',' ORDER BY k) FROM sets")
    rest=$(psql_db $target -c "SELECT string_agg(k || '=' || md5(s::text), ',' ORDER BY k) FROM sets")
    if [ -n "$orig" ] && [ "$orig" = "$rest" ]; then ok "restored ($fmt): text forms identical"; else
        bad "restored ($fmt): text forms differ"; fi
    psql_db $target -c "CREATE DOMAIN bobint AS int CHECK (VALUE > 0)" >/dev/null
    check $target "restored ($fmt): a new domain of the old name binds to nothing" \
        "SELECT bool_and(s::text LIKE '(orphaned):%') FROM sets"
    check $target "restored ($fmt): recovered values equal the originals (SQL set comparison)" \
        "SELECT bool_and(NOT EXISTS (SELECT x FROM distinct_set_values(distinct_set_recover(s, NULL::bobint), NULL::bobint) x
                                     EXCEPT SELECT unnest(truth))
                         AND NOT EXISTS (SELECT unnest(truth)
                                         EXCEPT SELECT x FROM distinct_set_values(distinct_set_recover(s, NULL::bobint), NULL::bobint) x)
                         AND cardinality(distinct_set_recover(s, NULL::bobint)) = (SELECT count(DISTINCT x) FROM unnest(truth) x))
         FROM sets"
    check $target "restored ($fmt): recovered sets equal fresh sets of the values" \
        "SELECT bool_and(distinct_set_recover(s, NULL::bobint) = distinct_set(truth::bobint[])) FROM sets"
done

# a session that has read sets of a domain (its catalog lookups are cached)
# sees the domain dropped by another session, and refuses the sets after it
if psql_db $db -c "CREATE DOMAIN other AS int" \
    -c "CREATE TABLE other_sets AS SELECT distinct_set(ARRAY[1, 2]::other[]) AS s" >/dev/null; then
    printf '%s\n' "SELECT cardinality(s | s) FROM other_sets;" \
        "\\! \"$BIN/psql\" -X -q -d $db -c 'DROP DOMAIN other'" \
        "SELECT cardinality(s | s) FROM other_sets;" >"$tmp/session.sql"
    res=$("$BIN/psql" -X -q -At -d $db -f "$tmp/session.sql" 2>&1)
    case "$res" in
        2*"element type "*" of a distinct_set does not exist"*)
            ok "a domain dropped by another session is seen by one that read its sets" ;;
        *) bad "a domain dropped by another session: $res" ;;
    esac
else
    bad "creating sets of a second domain"
fi

# the recovered sets themselves through a dump: named in text, by OID on disk
psql_db ${db}_plain -c "CREATE TABLE recovered AS SELECT k, distinct_set_recover(s, NULL::bobint) AS s FROM sets" >/dev/null
if "$BIN/pg_dump" -d ${db}_plain -t recovered -t sets -f "$tmp/rec.sql" 2>"$tmp/err" && new_db ${db}_rec \
    && psql_db ${db}_rec -c "CREATE EXTENSION count_distinct" -c "CREATE DOMAIN bobint AS int CHECK (VALUE > 0)" >/dev/null \
    && psql_db ${db}_rec -f "$tmp/rec.sql" >/dev/null 2>"$tmp/err"; then
    check ${db}_rec "recovered sets restored as sets of the domain" \
        "SELECT bool_and(distinct_set_to_array(r.s, NULL::bobint) = ARRAY(SELECT DISTINCT unnest(truth) ORDER BY 1)::bobint[])
         FROM recovered r JOIN sets USING (k)"
else
    bad "dump and restore of recovered sets"; cat "$tmp/err"
fi

# sets of named composites, anonymous records and arrays (a layout: the
# type and every field type) through pg_dump: restored equal to fresh sets of the values kept
# beside them; after ALTER TYPE changes a field, the sets are orphans that
# dump, restore identically and recover; a session that has read them sees
# another session's ALTER TYPE
rdb=cd_dsid_rec
if new_db $rdb && psql_db $rdb >/dev/null 2>"$tmp/err" <<'EOF2'
CREATE EXTENSION count_distinct;
CREATE DOMAIN posint AS int CHECK (VALUE >= 0);
CREATE TYPE pair AS (a posint, b text);
CREATE TYPE outer_t AS (p pair, arr int[], x numeric);
CREATE TABLE rsets AS
SELECT g, distinct_set_agg((i % 7, 't' || i % 5)::pair) AS p,
       distinct_set_agg(((i % 3, NULL)::pair, ARRAY[i % 2, NULL], i % 4 / 2.0)::outer_t) AS o,
       distinct_set_agg(ARRAY[i % 3, NULLIF(i % 4, 0)]::posint[]) AS a,
       distinct_set_agg((i % 7, 't' || i % 5, (i % 2)::posint)) AS r,
       array_agg((i % 7, 't' || i % 5)::pair::text) AS p_truth,
       array_agg(((i % 3, NULL)::pair, ARRAY[i % 2, NULL], i % 4 / 2.0)::outer_t::text) AS o_truth
FROM generate_series(1, 3000) i, LATERAL (SELECT i % 3 AS g) x GROUP BY g;
EOF2
then
    ok "creating sets of composites and arrays"
    if "$BIN/pg_dump" -Fc -d $rdb -f "$tmp/rec.bin" 2>"$tmp/err" && new_db ${rdb}_r \
        && "$BIN/pg_restore" --exit-on-error -d ${rdb}_r "$tmp/rec.bin" 2>"$tmp/err"; then
        check ${rdb}_r "restored sets of composites and arrays equal fresh sets of the values" \
            "SELECT bool_and(p = distinct_set(p_truth::pair[]) AND o = distinct_set(o_truth::outer_t[])
                             AND cardinality(p) = (SELECT count(DISTINCT x::pair) FROM unnest(p_truth) x)
                             AND cardinality(o) = (SELECT count(DISTINCT x::outer_t) FROM unnest(o_truth) x)
                             AND a::text LIKE 'posint[]:%'
                             AND r = (SELECT distinct_set_agg((i % 7, 't' || i % 5, (i % 2)::posint))
                                      FROM generate_series(1, 3000) i WHERE i % 3 = g))
             FROM rsets"
        orig=$(psql_db $rdb -c "SELECT string_agg(md5(p::text || o::text || a::text || r::text), ',' ORDER BY g) FROM rsets")
        rest=$(psql_db ${rdb}_r -c "SELECT string_agg(md5(p::text || o::text || a::text || r::text), ',' ORDER BY g) FROM rsets")
        if [ -n "$orig" ] && [ "$orig" = "$rest" ]; then ok "restored sets of composites: text forms identical"; else
            bad "restored sets of composites: text forms differ"; fi
    else
        bad "dump and restore of sets of composites"; cat "$tmp/err"
    fi
    # a session reads the sets, another alters the nested type, the first
    # refuses them then
    printf '%s\n' "SELECT cardinality(o | o) > 0 FROM rsets LIMIT 1;" \
        "\\! \"$BIN/psql\" -X -q -d $rdb -c 'ALTER TYPE pair ALTER ATTRIBUTE b TYPE varchar'" \
        "SELECT cardinality(o | o) FROM rsets LIMIT 1;" >"$tmp/session.sql"
    res=$("$BIN/psql" -X -q -At -d $rdb -f "$tmp/session.sql" 2>&1)
    case "$res" in
        t*"element type outer_t of a distinct_set was altered"*)
            ok "ALTER TYPE of a nested type by another session is seen by one that read the sets" ;;
        *) bad "ALTER TYPE by another session: $res" ;;
    esac
    check $rdb "sets of the altered types print as orphans; arrays of the domain do not" \
        "SELECT bool_and(p::text LIKE '(orphaned):%' AND o::text LIKE '(orphaned):%' AND a::text LIKE 'posint[]:%') FROM rsets"
    if "$BIN/pg_dump" -d $rdb -f "$tmp/rec.sql" 2>"$tmp/err" && new_db ${rdb}_o \
        && psql_db ${rdb}_o -f "$tmp/rec.sql" >/dev/null 2>"$tmp/err"; then
        orig=$(psql_db $rdb -c "SELECT string_agg(md5(p::text || o::text), ',' ORDER BY g) FROM rsets")
        rest=$(psql_db ${rdb}_o -c "SELECT string_agg(md5(p::text || o::text), ',' ORDER BY g) FROM rsets")
        if [ -n "$orig" ] && [ "$orig" = "$rest" ]; then ok "orphaned sets of composites restored identically"; else
            bad "orphaned sets of composites: text forms differ"; fi
        check ${rdb}_o "orphaned sets of composites recover to a type of the old layout" \
            "CREATE TYPE pair_old AS (a posint, b text);
             SELECT bool_and(distinct_set_to_array(distinct_set_recover(p, NULL::pair_old), NULL::pair_old)
                             = ARRAY(SELECT DISTINCT x::pair_old FROM unnest(p_truth) x ORDER BY 1))
             FROM rsets"
    else
        bad "dump and restore of orphaned sets of composites"; cat "$tmp/err"
    fi
else
    bad "creating sets of composites and arrays"; cat "$tmp/err"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
