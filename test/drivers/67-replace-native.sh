#!/usr/bin/env bash
# Transparent mode: count_distinct.replace_native plans an unmodified
# count(DISTINCT x) as count_distinct(x), with results identical to native.
# Starts a cluster of its own (from CD_CLUSTER_BINDIR, or the psql on PATH)
# so that it can change shared_preload_libraries, and checks:
#   - loading: with the library loaded only by a first call of one of its
#     functions, a session's count(DISTINCT) stays native until then (the
#     setting, set before, is kept); session_preload_libraries and the
#     setting per database (ALTER DATABASE ... SET) need no LOAD;
#   - a database without the extension: native; the extension in a schema
#     outside search_path: its count_distinct, by OID;
#   - the differential test (test/difftest.py --replace-native): unmodified
#     count(DISTINCT v) against native array_agg(DISTINCT v); some plans
#     must call count_distinct;
#   - test/replace_native/queries.sql run in two fresh databases, setting
#     off and on, outputs equal (EXPLAIN results left out), and the on run's
#     plans calling count_distinct (counted from auto_explain's log);
#     PostgreSQL's own regression tests aggregates, groupingsets, window and
#     partition_aggregate (after its test_setup.sql) the same way, each as
#     it is and derived (count, sum and avg turned into count(DISTINCT));
#     from CD_PG_SOURCE, a PostgreSQL 15+ source tree, or else PostgreSQL
#     17's copies fetched by test/replace_native/pg_regress_files.sh (a
#     pinned, checksummed download, cached outside the tree) with synthetic
#     data files (test/replace_native/regress_data.sh);
#   - views, rules, SQL function bodies (and BEGIN ATOMIC bodies on 14+) and
#     pg_dump's output keep count(DISTINCT: the dumps with the setting off
#     and on are equal;
#   - pg_stat_statements (where the install has it) with
#     shared_preload_libraries in both orders: one entry per query, under
#     its count(DISTINCT text, whatever the setting; EXPLAIN VERBOSE shows
#     count_distinct under both orders (the hooks chain).
#
#   CD_CLUSTER_BINDIR=... bash test/drivers/67-replace-native.sh
# Environment: CD_DIFFTEST_SEED (default 1), CD_DIFFTEST_CASES (default 40),
# CD_PG_SOURCE, CD_PG_REGRESS_CACHE (where the download is kept),
# CD_PG_REGRESS=off (skip PostgreSQL's tests; without it a failed download
# is a failure), CD_RN_PORT (the cluster's port; default random).  Prints "N passed, N failed"; exits non-zero on a failure.
set -u
cd "$(dirname "$0")/../.."
top=$(pwd)
. test/cluster.sh
BIN=${CD_CLUSTER_BINDIR:-$(dirname "$(command -v psql)")}

passed=0
failed=0
ok() { echo "ok: $1"; passed=$((passed + 1)); }
bad() { echo "FAIL: $1"; failed=$((failed + 1)); }
finish() { echo "$passed passed, $failed failed"; [ "$failed" -eq 0 ]; exit $?; }
die() { bad "$1"; finish; }

