#!/usr/bin/env bash
# The whole test suite on a fresh machine (Debian bookworm, PostgreSQL 15):
# installs what it needs, builds warning-free, installs, starts a throwaway
# cluster, runs the pg_regress suite and every driver in test/drivers/, and
# prints "N passed, N failed".  Exits non-zero on any failure.
#
#   bash test/run-all.sh          bounded run (as in CI)
#   bash test/run-all.sh --long   long modes of the drivers (CD_LONG=1)
#   bash test/run-all.sh --citus path/to/citus-src-COMMIT.tar.xz
#                                 also the Citus driver (CD_CITUS_SRC; without
#                                 a Citus source, test/drivers/70-citus.sh
#                                 skips)
set -u
cd "$(dirname "$0")/.."
top=$(pwd)
. test/cluster.sh

while [ $# -gt 0 ]; do
    case $1 in
        --long) export CD_LONG=1 ;;
        --citus) [ $# -ge 2 ] || { echo "--citus needs a path" >&2; exit 2; }
                 CD_CITUS_SRC=$(cd "$(dirname "$2")" && pwd)/$(basename "$2"); export CD_CITUS_SRC; shift ;;
        *) echo "usage: bash test/run-all.sh [--long] [--citus CITUS_SOURCE]" >&2; exit 2 ;;
    esac
    shift
done

PGV=${CD_PG_VERSION:-15}
cd_install_deps "$PGV" || exit 1
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/$PGV/bin/pg_config}
BINDIR=$($PG_CONFIG --bindir)
export PG_CONFIG

make -s clean >/dev/null 2>&1
make -s with_llvm=no CD_WERROR=1 PG_CONFIG="$PG_CONFIG" || { echo "0 passed, 1 failed"; exit 1; }
make -s with_llvm=no PG_CONFIG="$PG_CONFIG" install >/dev/null || { echo "0 passed, 1 failed"; exit 1; }

cd_cluster_start "$BINDIR" || { echo "0 passed, 1 failed"; exit 1; }
trap cd_cluster_stop EXIT

passed=0
failed=0

# pg_regress: count the tests from its own output
out=$(mktemp)
make -s with_llvm=no PG_CONFIG="$PG_CONFIG" installcheck >"$out" 2>&1
rc=$?
cat "$out"
p=$(grep -cE '^(ok|test|     ) .* ok( |$)|^ok [0-9]+ ' "$out")
f=$(grep -cE ' (FAILED|failed)( |$)|^not ok ' "$out")
if [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
[ -f regression.diffs ] && [ $rc -ne 0 ] && head -200 regression.diffs
echo "pg_regress: $p passed, $f failed"
passed=$((passed + p)); failed=$((failed + f))
rm -f "$out"

# other drivers: each prints "N passed, N failed" last and exits non-zero on failure
for d in test/drivers/*.sh; do
    [ -e "$d" ] || continue
    echo "=== $d"
    out=$(mktemp)
    bash "$d" 2>&1 | tee "$out"
    rc=${PIPESTATUS[0]}
    line=$(grep -E '^([A-Za-z_-]+: )?[0-9]+ passed, [0-9]+ failed' "$out" | tail -1)
    p=$(echo "$line" | grep -oE '[0-9]+ passed' | grep -oE '[0-9]+')
    f=$(echo "$line" | grep -oE '[0-9]+ failed' | grep -oE '[0-9]+')
    p=${p:-0}; f=${f:-0}
    if [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
    passed=$((passed + p)); failed=$((failed + f))
    rm -f "$out"
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
