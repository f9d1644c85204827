#!/bin/sh
# One version everywhere: the extension's version is count_distinct.control's
# default_version, and these must agree with it:
#   - META.json: "version", provides.count_distinct.version and .file;
#   - debian/changelog: the upstream part of the latest entry;
#   - CHANGELOG.md: the latest section ("## X.Y.Z");
#   - sql/count_distinct--X.Y.Z.sql exists and is the only install script,
#     and names that version in its first line;
#   - README.md and DEVELOPMENT.md: the version shown after ALTER EXTENSION
#     ... UPDATE, and the install script, update script, PGXN zip and .deb
#     names they mention (docs/upgrading.md's checked example prints the
#     installed version: test/drivers/68-doc-examples.sh);
#   - Makefile: UPDATE_FROM lists only earlier versions, from each of which
#     the steps in sql/update/ (FROM--NEXT.sql, 3.0.x--NEXT.sql for 3.0.*)
#     lead to this version, every step is on such a path, and every earlier
#     version in CHANGELOG.md from 2.0.0 on is in UPDATE_FROM (so it gets an
#     update script).
# Needs only sh, sed, grep, sort (and python3 for META.json when present).
# Prints one line per check and "versions: N passed, N failed"; exits
# non-zero on any disagreement.
set -u
cd "$(dirname "$0")/.."
passed=0
failed=0

ok() { passed=$((passed + 1)); echo "ok: $*"; }
bad() { failed=$((failed + 1)); echo "FAILED: $*"; }
check() {   # check WHAT FOUND EXPECTED
    if [ "$2" = "$3" ]; then ok "$1 = $3"; else bad "$1 is '$2', count_distinct.control says '$3'"; fi
}
# version a < version b (dotted numbers)
version_lt() {
    [ "$1" != "$2" ] && [ "$(printf '%s\n%s\n' "$1" "$2" | sort -t. -k1,1n -k2,2n -k3,3n | head -1)" = "$1" ]
}

v=$(sed -n "s/^[[:space:]]*default_version[[:space:]]*=[[:space:]]*'\([^']*\)'.*/\1/p" count_distinct.control)
if [ -z "$v" ]; then
    echo "FAILED: no default_version in count_distinct.control"
    echo "versions: 0 passed, 1 failed"
    exit 1
fi
echo "version (count_distinct.control): $v"

