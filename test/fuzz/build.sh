#!/usr/bin/env bash
# Build the libFuzzer harness test/fuzz/fuzz_state from the codecs and the
# sets of src/ (outside the server) with
# -fsanitize=fuzzer,address,undefined and assertions on.
#   test/fuzz/build.sh [OUTPUT]     (default: test/fuzz/fuzz_state)
# Needs clang (CLANG, default clang-14 or clang), libFuzzer (Debian:
# libclang-rt-14-dev) and the server headers (PG_CONFIG, default pg_config).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=${1:-$here/fuzz_state}
CLANG=${CLANG:-$(command -v clang-14 || command -v clang)}
PG_CONFIG=${PG_CONFIG:-pg_config}
inc=$("$PG_CONFIG" --includedir-server)
"$CLANG" -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    -fno-sanitize=function -DUSE_ASSERT_CHECKING -Wall -Wno-ignored-attributes -Wno-unused-command-line-argument \
    -I"$top/src" -I"$here" -I"$inc" \
    "$here/fuzz_state.c" "$here/pgstub.c" \
    "$top/src/serialize.c" "$top/src/keypack.c" "$top/src/set.c" "$top/src/fixedset.c" \
    "$top/src/varset.c" "$top/src/policy.c" "$top/src/sort.c" "$top/src/key.c" "$top/src/errors.c" \
    "$top/src/value_io.c" "$top/src/alloc.c" "$top/src/registry.c" \
    -o "$out"
