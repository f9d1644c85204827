#!/usr/bin/env python3
"""Differential test under adversarial session settings.

Partial aggregate states travel between processes (parallel workers and the
leader, whose client encoding differs), so their values must not depend on
the session: client_encoding, extra_float_digits, DateStyle, IntervalStyle,
TimeZone, bytea_output, lc_*; a query gives the same answer serial,
spilling and parallel.  For every type category (text, name, "char", bytea,
floats, numeric, date/time types, ranges and multiranges over text, enums,
domains, composites and anonymous records, arrays of all those, jsonb,
tsvector, distinct_set itself, oidvector and int2vector, and the contrib
types citext, hstore, cube, ltree and seg, whose I/O has no binary form,
when they are available), in a UTF8 and a LATIN1 database, under a
deterministic sample of combinations of those settings and four plans
(serial, spilling hash aggregation, parallel per group, parallel in one
group), one statement compares

    count_distinct(v)       with  count(DISTINCT v)
    array_agg_distinct(v)   with  array_agg(DISTINCT v ORDER BY v)
                                  FILTER (WHERE NOT v IS NULL)
                                  (both NULL when there are no values; NOT
                                  v IS NULL keeps rows with a NULL field)

per group: the extension's aggregates in one subquery (so that the planner
may aggregate it in parallel, or hash it and spill), the native ones in
another, joined on the group.  Each plan is checked with EXPLAIN to be the
one claimed (a Partial Aggregate under a Gather for the parallel plans, a
HashAggregate for the spilling ones), and once per plan and database with
EXPLAIN ANALYZE that the workers ran (leader participation off, so every
state comes from a worker) and that the hash aggregation spilled.

    python3 test/settingstest.py [--combos N] [--seed S]

Talks to the server with psql (from $CD_CLUSTER_BINDIR if set) and the usual
PGHOST/PGPORT/PGUSER; creates and drops its own databases.  Prints
"N passed, N failed" last; exits non-zero on failure.
"""

import argparse
import os
import random
import re
import shutil
import subprocess
import sys

PREFIX = "cd_settings"

# The settings under test; each combination takes one value of each.
DIMENSIONS = [
    ("client_encoding", ["UTF8", "LATIN1", "SJIS", "SQL_ASCII", "EUC_JP", "WIN1251"]),
    ("extra_float_digits", ["-15", "0", "3", "1"]),
    ("DateStyle", ["ISO, MDY", "SQL, DMY", "German, DMY", "Postgres, YMD"]),
    ("IntervalStyle", ["postgres", "sql_standard", "iso_8601", "postgres_verbose"]),
    ("TimeZone", ["UTC", "America/St_Johns", "Asia/Kathmandu", "Pacific/Chatham", "Europe/Amsterdam"]),
    ("bytea_output", ["hex", "escape"]),
    ("lc_numeric", ["C", "POSIX"]),
    ("lc_monetary", ["POSIX", "C"]),
    ("lc_time", ["C", "POSIX"]),
]

PARALLEL = [
    "SET max_parallel_workers_per_gather = 2",
    "SET parallel_setup_cost = 0",
    "SET parallel_tuple_cost = 0",
    "SET min_parallel_table_scan_size = 0",
    "SET parallel_leader_participation = off",
]
SPILL = [
    "SET work_mem = '64kB'",
    "SET hash_mem_multiplier = 1",
    "SET enable_sort = off",
]
# plan name: (settings, the group column, what EXPLAIN must show)
PLANS = {
    "serial": (["SET max_parallel_workers_per_gather = 0"], "gs", []),
    "spill": (["SET max_parallel_workers_per_gather = 0"] + SPILL, "gb", ["HashAggregate"]),
    "parallel": (PARALLEL, "gs", ["Gather", "Partial"]),
    "parallel-one-group": (PARALLEL, None, ["Gather", "Partial"]),
}

# per database: its encoding and the text it holds
DATABASES = [
    ("UTF8", ["a", "é", "ß", "λ", "Ω", "日本", "ü", "plain", "Z", "ÿ"],
     ["alpha", "λάμδα", "é", "日本"]),
    ("LATIN1", ["a", "é", "ß", "ü", "ÿ", "plain", "Z", "Ä"],
     ["alpha", "é", "ß", "Ü"]),
]

ROWS = 6000

