#!/usr/bin/env bash
# Stored sets through pg_upgrade from one PostgreSQL major version to a later
# one (default: 15 to 17), both from the PyPI wheels (test/pgversions.sh
# --prefix):
#   1. builds and installs the extension into a private copy of each
#      version's install (pg_upgrade's check of the new cluster needs the
#      same library in the new version's lib dir);
#   2. an old cluster: the stored sets of test/upgrade/pg_upgrade_setup.sql
#      (int4, int8, text under a collation, uuid, numeric, date; empty,
#      small, scattered, consecutive and multi-MB toasted sets; a domain; a
#      hash index and a unique btree index on set columns) beside their
#      source tables, and a digest of every set
#      (test/upgrade/pg_upgrade_digest.sql: cardinality, md5 of the text and
#      binary forms, stored size, btree order);
#   3. pg_upgrade --check, then pg_upgrade (copy mode) into a new cluster;
#   4. on the new cluster: the same digest, and every set against values
#      recomputed natively from the source tables, the operators, the
#      aggregates and the indexes (test/upgrade/pg_upgrade_checks.sql).
# Both clusters run as a non-root user (postgres, when run as root) on a
# socket in a temp dir and on their own ports (CD_UPG_PORT_BASE, default
# 56600, plus the major version).
#
#   bash test/pg-upgrade.sh             15 -> 17
#   bash test/pg-upgrade.sh 14 18       any two of 14-18, the older first
#
# Prints "N passed, N failed"; exits non-zero on any failure.  CD_PG_KEEP=1
# keeps the work dir.
set -u
cd "$(dirname "$0")/.."
top=$(pwd)
. test/cluster.sh

old_v=${1:-15}
new_v=${2:-17}
case "$old_v $new_v" in
    1[4-8]" "1[4-8]) [ "$old_v" -lt "$new_v" ] || { echo "usage: bash test/pg-upgrade.sh [OLD NEW] (14-18, OLD < NEW)" >&2; exit 2; } ;;
    *) echo "usage: bash test/pg-upgrade.sh [OLD NEW] (14-18, OLD < NEW)" >&2; exit 2 ;;
esac
port_base=${CD_UPG_PORT_BASE:-56600}
old_port=$((port_base + old_v))
new_port=$((port_base + new_v))
t_start=$SECONDS

passed=0
failed=0
ok() { echo "ok: $1"; passed=$((passed + 1)); }
bad() { echo "FAIL: $1"; failed=$((failed + 1)); }
finish() {
    echo "pg_upgrade $old_v -> $new_v: $((SECONDS - t_start)) s"
    echo "pg-upgrade: $passed passed, $failed failed"
    [ "$failed" -eq 0 ]
    exit
}

