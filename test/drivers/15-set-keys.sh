#!/usr/bin/env bash
# Unit tests of the sets without a server, against qsort + a plain dedup:
# - the set's merges and lookups on sorted runs (src/set_keys_template.h),
#   per key width: test/unit/set_keys_test.c, compiled with the system C
#   compiler alone;
# - the packed set (src/packedset.c: compressed blocks, run blocks, block
#   boundaries, extremes of every width, merges, copies, serialized round
#   trips): test/unit/packed_set_test.c, compiled against the server headers
#   (PG_CONFIG, else $CD_CLUSTER_BINDIR/pg_config, else pg_config) with the
#   fuzz harness's stubs of the server functions (test/fuzz/pgstub.c);
# - the front-coded set of byte keys (src/frontset.c: a variable-size set
#   turning into one through the per-row path, counts on the way, its
#   reader, copies, merges of every kind combination, serialized round
#   trips, output values) on bytea keys: test/unit/front_set_test.c, built
#   the same way with a threshold of 256 bytes and front coding always
#   taken, so that small sets become front-coded too;
# - the fixed-width key sort (src/sort.c) of 4- and 8-byte keys against
#   qsort, past the size where runs take an MSD pass first, and the sort of
#   byte keys of one length (records of 0 to 160 bytes) against qsort and a
#   dedup; again built with the MSD size and the records' buckets small:
#   test/unit/sort_keys_test.c;
# - the merge engine's merge of ranges of consecutive keys (src/keymerge.h
#   cd_range_merge_next: union, intersection, difference and every other
#   class combination, and merges of merges) against the sets as bits:
#   test/unit/range_merge_test.c, against the server headers alone;
# - bench/micro.sh's program (bench/micro/set_bench.c) on 300k int4 rows,
#   with assertions: the count of one set and of 3 partial states
#   serialized, combined and counted by the leader's path must be right.
# CD_LONG=1 runs ten times as many random cases.
set -u
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=400000
cases=480
fcases=192
[ "${CD_LONG:-0}" = 1 ] && n=4000000 && cases=4800 && fcases=1440
CC=${CC:-cc}
if [ -z "${PG_CONFIG:-}" ]; then
    if [ -n "${CD_CLUSTER_BINDIR:-}" ] && [ -x "$CD_CLUSTER_BINDIR/pg_config" ]; then
        PG_CONFIG=$CD_CLUSTER_BINDIR/pg_config
    else
        PG_CONFIG=pg_config
    fi
fi
if ! $CC -O2 -Wall -Werror -Wno-unused-function -I src -o "$tmp/set_keys_test" \
        test/unit/set_keys_test.c; then
    echo "FAIL: could not build test/unit/set_keys_test.c"
    echo "0 passed, 1 failed"
    exit 1
fi
"$tmp/set_keys_test" "$n" | tee "$tmp/out1" | grep -vE '^[0-9]+ passed, [0-9]+ failed'

inc=$("$PG_CONFIG" --includedir-server 2>/dev/null)
# build_stub NAME SOURCE [FLAGS...]: SOURCE with the stubs and the sets, as
# $tmp/NAME, with assertions
build_stub() {
    local name=$1 source=$2
    shift 2
    [ -n "$inc" ] && $CC -O2 -g -DUSE_ASSERT_CHECKING -Wall -Werror -Wno-unused-function "$@" \
        -I src -I test/fuzz -I "$inc" -o "$tmp/$name" \
        "$source" test/fuzz/pgstub.c \
        src/packedset.c src/keyunion.c src/fixedset.c src/set.c src/varset.c src/varentry.c src/frontset.c src/policy.c src/sort.c \
        src/key.c src/key_record.c src/errors.c src/serialize.c src/serialkeys.c src/blockcodec.c src/frontcode.c src/value_io.c \
        src/alloc.c src/registry.c 2>"$tmp/build.log"
}
if ! build_stub packed_set_test test/unit/packed_set_test.c; then
    cat "$tmp/build.log"
    echo "FAIL: could not build test/unit/packed_set_test.c (server headers: $PG_CONFIG)"
    echo "0 passed, 1 failed"
    exit 1
