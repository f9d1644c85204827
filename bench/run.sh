#!/usr/bin/env bash
# count_distinct benchmark suite: one command on a fresh Debian machine.
#
#   bash bench/run.sh [--scale 100k|1m|10m|100m] [--quick] [--types int4,int8,...]
#                     [--shapes a,b] [--runs N] [--all-queries] [--profile shape,shape]
#   bash bench/run.sh --window [--runs N] [--sizes ...] [--types ...]    (bench/window.py)
#   bash bench/run.sh --parallel [--rows N] [--runs N] [--big]          (bench/parallel.py)
#   bash bench/run.sh --sets [--quick] [--days N] [--per-day N] [--runs N] (bench/sets.py)
#
# --sets builds pg_roaringbitmap and postgresql-hll from their source
# snapshots (pg_roaringbitmap-src-*.tar.xz, postgresql-hll-src-*.tar.xz) in
# CD_BENCH_DEPS (default ../shared/deps next to the tree) in a temporary
# directory and installs them into the PostgreSQL used; either one is
# skipped with a message when its snapshot is absent.
#
# Installs what it needs (PostgreSQL 15 server + headers, postgresql-15-hll if
# Debian has it, python3 matplotlib), builds and installs the extension from a
# copy of the tree (bench/work/build), starts a throwaway cluster, generates the
# data, runs everything and writes bench/results/<scale>[-quick]/:
#   results.json  summary per shape + machine and settings
#   runs.csv      every timed run (plan shape, workers, peak memory, load)
#   summary.csv   one row per type x shape
#   report.md     tables with PASS/MISS against the targets
#   *.png         memory ratio and speed ratio charts
#
# Environment:
#   PG_CONFIG       pg_config of the PostgreSQL to use (default: Debian 15,
#                   installed with apt if missing)
#   CD_BENCH_PORT   server port (default: random in 57000-57999)
#   CD_BENCH_SHARED_BUFFERS, CD_BENCH_WORK_MEM   (defaults 4GB, 2GB)
#   CD_PG_OPTS      extra server options, appended
set -euo pipefail
cd "$(dirname "$0")/.."
top=$(pwd)
. test/cluster.sh

# --window / --parallel (first argument): the window benchmark (bench/window.py)
# or the parallel / state size / memory benchmark (bench/parallel.py) instead
driver=bench/bench.py
mode=
if [ "${1:-}" = "--window" ]; then
    driver=bench/window.py; mode=--window
    shift
elif [ "${1:-}" = "--parallel" ]; then
    driver=bench/parallel.py; mode=--parallel
    shift
elif [ "${1:-}" = "--sets" ]; then
    driver=bench/sets.py; mode=--sets
    shift
fi
args=("$@")
want_profile=0
for x in "$@"; do
    case "$x" in --profile|--profile=*) want_profile=1 ;; -h|--help)
        sed -n '2,28p' "$0"; exit 0 ;; esac
done

as_root_apt() {
    # apt-get install the given packages if missing (root only)
    local missing=""
    for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
    [ -z "$missing" ] && return 0
    if [ "$(id -u)" != 0 ]; then
        echo "bench: missing packages:$missing (run as root to install them)" >&2
        return 1
    fi
    if [ -z "${_bench_apt_updated:-}" ]; then apt-get update -qq >/dev/null; _bench_apt_updated=1; fi
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
}

# ---- PostgreSQL
if [ -z "${PG_CONFIG:-}" ]; then
    cd_install_deps 15
    PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config
