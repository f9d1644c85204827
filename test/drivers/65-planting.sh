#!/usr/bin/env bash
# Planting: objects that a user who is not a superuser creates before
# CREATE EXTENSION count_distinct or ALTER EXTENSION count_distinct UPDATE
# never become part of the extension, nor anything the extension uses.
#
# The attacker is a role with LOGIN CREATEDB, not a superuser, that owns the
# database (so it may install the trusted extension, and owns the schema
# public, where the extension goes).  The names planted come from the
# catalog: the members of the extension (pg_depend, deptype 'e') after a
# fresh CREATE EXTENSION, and for an update path the members the update
# adds (members after the update that the old version did not have), so an
# object added to the scripts later is covered without changing this file.
# For each of them, in a transaction that is rolled back:
#   - as the attacker: the old version installed (for an update path), an
#     object of the same kind, name and signature planted, then the command;
#     types as a domain, an enum, a composite, a shell type, a temporary
#     domain in the same session (pg_temp is searched first for types), and
#     a domain named as the type's array type; a type the signature needs
#     and that does not exist yet is planted as a domain first;
#   - where the attacker cannot create such an object at all (functions
#     taking internal or cstring, shell types, operator classes and
#     families: PostgreSQL refuses them to non-superusers, checked), the
#     same planted by a superuser: then the scripts' plain CREATE must fail;
#   - the command must fail, or succeed with nothing bound: every member is
#     owned by a superuser, no member refers to an object that is neither a
#     member nor built in (pg_depend, and the columns of pg_aggregate,
#     pg_operator, pg_type, pg_proc, pg_amop, pg_amproc, pg_opclass that
#     pg_depend does not cover), and the catalog (test/upgrade/catalog.sql)
#     equals a fresh install's.
# The same for CREATE EXTENSION where Citus is installed (a stand-in
# extension named citus), where the install script also declares typed
# overloads: those of int4 and text are planted.
# Also, per path: every type name the members' signatures use, and the
# relation pg_extension, planted as temporary objects at once (nothing may
# resolve to them); no plant at all (the baseline: must succeed).  And: the
# issue's reproducer (a domain distinct_set, CREATE EXTENSION must fail and
# the server must stay up), a 4.2.0 catalog already bound to a planted type
# (the update to this version must refuse it), count_distinct_declare_type
# (refused to the attacker; safe with crafted schema and type names; does
# not take over an aggregate the attacker planted), and a static check of
# the scripts (no OR REPLACE / IF NOT EXISTS / DO at the top level of the
# install script, @extschema@ never inside quotes or a function body).
#
# Uses the cluster from test/run-all.sh (PGHOST, PGPORT, ..., CD_CLUSTER_BINDIR)
# and PG_CONFIG (default: the one in CD_CLUSTER_BINDIR) to find the
# extension directory, which must be writable (the old versions' fixtures
# from test/upgrade/ are copied there, as 60-upgrade.sh does, and removed at
# the end).  Prints "N passed, N failed"; exits non-zero on any failure.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
top=$(cd "$here/.." && pwd)
up=$here/upgrade
BIN=${CD_CLUSTER_BINDIR:-$(dirname "$(command -v psql)")}
PG_CONFIG=${PG_CONFIG:-$BIN/pg_config}
export PGOPTIONS="${PGOPTIONS:-} -c client_min_messages=warning"
super=${PGUSER:-postgres}
attacker=cd_planter
work=cd_plant_work
tmp=$(mktemp -d)
chmod 755 "$tmp"
passed=0
failed=0
ok() { echo "ok: $1"; passed=$((passed + 1)); }
bad() { echo "FAIL: $1"; failed=$((failed + 1)); }

psql_as() {   # psql_as ROLE DB ARGS...
    local role=$1 db=$2
    shift 2
    "$BIN/psql" -X -q -At -U "$role" -d "$db" "$@"
}

fixtures=""
cleanup() {
    local f
    psql_as "$super" postgres -c "DROP DATABASE IF EXISTS $work" -c "DROP DATABASE IF EXISTS cd_plant_crash" \
        -c "DROP ROLE IF EXISTS $attacker" >/dev/null 2>&1
    for f in $fixtures; do rm -f "$f"; done
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

extdir=$("$PG_CONFIG" --sharedir)/extension
if [ ! -f "$extdir/count_distinct.control" ]; then
    echo "count_distinct is not installed in $extdir"; echo "0 passed, 1 failed"; exit 1
fi
if [ ! -w "$extdir" ]; then
    echo "$extdir is not writable (the old versions' fixtures go there)"; echo "0 passed, 1 failed"; exit 1
fi
install_fixture() {   # install_fixture VERSION FILE (as in 60-upgrade.sh)
    local dest=$extdir/count_distinct--$1.sql
    case " $fixtures " in
        *" $dest "*) cp "$2" "$dest"; return ;;
    esac
    [ -e "$dest" ] && { echo "using the existing $dest"; return 0; }
    cp "$2" "$dest" && chmod 644 "$dest" && fixtures="$fixtures $dest"
}

# ---------------------------------------------------------------- static
# The install script: no CREATE OR REPLACE, DO or IF NOT EXISTS in its SQL
# (outside function bodies, strings and comments).  Every script (install
# script, update steps): @extschema@ only in SQL, never inside a string, a
# quoted identifier, a function body or a comment, where a crafted schema
# name substituted for it could end the quote or the comment.
cat >"$tmp/lint.py" <<'PY'
import re, sys

def scan(text):
    """yields (state, line number, chunk of text) for the script's pieces"""
    i, n, line = 0, len(text), 1
    while i < n:
        c = text[i]
        if text.startswith('--', i):
            j = text.find('\n', i)
            j = n if j < 0 else j
            kind = 'comment'
        elif text.startswith('/*', i):
            depth, j = 0, i
            while j < n:
                if text.startswith('/*', j):
                    depth += 1; j += 2
                elif text.startswith('*/', j):
                    depth -= 1; j += 2
                    if depth == 0:
                        break
                else:
                    j += 1
            kind = 'comment'
        elif c in "'\"":
            j = i + 1
            while j < n:
                if text[j] == c:
                    if j + 1 < n and text[j + 1] == c:
                        j += 2; continue
                    j += 1; break
                j += 1
            kind = 'quoted'
        elif c == '$' and re.match(r'\$[A-Za-z_]*\$', text[i:]):
            tag = re.match(r'\$[A-Za-z_]*\$', text[i:]).group(0)
            j = text.find(tag, i + len(tag))
            j = n if j < 0 else j + len(tag)
            kind = 'body'
        else:
            m = re.compile(r"--|/\*|['\"$]").search(text, i + 1)
            j = m.start() if m else n
            if c == '$' and j == i:
                j = i + 1
            kind = 'sql'
        yield kind, line, text[i:j]
        line += text.count('\n', i, j)
        i = j

