#!/usr/bin/env bash
# Citus: count_distinct on a sharded table (a coordinator and two workers),
# under Citus's default settings.  Builds Citus from a source tarball against
# a private copy of the PostgreSQL 17 wheel install (test/pgversions.sh
# --prefix 17), installs count_distinct there, starts three local servers on
# TCP ports, distributes a table on "id" (32 shards) and checks, every result
# against native COUNT(DISTINCT) / array_agg(DISTINCT ...) in the same
# statement and every plan for worker-side partial aggregation
# (worker_binary_partial_agg in EXPLAIN VERBOSE):
#   - one group, and GROUP BY a column that is not the distribution column;
#   - int4, text, uuid, numeric; text under a non-default collation created
#     through the coordinator; count_distinct_elements, array_agg_distinct,
#     array_agg_distinct_elements;
#   - an enum and citext after count_distinct_declare_type() on the
#     coordinator (whose OIDs differ between the nodes);
#   - a type without a typed overload (a composite type): not pushed down,
#     rows are gathered on the coordinator, still exact;
#   - stored sets: distinct_set_agg, and a distributed table of stored sets
#     rolled up with distinct_set_union_agg / distinct_set_intersect_agg
#     (pushed down, combined on the coordinator);
#   - transparent mode (count_distinct.replace_native): an unmodified
#     COUNT(DISTINCT v) planned as count_distinct, pushed down as partial
#     states, equal to the same statement with the setting off; an argument
#     without a typed overload (a record) left native.
#
#   CD_CITUS_SRC=path/to/citus-src-COMMIT.tar.xz bash test/drivers/70-citus.sh
#   bash test/drivers/70-citus.sh path/to/citus-src-COMMIT.tar.xz
#
# The Citus source is a tarball or an unpacked source directory.  Without one
# the driver says so and reports "0 passed, 0 failed".
#
# Environment: CD_CITUS_SRC, CD_CITUS_CACHE (where Citus builds are kept
# between runs, default /tmp/count_distinct-citus-cache), CD_CITUS_PORT_BASE
# (the coordinator's port; the workers use the next two; default random),
# CD_CITUS_ROWS (rows in the test table, default 200000), CD_CITUS_KEEP=1
# (leave the cluster running and print how to reach it), and those of
# test/pgversions.sh (CD_PG_CACHE).
set -u
cd "$(dirname "$0")/../.."
top=$(pwd)
. test/cluster.sh

passed=0
failed=0
ok() { echo "ok: $1"; passed=$((passed + 1)); }
bad() { echo "FAIL: $1"; failed=$((failed + 1)); }
finish() { echo "$passed passed, $failed failed"; [ "$failed" -eq 0 ]; exit $?; }
die() { bad "$1"; finish; }

src=${1:-${CD_CITUS_SRC:-}}
if [ -z "$src" ]; then
    echo "skipped: no Citus source given (CD_CITUS_SRC=path/to/citus-src-*.tar.xz, or as the argument)"
    echo "0 passed, 0 failed"
    exit 0
fi
[ -e "$src" ] || die "Citus source $src does not exist"
src=$(cd "$(dirname "$src")" && pwd)/$(basename "$src")

