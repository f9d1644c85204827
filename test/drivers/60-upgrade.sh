#!/usr/bin/env bash
# Upgrades from the versions in the wild, and dump / restore.
#
# For each old version (3.0.0, 3.0.1 in a schema of its own, 3.0.2, 2.0.0 as
# left on servers with and without parallel aggregation, 4.0.0, 4.1.0,
# 4.2.0): creates a database with that version's catalog (fixtures in
# test/upgrade/, installed next to the extension's scripts for the run;
# 3.0.x's and 2.0.0's C functions then resolve to the legacy symbols of the
# installed library), views on every aggregate, a materialized view, a rule
# and SQL functions (test/upgrade/objects.sql), and checks them against
# native COUNT(DISTINCT) / array_agg(DISTINCT) (test/upgrade/checks.sql);
# then ALTER EXTENSION count_distinct UPDATE, the same checks again, the
# extension's catalog against a fresh CREATE EXTENSION
# (test/upgrade/catalog.sql), and pg_dump / pg_restore of the updated
# database into a new one, checked the same way.  Also: a 3.0.2 database
# dumped before updating and restored (onto the current version), and a
# fresh database with views on every aggregate, dumped and restored; stored
# sets (test/upgrade/sets.sql) through custom and plain dumps.  And, with
# a stand-in extension named citus (whose presence makes the scripts declare
# typed overloads of the built-in types), updates from 4.2.0, 4.1.0 and
# 4.0.0 against a fresh install.
#
# Uses the cluster from test/run-all.sh (PGHOST, PGPORT, ..., CD_CLUSTER_BINDIR)
# and PG_CONFIG (default: the one in CD_CLUSTER_BINDIR) to find the
# extension directory, which must be writable (the fixtures are copied
# there and removed at the end; existing files are never touched).
# Prints "N passed, N failed"; exits non-zero on any failure.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
up=$here/upgrade
BIN=${CD_CLUSTER_BINDIR:-$(dirname "$(command -v psql)")}
PG_CONFIG=${PG_CONFIG:-$BIN/pg_config}
export PGOPTIONS="${PGOPTIONS:-} -c client_min_messages=warning -c search_path=public,cd"
tmp=$(mktemp -d)
chmod 755 "$tmp"
passed=0
failed=0
ok() { echo "ok: $1"; passed=$((passed + 1)); }
bad() { echo "FAIL: $1"; failed=$((failed + 1)); }

psql_db() {   # psql_db DB ARGS...: quiet, stop on the first error
    local db=$1
    shift
    "$BIN/psql" -X -q -At -v ON_ERROR_STOP=1 -d "$db" "$@"
}

# databases and fixture files this run created, removed at exit
dbs=""
fixtures=""
cleanup() {
    local db f
    for db in $dbs; do
        "$BIN/psql" -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1
    done
    for f in $fixtures; do rm -f "$f"; done
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

new_db() {    # new_db NAME: an empty database (template0)
    psql_db postgres -c "DROP DATABASE IF EXISTS $1" -c "CREATE DATABASE $1 TEMPLATE template0" >/dev/null \
        || return 1
    case " $dbs " in *" $1 "*) ;; *) dbs="$dbs $1" ;; esac
}

extdir=$("$PG_CONFIG" --sharedir)/extension
if [ ! -f "$extdir/count_distinct.control" ]; then
    echo "count_distinct is not installed in $extdir"; echo "0 passed, 1 failed"; exit 1
fi
if [ ! -w "$extdir" ]; then
    echo "$extdir is not writable (the old versions' fixtures go there)"; echo "0 passed, 1 failed"; exit 1
fi
current=$(psql_db postgres -c "SELECT default_version FROM pg_available_extensions WHERE name = 'count_distinct'")
server_num=$(psql_db postgres -c "SHOW server_version_num")
atomic=false
[ "$server_num" -ge 140000 ] && atomic=true
echo "current version $current; server $server_num"

# install_fixture VERSION FILE: count_distinct--VERSION.sql, unless there is
# one already that this run did not put there (a real old script left by an
# earlier install: use that)
install_fixture() {
    local dest=$extdir/count_distinct--$1.sql
    case " $fixtures " in
        *" $dest "*) cp "$2" "$dest"; return ;;
    esac
    [ -e "$dest" ] && { echo "using the existing $dest"; return 0; }
    cp "$2" "$dest" && chmod 644 "$dest" && fixtures="$fixtures $dest"
}