bad = 0
install = sys.argv[1]
for path in sys.argv[1:]:
    text = open(path).read()
    for kind, line, chunk in scan(text):
        if kind != 'sql' and '@extschema@' in chunk:
            print('%s:%d: @extschema@ in a %s' % (path, line, kind)); bad = 1
        if path == install and kind == 'sql':
            for m in re.finditer(r'\b(OR\s+REPLACE|IF\s+NOT\s+EXISTS|^DO\b)', chunk, re.M | re.I):
                print('%s:%d: %s' % (path, line + chunk.count('\n', 0, m.start()), m.group(0))); bad = 1
sys.exit(bad)
PY
install_script=$top/sql/count_distinct--$(sed -n "s/^default_version *= *'\(.*\)'/\1/p" "$top/count_distinct.control").sql
if python3 "$tmp/lint.py" "$install_script" "$top"/sql/update/*--*.sql >"$tmp/lint" 2>&1; then
    ok "the install script has no CREATE OR REPLACE, DO or IF NOT EXISTS; @extschema@ only in SQL, never in quotes, bodies or comments ($(ls "$top"/sql/update/*--*.sql | wc -l) update steps too)"
else
    bad "static checks of the scripts:"; cat "$tmp/lint"
fi

# ---------------------------------------------------------------- setup
for v in 2.0.0 3.0.0 3.0.1 3.0.2 4.0.0 4.1.0 4.2.0; do
    case $v in 3.0.*) src=$up/3.0.x.sql ;; *) src=$up/$v.sql ;; esac
    install_fixture "$v" "$src" || { echo "installing the fixture of $v failed"; echo "0 passed, 1 failed"; exit 1; }
done
if ! psql_as "$super" postgres -v ON_ERROR_STOP=1 >"$tmp/err" 2>&1 <<SQL
DROP DATABASE IF EXISTS $work;
DROP DATABASE IF EXISTS cd_plant_crash;
DROP ROLE IF EXISTS $attacker;
CREATE ROLE $attacker LOGIN CREATEDB NOSUPERUSER;
SQL
then
    cat "$tmp/err"; echo "0 passed, 1 failed"; exit 1
fi
if ! psql_as "$attacker" postgres -c "CREATE DATABASE $work TEMPLATE template0" >"$tmp/err" 2>&1; then
    cat "$tmp/err"; echo "0 passed, 1 failed"; exit 1
fi
if [ "$(psql_as "$attacker" "$work" -c "SELECT rolsuper FROM pg_roles WHERE rolname = current_user")" = f ]; then
    ok "the attacker $attacker is not a superuser and owns database $work"
else
    bad "the attacker $attacker is a superuser"
fi

# the reference: a fresh CREATE EXTENSION by the attacker, rolled back
printf 'BEGIN;\nCREATE EXTENSION count_distinct;\n\\i %s\nROLLBACK;\n' "$up/catalog.sql" >"$tmp/ref.sql"
ref=$tmp/ref.cat
if psql_as "$attacker" "$work" -v ON_ERROR_STOP=1 -f "$tmp/ref.sql" >"$tmp/ref.cat" 2>"$tmp/err" && [ -s "$tmp/ref.cat" ]; then
    ok "reference: a fresh CREATE EXTENSION by the attacker ($(wc -l <"$tmp/ref.cat") catalog lines)"
else
    bad "reference: CREATE EXTENSION by the attacker"; cat "$tmp/err"; echo "$passed passed, $failed failed"; exit 1
fi

# checks.sql: after the command, in the same transaction: members owned by
# a non-superuser, and references from members to objects that are neither
# members nor built in (OID >= 16384), then the catalog
cat >"$tmp/checks.sql" <<'SQL'
SET LOCAL search_path = pg_catalog, public, pg_temp;
\echo @@owners
WITH ext AS (SELECT oid FROM pg_catalog.pg_extension WHERE extname = 'count_distinct'),
members AS (
    SELECT d.classid, d.objid FROM pg_catalog.pg_depend d, ext
    WHERE d.refclassid = 'pg_catalog.pg_extension'::regclass AND d.refobjid = ext.oid AND d.deptype = 'e'
)
SELECT pg_describe_object(m.classid, m.objid, 0) || ' owned by ' || o.owner::regrole
FROM members m
CROSS JOIN LATERAL (
    SELECT proowner FROM pg_proc WHERE m.classid = 'pg_proc'::regclass AND oid = m.objid
    UNION ALL SELECT typowner FROM pg_type WHERE m.classid = 'pg_type'::regclass AND oid = m.objid
    UNION ALL SELECT oprowner FROM pg_operator WHERE m.classid = 'pg_operator'::regclass AND oid = m.objid
    UNION ALL SELECT opcowner FROM pg_opclass WHERE m.classid = 'pg_opclass'::regclass AND oid = m.objid
    UNION ALL SELECT opfowner FROM pg_opfamily WHERE m.classid = 'pg_opfamily'::regclass AND oid = m.objid
    UNION ALL SELECT relowner FROM pg_class WHERE m.classid = 'pg_class'::regclass AND oid = m.objid
) o(owner)
WHERE NOT (SELECT rolsuper FROM pg_roles WHERE oid = o.owner);
\echo @@bindings
WITH ext AS (SELECT oid FROM pg_catalog.pg_extension WHERE extname = 'count_distinct'),
members AS (
    SELECT d.classid, d.objid FROM pg_catalog.pg_depend d, ext
    WHERE d.refclassid = 'pg_catalog.pg_extension'::regclass AND d.refobjid = ext.oid AND d.deptype = 'e'
),
refs(classid, objid, refclassid, refobjid) AS (
    SELECT d.classid, d.objid, d.refclassid, d.refobjid
    FROM pg_depend d JOIN members m ON (d.classid, d.objid) = (m.classid, m.objid)
    WHERE d.deptype <> 'e'
    UNION ALL
    SELECT 'pg_proc'::regclass, p.oid, 'pg_type'::regclass, t
    FROM pg_proc p JOIN members m ON m.classid = 'pg_proc'::regclass AND m.objid = p.oid
    CROSS JOIN LATERAL unnest(p.proargtypes::oid[] || p.prorettype) t
    UNION ALL
    SELECT 'pg_proc'::regclass, p.oid, 'pg_proc'::regclass, p.prosupport::oid
    FROM pg_proc p JOIN members m ON m.classid = 'pg_proc'::regclass AND m.objid = p.oid
    UNION ALL
    SELECT 'pg_proc'::regclass, a.aggfnoid::oid, c.cls, c.ref
    FROM pg_aggregate a JOIN members m ON m.classid = 'pg_proc'::regclass AND m.objid = a.aggfnoid
    CROSS JOIN LATERAL (VALUES ('pg_proc'::regclass, a.aggtransfn::oid), ('pg_proc', a.aggfinalfn),
        ('pg_proc', a.aggcombinefn), ('pg_proc', a.aggserialfn), ('pg_proc', a.aggdeserialfn),
        ('pg_proc', a.aggmtransfn), ('pg_proc', a.aggminvtransfn), ('pg_proc', a.aggmfinalfn),
        ('pg_operator', a.aggsortop), ('pg_type', a.aggtranstype), ('pg_type', a.aggmtranstype)) c(cls, ref)
    UNION ALL
    SELECT 'pg_operator'::regclass, o.oid, c.cls, c.ref
    FROM pg_operator o JOIN members m ON m.classid = 'pg_operator'::regclass AND m.objid = o.oid
    CROSS JOIN LATERAL (VALUES ('pg_operator'::regclass, o.oprcom::oid), ('pg_operator', o.oprnegate),
        ('pg_proc', o.oprcode), ('pg_proc', o.oprrest), ('pg_proc', o.oprjoin),
        ('pg_type', o.oprleft), ('pg_type', o.oprright), ('pg_type', o.oprresult)) c(cls, ref)
    UNION ALL
    SELECT 'pg_type'::regclass, t.oid, c.cls, c.ref
    FROM pg_type t JOIN members m ON m.classid = 'pg_type'::regclass AND m.objid = t.oid
    CROSS JOIN LATERAL (VALUES ('pg_proc'::regclass, t.typinput::oid), ('pg_proc', t.typoutput),
        ('pg_proc', t.typreceive), ('pg_proc', t.typsend), ('pg_proc', t.typmodin),
        ('pg_proc', t.typmodout), ('pg_proc', t.typanalyze), ('pg_type', t.typelem),
        ('pg_type', t.typbasetype)) c(cls, ref)
    UNION ALL
    SELECT 'pg_opclass'::regclass, c.oid, x.cls, x.ref
    FROM pg_opclass c JOIN members m ON m.classid = 'pg_opclass'::regclass AND m.objid = c.oid
    CROSS JOIN LATERAL (VALUES ('pg_opfamily'::regclass, c.opcfamily), ('pg_type', c.opcintype)) x(cls, ref)
    UNION ALL
    SELECT 'pg_opfamily'::regclass, ao.amopfamily, c.cls, c.ref
    FROM pg_amop ao JOIN members m ON m.classid = 'pg_opfamily'::regclass AND m.objid = ao.amopfamily
    CROSS JOIN LATERAL (VALUES ('pg_operator'::regclass, ao.amopopr), ('pg_type', ao.amoplefttype),
        ('pg_type', ao.amoprighttype)) c(cls, ref)
    UNION ALL
    SELECT 'pg_opfamily'::regclass, ap.amprocfamily, 'pg_proc'::regclass, ap.amproc::oid
    FROM pg_amproc ap JOIN members m ON m.classid = 'pg_opfamily'::regclass AND m.objid = ap.amprocfamily
)
SELECT DISTINCT pg_describe_object(r.classid, r.objid, 0) || ' -> ' || pg_describe_object(r.refclassid, r.refobjid, 0)
FROM refs r
WHERE r.refobjid >= 16384
  AND r.refclassid NOT IN ('pg_namespace'::regclass, 'pg_extension'::regclass, 'pg_language'::regclass)
  AND NOT EXISTS (SELECT FROM members m WHERE (m.classid, m.objid) = (r.refclassid, r.refobjid))
  -- the array type of a member type
  AND NOT (r.refclassid = 'pg_type'::regclass
           AND EXISTS (SELECT FROM pg_type a JOIN members m ON m.classid = 'pg_type'::regclass AND m.objid = a.typelem
                       WHERE a.oid = r.refobjid AND a.typcategory = 'A'));
\echo @@catalog
SQL
echo "\\i $up/catalog.sql" >>"$tmp/checks.sql"

# run_case LABEL ROLE SETUP PLANT COMMAND [succeed]
#   SETUP, PLANT: SQL (may be empty); in one transaction, rolled back.
#   Result in $verdict: setup-failed, plant-failed:STATE, failed, bound,
#   clean (and $detail); with "succeed", the command must succeed.
run_case() {
    local label=$1 role=$2 setup=$3 plant=$4 command=$5
    {
        echo '\set ON_ERROR_STOP 1'
        echo '\set VERBOSITY verbose'
        echo 'BEGIN;'
        [ -n "$setup" ] && echo "$setup;"
        echo '\echo @@setup'
        [ -n "$plant" ] && echo "$plant;"
        echo '\echo @@planted'
        echo "$command;"
        echo '\echo @@command'
        cat "$tmp/checks.sql"
        echo 'ROLLBACK;'
    } >"$tmp/case.sql"
    psql_as "$role" "$work" -f "$tmp/case.sql" >"$tmp/case.out" 2>"$tmp/case.err"
    detail=$(grep -m1 -E '^(psql:.*)?ERROR' "$tmp/case.err" | sed -E 's/^psql:[^:]*:[0-9]+: //')
    if ! grep -qx '@@setup' "$tmp/case.out"; then
        verdict=setup-failed
    elif ! grep -qx '@@planted' "$tmp/case.out"; then
        verdict="plant-failed:$(echo "$detail" | sed -nE 's/^ERROR: +([0-9A-Z]{5}):.*/\1/p')"
    elif ! grep -qx '@@command' "$tmp/case.out"; then
        verdict=failed
    else
        sed -n '/^@@owners$/,/^@@bindings$/p' "$tmp/case.out" | grep -v '^@@' >"$tmp/owners"
        sed -n '/^@@bindings$/,/^@@catalog$/p' "$tmp/case.out" | grep -v '^@@' >"$tmp/bindings"
        sed -n '/^@@catalog$/,$p' "$tmp/case.out" | grep -v '^@@' >"$tmp/cat"
        if [ -s "$tmp/owners" ] || [ -s "$tmp/bindings" ] || ! diff -q "$ref" "$tmp/cat" >/dev/null; then
            verdict=bound
            detail="$(head -5 "$tmp/owners" "$tmp/bindings" 2>/dev/null | grep -v '^==>' | grep .) $(diff "$ref" "$tmp/cat" | grep '^[<>]' | head -6)"
        else
            verdict=clean
        fi
    fi
}