N=${CD_CITUS_ROWS:-200000}
cache=${CD_CITUS_CACHE:-/tmp/count_distinct-citus-cache}
work=$(mktemp -d /tmp/count_distinct-citus.XXXXXX)
chmod 755 "$work"
P=""
cleanup() {
    local d
    if [ "${CD_CITUS_KEEP:-0}" = 1 ]; then
        echo "prefix: $P"
        echo "cluster kept: $work (stop with $P/bin/pg_ctl -D $work/nodeN stop; psql -h $work -p ${PORT0:-} -U postgres)"
        return
    fi
    for d in "$work"/node0 "$work"/node1 "$work"/node2; do
        [ -f "$d/postmaster.pid" ] && cd_as_owner "$P/bin/pg_ctl" -D "$d" -m immediate -w stop >/dev/null 2>&1
    done
    rm -rf "$work"
    [ -n "$P" ] && rm -rf "$P"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- PostgreSQL 17 (a private copy of the wheel install), build dependencies
t0=$SECONDS
P=$(bash test/pgversions.sh --prefix 17) || die "no PostgreSQL 17 wheel install"
missing=""
for p in make gcc libc6-dev liblz4-dev libzstd-dev libkrb5-dev libcurl4-openssl-dev xz-utils; do
    dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
if [ -n "$missing" ]; then
    [ "$(id -u)" = 0 ] || die "missing packages:$missing (run as root to install them)"
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null; } \
        || die "apt-get install$missing failed"
fi

# --- Citus: built once per (source, PostgreSQL version) in the cache, then
# "make install" into the private prefix
key="$(basename "$src" | sed 's/\.tar\.xz$//')-$(stat -c %s-%Y "$src")-$("$P/bin/pg_config" --version | tr -dc 'A-Za-z0-9.')"
build=$cache/$key
mkdir -p "$cache" || die "cannot create $cache"
exec 9>"$build.lock"
flock 9   # one build at a time; configure records the tree's path, so the
          # tree is built where it stays
if [ ! -f "$build/.complete" ]; then
    echo "building Citus from $(basename "$src") (cache: $build)"
    rm -rf "$build"; mkdir -p "$build"
    if [ -d "$src" ]; then
        cp -a "$src/." "$build/" || die "cannot copy $src"
    else
        tar xJf "$src" -C "$build" || die "cannot unpack $src"
    fi
    # the tarball may hold the tree directly or in one top-level directory
    tree=$build; [ -x "$tree/configure" ] || tree=$(dirname "$(ls "$build"/*/configure 2>/dev/null | head -1)")
    [ -x "$tree/configure" ] || die "no configure script in $src"
    (cd "$tree" && ./configure PG_CONFIG="$P/bin/pg_config" && make -j2) >"$build.log" 2>&1 \
        || { tail -30 "$build.log"; die "Citus build failed (log: $build.log)"; }
    echo "$tree" > "$build/.tree"
    touch "$build/.complete"
fi
tree=$(cat "$build/.tree")
# (built against an earlier run's copy of the same install: install into
# this one, and let the servers find libpq here, not in that copy's lib/)
make -C "$tree" -s install PG_CONFIG="$P/bin/pg_config" >"$work/citus-install.log" 2>&1 \
    || { tail -20 "$work/citus-install.log"; die "Citus make install failed"; }
flock -u 9
echo "Citus build ready ($((SECONDS - t0)) s)"
make -s with_llvm=no PG_CONFIG="$P/bin/pg_config" clean >/dev/null 2>&1
make -s with_llvm=no PG_CONFIG="$P/bin/pg_config" >"$work/cd-build.log" 2>&1 \
    && make -s with_llvm=no PG_CONFIG="$P/bin/pg_config" install >>"$work/cd-build.log" 2>&1 \
    || { cat "$work/cd-build.log"; die "count_distinct build failed"; }
make -s clean >/dev/null 2>&1
[ -f "$P/share/extension/citext.control" ] || die "no citext in the PostgreSQL 17 install"

# --- three servers: node0 the coordinator, node1 and node2 the workers
if [ "$(id -u)" = 0 ]; then
    id postgres >/dev/null 2>&1 || useradd --system --no-create-home postgres
    chown postgres: "$work"
