#!/usr/bin/env bash
# count_distinct.huge_pages: in 4.2.0 a set large enough (4 MB or more of
# keys) asked the kernel for transparent huge pages when the setting was on
# (the default).  Since 4.3.0 the setting has no effect, and stays so that
# configurations that set it keep working.  Checked: it can still be set
# (on, off) and shown, it is on by default, a misspelt count_distinct.*
# name is refused; and with either value, while a query holds a large set
# (its input pauses in pg_sleep), the backend's /proc/PID/smaps shows no
# mapping advised for huge pages (VmFlags "hg").  Each query's result is
# compared with native count(DISTINCT).  Sets of fixed-width (int8 spread
# over 64 bits), packed (int4) and variable-size (text) keys.
#
# The flag is the kernel's record of the advice, whether or not it has huge
# pages to give, so the check does not depend on memory fragmentation.  A
# kernel without transparent huge pages (no /sys/kernel/mm/transparent_hugepage)
# skips the smaps checks.
#
# Uses the cluster from test/run-all.sh (PGHOST, PGPORT, ..., CD_CLUSTER_BINDIR).
set -u
BIN=${CD_CLUSTER_BINDIR:-$(dirname "$(command -v psql)")}
PSQL="$BIN/psql -X -q -A -t"
export PGOPTIONS="${PGOPTIONS:-} -c client_min_messages=warning -c max_parallel_workers_per_gather=0"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
ok() { echo "ok: $1"; passed=$((passed + 1)); }
bad() { echo "FAIL: $1"; failed=$((failed + 1)); }

$PSQL -c "CREATE EXTENSION IF NOT EXISTS count_distinct" >/dev/null || { echo "0 passed, 1 failed"; exit 1; }

# the largest mapping (kB) of pid advised for huge pages, 0 if none
advised_kb() {
    awk '/^[0-9a-f]+-[0-9a-f]+ /{size=0} /^Size:/{size=$2} /^VmFlags:/{for(i=2;i<=NF;i++) if($i=="hg" && size>max) max=size} END{print max+0}' "/proc/$1/smaps" 2>/dev/null || echo 0
}

# check NAME SETTING EXPR ROWS: one group of EXPR over generate_series(1, ROWS) i,
# then a pause of 4 s in the input while the set is held
check() {
    local name=$1 setting=$2 expr=$3 rows=$4 app="cd_huge_$$_$RANDOM" pid="" i kb max=0 bg
    local q="SELECT count_distinct(v) FROM (SELECT $expr AS v FROM generate_series(1, $rows) i UNION ALL SELECT v FROM (SELECT ($expr) AS v FROM generate_series(0, 0) i, pg_sleep(4)) s) u"
    PGAPPNAME=$app $PSQL -c "SET count_distinct.huge_pages = $setting" -c "$q" >"$tmp/out" 2>"$tmp/err" &
    bg=$!
    for i in $(seq 1 200); do
        [ -z "$pid" ] && pid=$($PSQL -c "SELECT pid FROM pg_stat_activity WHERE application_name = '$app' AND state = 'active' AND query LIKE '%pg_sleep%'")
        if [ -n "$pid" ]; then
            kb=$(advised_kb "$pid")
            [ "$kb" -gt "$max" ] && max=$kb
        fi
        kill -0 "$bg" 2>/dev/null || break
        sleep 0.1
    done
    wait "$bg"
    local want
    want=$($PSQL -c "SELECT count(DISTINCT v) FROM (SELECT $expr AS v FROM generate_series(0, $rows) i) u")
    if [ "$(cat "$tmp/out")" != "$want" ]; then
        bad "$name, huge_pages = $setting: count_distinct gave '$(cat "$tmp/out")', count(DISTINCT) $want"; cat "$tmp/err"; return
    fi
    if [ -z "$pid" ]; then
        bad "$name, huge_pages = $setting: the query never showed up in pg_stat_activity"; return
    fi
    if [ "$max" -gt 0 ]; then
        bad "$name, huge_pages = $setting: a mapping of $max kB advised for huge pages"
    else
        ok "$name, huge_pages = $setting: no mapping advised for huge pages, count $want"
    fi
}

if [ -d /sys/kernel/mm/transparent_hugepage ]; then
    for setting in on off; do
        check "int8 spread over 64 bits, 1M" $setting "(hashint8extended(i, 7))" 1000000
        check "int4, 5M (packed)" $setting "(hashint8(i))" 5000000
        check "text, 400k" $setting "md5(i::text)" 400000
    done
else
    echo "skipped the smaps checks: this kernel has no transparent huge pages"
fi

# the setting itself: still there, on by default, settable both ways
if [ "$($PSQL -c "SELECT count_distinct(1)" -c "SHOW count_distinct.huge_pages" | tail -1)" = on ]; then
    ok "count_distinct.huge_pages is on by default"
else
    bad "count_distinct.huge_pages is not on by default"
fi
if [ "$($PSQL -v ON_ERROR_STOP=1 -c "SELECT count_distinct(1)" -c "SET count_distinct.huge_pages = off" -c "SHOW count_distinct.huge_pages" 2>"$tmp/err" | tail -1)" = off ]; then
    ok "count_distinct.huge_pages can still be set"
else
    bad "count_distinct.huge_pages could not be set: $(head -1 "$tmp/err")"
fi
# (PostgreSQL 15+ reserves the prefix; before, an unknown name is a placeholder)
if [ "$($PSQL -c "SHOW server_version_num")" -ge 150000 ]; then
    if $PSQL -v ON_ERROR_STOP=1 -c "SELECT count_distinct(1)" -c "SET count_distinct.huge_pagez = on" >/dev/null 2>"$tmp/err"; then
        bad "a misspelt count_distinct.* setting was accepted"
    else
        ok "a misspelt count_distinct.* setting is refused: $(head -1 "$tmp/err")"
    fi
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