# (name, expression over the table's columns, minimum server version or
# required extension)
VALUES = [
    ("text", "c_text", None),
    ("name", "c_name", None),
    ("char", "c_char", None),
    ("bytea", "c_bytea", None),
    ("float4", "c_float4", None),
    ("float8", "c_float8", None),
    ("numeric", "c_numeric", None),
    ("timestamptz", "c_tstz", None),
    ("timestamp", "c_tstz::timestamp", None),
    ("date", "c_tstz::date", None),
    ("timetz", "c_timetz", None),
    ("interval", "c_interval", None),
    ("money", "c_money", None),
    ("textrange", "c_textrange", None),
    ("int4range", "c_int4range", None),
    ("numrange", "c_numrange", None),
    ("tstzrange", "c_tstzrange", None),
    ("textmultirange", "textmultirange(c_textrange, textrange(p2 || 'x', p2 || 'y'))", 140000),
    ("nummultirange", "nummultirange(c_numrange, numrange(5, 6))", 140000),
    ("enum", "c_enum", None),
    ("domain-text", "c_dtext", None),
    ("domain-range", "c_dtr", None),
    ("composite", "c_pair", None),
    ("record", "ROW(c_text, c_float8, c_enum, c_interval)", None),
    ("text[]", "ARRAY[p1, p2]", None),
    ("float8[]", "ARRAY[c_float8, c_float8 * 3]", None),
    ("enum[]", "ARRAY[c_enum, c_enum]", None),
    ("composite[]", "ARRAY[c_pair]", None),
    ("textrange[]", "ARRAY[c_textrange, c_textrange]", None),
    ("record[]", "ARRAY[ROW(c_text, c_tstz)]", None),
    ("jsonb", "c_jsonb", None),
    ("tsvector", "c_tsvector", None),
    # the same tsvectors and copies of them that went through binary COPY:
    # 13's tsvector receive function lays values out larger than to_tsvector
    # does, and tsvector order compares sizes first, so on 13 each is two
    # distinct values (a state must carry each value's size)
    ("tsvector-received", "CASE WHEN i % 3 = 0 THEN c_tsvector_recv ELSE c_tsvector END", None),
    ("distinct_set-float8", "c_ds_float", None),
    ("distinct_set-text", "c_ds_text", None),
    ("oidvector", "c_oidvector", None),
    ("int2vector", "c_int2vector", None),
    ("varbit", "c_varbit", None),
    ("inet", "c_inet", None),
    ("citext", "(p1 || (i % 3))::citext", "citext"),
    ("hstore", "hstore(p1, c_float8::text)", "hstore"),
    ("cube", "cube(ARRAY[c_float8, c_float8 / 3])", "cube"),
    ("ltree", "text2ltree('a.b' || (i % 5))", "ltree"),
    ("seg", "(((i % 7) * 0.1)::text || ' .. 5.55')::seg", "seg"),
]

# Vectors are arrays to array_agg, which concatenates them (and fails on
# vectors of different lengths, as array_agg_distinct does): counts only.
COUNTS_ONLY = {"oidvector", "int2vector"}