# judge LABEL: a planted object must make the command fail or leave it clean
judge() {
    case $verdict in
        failed) ok "$1: the command fails ($detail)" ;;
        clean) ok "$1: the command succeeds, nothing bound to the planted object, catalog as a fresh install" ;;
        bound) bad "$1: the extension is bound to the planted object or differs from a fresh install: $detail" ;;
        setup-failed) bad "$1: installing the old version failed: $detail"; cat "$tmp/case.err" ;;
        *) bad "$1: planting failed unexpectedly: $detail" ;;
    esac
}

# ---------------------------------------------------------------- plants
# plants.sql (psql variables: old = the old version, or empty for CREATE
# EXTENSION, or +citus for CREATE EXTENSION where Citus is: then the members
# that a plain install does not have, the typed overloads): one line per
# case, tab-separated: label, the attacker's plant, a superuser's plant
# (used where the attacker cannot plant)
cat >"$tmp/plants.sql" <<'SQL'
BEGIN;
CREATE TEMP TABLE old_members (type text, names text[], args text[]);
SELECT :'old' = '+citus' AS has_citus, :'old' NOT IN ('', '+citus') AS has_old \gset
\if :has_citus
CREATE EXTENSION count_distinct;
INSERT INTO old_members
SELECT a.type, a.object_names, a.object_args
FROM pg_depend d, pg_identify_object_as_address(d.classid, d.objid, d.objsubid) a
WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
  AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'count_distinct');
