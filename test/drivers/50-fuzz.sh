#!/usr/bin/env bash
# Fuzzing of state decoding and merging, and the size limits of states: builds test/fuzz/fuzz_state (libFuzzer
# + AddressSanitizer + UBSan, src/serialize.c, set.c, sort.c, key.c outside
# the server, see test/fuzz/; states of fixed-width keys, of bytea, byte
# keys, and of int4[] and float8[], array keys), replays the committed seed corpus, then fuzzes for CD_FUZZ_SECONDS
# (default 60; CD_LONG=1: 1800).  Then the same harness built with small
# thresholds (-DCD_PACKED_MIN_BYTES=256 -DCD_FRONT_MIN_BYTES=256
# -DCD_FRONT_ALWAYS=1), so that inputs of a few kB take the paths of large
# states (packed sets of fixed-width keys, front-coded sets of byte keys):
# the same corpus (whose seeds must reach both), then fuzzing for as long.
# Then the same for the stored-set format (test/fuzz/fuzz_dset.c, seeds in
# test/fuzz/corpus-dset), and for the stored sets' text input and output
# (test/fuzz/fuzz_dset_text.c, seeds in test/fuzz/corpus-dset-text).
# Installs clang-14 and libclang-rt-14-dev (Debian) when missing and run as root.
# Needs the server headers: PG_CONFIG, else $CD_CLUSTER_BINDIR/pg_config, else pg_config.
set -u
here=$(cd "$(dirname "$0")/../fuzz" && pwd)
secs=${CD_FUZZ_SECONDS:-60}
[ "${CD_LONG:-0}" = 1 ] && secs=${CD_FUZZ_SECONDS:-1800}
fail() { echo "FAIL: $1"; echo "fuzz: 0 passed, 1 failed"; exit 1; }

if [ -z "${PG_CONFIG:-}" ]; then
    if [ -n "${CD_CLUSTER_BINDIR:-}" ] && [ -x "$CD_CLUSTER_BINDIR/pg_config" ]; then
        PG_CONFIG=$CD_CLUSTER_BINDIR/pg_config
    else
        PG_CONFIG=pg_config
    fi
fi
export PG_CONFIG
if ! command -v clang-14 >/dev/null || ! dpkg -s libclang-rt-14-dev >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clang-14 libclang-rt-14-dev) >/dev/null 2>&1
    fi
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$here/build.sh" "$work/fuzz_state" >"$work/build.log" 2>&1 || { cat "$work/build.log"; fail "the harness did not build"; }
CD_FUZZ_CFLAGS="-DCD_PACKED_MIN_BYTES=256 -DCD_FRONT_MIN_BYTES=256 -DCD_FRONT_ALWAYS=1" \
    "$here/build.sh" "$work/fuzz_state_small" >"$work/build.log" 2>&1 || { cat "$work/build.log"; fail "the harness with small thresholds did not build"; }
"$here/build.sh" "$work/fuzz_dset" dset >"$work/build.log" 2>&1 || { cat "$work/build.log"; fail "the stored-set harness did not build"; }
"$here/build.sh" "$work/fuzz_dset_text" dset_text >"$work/build.log" 2>&1 || { cat "$work/build.log"; fail "the stored-set text input harness did not build"; }

passed=0
# 0. size limits: states over 1 GB serialized, or too large for an array,
#    are refused with 54000 before anything is allocated
CD_FUZZ_LIMITS=1 "$work/fuzz_state" >"$work/limits.log" 2>&1 || { cat "$work/limits.log"; fail "size limits"; }
cat "$work/limits.log"
passed=$((passed + 1))

# replay HARNESS CORPUS LABEL, then fuzz it for $secs s (new inputs go to a
# scratch corpus of the harness, not the committed one)
replay_and_fuzz() {
    local h=$1 corpus=$2 label=$3 rc execs a
    "$work/$h" "$here/$corpus"/* >"$work/replay.log" 2>&1 || { tail -40 "$work/replay.log"; fail "replaying the $label seed corpus"; }
    echo "ok: replayed $(ls "$here/$corpus" | wc -l) $label seed inputs"
    passed=$((passed + 1))
    mkdir -p "$work/scratch-$h" "$work/artifacts"
    (cd "$work" && "./$h" -max_total_time="$secs" -max_len=8192 -timeout=30 -rss_limit_mb=2048 \
        -print_final_stats=1 -artifact_prefix="$work/artifacts/" "$work/scratch-$h" "$here/$corpus") \
        >"$work/fuzz.log" 2>&1
    rc=$?
    execs=$(sed -nE 's/^stat::number_of_executed_units: *([0-9]+)/\1/p' "$work/fuzz.log")
    grep -E '^#[0-9]+[[:space:]]+DONE' "$work/fuzz.log" | tail -1
    if [ $rc -ne 0 ]; then
        tail -60 "$work/fuzz.log"
        for a in "$work"/artifacts/*; do
            [ -e "$a" ] || continue
            echo "crashing input $(basename "$a") (hex):"; od -An -tx1 "$a" | head -20
        done
        echo "FAIL: the $label fuzzer found a problem (exit $rc) after ${execs:-?} executions"
        echo "fuzz: $passed passed, 1 failed"
        exit 1
    fi
    echo "ok: $label: ${execs:-0} executions in $secs s, no crash, no sanitizer report"
    passed=$((passed + 1))
}

# 1-2. the state harness: the seed corpus, each input once, then fuzzing
replay_and_fuzz fuzz_state corpus state

# 3-4. the same with small thresholds: the seeds must reach the paths of
#      large states, packed sets and front-coded sets, then fuzzing
out=$(CD_FUZZ_STATS=1 "$work/fuzz_state_small" "$here"/corpus/* 2>&1) ||
    { echo "$out" | tail -40; fail "replaying the state seed corpus with small thresholds"; }
stats=$(echo "$out" | grep '^stats: ' | tail -1)
echo "($stats)"
echo "$stats" | grep -qE ' [1-9][0-9]* packed,' || fail "no seed input decodes into a packed set with small thresholds"
echo "$stats" | grep -qE ' [1-9][0-9]* front-coded,' || fail "no seed input decodes into a front-coded set with small thresholds"
echo "$stats" | grep -qE 'arrays: [1-9][0-9]* accepted' || fail "no seed input is a state of array keys"
replay_and_fuzz fuzz_state_small corpus "state (small thresholds)"

# 5-6. the stored-set format: its seed corpus, then fuzzing
replay_and_fuzz fuzz_dset corpus-dset stored-set

# 7-8. the stored sets' text input and output: the seeds must include accepted
#    inputs (the round trip is checked on those), then fuzzing
n=$(CD_FUZZ_VERBOSE=1 "$work/fuzz_dset_text" "$here"/corpus-dset-text/* 2>&1 | grep -c '^accepted: ')
[ "$n" -ge 5 ] || fail "only $n of the text seed inputs are accepted"
echo "($n of the text seed inputs are accepted)"
replay_and_fuzz fuzz_dset_text corpus-dset-text "stored-set text input"
echo "fuzz: $passed passed, 0 failed"
