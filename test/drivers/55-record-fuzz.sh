#!/usr/bin/env bash
# Property test of the record and array byte keys (test/recordfuzz.py):
# random key-path row types and arrays, count_distinct and
# array_agg_distinct against native per group, serial and through
# serialized partial states (forced parallel plans).
#
# Uses the cluster from test/run-all.sh (PGHOST, PGPORT, ..., CD_CLUSTER_BINDIR).
# Runs the fixed seed 1 (CD_RECORDFUZZ_CASES cases, default 150), then a
# time-based seed (printed) for CD_RECORDFUZZ_SECONDS (default 45; with
# CD_LONG=1, 1800).  Only python3 (standard library) and psql are needed.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
command -v python3 >/dev/null || { apt-get install -y -qq python3 >/dev/null 2>&1 || true; }
command -v python3 >/dev/null || { echo "recordfuzz: python3 is missing"; echo "recordfuzz: 0 passed, 1 failed"; exit 1; }

passed=0
failed=0
run() {
    local out rc line p f
    out=$(python3 "$here/recordfuzz.py" "$@" 2>&1)
    rc=$?
    echo "$out"
    line=$(echo "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -1)
    p=$(echo "$line" | grep -oE '^[0-9]+'); f=$(echo "$line" | grep -oE '[0-9]+ failed' | grep -oE '[0-9]+')
    p=${p:-0}; f=${f:-0}
    if [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
    passed=$((passed + p)); failed=$((failed + f))
}

seconds=${CD_RECORDFUZZ_SECONDS:-45}
[ "${CD_LONG:-0}" = 1 ] && seconds=1800
run --seed 1 --cases "${CD_RECORDFUZZ_CASES:-150}"
seed=${CD_RECORDFUZZ_SEED:-$(date +%s)}
echo "recordfuzz: random seed $seed (again: python3 test/recordfuzz.py --seed $seed --case N)"
run --seed "$seed" --cases 1000000 --seconds "$seconds"
echo "recordfuzz: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