fi
base=${CD_CITUS_PORT_BASE:-$((20000 + RANDOM % 20000))}
PORT0=$base; PORT1=$((base + 1)); PORT2=$((base + 2))
for i in 0 1 2; do
    port=$((base + i))
    cd_as_owner "$P/bin/initdb" -D "$work/node$i" -U postgres --auth=trust --no-sync -E UTF8 \
        --locale=C.UTF-8 >"$work/initdb$i.log" 2>&1 || { cat "$work/initdb$i.log"; die "initdb failed"; }
    LD_LIBRARY_PATH=$P/lib cd_as_owner "$P/bin/pg_ctl" -D "$work/node$i" -l "$work/node$i.log" -w start -o \
        "-p $port -k $work -c listen_addresses=127.0.0.1 -c shared_preload_libraries=citus -c fsync=off -c max_connections=200 -c jit=off" \
        >/dev/null || { tail -20 "$work/node$i.log"; die "node $i did not start"; }
done
export PGUSER=postgres PGDATABASE=postgres PGHOST=$work
node() {   # node I [psql args]: psql on node I
    local i=$1; shift
    "$P/bin/psql" -X -q -At -v ON_ERROR_STOP=1 -p $((base + i)) "$@"
}
for i in 0 1 2; do
    node $i -c "CREATE EXTENSION citus" >/dev/null || die "CREATE EXTENSION citus on node $i failed"
done
# objects on the workers only, so that types, enum labels and collations
# created later get other OIDs there than on the coordinator
for i in 1 2; do
    node $i -c "SET client_min_messages = error" -c "DO \$\$ BEGIN FOR k IN 1..$((i * 3)) LOOP
        EXECUTE format('CREATE TYPE pg_temp.cd_shift_%s AS ENUM (''a'', ''b'')', k);
        EXECUTE format('CREATE COLLATION pg_temp.cd_shift_c_%s (provider = libc, locale = ''C'')', k);
        END LOOP; END \$\$" >/dev/null || die "shifting OIDs on node $i failed"
done
node 0 >/dev/null <<SQL || die "cluster set-up failed"
SELECT citus_set_coordinator_host('127.0.0.1', $PORT0);
SELECT citus_add_node('127.0.0.1', $PORT1);
SELECT citus_add_node('127.0.0.1', $PORT2);
SQL
echo "Citus $(node 0 -c "SELECT extversion FROM pg_extension WHERE extname = 'citus'") on $("$P/bin/postgres" --version): coordinator on port $PORT0, workers on $PORT1, $PORT2"

# count_distinct through the coordinator: Citus creates it on the workers too
if node 0 -c "CREATE EXTENSION count_distinct" >/dev/null; then
    ok "CREATE EXTENSION count_distinct on the coordinator"
else
    die "CREATE EXTENSION count_distinct on the coordinator failed"
fi
for i in 1 2; do
    v=$(node $i -c "SELECT extversion FROM pg_extension WHERE extname = 'count_distinct'")
    if [ -n "$v" ]; then ok "count_distinct $v on worker $i"; else die "count_distinct missing on worker $i"; fi
done
n0=$(node 0 -c "SELECT count(*) FROM pg_proc WHERE proname = 'count_distinct'")
n1=$(node 1 -c "SELECT count(*) FROM pg_proc WHERE proname = 'count_distinct'")
if [ "$n0" -gt 1 ] && [ "$n0" = "$n1" ]; then
    ok "typed overloads installed where Citus is ($n0 count_distinct aggregates on coordinator and worker)"
else
    bad "typed overloads: $n0 count_distinct aggregates on the coordinator, $n1 on a worker"
fi