tmp=$(mktemp -d)
chmod 755 "$tmp"
cleanup() { cd_cluster_stop; rm -rf "$tmp"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

cd_cluster_start "$BIN" "${CD_RN_PORT:-}" || die "could not start a cluster"
port=$PGPORT
# restart with other server options (shared_preload_libraries)
restart() {
    cd_as_owner "$BIN/pg_ctl" -D "$CD_CLUSTER_DIR/data" -l "$CD_CLUSTER_DIR/log" -w -m fast restart \
        -o "-k $CD_CLUSTER_DIR/sock -c listen_addresses='' -p $port -c fsync=off $1" >/dev/null \
        || { tail -20 "$CD_CLUSTER_DIR/log"; die "restart with $1 failed"; }
}
q() {   # q DB [psql args]: tuples only, unaligned, stop on error
    local db=$1; shift
    "$BIN/psql" -X -q -At -v ON_ERROR_STOP=1 -d "$db" "$@"
}
export PGOPTIONS="-c client_min_messages=warning"
PRELOAD="-c session_preload_libraries=count_distinct"

q postgres -c "CREATE DATABASE rn" -c "CREATE DATABASE rn_noext" -c "CREATE DATABASE rn_schema" \
    || die "CREATE DATABASE failed"
q rn -c "CREATE EXTENSION count_distinct" \
    -c "CREATE TABLE t AS SELECT i % 10 AS g, (i * 7) % 101 AS v, md5((i % 50)::text) AS s FROM generate_series(1, 5000) i" \
    -c "ANALYZE t" || die "set-up of rn failed"
truth=$(q rn -c "SELECT string_agg(g || ':' || n, ',' ORDER BY g) FROM (SELECT g, count(*) AS n FROM (SELECT DISTINCT g, v FROM t) d GROUP BY g) s")
planq="EXPLAIN (VERBOSE, COSTS OFF) SELECT g, count(DISTINCT v) FROM t GROUP BY g"
resq="SELECT string_agg(g || ':' || n, ',' ORDER BY g) FROM (SELECT g, count(DISTINCT v) AS n FROM t GROUP BY g) s"

# --- loading: by a first call only
out=$(q rn -c "SET count_distinct.replace_native = on" -c "$planq" -c "$resq" \
      -c "SELECT count_distinct(1)" -c "SHOW count_distinct.replace_native" -c "$planq" -c "$resq" 2>&1)
if echo "$out" | grep -q "count(DISTINCT v)" && echo "$out" | grep -q "count_distinct(v)" \
    && [ "$(echo "$out" | grep -c "^$truth\$")" = 2 ] \
    && [ "$(echo "$out" | grep -n "count(DISTINCT v)" | head -1 | cut -d: -f1)" -lt "$(echo "$out" | grep -n "count_distinct(v)" | head -1 | cut -d: -f1)" ]; then
    ok "library loaded by a first call: native before it, count_distinct after, the setting set before kept"
else
    bad "library loaded by a first call:"; echo "$out" | head -30
fi
# --- session_preload_libraries, per database
q postgres -c "ALTER DATABASE rn SET session_preload_libraries = 'count_distinct'" \
    -c "ALTER DATABASE rn SET count_distinct.replace_native = on" || bad "ALTER DATABASE rn SET failed"
out=$(q rn -c "$planq" -c "$resq" 2>&1)
if echo "$out" | grep -q "count_distinct(v)" && echo "$out" | grep -q "^$truth\$"; then
    ok "session_preload_libraries and the setting per database: count_distinct, no LOAD, exact"
else
    bad "session_preload_libraries per database:"; echo "$out" | head -20
fi
out=$(PGOPTIONS="$PGOPTIONS -c count_distinct.replace_native=off" q rn -c "$planq" 2>&1)
if echo "$out" | grep -q "count(DISTINCT v)"; then ok "the setting off for a session overrides the database's"
else bad "the setting off for a session:"; echo "$out" | head; fi
q postgres -c "ALTER DATABASE rn RESET ALL" >/dev/null

# --- a database without the extension; the extension outside search_path
q rn_noext -c "CREATE TABLE t AS SELECT i % 10 AS g, (i * 7) % 101 AS v FROM generate_series(1, 5000) i" || bad "rn_noext set-up failed"
out=$(PGOPTIONS="$PGOPTIONS $PRELOAD -c count_distinct.replace_native=on" q rn_noext -c "$planq" -c "$resq" 2>&1)
if echo "$out" | grep -q "count(DISTINCT v)" && echo "$out" | grep -q "^$truth\$"; then
    ok "a database without the extension: native, exact"
else
    bad "a database without the extension:"; echo "$out" | head -20
fi
q rn_schema -c "CREATE SCHEMA cdx" -c "CREATE EXTENSION count_distinct SCHEMA cdx" \
    -c "CREATE TABLE t AS SELECT i % 10 AS g, (i * 7) % 101 AS v FROM generate_series(1, 5000) i" || bad "rn_schema set-up failed"
out=$(PGOPTIONS="$PGOPTIONS $PRELOAD -c count_distinct.replace_native=on" q rn_schema -c "SHOW search_path" -c "$planq" -c "$resq" 2>&1)
if echo "$out" | grep -q "cdx.count_distinct(v)" && echo "$out" | grep -q "^$truth\$"; then
    ok "the extension in a schema outside search_path: cdx.count_distinct, exact"
else
    bad "the extension in schema cdx:"; echo "$out" | head -20
fi

# --- the differential test in transparent mode
if PGDATABASE=rn python3 test/difftest.py --replace-native --seed "${CD_DIFFTEST_SEED:-1}" \
        --cases "${CD_DIFFTEST_CASES:-40}" >"$tmp/difftest.log" 2>&1; then
    n=$(grep -o "plan: count(DISTINCT) planned as count_distinct *[0-9]*" "$tmp/difftest.log" | grep -o "[0-9]*$")
    if [ "${n:-0}" -gt 0 ]; then
        ok "difftest --replace-native: $(tail -1 "$tmp/difftest.log"), $n plans with count(DISTINCT) planned as count_distinct"
    else
        bad "difftest --replace-native: no plan rewritten"; tail -30 "$tmp/difftest.log"
    fi
else
    bad "difftest --replace-native:"; tail -60 "$tmp/difftest.log"
fi

# --- query files, off and on.  EXPLAIN results (from a "QUERY PLAN" header
# to its row count) are left out: plans differ by design, nothing else in
# the outputs may.  Where the install has auto_explain, both runs log the
# plan of every statement they execute (VERBOSE, JSON, nested statements
# too) to the server's log, never to the client, so their outputs stay
# comparable; from those plans each comparison counts the statements whose
# plan calls count(DISTINCT (off) and count_distinct (on), so that it cannot
# pass without a rewrite having happened.
strip_explain() {
    awk '/^ *QUERY PLAN *$/ { skip = 1 } skip && /^\([0-9]+ rows?\)$/ { skip = 0; next } !skip'
}
explain_log=""
if [ -f "$("$BIN/pg_config" --pkglibdir)/auto_explain.so" ] || \
   [ -f "$("$BIN/pg_config" --pkglibdir)/auto_explain.dylib" ]; then
    explain_log="-c session_preload_libraries=count_distinct,auto_explain -c auto_explain.log_min_duration=0
        -c auto_explain.log_verbose=on -c auto_explain.log_nested_statements=on
        -c auto_explain.log_format=json -c auto_explain.log_level=log"
fi
# A plan is the tab-indented lines after its "plan:" line; the next line
# without a tab (another message, whose own continuation lines, such as a
# failed statement's text, are tab-indented too) ends it.
plans_with() {   # plans_with PATTERN < LOG: the JSON plans with PATTERN outside the query text
    awk -v pat="$1" '/LOG:  duration: .* plan:/ { n += hit; hit = 0; inplan = 1; next }
        /^\t/ { if (inplan && !/"Query Text":/ && index($0, pat)) hit = 1; next }
        { n += hit; hit = 0; inplan = 0 } END { print n + hit }'
}
run_file() {   # run_file NAME SETTING FILE [SETUP [ABSDIR]]: output of FILE in a fresh database
    local name=$1 setting=$2 file=$3 setup=${4:-} abs=${5:-} db="rnq_$1_$2" from i
    # after a crash of the server (see compare_file), wait for its recovery
    for i in $(seq 60); do q postgres -c "SELECT 1" >/dev/null 2>&1 && break; sleep 1; done
    q postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" >/dev/null || return 1
    q "$db" -c "CREATE EXTENSION count_distinct" >/dev/null || return 1
    from=$(($(wc -c <"$CD_CLUSTER_DIR/log") + 1))
    (
        export PGOPTIONS="-c client_min_messages=notice $PRELOAD ${explain_log//$'\n'/ } -c count_distinct.replace_native=$setting"
        cd "$(dirname "$file")"
        if [ -n "$setup" ]; then
            "$BIN/psql" -X -q -d "$db" -v abs_srcdir="$abs" -v abs_builddir="$abs" -f "$setup" >/dev/null 2>&1
        fi
        PG_ABS_SRCDIR="$abs" PG_ABS_BUILDDIR="$abs" "$BIN/psql" -X -a -d "$db" -v abs_srcdir="$abs" \
            -v abs_builddir="$abs" -f "$file" 2>&1 | sed "s/$db/DB/g"
    )
    q postgres -c "DROP DATABASE IF EXISTS $db" >/dev/null
    tail -c "+$from" "$CD_CLUSTER_DIR/log" >"$tmp/$name.$setting.log"
}
compare_file() {   # compare_file NAME FILE [SETUP [ABSDIR]]
    local name=$1 file=$2 setup=${3:-} abs=${4:-}
    run_file "$name" off "$file" "$setup" "$abs" >"$tmp/$name.off" || { bad "$name: setting off: could not run"; return; }
    run_file "$name" on "$file" "$setup" "$abs" >"$tmp/$name.on" || { bad "$name: setting on: could not run"; return; }
    local stmts errors plans native rewritten left counts=""
    stmts=$(grep -ci "count(distinct" "$file")
    errors=$(grep -c "ERROR:" "$tmp/$name.off")
    if [ -n "$explain_log" ]; then
        plans=$(grep -c "LOG:  duration: .* plan:" "$tmp/$name.on.log")
        native=$(plans_with "count(DISTINCT" <"$tmp/$name.off.log")
        rewritten=$(plans_with "count_distinct(" <"$tmp/$name.on.log")
        left=$(plans_with "count(DISTINCT" <"$tmp/$name.on.log")
        counts=", $plans plans logged (set-up and EXPLAIN included); plans with count(DISTINCT: $native off, $left on; with count_distinct on: $rewritten"
        # (upstream, groupingsets, window and partition_aggregate have no
        # count(DISTINCT): for them the comparison alone)
        if [ "$native" -gt 0 ] && [ "$rewritten" -eq 0 ]; then
            bad "$name: no plan calls count_distinct with the setting on$counts"; return
        fi
    else
        counts=", $(grep -c "count_distinct(" "$tmp/$name.on") count_distinct( in the on run's EXPLAIN results"
    fi
    # A statement that crashes the server with the setting off is
    # PostgreSQL's bug (13.4 crashes in one of aggregates.sql's queries,
    # without this library loaded as well), not this extension's: both
    # outputs then end there, and are still compared; the line says so.
    if grep -q "server closed the connection unexpectedly" "$tmp/$name.off"; then
        counts="$counts; the server crashed with the setting off too, at $(grep -m1 "server closed the connection unexpectedly" "$tmp/$name.off" | cut -d' ' -f1)"
    fi
    if diff <(strip_explain <"$tmp/$name.off") <(strip_explain <"$tmp/$name.on") >"$tmp/$name.diff"; then
        ok "$name: output equal with the setting off and on ($(wc -l <"$tmp/$name.off") lines, $stmts lines with count(DISTINCT, $errors errors on both sides$counts)"
    else
        bad "$name: output differs with the setting off and on$counts:"; head -40 "$tmp/$name.diff"
    fi
}
compare_file queries "$top/test/replace_native/queries.sql"
if grep -q "count_distinct(" "$tmp/queries.on" && ! grep -q "count_distinct(" "$tmp/queries.off"; then
    ok "queries: EXPLAIN VERBOSE shows count_distinct with the setting on only"
else
    bad "queries: EXPLAIN VERBOSE does not show count_distinct with the setting on only"
fi

# --- PostgreSQL's own aggregates, groupingsets, window and
# partition_aggregate tests (after its test_setup.sql), off and on.  The
# files come from CD_PG_SOURCE (a PostgreSQL 15+ source tree, with its data
# files) or else from a pinned download kept in a cache outside the tree
# (test/replace_native/pg_regress_files.sh), with synthetic data files
# (test/replace_native/regress_data.sh).  A failed download is a failure:
# CD_PG_REGRESS=off skips this part explicitly.
if [ "${CD_PG_REGRESS:-on}" = off ]; then
    echo "skipped: PostgreSQL's own regression tests (CD_PG_REGRESS=off)"
elif rdir=$(bash test/replace_native/pg_regress_files.sh 2>"$tmp/fetch.err"); then
    if [ -n "${CD_PG_SOURCE:-}" ]; then
        abs=$CD_PG_SOURCE/src/test/regress
    else
        abs=$tmp/regress
        bash test/replace_native/regress_data.sh "$BIN/psql" rn "$abs" || bad "synthetic data files could not be written"
    fi
    # Upstream, only aggregates.sql calls count(DISTINCT.  So each file runs
    # a second time, derived: every count(x), sum(x) and avg(x) that is not a
    # window function (nor followed by FILTER) becomes count(DISTINCT x),
    # putting count(DISTINCT) into its grouping sets, HAVING clauses,
    # subqueries and partitionwise plans.  Both runs read the same derived
    # file, so the comparison stays exact; what no longer parses fails alike.
    mkdir -p "$tmp/derived"
    for t in aggregates groupingsets window partition_aggregate; do
        compare_file "pg_$t" "$rdir/$t.sql" "$rdir/test_setup.sql" "$abs"
        perl -0pe 's{\b(?:count|sum|avg)\s*\((?!\s*(?:\*|distinct\b|all\b|\)))((?:[^()]++|\((?1)\))*)\)(?!\s*(?:over|filter)\b)}{count(DISTINCT $1)}gi' \
            "$rdir/$t.sql" >"$tmp/derived/$t.sql" || { bad "$t: derivation failed"; continue; }
        compare_file "pg_${t}_distinct" "$tmp/derived/$t.sql" "$rdir/test_setup.sql" "$abs"
    done
else
    bad "PostgreSQL's own regression tests could not be obtained (CD_PG_REGRESS=off skips them): $(cat "$tmp/fetch.err")"
fi

# --- stored definitions and pg_dump
sqlbody=""
[ "$(q rn -c "SHOW server_version_num")" -ge 140000 ] && sqlbody="CREATE FUNCTION f_atomic() RETURNS bigint LANGUAGE sql STABLE
    BEGIN ATOMIC SELECT count(DISTINCT v) FROM t; END;"
q rn >/dev/null <<SQL || bad "stored definitions: set-up failed"
CREATE VIEW vw AS SELECT g, count(DISTINCT v) AS n FROM t GROUP BY g;
CREATE MATERIALIZED VIEW mv AS SELECT g, count(DISTINCT s) AS n FROM t GROUP BY g;
CREATE TABLE log (n bigint);
CREATE TABLE trig (x int);
CREATE RULE r AS ON INSERT TO trig DO ALSO INSERT INTO log SELECT count(DISTINCT v) FROM t;
CREATE FUNCTION f_sql() RETURNS bigint LANGUAGE sql STABLE AS 'SELECT count(DISTINCT v) FROM t';
$sqlbody
SQL
on="$PRELOAD -c count_distinct.replace_native=on"
PGOPTIONS="$PGOPTIONS $on" q rn -c "REFRESH MATERIALIZED VIEW mv" -c "INSERT INTO trig VALUES (1)" \
    -c "SELECT * FROM vw" -c "SELECT f_sql()" ${sqlbody:+-c "SELECT f_atomic()"} >/dev/null || bad "using the stored definitions failed"
n=$(q rn -c "SELECT count(*) FROM pg_views WHERE viewname = 'vw' AND definition LIKE '%count(DISTINCT %v)%'")
n=$((n + $(q rn -c "SELECT count(*) FROM pg_matviews WHERE matviewname = 'mv' AND definition LIKE '%count(DISTINCT %s)%'")))
n=$((n + $(q rn -c "SELECT count(*) FROM pg_rules WHERE rulename = 'r' AND definition LIKE '%count(DISTINCT %v)%'")))
n=$((n + $(q rn -c "SELECT count(*) FROM pg_proc WHERE proname LIKE 'f\_%' AND pg_get_functiondef(oid) LIKE '%count(DISTINCT %v)%'")))
want=$([ -n "$sqlbody" ] && echo 5 || echo 4)
if [ "$n" = "$want" ]; then
    ok "view, materialized view, rule and SQL function bodies keep count(DISTINCT after use with the setting on ($n of $want)"
else
    bad "stored definitions keeping count(DISTINCT: $n of $want"
fi
PGOPTIONS="$PGOPTIONS $PRELOAD -c count_distinct.replace_native=off" "$BIN/pg_dump" -d rn >"$tmp/dump.off" 2>&1 || bad "pg_dump (off) failed"
PGOPTIONS="$PGOPTIONS $on" "$BIN/pg_dump" -d rn >"$tmp/dump.on" 2>&1 || bad "pg_dump (on) failed"
c=$(grep -c "count(DISTINCT" "$tmp/dump.on")
# (15.14+ and others: \restrict and \unrestrict lines carry a random key)
if diff -q <(grep -v '^\\\(un\)\?restrict ' "$tmp/dump.off") <(grep -v '^\\\(un\)\?restrict ' "$tmp/dump.on") >/dev/null && [ "$c" -ge "$want" ] && ! grep -q "count_distinct(" "$tmp/dump.on"; then
    ok "pg_dump: the same dump with the setting off and on, count(DISTINCT kept ($c lines)"
else
    bad "pg_dump: dumps differ or count(DISTINCT not kept ($c lines)"; diff "$tmp/dump.off" "$tmp/dump.on" | head -20
fi

# --- pg_stat_statements, and the hooks chained in both orders
if [ ! -f "$("$BIN/pg_config" --pkglibdir)/pg_stat_statements.so" ] && \
   [ ! -f "$("$BIN/pg_config" --pkglibdir)/pg_stat_statements.dylib" ]; then
    echo "skipped: pg_stat_statements (not in this install)"
    finish
fi
for order in "pg_stat_statements,count_distinct" "count_distinct,pg_stat_statements"; do
    restart "-c shared_preload_libraries=$order -c pg_stat_statements.track_planning=on"
    q rn -c "CREATE EXTENSION IF NOT EXISTS pg_stat_statements" -c "SELECT pg_stat_statements_reset()" >/dev/null \
        || { bad "$order: CREATE EXTENSION pg_stat_statements failed"; continue; }
    for s in off on off on; do
        for k in 3 5; do
            PGOPTIONS="-c count_distinct.replace_native=$s" q rn \
                -c "SELECT count(DISTINCT v) FROM t WHERE g < $k" >/dev/null
        done
    done
    out=$(q rn -c "SELECT calls, plans FROM pg_stat_statements WHERE query LIKE '%count(DISTINCT v) FROM t WHERE g < \$1%'")
    other=$(q rn -c "SELECT count(*) FROM pg_stat_statements WHERE query LIKE '%count\_distinct(%' AND query NOT LIKE '%pg_stat_statements%'")
    if [ "$out" = "8|8" ] && [ "$other" = 0 ]; then
        ok "shared_preload_libraries = '$order': pg_stat_statements groups the 8 runs (4 with the setting on) under the count(DISTINCT text (calls|plans = $out)"
    else
        bad "shared_preload_libraries = '$order': pg_stat_statements calls|plans = '$out', entries naming count_distinct: $other"
        q rn -c "SELECT calls, plans, query FROM pg_stat_statements" | head -20
    fi
    out=$(PGOPTIONS="-c count_distinct.replace_native=on" q rn -c "$planq" -c "$resq" 2>&1)
    if echo "$out" | grep -q "count_distinct(v)" && echo "$out" | grep -q "^$truth\$"; then
        ok "shared_preload_libraries = '$order': count_distinct in EXPLAIN VERBOSE, exact (the planner hooks chain)"
    else
        bad "shared_preload_libraries = '$order': not rewritten:"; echo "$out" | head -20
    fi
done
finish