fi
BINDIR=$("$PG_CONFIG" --bindir)
PGMAJOR=$("$PG_CONFIG" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')
command -v make >/dev/null && command -v gcc >/dev/null || as_root_apt make gcc libc6-dev

# ---- hll (optional approximate reference): Debian's postgresql-NN-hll
# (bench.py only: --window and --parallel do not use it)
if [ -z "$mode" ] && [ "$(id -u)" = 0 ] && ! dpkg -s "postgresql-$PGMAJOR-hll" >/dev/null 2>&1; then
    if [ -z "${_bench_apt_updated:-}" ]; then apt-get update -qq >/dev/null || true; _bench_apt_updated=1; fi
    if apt-cache policy "postgresql-$PGMAJOR-hll" 2>/dev/null | grep -q 'Candidate: [0-9]'; then
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "postgresql-$PGMAJOR-hll" >/dev/null \
            || echo "bench: postgresql-$PGMAJOR-hll did not install; no hll column" >&2
    else
        echo "bench: postgresql-$PGMAJOR-hll not in apt; no hll column" >&2
    fi
fi
# a PostgreSQL other than Debian's (PG_CONFIG=...) of the same major: borrow Debian's hll build
PKGLIB=$("$PG_CONFIG" --pkglibdir)
SHAREDIR=$("$PG_CONFIG" --sharedir)
DEB_LIB=/usr/lib/postgresql/$PGMAJOR/lib
DEB_SHARE=/usr/share/postgresql/$PGMAJOR
if [ -z "$mode" ] && [ ! -e "$PKGLIB/hll.so" ] && [ -e "$DEB_LIB/hll.so" ] && [ "$PKGLIB" != "$DEB_LIB" ]; then
    cp "$DEB_LIB/hll.so" "$PKGLIB/" && cp "$DEB_SHARE"/extension/hll* "$SHAREDIR/extension/" \
        || echo "bench: could not copy hll into $PKGLIB" >&2
fi

# ---- python + matplotlib (charts of bench.py and parallel.py; the benchmarks
# themselves are stdlib, --window draws no charts)
PY=${PYTHON:-python3}
command -v "$PY" >/dev/null || { as_root_apt python3; PY=python3; }
if [ "$mode" != --window ] && [ "$mode" != --sets ] && ! "$PY" -c 'import matplotlib' 2>/dev/null; then
    "$PY" -m pip install --quiet matplotlib >/dev/null 2>&1 \
        || "$PY" -m pip install --quiet --break-system-packages matplotlib >/dev/null 2>&1 \
        || { as_root_apt python3-matplotlib && PY=/usr/bin/python3; } \
        || echo "bench: matplotlib unavailable; no charts" >&2
fi

# ---- perf, only for --profile
if [ $want_profile = 1 ] && ! command -v perf >/dev/null; then
    as_root_apt linux-perf || echo "bench: perf unavailable" >&2
fi

# ---- build and install the extension from a copy of the tree
build=$top/bench/work/build
rm -rf "$build"; mkdir -p "$build"
if git -C "$top" rev-parse >/dev/null 2>&1; then
    git -C "$top" ls-files -co --exclude-standard -- Makefile '*.control' sql src \
        | tar -C "$top" -cf - -T - | tar -C "$build" -xf -
else
    cp -r Makefile ./*.control sql src "$build/"
fi
echo "bench: building count_distinct with $PG_CONFIG"
make -s -C "$build" with_llvm=no PG_CONFIG="$PG_CONFIG" >/dev/null
make -s -C "$build" with_llvm=no PG_CONFIG="$PG_CONFIG" install >/dev/null

# ---- --sets: pg_roaringbitmap and postgresql-hll from their source snapshots
if [ "$mode" = --sets ]; then
    deps=${CD_BENCH_DEPS:-$top/../shared/deps}
    for name in pg_roaringbitmap postgresql-hll; do
        tarball=$(ls "$deps"/$name-src-*.tar.xz 2>/dev/null | head -1)
        if [ -z "$tarball" ]; then
            echo "bench: no $name source snapshot in $deps: skipped" >&2
            continue
        fi
        src=$(mktemp -d)
        if tar -C "$src" -xJf "$tarball" && dir=$(ls -d "$src"/*/ | head -1) \
            && make -s -C "$dir" PG_CONFIG="$PG_CONFIG" >/dev/null 2>&1 \
            && make -s -C "$dir" PG_CONFIG="$PG_CONFIG" install >/dev/null 2>&1; then
            echo "bench: built $name from $(basename "$tarball")"
        else
            echo "bench: $name did not build from $(basename "$tarball"): skipped" >&2
        fi
        rm -rf "$src"
    done
fi

# ---- throwaway cluster
PORT=${CD_BENCH_PORT:-$((57000 + RANDOM % 1000))}
CD_PG_OPTS="-c shared_buffers=${CD_BENCH_SHARED_BUFFERS:-4GB} -c work_mem=${CD_BENCH_WORK_MEM:-2GB} \
-c hash_mem_multiplier=2 -c max_parallel_workers_per_gather=2 -c max_parallel_workers=8 \
-c max_worker_processes=8 -c jit=off -c autovacuum=off -c synchronous_commit=off \
-c max_wal_size=8GB -c checkpoint_timeout=1h -c effective_cache_size=8GB ${CD_PG_OPTS:-}"
export CD_PG_OPTS
cd_cluster_start "$BINDIR" "$PORT"
trap cd_cluster_stop EXIT
echo "bench: cluster on port $PORT ($("$BINDIR/postgres" --version))"

if [ -n "$mode" ]; then
    # parallel.py reads the server log ($CD_CLUSTER_DIR/log) for the state sizes
    "$PY" "$driver" --psql "$BINDIR/psql" --command "bash bench/run.sh $mode ${args[*]:-}" "${args[@]}"
else
    "$PY" bench/bench.py --psql "$BINDIR/psql" --command "bash bench/run.sh ${args[*]:-}" "${args[@]}"
fi