SETUP = r"""
SET client_min_messages = warning;
CREATE EXTENSION count_distinct;
CREATE TYPE textrange AS RANGE (subtype = text, collation = "C");
CREATE TYPE greek AS ENUM ({labels});
CREATE DOMAIN dtext AS text CHECK (VALUE <> '');
CREATE DOMAIN dtr AS textrange CHECK (NOT isempty(VALUE));
CREATE TYPE pair AS (f float8, s text, e greek, t timestamptz);
CREATE TABLE sets AS
SELECT k,
       distinct_set_agg(((k + j) % 10) * 0.1::float8 + 0.2::float8) AS fs,
       distinct_set_agg((ARRAY[{pool}])[1 + (k + j) % {npool}] COLLATE "C") AS ts
FROM generate_series(0, 9) k, generate_series(0, k % 3) j
GROUP BY k;
CREATE TABLE t AS
SELECT i, i % 7 AS gs, i % 300 AS gb, p1, p2,
       CASE WHEN i % 11 = 0 THEN NULL ELSE p1 || (i % 5) END AS c_text,
       (p1 || (i % 3))::name AS c_name,
       ((i % 250) - 125)::"char" AS c_char,
       convert_to(p1 || (i % 4), 'UTF8') AS c_bytea,
       ((i % 10) * 0.1::float4 + 0.2::float4) AS c_float4,
       ((i % 10) * 0.1::float8 + 0.2::float8) AS c_float8,
       round((i % 13) / 7.0, 1 + i % 3) AS c_numeric,
       '2000-03-26 01:30:00.123456+00'::timestamptz + (i % 17) * interval '37 min 0.5 sec' AS c_tstz,
       ('12:00:00.25' || (ARRAY['+05:45', '-03:30', '+00'])[1 + i % 3])::timetz
           + (i % 5) * interval '1 sec' AS c_timetz,
       (ARRAY[interval '1 day', interval '24 hours', interval '1 mon -3 days'])[1 + i % 3]
           + make_interval(secs => (i % 7) * 0.25) AS c_interval,
       ((i % 7) * 1.25)::numeric::money AS c_money,
       textrange(p1, p1 || 'z' || (i % 3)) AS c_textrange,
       int4range(i % 7, i % 7 + i % 3, '[]') AS c_int4range,
       numrange((i % 5) * 0.1, (i % 5) * 0.1 + 0.25) AS c_numrange,
       tstzrange('2000-03-26 01:30:00.5+00'::timestamptz + (i % 9) * interval '1 hour',
                 '2000-03-27 01:30:00.5+00'::timestamptz) AS c_tstzrange,
       (enum_range(NULL::greek))[1 + i % 4] AS c_enum,
       (p1 || 'd')::dtext AS c_dtext,
       textrange(p2, p2 || 'q')::dtr AS c_dtr,
       ROW((i % 4) * 0.1::float8, p2, (enum_range(NULL::greek))[1 + i % 3],
           '2001-01-01 00:00:00.75+00'::timestamptz + (i % 3) * interval '1 day')::pair AS c_pair,
       jsonb_build_object(p1, (i % 5) * 0.1::float8 + 0.2::float8, 'k', p2) AS c_jsonb,
       to_tsvector('simple', p1 || ' ' || p2) AS c_tsvector,
       s.fs AS c_ds_float,
       s.ts AS c_ds_text,
       (ARRAY['', '23', '23 25', '1 2 3'])[1 + i % 4]::oidvector AS c_oidvector,
       (ARRAY['', '1', '1 -2', '7 8 9'])[1 + (i / 3) % 4]::int2vector AS c_int2vector,
       (i % 7)::bit(3)::varbit AS c_varbit,
       ('10.0.' || (i % 5) || '.1/24')::inet AS c_inet
FROM generate_series(1, {rows}) i
CROSS JOIN LATERAL (SELECT (ARRAY[{pool}])[1 + i % {npool}] COLLATE "C" AS p1,
                           (ARRAY[{pool}])[1 + (i / 7) % {npool}] COLLATE "C" AS p2) p
JOIN sets s ON s.k = i % 10;
ALTER TABLE t SET (parallel_workers = 2);
ANALYZE t;
"""


def psql_bin():
    bindir = os.environ.get("CD_CLUSTER_BINDIR")
    if bindir and os.path.exists(os.path.join(bindir, "psql")):
        return os.path.join(bindir, "psql")
    return shutil.which("psql") or "psql"