# --- the table, with types and a collation created through the coordinator
node 0 >/dev/null <<SQL || die "creating the test table failed"
CREATE EXTENSION citext;
CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy', 'ecstatic');
CREATE TYPE pair AS (a int, b text);
CREATE COLLATION rev_c (provider = libc, locale = 'C');
SET citus.shard_count = 32;
CREATE TABLE t (
    id bigint, g int, v int, s text, u uuid, n numeric, cs text COLLATE rev_c,
    a int[], m mood, ci citext, p pair, vc varchar(20)
);
SELECT create_distributed_table('t', 'id');
INSERT INTO t
SELECT i, i % 100,
       CASE WHEN i % 13 = 0 THEN NULL ELSE (i * 7919) % 20011 END,
       'k' || (i * 31) % 5003,
       md5(((i * 17) % 7001)::text)::uuid,
       ((i * 13) % 3001)::numeric / CASE WHEN i % 2 = 0 THEN 1 ELSE 1.0 END,
       CASE WHEN i % 3 = 0 THEN 'Ab' ELSE 'ab' END || (i % 97),
       ARRAY[i % 50, (i * 3) % 77, NULL],
       (enum_range(NULL::mood))[1 + i % 4],
       CASE WHEN i % 2 = 0 THEN upper('c' || (i % 211)) ELSE 'c' || (i % 211) END,
       ROW(i % 5, (i % 3)::text)::pair,
       'w' || (i % 401)
FROM generate_series(1, $N) i;
ANALYZE t;
SQL
echo "table t: $N rows in $(node 0 -c "SELECT count(*) FROM pg_dist_shard WHERE logicalrelid = 't'::regclass") shards"
e0=$(node 0 -c "SELECT 'mood'::regtype::oid || '/' || 'citext'::regtype::oid || '/' || (SELECT oid FROM pg_collation WHERE collname = 'rev_c')")
e1=$(node 1 -c "SELECT 'mood'::regtype::oid || '/' || 'citext'::regtype::oid || '/' || (SELECT oid FROM pg_collation WHERE collname = 'rev_c')")
e2=$(node 2 -c "SELECT 'mood'::regtype::oid || '/' || 'citext'::regtype::oid || '/' || (SELECT oid FROM pg_collation WHERE collname = 'rev_c')")
if [ "$e0" != "$e1" ] && [ "$e0" != "$e2" ] && [ "$e1" != "$e2" ]; then
    ok "OIDs of mood/citext/rev_c differ between the nodes: $e0, $e1, $e2"
else
    bad "OIDs of mood/citext/rev_c do not differ between the nodes: $e0, $e1, $e2"
fi