# checks DB LABEL VIEW_AE VIEW_AA [PARTIAL]: test/upgrade/checks.sql, one
# result per line (PARTIAL=false: the aggregates have no combine function)
checks() {
    local db=$1 label=$2 line name res
    if ! psql_db "$db" -v view_ae="$3" -v view_aa="$4" -v atomic="$atomic" -v partial="${5:-true}" \
        -f "$up/checks.sql" >"$tmp/checks.out" 2>"$tmp/checks.err"; then
        bad "$label: checks.sql failed"; cat "$tmp/checks.err"
    fi
    while IFS= read -r line; do
        name=${line%|*}; res=${line##*|}
        if [ "$res" = t ]; then ok "$label: $name"; else bad "$label: $name"; fi
    done <"$tmp/checks.out"
}

# catalog_same DB FRESH LABEL: the extension's catalog equals a fresh install's
catalog_same() {
    psql_db "$1" -f "$up/catalog.sql" >"$tmp/cat.$1" 2>&1
    psql_db "$2" -f "$up/catalog.sql" >"$tmp/cat.$2" 2>&1
    if [ -s "$tmp/cat.$2" ] && diff -u "$tmp/cat.$2" "$tmp/cat.$1" >"$tmp/cat.diff"; then
        ok "$3: catalog equals a fresh CREATE EXTENSION ($(wc -l <"$tmp/cat.$1") lines)"
    else
        bad "$3: catalog differs from a fresh CREATE EXTENSION"; head -60 "$tmp/cat.diff"
    fi
}

# dump_restore DB NEWDB LABEL: pg_dump -Fc DB | pg_restore into NEWDB
dump_restore() {
    new_db "$2" || { bad "$3: CREATE DATABASE $2"; return 1; }
    if "$BIN/pg_dump" -Fc -d "$1" -f "$tmp/dump" 2>"$tmp/dump.err" \
        && "$BIN/pg_restore" --exit-on-error -d "$2" "$tmp/dump" 2>>"$tmp/dump.err"; then
        ok "$3: pg_dump / pg_restore"
    else
        bad "$3: pg_dump / pg_restore"; cat "$tmp/dump.err"; return 1
    fi
}

version_is() {   # version_is DB VERSION LABEL
    local v
    v=$(psql_db "$1" -c "SELECT extversion FROM pg_extension WHERE extname = 'count_distinct'" 2>&1)
    if [ "$v" = "$2" ]; then ok "$3: extension version $2"; else bad "$3: extension version is '$v', not $2"; fi
}

# fresh installs of the current version, one per schema used below
for schema in public cd; do
    new_db "cd_up_fresh_$schema" || { echo "0 passed, 1 failed"; exit 1; }
    psql_db "cd_up_fresh_$schema" -c "CREATE SCHEMA IF NOT EXISTS $schema" \
        -c "CREATE EXTENSION count_distinct WITH SCHEMA $schema" >/dev/null \
        || { echo "CREATE EXTENSION failed"; echo "0 passed, 1 failed"; exit 1; }
done

# upgrade FROM FIXTURE SCHEMA VIEW_AE PARTIAL [dump-old]
#   VIEW_AE: the old catalog has array_agg_distinct_elements
#   PARTIAL: the old catalog's aggregates have combine functions
upgrade() {
    local from=$1 fixture=$2 schema=$3 view_ae=$4 partial=$5 dump_old=${6:-}
    local variant=$(basename "$fixture" .sql)
    local db=cd_up_${from//./_} label="from $from"
    case $variant in *-*) db=${db}_${variant#*-}; label="$label (${variant#*-})" ;; esac
    [ "$schema" = public ] || label="$label (schema $schema)"
    echo "=== $label"
    install_fixture "$from" "$fixture" || { bad "$label: installing the fixture"; return; }
    new_db "$db" || { bad "$label: CREATE DATABASE"; return; }
    if ! psql_db "$db" -c "CREATE SCHEMA IF NOT EXISTS $schema" \
        -c "CREATE EXTENSION count_distinct WITH SCHEMA $schema VERSION '$from'" >/dev/null 2>"$tmp/err"; then
        bad "$label: CREATE EXTENSION VERSION '$from'"; cat "$tmp/err"; return
    fi
    version_is "$db" "$from" "$label"

    # every C function of the old catalog resolves in the installed library
    if psql_db "$db" >"$tmp/err" 2>&1 <<'SQL'
SELECT fmgr_c_validator(p.oid)
FROM pg_depend d JOIN pg_proc p ON d.classid = 'pg_proc'::regclass AND p.oid = d.objid
WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
  AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'count_distinct')
  AND p.prolang = (SELECT oid FROM pg_language WHERE lanname = 'c');
SQL
    then
        ok "$label: every C function of the old catalog is found in the library"
    else
        bad "$label: a C function of the old catalog is missing from the library"; cat "$tmp/err"
    fi

    if ! psql_db "$db" -v view_ae="$view_ae" -v view_aa=false -v atomic="$atomic" \
        -f "$up/objects.sql" >/dev/null 2>"$tmp/err"; then
        bad "$label: creating the views, rule and functions"; cat "$tmp/err"; return
    fi
    checks "$db" "$label, old catalog" "$view_ae" false "$partial"

    if [ -n "$dump_old" ]; then
        # dumped before updating, restored onto the current version
        if dump_restore "$db" "${db}_oldrestore" "$label, dumped before the update"; then
            version_is "${db}_oldrestore" "$current" "$label, dumped before the update"
            checks "${db}_oldrestore" "$label, dumped before the update" "$view_ae" false
            catalog_same "${db}_oldrestore" "cd_up_fresh_$schema" "$label, dumped before the update"
        fi
    fi

    if psql_db "$db" -c "ALTER EXTENSION count_distinct UPDATE" >/dev/null 2>"$tmp/err"; then
        ok "$label: ALTER EXTENSION count_distinct UPDATE"
    else
        bad "$label: ALTER EXTENSION count_distinct UPDATE"; cat "$tmp/err"; return
    fi
    version_is "$db" "$current" "$label"
    checks "$db" "$label, updated" "$view_ae" false
    catalog_same "$db" "cd_up_fresh_$schema" "$label, updated"
    # the new overload, in the updated database
    if psql_db "$db" -c "CREATE VIEW v_array_array AS
        SELECT g, array_agg_distinct(a) AS aa FROM t WHERE cardinality(a) = 3 GROUP BY g" >/dev/null 2>"$tmp/err"; then
        checks "$db" "$label, updated, with array_agg_distinct(anyarray)" "$view_ae" true
    else
        bad "$label: array_agg_distinct(anyarray) after the update"; cat "$tmp/err"
    fi

    if dump_restore "$db" "${db}_restore" "$label, updated"; then
        version_is "${db}_restore" "$current" "$label, updated and restored"
        checks "${db}_restore" "$label, updated and restored" "$view_ae" true
        catalog_same "${db}_restore" "cd_up_fresh_$schema" "$label, updated and restored"
    fi
}

upgrade 3.0.0 "$up/3.0.x.sql" public true true
upgrade 3.0.1 "$up/3.0.x.sql" cd true true
upgrade 3.0.2 "$up/3.0.x.sql" public true true dump-old
upgrade 2.0.0 "$up/2.0.0.sql" public false true
upgrade 2.0.0 "$up/2.0.0-noparallel.sql" public true false
upgrade 4.0.0 "$up/4.0.0.sql" public true true
upgrade 4.1.0 "$up/4.1.0.sql" public true true
upgrade 4.2.0 "$up/4.2.0.sql" public true true

# Typed overloads of the built-in types, which the scripts declare where
# Citus is installed: with a stand-in extension named citus (an empty
# script, in the extension directory for the run; skipped where a real one
# is installed), a fresh install has them as members, and updates from
# 4.2.0 (which has them too: replaced), 4.1.0 (has them, but not those of
# distinct_set_agg) and 4.0.0 (has none) give the same catalog.
echo "=== typed overloads where Citus is installed (a stand-in extension citus)"
if [ -e "$extdir/citus.control" ]; then
    echo "skipped: $extdir has a citus extension of its own"
else
    printf "comment = 'stand-in for Citus (count_distinct test)'\ndefault_version = '0'\nrelocatable = true\n" \
        >"$extdir/citus.control" && fixtures="$fixtures $extdir/citus.control"
    echo "SELECT 1;" >"$extdir/citus--0.sql" && fixtures="$fixtures $extdir/citus--0.sql"
    db=cd_up_citus_fresh
    if new_db $db && psql_db $db -c "CREATE EXTENSION citus" -c "CREATE EXTENSION count_distinct" >/dev/null 2>"$tmp/err"; then
        n=$(psql_db $db -c "SELECT count(*) FROM pg_depend d JOIN pg_proc p ON p.oid = d.objid
                             WHERE d.classid = 'pg_proc'::regclass AND d.deptype = 'e' AND p.prokind = 'a'
                               AND p.proargtypes[0] = 'int4'::regtype")
        if [ "${n:-0}" -ge 3 ]; then ok "with citus: a fresh install declares the typed overloads ($n of int4)"
        else bad "with citus: a fresh install has ${n:-no} typed overloads of int4"; fi
        for from in 4.2.0 4.1.0 4.0.0; do
            install_fixture "$from" "$up/$from.sql" || { bad "with citus: installing the fixture of $from"; continue; }
            udb=cd_up_citus_${from//./_}
            if new_db $udb && psql_db $udb -c "CREATE EXTENSION citus" \
                -c "CREATE EXTENSION count_distinct VERSION '$from'" \
                -c "ALTER EXTENSION count_distinct UPDATE" >/dev/null 2>"$tmp/err"; then
                catalog_same $udb $db "with citus, from $from, updated"
            else
                bad "with citus: update from $from"; cat "$tmp/err"
            fi
        done
    else
        bad "with citus: a fresh install"; cat "$tmp/err"
    fi
fi

# a fresh database of the current version, views on every aggregate, dumped
# and restored
echo "=== fresh $current"
db=cd_up_fresh_views
if new_db $db && psql_db $db -c "CREATE EXTENSION count_distinct" >/dev/null \
    && psql_db $db -v view_ae=true -v view_aa=true -v atomic="$atomic" -f "$up/objects.sql" >/dev/null 2>"$tmp/err"; then
    checks $db "fresh $current" true true
    if dump_restore $db ${db}_restore "fresh $current"; then
        checks ${db}_restore "fresh $current, restored" true true
        catalog_same ${db}_restore cd_up_fresh_public "fresh $current, restored"
    fi
else
    bad "fresh $current: creating the database and its views"; cat "$tmp/err"
fi

# stored sets (test/upgrade/sets.sql) through pg_dump -Fc / pg_restore and a
# plain pg_dump / psql: the same bytes (their text form is what is dumped)
echo "=== stored sets, dumped and restored"
sets_same() {   # sets_same DB LABEL
    local res
    res=$(psql_db "$1" -c "SELECT (SELECT md5(string_agg(k || ':' || distinct_set_send(s)::text, ',' ORDER BY k))
                                   FROM ds_stored) = digest
                                  AND (SELECT count(*) FROM ds_view WHERE u <> (SELECT s FROM ds_stored d WHERE d.k = ds_view.k)) = 0
                           FROM ds_digest" 2>&1)
    if [ "$res" = t ]; then ok "$2: stored sets equal"; else bad "$2: stored sets differ ($res)"; fi
}
db=cd_up_sets
if new_db $db && psql_db $db -c "CREATE EXTENSION count_distinct" >/dev/null \
    && psql_db $db -f "$up/sets.sql" >/dev/null 2>"$tmp/err"; then
    sets_same $db "stored sets"
    if dump_restore $db ${db}_restore "stored sets"; then
        sets_same ${db}_restore "stored sets, custom dump"
    fi
    if new_db ${db}_plain && "$BIN/pg_dump" -d $db -f "$tmp/plain.sql" 2>"$tmp/err" \
        && psql_db ${db}_plain -f "$tmp/plain.sql" >/dev/null 2>>"$tmp/err"; then
        ok "stored sets: plain pg_dump / psql"
        sets_same ${db}_plain "stored sets, plain dump"
    else
        bad "stored sets: plain pg_dump / psql"; cat "$tmp/err"
    fi
else
    bad "stored sets: creating the database"; cat "$tmp/err"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