def psql(db, script, encoding="UTF8", check=True):
    env = dict(os.environ, PGCLIENTENCODING=encoding, PGDATABASE=db)
    env.pop("PGOPTIONS", None)
    p = subprocess.run([psql_bin(), "-X", "-At", "-q", "-v", "ON_ERROR_STOP=%d" % (1 if check else 0)],
                       input=script.encode("utf-8") if encoding == "UTF8" else script.encode("ascii"),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
    out = p.stdout.decode("utf-8", errors="replace")
    if check and p.returncode != 0:
        raise RuntimeError("psql failed in %s:\n%s" % (db, out))
    return out


def copy_through_binary(db, encoding):
    """t.c_tsvector_recv: t.c_tsvector written and read back by binary COPY
    (through the type's send and receive functions, as a client would)."""
    env = dict(os.environ, PGCLIENTENCODING=encoding, PGDATABASE=db)
    env.pop("PGOPTIONS", None)
    out = subprocess.run([psql_bin(), "-X", "-q", "-v", "ON_ERROR_STOP=1", "-c",
                          "COPY (SELECT i, c_tsvector FROM t) TO STDOUT (FORMAT binary)"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, check=True).stdout
    psql(db, "CREATE TABLE tsv_recv (i int, v tsvector);", encoding=encoding)
    subprocess.run([psql_bin(), "-X", "-q", "-v", "ON_ERROR_STOP=1", "-c",
                    "COPY tsv_recv FROM STDIN (FORMAT binary)"],
                   input=out, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, check=True)
    psql(db, "ALTER TABLE t ADD COLUMN c_tsvector_recv tsvector;\n"
             "UPDATE t SET c_tsvector_recv = r.v FROM tsv_recv r WHERE r.i = t.i;\n"
             "VACUUM ANALYZE t;", encoding=encoding)


def sql_list(items):
    return ", ".join("'%s'" % s.replace("'", "''") for s in items)


def combinations(n, seed):
    """n combinations of settings, deterministic: value k of dimension d in
    combination c is (c * step_d + offset_d) mod len, so that every value of
    every dimension occurs in the first max(len) combinations."""
    rng = random.Random(seed)
    steps = [(rng.randrange(len(v)), 1 + rng.randrange(max(1, len(v) - 1)) if len(v) > 2 else 1)
             for _, v in DIMENSIONS]
    out = []
    for c in range(n):
        combo = []
        for (name, values), (off, step) in zip(DIMENSIONS, steps):
            # step coprime with len, so that c -> value is a bijection per cycle
            while _gcd(step, len(values)) != 1:
                step += 1
            combo.append((name, values[(off + c * step) % len(values)]))
        out.append(combo)
    return out


def _gcd(a, b):
    while b:
        a, b = b, a % b
    return a


def query(expr, group):
    """The extension's aggregates and the native ones over the same values,
    per group (group None: one group, no GROUP BY), joined on the group:
    "groups|counts that differ|arrays that differ"."""
    gexpr = group or "0"
    groupby = " GROUP BY g" if group else ""
    src = "(SELECT %s AS g, %s AS v FROM t) s" % (gexpr, expr)
    arrays = not any(expr == e for n, e, _ in VALUES if n in COUNTS_ONLY)
    agg_e = "CASE WHEN count_distinct(v) > 0 THEN array_agg_distinct(v) END" if arrays else "NULL::int"
    agg_x = "array_agg(DISTINCT v ORDER BY v) FILTER (WHERE NOT v IS NULL)" if arrays else "NULL::int"
    return ("SELECT count(*) || '|' || count(*) FILTER (WHERE e.n IS DISTINCT FROM x.n)"
            " || '|' || count(*) FILTER (WHERE e.a IS DISTINCT FROM x.a)"
            " FROM (SELECT %s AS g, count_distinct(v) AS n, %s AS a"
            " FROM %s%s) e"
            " FULL JOIN (SELECT %s AS g, count(DISTINCT v) AS n, %s AS a"
            " FROM %s%s) x USING (g)"
            % ("g" if group else "0", agg_e, src, groupby, "g" if group else "0", agg_x, src, groupby))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--combos", type=int, default=6)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--only", help="run only the value types whose name matches this regex")
    ap.add_argument("--keep", action="store_true", help="keep the databases (to rerun a query)")
    args = ap.parse_args()

    passed = failed = 0
    failures = []

    def fail(msg):
        nonlocal failed
        failed += 1
        failures.append(msg)
        print("FAIL: " + msg, flush=True)

    version = int(psql("postgres", "SHOW server_version_num").strip())
    have = set(psql("postgres", "SELECT name FROM pg_available_extensions").split())
    force = "debug_parallel_query" if version >= 160000 else "force_parallel_mode"
    values = []
    for name, expr, need in VALUES:
        if args.only and not re.search(args.only, name):
            continue
        if isinstance(need, int) and version < need:
            print("skipped %s: needs PostgreSQL %d or later" % (name, need // 10000))
            continue
        if isinstance(need, str) and need not in have:
            print("skipped %s: extension %s is not available" % (name, need))
            continue
        values.append((name, expr, need))
    combos = combinations(args.combos, args.seed)

    for dbenc, pool, labels in DATABASES:
        db = "%s_%s" % (PREFIX, dbenc.lower())
        psql("postgres", "DROP DATABASE IF EXISTS %s;\nCREATE DATABASE %s TEMPLATE template0 ENCODING '%s'"
             " LC_COLLATE 'C' LC_CTYPE 'C';" % (db, db, dbenc))
        exts = "".join("CREATE EXTENSION %s;\n" % need for _, _, need in values if isinstance(need, str))
        psql(db, SETUP.format(labels=sql_list(labels), pool=sql_list(pool), npool=len(pool),
                              rows=ROWS) + exts)
        copy_through_binary(db, dbenc)
        encodings = set(psql(db, "SELECT name FROM (VALUES %s) v(name) WHERE "
                             "pg_char_to_encoding(name) >= 0 AND EXISTS (SELECT 1 FROM pg_conversion "
                             "WHERE (conforencoding = pg_char_to_encoding(name) AND contoencoding = "
                             "pg_char_to_encoding(current_setting('server_encoding'))) OR name = 'SQL_ASCII' "
                             "OR name = current_setting('server_encoding'))"
                             % ", ".join("('%s')" % e for e in DIMENSIONS[0][1])).split())
        checked_analyze = set()
        for ci, combo in enumerate(combos):
            combo = list(combo)
            if combo[0][1] not in encodings:
                # not convertible from this database's encoding: the next one that is
                alts = [e for e in DIMENSIONS[0][1] if e in encodings]
                combo[0] = ("client_encoding", alts[ci % len(alts)])
            settings = ["SET %s = '%s'" % (k, v) for k, v in combo]
            label = ", ".join("%s=%s" % kv for kv in combo)
            for plan, (plan_settings, group, must) in PLANS.items():
                lines = ["\\set ON_ERROR_STOP 0"] + [s + ";" for s in settings + plan_settings]
                if plan.startswith("parallel"):
                    lines.append("SET %s = on;" % force)
                for vi, (name, expr, _) in enumerate(values):
                    q = query(expr, group)
                    lines.append("\\echo @@PLAN %d" % vi)
                    lines.append("EXPLAIN (COSTS OFF) " + q + ";")
                    if (plan, dbenc) not in checked_analyze and vi == 0:
                        lines.append("\\echo @@ANALYZE %d" % vi)
                        lines.append("EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) " + q + ";")
                    lines.append("\\echo @@RESULT %d" % vi)
                    lines.append(q + ";")
                    lines.append("\\if :ERROR")
                    lines.append("\\echo @@ERROR :SQLSTATE :LAST_ERROR_MESSAGE")
                    lines.append("\\endif")
                out = psql(db, "\n".join(lines) + "\n", encoding=combo[0][1], check=False)
                sections = {}
                cur = None
                for line in out.splitlines():
                    m = re.match(r"@@(PLAN|ANALYZE|RESULT) (\d+)$", line)
                    if m:
                        cur = (m.group(1), int(m.group(2)))
                        sections[cur] = []
                    elif cur is not None:
                        sections[cur].append(line)
                for vi, (name, expr, _) in enumerate(values):
                    what = "%s db, %s, %s plan, %s" % (dbenc, name, plan, label)
                    plantext = "\n".join(sections.get(("PLAN", vi), []))
                    missing = [m for m in must if m not in plantext]
                    if plan == "serial" and "Gather" in plantext:
                        missing.append("no Gather")
                    if missing:
                        fail("%s: the plan lacks %s:\n%s" % (what, ", ".join(missing), plantext))
                        continue
                    if ("ANALYZE", vi) in sections:
                        checked_analyze.add((plan, dbenc))
                        atext = "\n".join(sections[("ANALYZE", vi)])
                        if plan.startswith("parallel") and not re.search(r"Workers Launched: [12]", atext):
                            fail("%s: no worker ran:\n%s" % (what, atext))
                            continue
                        if "spill" in plan and not re.search(r"Batches: ([2-9]|\d\d)", atext):
                            fail("%s: the hash aggregation did not spill:\n%s" % (what, atext))
                            continue
                    res = sections.get(("RESULT", vi), [])
                    err = [l for l in res if l.startswith("@@ERROR")]
                    rows = [l for l in res if re.match(r"^\d+\|\d+\|\d+$", l)]
                    if err or len(rows) != 1:
                        fail("%s: %s" % (what, "; ".join(err) or "\n".join(res)))
                        continue
                    groups, bad_n, bad_a = map(int, rows[0].split("|"))
                    expect = {"gs": 7, "gb": 300, None: 1}[group]
                    if name in COUNTS_ONLY:
                        bad_a = 0
                    if groups != expect or bad_n or bad_a:
                        fail("%s: %d groups (expected %d), %d counts and %d arrays differ from native"
                             % (what, groups, expect, bad_n, bad_a))
                        continue
                    passed += 1
        if not args.keep:
            psql("postgres", "DROP DATABASE %s;" % db)

    print("settings: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