# check NAME EXPR NATIVE [PUSHED]: EXPR and NATIVE over t, one group and
# GROUP BY g (not the distribution column), equal in the same statement;
# PUSHED=1 (default): EXPLAIN VERBOSE shows worker_binary_partial_agg
check() {
    local name=$1 expr=$2 nat=$3 pushed=${4:-1} out plan q1 q2 ours
    q1="SELECT ($expr) IS NOT DISTINCT FROM ($nat) AS same, ($expr)::text AS ours FROM t"
    q2="SELECT count(*) || ',' || count(*) FILTER (WHERE o IS DISTINCT FROM n)
        FROM (SELECT g, $expr AS o, $nat AS n FROM t GROUP BY g) s"
    out=$(node 0 -c "$q1" 2>&1)
    if [ "${out%%|*}" = t ]; then
        ours=${out#*|}; [ ${#ours} -gt 60 ] && ours="${ours:0:60}..."
        ok "$name, one group: equal to native ($ours)"
    else
        bad "$name, one group: $out"
    fi
    out=$(node 0 -c "$q2" 2>&1)
    if [ "$out" = "100,0" ]; then
        ok "$name, GROUP BY g: 100 groups equal to native"
    else
        bad "$name, GROUP BY g: groups,differing = $out"
    fi
    plan=$(node 0 -c "EXPLAIN (VERBOSE, COSTS OFF) SELECT g, $expr FROM t GROUP BY g" 2>&1)
    if [ "$pushed" = 1 ]; then
        if echo "$plan" | grep -q "worker_binary_partial_agg" && echo "$plan" | grep -q "coord_binary_combine_agg"; then
            ok "$name: EXPLAIN VERBOSE shows worker_binary_partial_agg / coord_binary_combine_agg"
        else
            bad "$name: not pushed down:"; echo "$plan" | head -30
        fi
    else
        if echo "$plan" | grep -q "worker_binary_partial_agg"; then
            bad "$name: unexpectedly pushed down"
        else
            ok "$name: not pushed down (rows gathered on the coordinator)"
        fi
    fi
}

echo "--- the plan of SELECT g, count_distinct(v) FROM t GROUP BY g:"
node 0 -c "EXPLAIN (VERBOSE, COSTS OFF) SELECT g, count_distinct(v) FROM t GROUP BY g" | sed 's/^/    /' | head -24
check "count_distinct(int4)" "count_distinct(v)" "count(DISTINCT v)"
check "count_distinct(text)" "count_distinct(s)" "count(DISTINCT s)"
check "count_distinct(varchar)" "count_distinct(vc)" "count(DISTINCT vc)"
check "count_distinct(uuid)" "count_distinct(u)" "count(DISTINCT u)"
check "count_distinct(numeric)" "count_distinct(n)" "count(DISTINCT n)"
check "count_distinct(text COLLATE rev_c)" "count_distinct(cs)" "count(DISTINCT cs)"
check "array_agg_distinct(text COLLATE rev_c)" "array_agg_distinct(cs)" \
    "coalesce(array_agg(DISTINCT cs ORDER BY cs) FILTER (WHERE cs IS NOT NULL), '{}')"
# values that share long prefixes: the coordinator's combined set becomes
# front-coded (src/frontset.c) as the shards' states arrive
url="('https://example.com/products/item-' || (id * 7919) % 150001)"
check "count_distinct(text), shared prefixes" "count_distinct($url)" "count(DISTINCT $url)"
check "array_agg_distinct(text), shared prefixes" "array_agg_distinct($url)" \
    "array_agg(DISTINCT $url ORDER BY $url)"
check "array_agg_distinct(int4)" "array_agg_distinct(v)" \
    "coalesce(array_agg(DISTINCT v ORDER BY v) FILTER (WHERE v IS NOT NULL), '{}')"
# numeric "=" (1.0 = 1): the array holds one representative of equal values
check "array_agg_distinct(numeric)" "array_agg_distinct(n)" \
    "coalesce(array_agg(DISTINCT n ORDER BY n) FILTER (WHERE n IS NOT NULL), '{}')"

# the elements variants: native over unnest, in the same statement
check_elements() {
    local name=$1 ours=$2 nat=$3 out plan
    out=$(node 0 -c "
        WITH o AS (SELECT g, $ours AS r FROM t GROUP BY g),
             n AS (SELECT g, $nat AS r FROM t, unnest(a) e GROUP BY g)
        SELECT count(*) || ',' || count(*) FILTER (WHERE o.r IS DISTINCT FROM n.r)
        FROM o FULL JOIN n USING (g)" 2>&1)
    if [ "$out" = "100,0" ]; then ok "$name, GROUP BY g: 100 groups equal to native over unnest"
    else bad "$name, GROUP BY g: groups,differing = $out"; fi
    plan=$(node 0 -c "EXPLAIN (VERBOSE, COSTS OFF) SELECT g, $ours FROM t GROUP BY g" 2>&1)
    if echo "$plan" | grep -q "worker_binary_partial_agg"; then ok "$name: pushed down"
    else bad "$name: not pushed down"; echo "$plan" | head -30; fi
}
check_elements "count_distinct_elements(int4[])" "count_distinct_elements(a)" "count(DISTINCT e)"
check_elements "array_agg_distinct_elements(int4[])" "array_agg_distinct_elements(a)" \
    "coalesce(array_agg(DISTINCT e ORDER BY e) FILTER (WHERE e IS NOT NULL), '{}')"

# --- enum and citext: declared on the coordinator, propagated to the workers
if node 0 -c "SELECT count_distinct_declare_type('mood'); SELECT count_distinct_declare_type('citext')" >/dev/null; then
    ok "count_distinct_declare_type('mood'), ('citext') on the coordinator"
else
    bad "count_distinct_declare_type on the coordinator failed"
fi
for i in 1 2; do
    c=$(node $i -c "SELECT count(*) FROM pg_proc WHERE proname IN ('count_distinct', 'array_agg_distinct', 'count_distinct_elements', 'array_agg_distinct_elements') AND proargtypes[0] IN ('mood'::regtype, 'mood[]'::regtype, 'citext'::regtype, 'citext[]'::regtype)")
    # per type: count_distinct(T), count_distinct_elements(T[]),
    # array_agg_distinct(T), array_agg_distinct(T[]), array_agg_distinct_elements(T[])
    if [ "$c" = 10 ]; then ok "worker $i has the 10 typed aggregates for mood and citext"
    else bad "worker $i has $c of the 10 typed aggregates for mood and citext"; fi
done
check "count_distinct(mood)" "count_distinct(m)" "count(DISTINCT m)"
check "array_agg_distinct(mood)" "array_agg_distinct(m)" \
    "coalesce(array_agg(DISTINCT m ORDER BY m) FILTER (WHERE m IS NOT NULL), '{}')"
check "count_distinct(citext)" "count_distinct(ci)" "count(DISTINCT ci)"
check "array_agg_distinct(citext)" "array_agg_distinct(ci)::text[]" \
    "coalesce(array_agg(DISTINCT ci ORDER BY ci) FILTER (WHERE ci IS NOT NULL), '{}')::text[]"

# --- a type without a typed overload (a composite type): Citus pushes the
# polymorphic aggregate down too, and its own type check on the workers
# refuses it; with citus.allow_aggregate_worker_combine_on_internal_types
# off, rows are gathered on the coordinator and the result is exact
expect_error() {   # expect_error NAME SQL TEXT: SQL on the coordinator fails with TEXT
    local out
    out=$(node 0 -c "$2" 2>&1)
    if echo "$out" | grep -q "$3"; then ok "$1"; else bad "$1: $(echo "$out" | head -3)"; fi
}
expect_error "count_distinct(pair), no typed overload, default settings: Citus refuses it (could not confirm type correctness)" \
    "SELECT count_distinct(p) FROM t GROUP BY g" "could not confirm type correctness"
export PGOPTIONS="-c citus.allow_aggregate_worker_combine_on_internal_types=off"
check "count_distinct(pair), allow_aggregate_worker_combine_on_internal_types off" "count_distinct(p)" "count(DISTINCT p)" 0
check "array_agg_distinct(pair), allow_aggregate_worker_combine_on_internal_types off" "array_agg_distinct(p)" \
    "coalesce(array_agg(DISTINCT p ORDER BY p) FILTER (WHERE p IS NOT NULL), '{}')" 0
check "distinct_set_agg((v, s)), rows gathered" "cardinality(distinct_set_agg((v, s)))" "count(DISTINCT (v, s))" 0
unset PGOPTIONS
# declared, a composite type is pushed down like the others (and anonymous
# records then match both the polymorphic aggregates and its overloads:
# ambiguous, 42725, as docs/citus.md says)
node 0 -c "SELECT count_distinct_declare_type('pair')" >/dev/null || bad "count_distinct_declare_type('pair') failed"
check "count_distinct(pair), declared" "count_distinct(p)" "count(DISTINCT p)"
expect_error "count_distinct((v, s)) with a composite type declared: ambiguous (42725), as documented" \
    "SELECT count_distinct((v, s)) FROM t" "is not unique"
export PGOPTIONS="-c citus.allow_aggregate_worker_combine_on_internal_types=off"
check "count_distinct(v, s), a composite type declared, rows gathered" "count_distinct(v, s)" "count(DISTINCT (v, s))" 0
unset PGOPTIONS

# --- GROUP BY the distribution column: the whole aggregate runs on the workers
out=$(node 0 -c "SELECT count(*) FILTER (WHERE cd IS DISTINCT FROM nat) FROM (
    SELECT id % 1 AS z, id, count_distinct(v) cd, count(DISTINCT v) nat FROM t WHERE id <= 5000 GROUP BY id) s" 2>&1)
if [ "$out" = 0 ]; then ok "GROUP BY id (distribution column): equal to native"; else bad "GROUP BY id: $out"; fi

# --- stored sets: distinct_set_agg, and a distributed table of sets rolled up
# by group (distinct_set_union_agg pushed down, combined on the coordinator)
check "distinct_set_agg(int4)" "cardinality(distinct_set_agg(v))" "count(DISTINCT v)"
check "distinct_set_agg(text)" "distinct_set_to_array(distinct_set_agg(s), NULL::text)" \
    "coalesce(array_agg(DISTINCT s ORDER BY s) FILTER (WHERE s IS NOT NULL), '{}')"
# stored sets of a composite (declared above: pushed down; the partial
# states name the layout's types, which the coordinator resolves), and of
# arrays (no typed overload: rows gathered)
check "distinct_set_agg(pair)" "distinct_set_to_array(distinct_set_agg(p), NULL::pair)" \
    "coalesce(array_agg(DISTINCT p ORDER BY p) FILTER (WHERE p IS NOT NULL), '{}')"
export PGOPTIONS="-c citus.allow_aggregate_worker_combine_on_internal_types=off"
check "distinct_set_agg(int4[]), rows gathered" "cardinality(distinct_set_agg(a))" "count(DISTINCT a)" 0
unset PGOPTIONS
node 0 >/dev/null <<SQL || bad "creating the table of stored sets failed"
CREATE TABLE st (id bigint, g int, day int, users distinct_set, names distinct_set);
SELECT create_distributed_table('st', 'id');
INSERT INTO st
SELECT g * 10 + id % 7, g, id % 7, distinct_set_agg(v), distinct_set_agg(s)
FROM t GROUP BY g, id % 7;
ANALYZE st;
SQL
for col in users:v names:s; do
    sc=${col%%:*} tc=${col#*:}
    out=$(node 0 -c "SELECT count(*) || ',' || count(*) FILTER (WHERE o IS DISTINCT FROM n)
        FROM (SELECT g, cardinality(distinct_set_union_agg($sc)) AS o FROM st GROUP BY g) a
        JOIN (SELECT g, count(DISTINCT $tc) AS n FROM t GROUP BY g) b USING (g)" 2>&1)
    if [ "$out" = "100,0" ]; then
        ok "distinct_set_union_agg($sc) of stored sets, GROUP BY g: 100 groups equal to native"
    else
        bad "distinct_set_union_agg($sc), GROUP BY g: groups,differing = $out"
    fi
    out=$(node 0 -c "SELECT (SELECT cardinality(distinct_set_union_agg($sc)) FROM st)
                          = (SELECT count(DISTINCT $tc) FROM t)" 2>&1)
    if [ "$out" = t ]; then ok "distinct_set_union_agg($sc), all stored sets: equal to native"
    else bad "distinct_set_union_agg($sc), all stored sets: $out"; fi
    plan=$(node 0 -c "EXPLAIN (VERBOSE, COSTS OFF) SELECT g, distinct_set_union_agg($sc) FROM st GROUP BY g" 2>&1)
    if echo "$plan" | grep -q "worker_binary_partial_agg" && echo "$plan" | grep -q "coord_binary_combine_agg"; then
        ok "distinct_set_union_agg($sc): EXPLAIN VERBOSE shows worker_binary_partial_agg / coord_binary_combine_agg"
    else
        bad "distinct_set_union_agg($sc): not pushed down:"; echo "$plan" | head -30
    fi
done
# intersection: the values present on all 7 days of a group
out=$(node 0 -c "SELECT count(*) || ',' || count(*) FILTER (WHERE o IS DISTINCT FROM coalesce(n, 0))
    FROM (SELECT g, cardinality(distinct_set_intersect_agg(users)) AS o FROM st GROUP BY g) a
    LEFT JOIN (SELECT g, count(*) AS n FROM (
            SELECT g, v FROM t WHERE v IS NOT NULL GROUP BY g, v
            HAVING count(DISTINCT id % 7) = 7) x GROUP BY g) b USING (g)" 2>&1)
if [ "$out" = "100,0" ]; then
    ok "distinct_set_intersect_agg of stored sets, GROUP BY g: 100 groups equal to native"
else
    bad "distinct_set_intersect_agg, GROUP BY g: groups,differing = $out"
fi

# Transparent mode: an unmodified COUNT(DISTINCT v) with the library loaded
# by the session (session_preload_libraries: its planner hook runs before
# Citus's, installed by shared_preload_libraries) and
# count_distinct.replace_native on, under Citus's default settings: planned
# as count_distinct, pushed down as partial states, and equal to native (the
# same statement with the setting off).
tm_node() {   # tm_node on|off [psql args]
    local setting=$1; shift
    PGOPTIONS="-c session_preload_libraries=count_distinct -c count_distinct.replace_native=$setting" node 0 "$@"
}
for col in v s u; do
    for q in "SELECT count(DISTINCT $col) FROM t" \
             "SELECT g, count(DISTINCT $col), count(*) FROM t GROUP BY g ORDER BY g"; do
        off=$(tm_node off -c "$q" 2>&1)
        on=$(tm_node on -c "$q" 2>&1)
        if [ -n "$off" ] && [ "$off" = "$on" ] && ! echo "$off" | grep -q ERROR; then
            ok "transparent mode: $q: equal with the setting off and on ($(echo "$on" | wc -l) rows)"
        else
            bad "transparent mode: $q: off and on differ"
            diff <(echo "$off") <(echo "$on") | head -10
        fi
    done
    plan=$(tm_node on -c "EXPLAIN (VERBOSE, COSTS OFF) SELECT g, count(DISTINCT $col) FROM t GROUP BY g" 2>&1)
    if echo "$plan" | grep -q "worker_binary_partial_agg" && echo "$plan" | grep -q "coord_binary_combine_agg" \
        && echo "$plan" | grep -q "count_distinct" && ! echo "$plan" | grep -q "count(DISTINCT"; then
        ok "transparent mode: count(DISTINCT $col) GROUP BY g planned as count_distinct, pushed down as partial states"
    else
        bad "transparent mode: count(DISTINCT $col) GROUP BY g not pushed down as count_distinct:"; echo "$plan" | head -30
    fi
done
# a type without a typed overload (an anonymous record): Citus would refuse
# the polymorphic count_distinct, so the rewrite leaves it native
q="SELECT g, count(DISTINCT (v, s)) FROM t GROUP BY g ORDER BY g"
off=$(tm_node off -c "$q" 2>&1)
on=$(tm_node on -c "$q" 2>&1)
plan=$(tm_node on -c "EXPLAIN (VERBOSE, COSTS OFF) $q" 2>&1)
if [ -n "$off" ] && [ "$off" = "$on" ] && ! echo "$off" | grep -q ERROR && ! echo "$plan" | grep -q "count_distinct"; then
    ok "transparent mode: count(DISTINCT (v, s)) (no typed overload) stays native, equal with the setting off and on"
else
    bad "transparent mode: count(DISTINCT (v, s)):"; diff <(echo "$off") <(echo "$on") | head -5; echo "$plan" | head -20
fi
plan=$(tm_node off -c "EXPLAIN (VERBOSE, COSTS OFF) SELECT g, count(DISTINCT v) FROM t GROUP BY g" 2>&1)
if echo "$plan" | grep -q "count_distinct"; then
    bad "transparent mode off: count(DISTINCT v) planned as count_distinct"
else
    ok "transparent mode off: count(DISTINCT v) stays native"
fi

finish