DROP EXTENSION count_distinct;
CREATE EXTENSION citus;
CREATE EXTENSION count_distinct;
\elif :has_old
CREATE EXTENSION count_distinct VERSION :'old';
INSERT INTO old_members
SELECT a.type, a.object_names, a.object_args
FROM pg_depend d, pg_identify_object_as_address(d.classid, d.objid, d.objsubid) a
WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
  AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'count_distinct');
ALTER EXTENSION count_distinct UPDATE;
\else
CREATE EXTENSION count_distinct;
\endif
CREATE TEMP TABLE new_members AS
SELECT a.type, a.object_names AS names, a.object_args AS args, d.classid, d.objid
FROM pg_depend d, pg_identify_object_as_address(d.classid, d.objid, d.objsubid) a
WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
  AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'count_distinct')
  AND (a.type, a.object_names, a.object_args) NOT IN (SELECT * FROM old_members)
  -- where Citus is: the typed overloads of int4 and text (those of the
  -- other types are made by the same code, with other type names)
  AND (NOT :'has_citus'::boolean OR a.object_args && ARRAY['integer', 'integer[]', 'pg_catalog.text', 'pg_catalog.text[]']);
-- types the new members add (a signature naming one needs it planted first)
-- (an array type is a member too from PostgreSQL 18 on: is_array)
CREATE TEMP TABLE new_types AS
SELECT n.names[1] AS qname, t.typname, ns.nspname,
       (t.typelem <> 0 AND t.typcategory = 'A') AS is_array