fi
"$tmp/packed_set_test" "$cases" | tee "$tmp/out2" | grep -vE '^[0-9]+ passed, [0-9]+ failed'
# the front set, and again with batches of 4 keys in the count of runs of
# keys of one length (frontset.c: CD_FRONT_BATCH), so that they refill often
# (each run's summary in a file of its own: a run that crashes has none)
for batch in "" "-DCD_FRONT_BATCH=4"; do
    out="$tmp/out3${batch:+b}"
    # shellcheck disable=SC2086
    if build_stub front_set_test test/unit/front_set_test.c -DCD_FRONT_MIN_BYTES=256 -DCD_FRONT_ALWAYS=1 $batch; then
        "$tmp/front_set_test" "$fcases" | tee "$out" | grep -vE '^[0-9]+ passed, [0-9]+ failed'
    else
        cat "$tmp/build.log"
        echo "FAIL: could not build test/unit/front_set_test.c (server headers: $PG_CONFIG)"
        echo "0 passed, 1 failed" >"$out"
    fi
done
# the key sort, with the MSD pass from its default size and from 16 kB (and
# the records' buckets of 8 keys, split from 64)
for msd in "" "-DCD_RADIX_MSD_MIN_BYTES=16384 -DCD_RECORD_BUCKET=8 -DCD_RECORD_SPLIT_MIN=64"; do
    out="$tmp/out5${msd:+b}"
    # shellcheck disable=SC2086
    if build_stub sort_keys_test test/unit/sort_keys_test.c $msd; then
        "$tmp/sort_keys_test" | tee "$out" | grep -vE '^[0-9]+ passed, [0-9]+ failed'
    else
        cat "$tmp/build.log"
        echo "FAIL: could not build test/unit/sort_keys_test.c"
        echo "0 passed, 1 failed" >"$out"
    fi
done
# the merge engine's merge of ranges (keymerge.h), against bits: needs only
# the server headers
if [ -n "$inc" ] && $CC -O2 -g -Wall -Werror -Wno-unused-function -I src -I test/unit -I "$inc" \
        -o "$tmp/range_merge_test" test/unit/range_merge_test.c 2>"$tmp/build.log"; then
    "$tmp/range_merge_test" "$cases" | tee "$tmp/out6" | grep -vE '^[0-9]+ passed, [0-9]+ failed'
else
    cat "$tmp/build.log"
    echo "FAIL: could not build test/unit/range_merge_test.c (server headers: $PG_CONFIG)"
    echo "0 passed, 1 failed" >"$tmp/out6"
fi
# bench/micro.sh's program on 300k rows, with assertions: its counts (serial,
# and of 3 partial states combined) must be the rows' distinct values
if build_stub set_bench bench/micro/set_bench.c; then
    if "$tmp/set_bench" 300000 1 >"$tmp/bench.log" 2>&1; then
        echo "ok: bench/micro/set_bench.c on 300k rows: counts right"
        echo "1 passed, 0 failed" >"$tmp/out4"
    else
        cat "$tmp/bench.log"
        echo "FAIL: bench/micro/set_bench.c on 300k rows"
        echo "0 passed, 1 failed" >"$tmp/out4"
    fi
else
    cat "$tmp/build.log"
    echo "FAIL: could not build bench/micro/set_bench.c"
    echo "0 passed, 1 failed" >"$tmp/out4"
fi
# one summary line for the programs
p=0
f=0
for o in "$tmp/out1" "$tmp/out2" "$tmp/out3" "$tmp/out3b" "$tmp/out4" "$tmp/out5" "$tmp/out5b" "$tmp/out6"; do
    lines=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$o" 2>/dev/null)
    [ -z "$lines" ] && lines="0 passed, 1 failed"
    while read -r line; do
        p=$((p + $(echo "$line" | cut -d' ' -f1)))
        f=$((f + $(echo "$line" | cut -d' ' -f3)))
    done <<<"$lines"
done
echo "$p passed, $f failed"
[ "$f" = 0 ]
