#!/bin/bash
# Times the set's own work on int4 keys outside the server (see
# bench/micro/set_bench.c): serial append + compactions + count, and a
# parallel plan's serialization and leader count, for 10M rows all distinct
# and 10M rows half one value.  No server needed, only its headers.
#
#   bash bench/micro.sh [rows] [rounds]       (PG_CONFIG picks the headers)
set -eu
cd "$(dirname "$0")/.."
PG_CONFIG=${PG_CONFIG:-pg_config}
CC=${CC:-cc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
inc=$("$PG_CONFIG" --includedir-server)
$CC -O2 -g -Wall -Werror -Wno-unused-function ${CD_BENCH_CFLAGS:-} \
    -I src -I test/fuzz -I "$inc" -o "$tmp/set_bench" \
    bench/micro/set_bench.c test/fuzz/pgstub.c \
    src/packedset.c src/keyunion.c src/fixedset.c src/set.c src/varset.c \
    src/varentry.c src/frontset.c src/policy.c src/sort.c src/key.c src/key_record.c \
    src/errors.c src/serialize.c src/serialkeys.c src/blockcodec.c src/frontcode.c src/value_io.c src/alloc.c \
    src/registry.c
"$tmp/set_bench" "${1:-10000000}" "${2:-5}"