FROM new_members n JOIN pg_type t ON n.classid = 'pg_type'::regclass AND t.oid = n.objid
JOIN pg_namespace ns ON ns.oid = t.typnamespace;
-- prereq(args): domains for the new types among ARGS (an array of a new
-- type: the element's domain)
CREATE FUNCTION pg_temp.prereq(args text[]) RETURNS text LANGUAGE sql AS $$
    SELECT coalesce(string_agg(format('CREATE DOMAIN %I.%I AS bigint; ', nt.nspname, nt.typname), ''), '')
    FROM new_types nt
    WHERE NOT nt.is_array AND (nt.qname = ANY (args) OR nt.qname || '[]' = ANY (args))
$$;
WITH objs AS (
    SELECT n.*, array_to_string(n.args, ', ') AS arglist,
           CASE WHEN n.type IN ('function', 'aggregate') THEN n.names[2] END AS fname,
           (n.type IN ('function', 'aggregate', 'operator')) AS has_sig
    FROM new_members n
)
SELECT label, attacker_sql, coalesce(super_sql, '') FROM (
    -- a type: as a domain, an enum, a composite, a shell, a temporary
    -- domain, and a domain named as its array type
    SELECT format('%s %s as %s', o.type, o.names[1], v.kind) AS label, v.sql AS attacker_sql,
           CASE WHEN v.kind = 'a shell type' THEN format('CREATE TYPE %s', o.names[1]) END AS super_sql, 1 AS ord
    FROM objs o JOIN new_types nt ON nt.qname = o.names[1]
    CROSS JOIN LATERAL (VALUES
        ('a domain', format('CREATE DOMAIN %I.%I AS bigint', nt.nspname, nt.typname)),
        ('an enum', format('CREATE TYPE %I.%I AS ENUM (''a'')', nt.nspname, nt.typname)),
        ('a composite type', format('CREATE TYPE %I.%I AS (a int)', nt.nspname, nt.typname)),
        ('a shell type', format('CREATE TYPE %I.%I', nt.nspname, nt.typname)),
        ('a temporary domain in the same session', format('CREATE DOMAIN pg_temp.%I AS bigint', nt.typname)),
        ('a domain named as its array type', format('CREATE DOMAIN %I.%I AS bigint', nt.nspname, '_' || nt.typname))
    ) v(kind, sql)
    WHERE o.type = 'type' AND NOT nt.is_array
    UNION ALL
    -- an array type that is a member (PostgreSQL 18): a domain of its name
    SELECT format('type %s as a domain named %s', o.names[1], nt.typname),
           format('CREATE DOMAIN %I.%I AS bigint', nt.nspname, nt.typname), NULL, 1
    FROM objs o JOIN new_types nt ON nt.qname = o.names[1]
    WHERE o.type = 'type' AND nt.is_array
    UNION ALL
    -- a function of the same signature (SQL; a superuser's in language
    -- internal where SQL functions cannot take the argument types)
    SELECT format('function %s.%s(%s)', o.names[1], o.names[2], o.arglist),
           pg_temp.prereq(o.args) || format('CREATE FUNCTION %I.%I(%s) RETURNS int4 LANGUAGE sql AS ''SELECT 1''',
                                            o.names[1], o.names[2], o.arglist),
           pg_temp.prereq(o.args) || format('CREATE FUNCTION %I.%I(%s) RETURNS int4 LANGUAGE internal AS ''int4in''',
                                            o.names[1], o.names[2], o.arglist), 2
    FROM objs o WHERE o.type = 'function'
    UNION ALL
    -- an aggregate of the same signature, with a transition function of its own
    SELECT format('aggregate %s.%s(%s)', o.names[1], o.names[2], o.arglist),
           pg_temp.prereq(o.args)
           || format('CREATE FUNCTION %I.cd_plant_sfunc(bigint, %s) RETURNS bigint LANGUAGE sql AS ''SELECT $1''; ',
                     o.names[1], o.arglist)
           || format('CREATE AGGREGATE %I.%I(%s) (SFUNC = %I.cd_plant_sfunc, STYPE = bigint)',
                     o.names[1], o.names[2], o.arglist, o.names[1]),
           -- a superuser's where SQL functions cannot take the argument
           -- types (unknown): the transition function in language internal
           pg_temp.prereq(o.args)
           || format('CREATE FUNCTION %I.cd_plant_sfunc(bigint, %s) RETURNS bigint LANGUAGE internal AS ''int8inc_any''; ',
                     o.names[1], o.arglist)
           || format('CREATE AGGREGATE %I.%I(%s) (SFUNC = %I.cd_plant_sfunc, STYPE = bigint)',
                     o.names[1], o.names[2], o.arglist, o.names[1]), 3
    FROM objs o WHERE o.type = 'aggregate'
    UNION ALL
    -- an operator of the same name and argument types
    SELECT format('operator %s.%s(%s)', o.names[1], o.names[2], o.arglist),
           pg_temp.prereq(o.args)
           || format('CREATE FUNCTION %I.cd_plant_opfn(%s) RETURNS bool LANGUAGE sql AS ''SELECT true''; ',
                     o.names[1], o.arglist)
           || format('CREATE OPERATOR %I.%s (%s FUNCTION = %I.cd_plant_opfn)', o.names[1], o.names[2],
                     CASE WHEN o.args[1] <> 'NONE' THEN format('LEFTARG = %s, ', o.args[1]) ELSE '' END
                     || format('RIGHTARG = %s,', o.args[2]), o.names[1]),
           NULL, 4
    FROM objs o WHERE o.type = 'operator'
    UNION ALL
    -- an operator family / class of the same name and access method (on int4)
    SELECT format('%s %s.%s using %s', o.type, o.names[2], o.names[3], o.names[1]),
           CASE o.type
               WHEN 'operator family' THEN format('CREATE OPERATOR FAMILY %I.%I USING %I', o.names[2], o.names[3], o.names[1])
               ELSE format('CREATE OPERATOR CLASS %I.%I FOR TYPE int4 USING %I AS %s', o.names[2], o.names[3], o.names[1],
                           CASE o.names[1] WHEN 'btree' THEN 'OPERATOR 1 pg_catalog.<, FUNCTION 1 pg_catalog.btint4cmp(int4, int4)'
                                           WHEN 'hash' THEN 'OPERATOR 1 pg_catalog.=, FUNCTION 1 pg_catalog.hashint4(int4)'
                                           ELSE 'OPERATOR 1 pg_catalog.=' END)
           END,
           CASE o.type
               WHEN 'operator family' THEN format('CREATE OPERATOR FAMILY %I.%I USING %I', o.names[2], o.names[3], o.names[1])
               ELSE format('CREATE OPERATOR CLASS %I.%I FOR TYPE int4 USING %I AS %s', o.names[2], o.names[3], o.names[1],
                           CASE o.names[1] WHEN 'btree' THEN 'OPERATOR 1 pg_catalog.<, FUNCTION 1 pg_catalog.btint4cmp(int4, int4)'
                                           WHEN 'hash' THEN 'OPERATOR 1 pg_catalog.=, FUNCTION 1 pg_catalog.hashint4(int4)'
                                           ELSE 'OPERATOR 1 pg_catalog.=' END)
           END, 5
    FROM objs o WHERE o.type IN ('operator family', 'operator class')
    UNION ALL
    -- a cast between the same types (planting the types it needs)
    SELECT format('cast (%s AS %s)', o.names[1], o.args[1]),
           pg_temp.prereq(ARRAY[o.names[1], o.args[1]]) || format('CREATE CAST (%s AS %s) WITH INOUT', o.names[1], o.args[1]),
           NULL, 6
    FROM objs o WHERE o.type = 'cast'
    UNION ALL
    SELECT format('%s %s', o.type, o.names[1] || '.' || o.names[2]),
           format('CREATE TABLE %I.%I (a int)', o.names[1], o.names[2]), NULL, 7
    FROM objs o WHERE o.type IN ('table', 'view', 'sequence', 'materialized view')
    UNION ALL
    -- a kind this file has no rule for: fails the test, so that it gets one
    SELECT format('NO-RULE %s %s', o.type, array_to_string(o.names, '.')), '', NULL, 8
    FROM objs o WHERE o.type NOT IN ('type', 'function', 'aggregate', 'operator', 'operator family',
                                     'operator class', 'cast', 'table', 'view', 'sequence', 'materialized view')
) s ORDER BY ord, label;
ROLLBACK;
SQL

# temps.sql: every type name the members' signatures use, and pg_extension,
# as temporary objects of the session (one line of SQL)
cat >"$tmp/temps.sql" <<'SQL'
BEGIN;
CREATE EXTENSION count_distinct;
WITH ext AS (SELECT oid FROM pg_extension WHERE extname = 'count_distinct'),
members AS (SELECT d.classid, d.objid FROM pg_depend d, ext
            WHERE d.refclassid = 'pg_extension'::regclass AND d.refobjid = ext.oid AND d.deptype = 'e'),
types AS (
    SELECT unnest(p.proargtypes::oid[] || p.prorettype) AS t
    FROM pg_proc p JOIN members m ON m.classid = 'pg_proc'::regclass AND m.objid = p.oid
    UNION SELECT a.aggtranstype FROM pg_aggregate a JOIN members m ON m.classid = 'pg_proc'::regclass AND m.objid = a.aggfnoid
    UNION SELECT unnest(ARRAY[o.oprleft, o.oprright, o.oprresult])
    FROM pg_operator o JOIN members m ON m.classid = 'pg_operator'::regclass AND m.objid = o.oid
),
names AS (
    SELECT DISTINCT y.typname::text AS n FROM types JOIN pg_type y ON y.oid = types.t
    UNION SELECT unnest(ARRAY['bigint', 'integer', 'boolean', 'regtype', 'regclass'])
)
SELECT string_agg(format('CREATE DOMAIN pg_temp.%I AS int', n), '; ' ORDER BY n)
       || '; CREATE TEMP VIEW pg_extension AS SELECT ''citus''::name AS extname, 0::oid AS oid'
FROM names WHERE n NOT LIKE '\_%';
ROLLBACK;
SQL
temps=$(psql_as "$attacker" "$work" -v ON_ERROR_STOP=1 -f "$tmp/temps.sql" 2>"$tmp/err") \
    || { bad "listing the type names the extension uses"; cat "$tmp/err"; }

# plant_path LABEL OLD: every case of one path (OLD empty: CREATE EXTENSION;
# +citus: CREATE EXTENSION where Citus is, against its own reference)
plant_path() {
    local path=$1 old=$2 setup="" command="CREATE EXTENSION count_distinct" n=0
    local label attacker_sql super_sql state
    ref=$tmp/ref.cat
    case $old in
        "") ;;
        +citus)
            setup="CREATE EXTENSION citus"
            ref=$tmp/ref-citus.cat
            printf 'BEGIN;\nCREATE EXTENSION citus;\nCREATE EXTENSION count_distinct;\n\\i %s\nROLLBACK;\n' "$up/catalog.sql" >"$tmp/ref-citus.sql"
            if ! psql_as "$attacker" "$work" -v ON_ERROR_STOP=1 -f "$tmp/ref-citus.sql" >"$ref" 2>"$tmp/err" || [ ! -s "$ref" ]; then
                bad "$path: the reference install"; cat "$tmp/err"; return
            fi
            ;;
        *) setup="CREATE EXTENSION count_distinct VERSION '$old'"; command="ALTER EXTENSION count_distinct UPDATE" ;;
    esac
    echo "=== $path"
    run_case "$path" "$attacker" "$setup" "" "$command"
    case $verdict in
        clean) ok "$path: without a plant, succeeds with the catalog of a fresh install" ;;
        *) bad "$path: without a plant: $verdict $detail"; cat "$tmp/case.err"; return ;;
    esac
    if [ -n "$temps" ]; then
        run_case "$path" "$attacker" "$setup" "$temps" "$command"
        if [ "$verdict" = clean ]; then
            ok "$path: temporary types of every type name used, and a temporary pg_extension: not used"
        else
            bad "$path: temporary types / pg_extension: $verdict $detail"
        fi
    fi
    if ! psql_as "$attacker" "$work" -v ON_ERROR_STOP=1 -v old="$old" -F $'\t' -f "$tmp/plants.sql" \
        >"$tmp/plants" 2>"$tmp/err"; then
        bad "$path: listing the objects to plant"; cat "$tmp/err"; return
    fi
    # functions a script creates and drops again (helpers of an update
    # step): not members afterwards, so not in the list above
    local script=$extdir/count_distinct--$current.sql name args
    case $old in "") ;; +citus) script=/dev/null ;; *) script=$extdir/count_distinct--$old--$current.sql ;; esac
    sed -nE 's/^CREATE FUNCTION @extschema@\.([a-z_0-9]+)\((.*)\)$/\1\t\2/p' "$script" \
    | while IFS=$'\t' read -r name args; do
        args=$(echo "$args" | sed -E 's/(^|, )[a-z_]+ ((pg_catalog|@extschema@)\.)/\1\2/g; s/@extschema@/public/g')
        grep -q "^function public\.$name($args)"$'\t' "$tmp/plants" && continue
        printf '%s\t%s\t%s\n' "function public.$name($args), created by the script, not a new member after it" \
            "CREATE FUNCTION public.$name($args) RETURNS int4 LANGUAGE sql AS 'SELECT 1'" \
            "CREATE FUNCTION public.$name($args) RETURNS int4 LANGUAGE internal AS 'int4in'"
    done >>"$tmp/plants"
    while IFS=$'\t' read -r label attacker_sql super_sql; do
        [ -n "$label" ] || continue
        n=$((n + 1))
        echo "$label" >>"$tmp/covered.$path"
        case $label in NO-RULE*) bad "$path: $label: no planting rule for this kind of object"; continue ;; esac
        run_case "$path" "$attacker" "$setup" "$attacker_sql" "$command"
        case $verdict in
            plant-failed:42P13|plant-failed:42501)
                state=${verdict#plant-failed:}
                if [ -z "$super_sql" ]; then
                    bad "$path: $label: the attacker could not plant it ($detail), and there is no superuser variant"
                    continue
                fi
                ok "$path: $label: a non-superuser cannot create it ($state)"
                run_case "$path" "$super" "$setup" "$super_sql" "$command"
                judge "$path: $label, planted by a superuser"
                ;;
            plant-failed:42723)
                # the old version has it (a member that the update moves
                # aside and creates again): nobody else can have planted it
                case $label in
                    *"not a new member after it")
                        ok "$path: $label: a member of the old version already, cannot be planted" ;;
                    *) judge "$path: $label" ;;
                esac
                ;;
            *) judge "$path: $label" ;;
        esac
    done <"$tmp/plants"
    [ "$n" -gt 0 ] || [ -n "$old" ] || bad "$path: nothing to plant (listing the members failed?)"
    echo "$path: $n objects planted"
}