# META.json
if command -v python3 >/dev/null 2>&1; then
    meta=$(python3 -c '
import json, sys
m = json.load(open("META.json"))
p = m.get("provides", {}).get("count_distinct", {})
print(m.get("version", ""), p.get("version", ""), p.get("file", ""))' 2>&1) || meta="? ? ?"
    set -- $meta
    check "META.json version" "${1:-}" "$v"
    check "META.json provides.count_distinct.version" "${2:-}" "$v"
    check "META.json provides.count_distinct.file" "${3:-}" "sql/count_distinct--$v.sql"
else
    # without python3: every "version" in the file but meta-spec's, and "file"
    for w in $(grep -v 'pgxn.org/meta' META.json | sed -n '/"meta-spec"/,/}/!s/.*"version"[[:space:]]*:[[:space:]]*"\([^"]*\)".*/\1/p'); do
        check "META.json version" "$w" "$v"
    done
    check "META.json provides file" "$(sed -n 's/.*"file"[[:space:]]*:[[:space:]]*"\([^"]*\)".*/\1/p' META.json | head -1)" "sql/count_distinct--$v.sql"
fi

# debian/changelog: "source (EPOCH:UPSTREAM-REVISION) dist; urgency=..."
if [ -f debian/changelog ]; then
    deb=$(sed -n '1s/^[^ ]* (\([^)]*\)).*/\1/p' debian/changelog)
    up=${deb#*:}
    up=${up%-*}
    check "debian/changelog upstream version ($deb)" "$up" "$v"
else
    bad "debian/changelog is missing"
fi

# CHANGELOG.md: the first "## " heading names the current version
changelog_versions=""
if [ -f CHANGELOG.md ]; then
    first=$(grep -m1 '^## ' CHANGELOG.md | grep -oE '[0-9]+\.[0-9]+\.[0-9]+' | head -1)
    check "CHANGELOG.md latest section" "$first" "$v"
    changelog_versions=$(grep '^## ' CHANGELOG.md | grep -oE '[0-9]+\.[0-9]+\.[0-9]+')
else
    bad "CHANGELOG.md is missing"
fi

# install script
if [ -f "sql/count_distinct--$v.sql" ]; then
    ok "sql/count_distinct--$v.sql exists"
    check "first line of sql/count_distinct--$v.sql" \
        "$(head -1 "sql/count_distinct--$v.sql" | sed -n 's|^/\* count_distinct \([^ ]*\) \*/$|\1|p')" "$v"
else
    bad "sql/count_distinct--$v.sql (the install script) does not exist"
fi
others=$(ls sql/count_distinct--*.sql 2>/dev/null | grep -vE -- '--[^-]+--' | grep -vx "sql/count_distinct--$v.sql")
if [ -n "$others" ]; then bad "install scripts of other versions: $others (rename the install script, don't copy it)"
else ok "one install script"; fi

# README.md and DEVELOPMENT.md
for f in README.md DEVELOPMENT.md; do
    [ -f "$f" ] || continue
    for w in $(sed -n 's/.*extversion FROM pg_extension.*--[[:space:]]*\([0-9][0-9.]*[0-9]\).*/\1/p' "$f") \
             $(grep -oE 'count_distinct--([0-9]+\.[0-9]+\.[0-9]+|OLD)(--[0-9]+\.[0-9]+\.[0-9]+)?\.sql' "$f" \
                 | sed -E 's/\.sql$//; s/.*--//') \
             $(grep -oE 'count_distinct-[0-9]+\.[0-9]+\.[0-9]+\.zip' "$f" | sed -E 's/.*-//; s/\.zip$//') \
             $(grep -oE 'count-distinct_[0-9]+\.[0-9]+\.[0-9]+-' "$f" | sed -E 's/.*_//; s/-$//'); do
        [ "$w" = "$v" ] || { bad "$f mentions version $w where the current one belongs"; continue; }
        ok "$f mentions $w"
    done
done

# Makefile UPDATE_FROM and sql/update/: from each version in UPDATE_FROM,
# the steps sql/update/A--B.sql (3.0.x--B.sql for 3.0.*) lead to the
# current version, one step from each version on the way; every step is on
# one of these paths
update_from=$(sed -n 's/^UPDATE_FROM[[:space:]]*=[[:space:]]*//p' Makefile)
[ -n "$update_from" ] || bad "Makefile: no UPDATE_FROM"
step_of() {   # the step sources from version $1
    ls sql/update/"$1"--*.sql 2>/dev/null
    case $1 in 3.0.*) ls sql/update/3.0.x--*.sql 2>/dev/null ;; esac
}
used_steps=""
for f in $update_from; do
    if ! version_lt "$f" "$v"; then
        bad "Makefile: UPDATE_FROM has $f, not earlier than $v"
        continue
    fi
    cur=$f path=$f n=0 err=""
    while [ "$cur" != "$v" ]; do
        steps=$(step_of "$cur")
        if [ "$(echo "$steps" | grep -c .)" -ne 1 ]; then
            err="$(echo "$steps" | grep -c .) steps from $cur in sql/update/"; break
        fi
        used_steps="$used_steps $steps"
        nxt=${steps##*--}; nxt=${nxt%.sql}
        if ! version_lt "$cur" "$nxt"; then err="step $steps does not go forward"; break; fi
        cur=$nxt path="$path -> $cur" n=$((n + 1))
    done
    if [ -n "$err" ]; then bad "update from $f: $err (after $path)"
    else ok "update from $f: $path"; fi
done
for s in sql/update/*--*.sql; do
    [ -e "$s" ] || continue
    case " $used_steps " in
        *" $s "*) ;;
        *) bad "$s is on no update path from a version in the Makefile's UPDATE_FROM" ;;
    esac
done
for c in $changelog_versions; do
    [ "$c" = "$v" ] && continue
    version_lt "$c" 2.0.0 && continue
    case " $update_from " in
        *" $c "*) ;;
        *) bad "CHANGELOG.md has $c but the Makefile's UPDATE_FROM does not (no update script from it)" ;;
    esac
done

echo "versions: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