work=$(mktemp -d -t count_distinct-pgupgrade.XXXXXX) || exit 1
chmod 755 "$work"
old_prefix=""
new_prefix=""
stop_server() {    # stop_server DATADIR BINDIR: only a server of ours
    [ -f "$1/postmaster.pid" ] && cd_as_owner "$2/pg_ctl" -D "$1" -m fast -w stop >/dev/null 2>&1
    return 0
}
cleanup() {
    [ -n "$old_prefix" ] && stop_server "$work/old" "$old_prefix/bin"
    [ -n "$new_prefix" ] && stop_server "$work/new" "$new_prefix/bin"
    if [ "${CD_PG_KEEP:-0}" = 1 ]; then
        echo "work dir kept in $work"
    else
        rm -rf "$work"
        [ -n "$old_prefix" ] && rm -rf "$old_prefix"
        [ -n "$new_prefix" ] && rm -rf "$new_prefix"
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# 1. private installs with the extension
old_prefix=$(bash test/pgversions.sh --prefix "$old_v" | tail -1)
new_prefix=$(bash test/pgversions.sh --prefix "$new_v" | tail -1)
if [ ! -x "$old_prefix/bin/pg_upgrade" ] || [ ! -x "$new_prefix/bin/pg_upgrade" ]; then
    bad "PostgreSQL $old_v and $new_v installs (from the wheels)"; finish
fi
for v in old new; do
    eval "prefix=\$${v}_prefix"
    mkdir -p "$work/build-$v"
    if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        git ls-files -z -co --exclude-standard \
            | while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done \
            | tar cf - --null -T - | tar xf - -C "$work/build-$v"
    else
        tar cf - --exclude=./.git . | tar xf - -C "$work/build-$v"
        make -s -C "$work/build-$v" clean >/dev/null 2>&1
    fi
    if make -C "$work/build-$v" -s -j2 with_llvm=no PG_CONFIG="$prefix/bin/pg_config" install \
        >"$work/build-$v.log" 2>&1; then
        ok "build and install into $("$prefix/bin/pg_config" --version)"
    else
        tail -40 "$work/build-$v.log"; bad "build and install into PostgreSQL ${v}"; finish
    fi
done
OLDBIN=$old_prefix/bin
NEWBIN=$new_prefix/bin

# 2. the old cluster and its sets
if [ "$(id -u)" = 0 ]; then
    id postgres >/dev/null 2>&1 || useradd --system --no-create-home postgres
    chown postgres: "$work"
fi
cd_as_owner mkdir -p "$work/sock"
initdb() {   # initdb BINDIR DATADIR
    cd_as_owner "$1/initdb" -D "$2" -U postgres --auth=trust --no-sync -E UTF8 --locale=C.UTF-8 \
        >"$2.initdb.log" 2>&1 || { cat "$2.initdb.log"; return 1; }
}
start() {    # start BINDIR DATADIR PORT
    cd_as_owner "$1/pg_ctl" -D "$2" -l "$2.log" -w start \
        -o "-k $work/sock -c listen_addresses='' -p $3 -c fsync=off" >/dev/null \
        || { cat "$2.log"; return 1; }
}
export PGHOST=$work/sock PGUSER=postgres PGDATABASE=upg
psql_to() {  # psql_to BINDIR PORT ARGS...
    local bin=$1 port=$2
    shift 2
    "$bin/psql" -X -q -At -v ON_ERROR_STOP=1 -p "$port" "$@"
}

cd_as_owner touch "$work/old.log" "$work/new.log" "$work/old.initdb.log" "$work/new.initdb.log"
if ! initdb "$OLDBIN" "$work/old" || ! start "$OLDBIN" "$work/old" "$old_port"; then
    bad "old cluster (PostgreSQL $old_v): initdb and start"; finish
fi
t0=$SECONDS
if psql_to "$OLDBIN" "$old_port" -d postgres -c "CREATE DATABASE upg" >/dev/null \
    && psql_to "$OLDBIN" "$old_port" -c "CREATE EXTENSION count_distinct" \
        -f test/upgrade/pg_upgrade_setup.sql >/dev/null 2>"$work/err"; then
    ok "PostgreSQL $old_v: stored sets created ($((SECONDS - t0)) s; $(psql_to "$OLDBIN" "$old_port" \
        -c "SELECT count(*) || ' sets, ' || pg_size_pretty(sum(pg_column_size(s))) FROM all_sets"))"
else
    cat "$work/err"; bad "PostgreSQL $old_v: creating the stored sets"; finish
fi
if psql_to "$OLDBIN" "$old_port" -f test/upgrade/pg_upgrade_digest.sql >"$work/before.txt" 2>"$work/err" \
    && [ -s "$work/before.txt" ]; then
    ok "PostgreSQL $old_v: digest of $(wc -l <"$work/before.txt") stored sets"
else
    cat "$work/err"; bad "PostgreSQL $old_v: digest"; finish
fi
ext_old=$(psql_to "$OLDBIN" "$old_port" -c "SELECT extversion FROM pg_extension WHERE extname = 'count_distinct'")
stop_server "$work/old" "$OLDBIN"

# 3. pg_upgrade
if ! initdb "$NEWBIN" "$work/new"; then
    bad "new cluster (PostgreSQL $new_v): initdb"; finish
fi
upgrade() {
    (cd "$work" && cd_as_owner "$NEWBIN/pg_upgrade" -b "$OLDBIN" -B "$NEWBIN" \
        -d "$work/old" -D "$work/new" -p "$old_port" -P "$new_port" -U postgres \
        -s "$work/sock" --no-sync "$@")
}
t0=$SECONDS
if upgrade --check >"$work/check.log" 2>&1; then
    ok "pg_upgrade --check ($((SECONDS - t0)) s)"
else
    cat "$work/check.log"
    find "$work/new" -path '*pg_upgrade_output.d*' -name '*.txt' -exec sh -c 'echo "--- $1"; cat "$1"' _ {} \; 2>/dev/null
    bad "pg_upgrade --check"; finish
fi
t0=$SECONDS
if upgrade >"$work/upgrade.log" 2>&1; then
    ok "pg_upgrade $old_v -> $new_v ($((SECONDS - t0)) s)"
else
    cat "$work/upgrade.log"
    find "$work/new" -path '*pg_upgrade_output.d*' -name '*.log' -exec sh -c 'echo "--- $1"; tail -30 "$1"' _ {} \; 2>/dev/null
    bad "pg_upgrade $old_v -> $new_v"; finish
fi

# 4. the new cluster
if ! start "$NEWBIN" "$work/new" "$new_port"; then
    bad "new cluster (PostgreSQL $new_v): start after pg_upgrade"; finish
fi
ext_new=$(psql_to "$NEWBIN" "$new_port" -c "SELECT extversion FROM pg_extension WHERE extname = 'count_distinct'")
if [ -n "$ext_new" ] && [ "$ext_new" = "$ext_old" ]; then
    ok "PostgreSQL $new_v: extension count_distinct $ext_new carried over"
else
    bad "PostgreSQL $new_v: extension version '$ext_new', was '$ext_old'"
fi
if psql_to "$NEWBIN" "$new_port" -f test/upgrade/pg_upgrade_digest.sql >"$work/after.txt" 2>"$work/err" \
    && diff "$work/before.txt" "$work/after.txt" >"$work/digest.diff"; then
    ok "PostgreSQL $new_v: every stored set reads back the same (cardinality, md5 of text and binary forms, size, order: $(wc -l <"$work/after.txt") sets)"
else
    cat "$work/err"; head -40 "$work/digest.diff"; bad "PostgreSQL $new_v: stored sets differ from before the upgrade"
fi
amcheck=false
[ "$(psql_to "$NEWBIN" "$new_port" -c "SELECT count(*) FROM pg_available_extensions WHERE name = 'amcheck'")" = 1 ] \
    && amcheck=true
t0=$SECONDS
if psql_to "$NEWBIN" "$new_port" -v amcheck=$amcheck -f test/upgrade/pg_upgrade_checks.sql \
    >"$work/checks.out" 2>"$work/err"; then
    :
else
    cat "$work/err"; bad "PostgreSQL $new_v: pg_upgrade_checks.sql failed"
fi
n=0
while IFS= read -r line; do
    [ -n "$line" ] || continue
    n=$((n + 1))
    name=${line%|*}; res=${line##*|}
    if [ "$res" = t ]; then ok "PostgreSQL $new_v: $name"; else bad "PostgreSQL $new_v: $name"; fi
done <"$work/checks.out"
[ "$n" -ge 60 ] || bad "PostgreSQL $new_v: only $n checks ran"
echo "checks on the new cluster: $((SECONDS - t0)) s"
[ "$failed" -gt 0 ] && CD_PG_KEEP=${CD_PG_KEEP:-1}
finish