current=$(psql_as "$super" postgres -c "SELECT default_version FROM pg_available_extensions WHERE name = 'count_distinct'")
plant_path "CREATE EXTENSION" ""
for v in 4.2.0 4.1.0 4.0.0 3.0.2 3.0.1 3.0.0 2.0.0; do
    plant_path "update from $v" "$v"
done
install_fixture 2.0.0 "$up/2.0.0-noparallel.sql"
plant_path "update from 2.0.0 (noparallel)" 2.0.0
# where Citus is installed, the install script also declares typed
# overloads of the built-in types (count_distinct_declare_builtin_types):
# with a stand-in extension named citus (an empty script; skipped where a
# real one is installed), those are planted too.  The stand-in is trusted,
# so that the attacker's transactions can create it (a real Citus is
# installed by a superuser beforehand: who did makes no difference here)
if [ -e "$extdir/citus.control" ]; then
    echo "skipped: planting typed overloads ($extdir has a citus extension of its own)"
else
    printf "comment = 'stand-in for Citus (count_distinct test)'\ndefault_version = '0'\nrelocatable = true\ntrusted = true\n" \
        >"$extdir/citus.control" && fixtures="$fixtures $extdir/citus.control"
    echo "SELECT 1;" >"$extdir/citus--0.sql" && fixtures="$fixtures $extdir/citus--0.sql"
    plant_path "CREATE EXTENSION where Citus is" +citus
    ref=$tmp/ref.cat
