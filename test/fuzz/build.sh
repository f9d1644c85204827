#!/usr/bin/env bash
# Build a libFuzzer harness outside the server, with
# -fsanitize=fuzzer,address,undefined and assertions on:
#   test/fuzz/build.sh [OUTPUT [HARNESS]]
# HARNESS state (default: test/fuzz/fuzz_state): decoding and merging of
#   serialized states, from the codecs and sets of src/ (only server
#   functions are stubbed: pgstub.c);
# HARNESS dset (default output test/fuzz/fuzz_dset): the stored-set format
#   and its set algebra, from src/dset_format.c, dset_keys.c, dset_ops.c and
#   the same files;
# HARNESS dset_text (default output test/fuzz/fuzz_dset_text): the stored
#   sets' text input and output (src/dset_io.c) with the files of dset and
#   a stub array_in / array_out and type-name parser (pgstub_dset_text.c).
# Needs clang (CLANG, default clang-14 or clang), libFuzzer (Debian:
# libclang-rt-14-dev) and the server headers (PG_CONFIG, default pg_config).
# CD_FUZZ_CFLAGS: more compiler flags, e.g. smaller thresholds so that short
#   inputs reach the paths of large sets (test/drivers/50-fuzz.sh builds the
#   state harness a second time with
#   CD_FUZZ_CFLAGS="-DCD_PACKED_MIN_BYTES=256 -DCD_FRONT_MIN_BYTES=256 -DCD_FRONT_ALWAYS=1").
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
harness=${2:-state}
out=${1:-$here/fuzz_$harness}
CLANG=${CLANG:-$(command -v clang-14 || command -v clang)}
PG_CONFIG=${PG_CONFIG:-pg_config}
inc=$("$PG_CONFIG" --includedir-server)
case $harness in
    state) extra="" ;;
    dset) extra="$here/pgstub_dset.c $top/src/dset_format.c $top/src/dset_keys.c $top/src/dset_ops.c $top/src/moving.c $top/src/key_moving.c" ;;
    dset_text) extra="$here/pgstub_dset.c $here/pgstub_dset_text.c $top/src/dset_io.c $top/src/dset_format.c $top/src/dset_keys.c $top/src/dset_ops.c $top/src/moving.c $top/src/key_moving.c" ;;
    *) echo "unknown harness $harness" >&2; exit 2 ;;
esac
"$CLANG" -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    -fno-sanitize=function -DUSE_ASSERT_CHECKING -Wall -Wno-ignored-attributes -Wno-unused-command-line-argument \
    ${CD_FUZZ_CFLAGS:-} \
    -I"$top/src" -I"$here" -I"$inc" \
    "$here/fuzz_$harness.c" "$here/pgstub.c" $extra \
    "$top/src/serialize.c" "$top/src/serialkeys.c" "$top/src/blockcodec.c" "$top/src/frontcode.c" "$top/src/runcodec.c" "$top/src/set.c" "$top/src/fixedset.c" "$top/src/packedset.c" "$top/src/keyunion.c" \
    "$top/src/varset.c" "$top/src/varentry.c" "$top/src/frontset.c" "$top/src/policy.c" "$top/src/sort.c" "$top/src/key.c" "$top/src/key_record.c" "$top/src/errors.c" \
    "$top/src/value_io.c" "$top/src/alloc.c" "$top/src/registry.c" \
    -o "$out"
