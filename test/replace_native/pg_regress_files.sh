#!/usr/bin/env bash
# Prints a directory holding PostgreSQL's regression test files
# test_setup.sql, aggregates.sql, groupingsets.sql, window.sql and
# partition_aggregate.sql (PostgreSQL's, never committed into this project).
#
# With CD_PG_SOURCE (a PostgreSQL source tree): its src/test/regress/sql.
# Otherwise the PostgreSQL 17 copies inside the PyPI sdist of pglast 7.22
# (its libpg_query/test/sql/postgres_regress holds them, without the data
# files under data/): fetched with curl from a pinned URL, its sha256
# checked, and the five files kept in a cache directory outside the tree
# (CD_PG_REGRESS_CACHE, default under ${TMPDIR:-/tmp}) that later runs
# reuse while each file's sha256 still matches.  Concurrent runs each
# extract into a directory of their own and move it into place, so a reader
# never sees a half-written cache.
#
# Exit status: 0 with the directory on stdout; 1 on a failure (download
# impossible, checksum mismatch, files missing), with the reason on stderr.
set -u
files="test_setup aggregates groupingsets window partition_aggregate"
complete() {   # complete DIR: all five files present
    local f
    for f in $files; do [ -s "$1/$f.sql" ] || return 1; done
}
if [ -n "${CD_PG_SOURCE:-}" ]; then
    dir=$CD_PG_SOURCE/src/test/regress/sql
    complete "$dir" || { echo "$dir lacks one of: $files" >&2; exit 1; }
    echo "$dir"
    exit 0
fi

# the five files as the sdist holds them: a cache (shared, outside the
# tree) is used only while it still matches
sums="320cfec5b81b10c5d437b0f8581397e89aa4852d47be78dd5e0cd43c8c7a0287  test_setup.sql
796e6b2386cf1202ae7cae7c3990e86b5f281fd677beff19e4379048ed9677fd  aggregates.sql
f83ef60b59f5feaf95dfa1d72e7034758520b2420d3e3a4cd76a22677a9d1f72  groupingsets.sql
922af389278055be0d04e448a403fd709fcec5f102557217cd094564304c0359  window.sql
24a1528991967ad90af6e17147b63a05a8ca474a0238846a9b78880784640bc1  partition_aggregate.sql"
sha() { (sha256sum "$1" 2>/dev/null || shasum -a 256 "$1") | cut -d' ' -f1; }
verified() {   # verified DIR: the five files, unchanged
    local want f
    complete "$1" || return 1
    while read -r want f; do
        [ "$(sha "$1/$f")" = "$want" ] || return 1
    done <<<"$sums"
}
url=https://files.pythonhosted.org/packages/32/c2/96ff463b0b462b9957e8322570c96d4123d7a06ca1aa51624ed6b69dae57/pglast-7.22.tar.gz
sha256=d7ee5b5161cf31913a06fdab8615e9e02144761761c481002789f968b446d653
inner=pglast-7.22/libpg_query/test/sql/postgres_regress
cache=${CD_PG_REGRESS_CACHE:-${TMPDIR:-/tmp}/count_distinct-regress-pglast-7.22}
dir=$cache/sql
if verified "$dir"; then
    echo "$dir"
    exit 0
fi

mkdir -p "$cache" || { echo "cannot create $cache" >&2; exit 1; }
work=$(mktemp -d "$cache/fetch.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
command -v curl >/dev/null || { echo "curl is not installed" >&2; exit 1; }
if ! curl -fsSL --retry 2 --connect-timeout 20 --max-time 300 -o "$work/pglast.tar.gz" "$url" 2>"$work/curl.err"; then
    echo "download of $url failed: $(cat "$work/curl.err")" >&2
    exit 1
fi
got=$(sha "$work/pglast.tar.gz")
if [ "$got" != "$sha256" ]; then
    echo "checksum mismatch for $url: $got, expected $sha256" >&2
    exit 1
fi
members=""
for f in $files; do members="$members $inner/$f.sql"; done
# shellcheck disable=SC2086
tar --no-same-owner -xzf "$work/pglast.tar.gz" -C "$work" $members || { echo "extraction from the sdist failed" >&2; exit 1; }
verified "$work/$inner" || { echo "the sdist lacks one of: $files" >&2; exit 1; }
chmod 644 "$work/$inner"/*.sql
# another run may have finished first: keep its copy; a copy that no longer
# matches is replaced, or where that is not possible this run's is used
if ! mv -T "$work/$inner" "$dir" 2>/dev/null && ! verified "$dir"; then
    rm -rf "$dir" 2>/dev/null
    if ! mv -T "$work/$inner" "$dir" 2>/dev/null; then
        dir=$(mktemp -d "${TMPDIR:-/tmp}/count_distinct-regress.XXXXXX") || exit 1
        mv "$work/$inner"/*.sql "$dir"/ || exit 1
        echo "$cache is not usable; the files are in $dir (not removed)" >&2
    fi
fi
echo "$dir"