fi

# ---------------------------------------------------------------- the issue's reproducer
echo "=== the issue's reproducer"
start=$(psql_as "$super" postgres -c "SELECT pg_postmaster_start_time()")
psql_as "$attacker" postgres -c "CREATE DATABASE cd_plant_crash TEMPLATE template0" >/dev/null 2>&1
out=$(psql_as "$attacker" cd_plant_crash -v VERBOSITY=verbose 2>&1 <<'SQL'
\set VERBOSITY verbose
CREATE DOMAIN public.distinct_set AS bigint;
CREATE EXTENSION count_distinct;
SELECT distinct_set_send(139970212089857::distinct_set);
SELECT cardinality(16::distinct_set);
SQL
)
if echo "$out" | grep -q 'ERROR: *42710: type "distinct_set" already exists'; then
    ok "reproducer: CREATE EXTENSION over a domain distinct_set fails (type \"distinct_set\" already exists)"
else
    bad "reproducer: CREATE EXTENSION over a domain distinct_set did not fail as expected: $out"
fi
if echo "$out" | grep -q 'ERROR: *42883: function distinct_set_send(distinct_set) does not exist' \
    && echo "$out" | grep -q 'ERROR: *42883: function cardinality(distinct_set) does not exist'; then
    ok "reproducer: distinct_set_send and cardinality of the domain do not exist (no memory read, no crash)"
else
    bad "reproducer: distinct_set_send / cardinality of the domain: $out"
fi
if [ "$(psql_as "$super" postgres -c "SELECT pg_postmaster_start_time()" 2>&1)" = "$start" ] \
    && [ "$(psql_as "$attacker" cd_plant_crash -c "SELECT 1" 2>&1)" = 1 ]; then
    ok "reproducer: the server did not restart"
else
    bad "reproducer: the server restarted or refuses connections"
fi
run_case "reproducer" "$attacker" "CREATE EXTENSION count_distinct VERSION '4.1.0'" \
    "CREATE DOMAIN public.distinct_set AS bigint" "ALTER EXTENSION count_distinct UPDATE"
if [ "$verdict" = failed ] && echo "$detail" | grep -q 'type "distinct_set" already exists'; then
    ok "reproducer: ALTER EXTENSION count_distinct UPDATE from 4.1.0 over a domain distinct_set fails ($detail)"
else
    bad "reproducer: the update from 4.1.0 over a domain distinct_set: $verdict $detail"
fi
# 4.2.0 installed over a planted domain (4.2.0's script adopts it): the
# update refuses that catalog (nothing of it is called here)
run_case "hijacked 4.2.0" "$attacker" "CREATE DOMAIN public.distinct_set AS bigint; CREATE EXTENSION count_distinct VERSION '4.2.0'" \
    "" "ALTER EXTENSION count_distinct UPDATE"
if [ "$verdict" = failed ] && echo "$detail" | grep -q 'bound to a type distinct_set that is not its own'; then
    ok "a 4.2.0 catalog bound to a planted distinct_set: the update refuses it ($detail)"
else
    bad "a 4.2.0 catalog bound to a planted distinct_set: $verdict $detail"
fi

