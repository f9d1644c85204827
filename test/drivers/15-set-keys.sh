#!/usr/bin/env bash
# Unit test of the set's merges and lookups on sorted runs
# (src/set_keys_template.h), per key width, against qsort + a plain dedup:
# test/unit/set_keys_test.c, compiled with the system C compiler (no server
# needed).  CD_LONG=1 runs ten times as many random cases.
set -u
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=400000
[ "${CD_LONG:-0}" = 1 ] && n=4000000
CC=${CC:-cc}
if ! $CC -O2 -Wall -Werror -Wno-unused-function -I src -o "$tmp/set_keys_test" \
        test/unit/set_keys_test.c; then
    echo "FAIL: could not build test/unit/set_keys_test.c"
    echo "0 passed, 1 failed"
    exit 1
fi
"$tmp/set_keys_test" "$n"