# ---------------------------------------------------------------- a crafted schema name
# substituted for @extschema@: with characters that end a comment or a line
# comment, and a semicolon (quotes, $ and backslash are refused by
# PostgreSQL itself from 15.4, 14.9, 13.12 on wherever @extschema@ is used)
echo "=== a crafted schema name"
out=$(psql_as "$attacker" "$work" -v ON_ERROR_STOP=1 2>&1 <<'SQL'
BEGIN;
CREATE SCHEMA "x*/ ; SELECT 1/0; /*
-- ;";
CREATE EXTENSION count_distinct SCHEMA "x*/ ; SELECT 1/0; /*
-- ;";
SET LOCAL search_path = pg_catalog;
SELECT (SELECT count(*) > 50 AND bool_and(i.schema = quote_ident(n.nspname))
        FROM pg_depend d, pg_identify_object(d.classid, d.objid, 0) i
        WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e' AND d.refobjid = e.oid)
   AND (SELECT "x*/ ; SELECT 1/0; /*
-- ;".count_distinct(v) = count(DISTINCT v)
           AND "x*/ ; SELECT 1/0; /*
-- ;".cardinality("x*/ ; SELECT 1/0; /*
-- ;".distinct_set_agg(v)) = count(DISTINCT v)
        FROM (SELECT i % 13 AS v FROM generate_series(1, 1000) i) s)
FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'count_distinct';
ROLLBACK;
SQL
)
if [ "$(echo "$out" | tail -1)" = t ]; then
    ok "CREATE EXTENSION into a schema whose name ends comments and has a semicolon: every object in it, results as native"
elif echo "$out" | grep -q 'invalid string in extension "count_distinct" schema'; then
    # later minor releases refuse such a schema name themselves
    ok "CREATE EXTENSION into a schema whose name ends comments: refused by the server"
else
    bad "CREATE EXTENSION into a crafted schema: $out"
fi

# ---------------------------------------------------------------- count_distinct_declare_type
echo "=== count_distinct_declare_type"
psql_as "$super" "$work" -c "CREATE EXTENSION count_distinct" >/dev/null 2>&1
out=$(psql_as "$attacker" "$work" -c "SELECT count_distinct_declare_type('int4')" 2>&1)
if echo "$out" | grep -q 'permission denied for function count_distinct_declare_type'; then
    ok "declare_type: refused to a non-superuser (EXECUTE revoked)"
else
    bad "declare_type: a non-superuser: $out"
fi
out=$(psql_as "$attacker" "$work" -c "SELECT count_distinct_declare_builtin_types()" 2>&1)
if echo "$out" | grep -q 'permission denied for function count_distinct_declare_builtin_types'; then
    ok "declare_builtin_types: refused to a non-superuser (EXECUTE revoked)"
else
    bad "declare_builtin_types: a non-superuser: $out"
fi
# granted EXECUTE, it still refuses (its own check)
out=$(psql_as "$super" "$work" -c "BEGIN" -c "GRANT EXECUTE ON FUNCTION count_distinct_declare_type(regtype) TO $attacker" \
      -c "SET ROLE $attacker" -c "SELECT count_distinct_declare_type('int4')" -c "ROLLBACK" 2>&1)
if echo "$out" | grep -q 'permission denied to declare typed count_distinct aggregates'; then
    ok "declare_type: refused to a non-superuser that was granted EXECUTE"
else
    bad "declare_type: a non-superuser granted EXECUTE: $out"
fi
# crafted schema and type names: created, usable, results as native
out=$(psql_as "$super" "$work" -v ON_ERROR_STOP=1 2>&1 <<'SQL'
BEGIN;
CREATE SCHEMA "s""x$fn$; SELECT 1/0; --";
CREATE DOMAIN "s""x$fn$; SELECT 1/0; --"."t'y"")$$ p" AS int4;
SELECT count_distinct_declare_type('"s""x$fn$; SELECT 1/0; --"."t''y"")$$ p"');
SELECT count_distinct(v) = count(DISTINCT v)
   AND array_agg_distinct(v) = array_agg(DISTINCT v ORDER BY v)
   AND pg_typeof(array_agg_distinct(v))::text = '"s""x$fn$; SELECT 1/0; --"."t''y"")$$ p"[]'
   AND (SELECT count(*) FROM pg_proc WHERE proargtypes[0] = '"s""x$fn$; SELECT 1/0; --"."t''y"")$$ p"'::regtype
                                     AND proname IN ('count_distinct', 'array_agg_distinct', 'distinct_set_agg')) = 3
FROM (SELECT (i % 7)::"s""x$fn$; SELECT 1/0; --"."t'y"")$$ p" AS v FROM generate_series(1, 100) i) s;
ROLLBACK;
SQL
)
if [ "$(echo "$out" | tail -1)" = t ]; then
    ok "declare_type: a type and schema with quotes, dollar quotes and semicolons in their names: typed aggregates created, results as native"
else
    bad "declare_type: crafted names: $out"
fi
# an aggregate the attacker planted with a signature declare_type creates:
# declare_type fails and leaves it to its owner
out=$(psql_as "$attacker" "$work" -v ON_ERROR_STOP=1 2>&1 <<'SQL'
CREATE DOMAIN public.cd_plant_dom AS int4;
CREATE FUNCTION public.cd_plant_sfunc(bigint, public.cd_plant_dom) RETURNS bigint LANGUAGE sql AS 'SELECT $1';
CREATE AGGREGATE public.count_distinct(public.cd_plant_dom) (SFUNC = public.cd_plant_sfunc, STYPE = bigint, INITCOND = '42');
SQL
)
out=$(psql_as "$super" "$work" -c "SELECT count_distinct_declare_type('public.cd_plant_dom')" 2>&1)
owner=$(psql_as "$super" "$work" -c "SELECT p.proowner::regrole::text || ' ' || a.aggtransfn::text FROM pg_proc p JOIN pg_aggregate a ON a.aggfnoid = p.oid WHERE p.oid = 'public.count_distinct(public.cd_plant_dom)'::regprocedure" 2>&1)
if echo "$out" | grep -q 'already exists' && [ "$owner" = "$attacker cd_plant_sfunc" ]; then
    ok "declare_type: an aggregate count_distinct(T) planted by a non-superuser is not taken over ($(echo "$out" | head -1))"
else
    bad "declare_type: a planted aggregate: $out / $owner"
fi
psql_as "$super" "$work" -c "DROP EXTENSION count_distinct CASCADE" >/dev/null 2>&1

echo "=== objects covered"
for f in "$tmp"/covered.*; do
    [ -e "$f" ] || continue
    echo "${f#"$tmp"/covered.}: $(wc -l <"$f") objects"
done
sort -u "$tmp"/covered.* 2>/dev/null | sed 's/^/  /'

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
