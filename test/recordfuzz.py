#!/usr/bin/env python3
"""Property test of the record and array byte keys against the server.

Every case makes a random type of the key path (src/key_record.c): an
anonymous record of 1-4 columns, the same columns as count_distinct(a, b
[, c [, d]]), a named composite column or an array column; fields and
elements of every key-path type (integers, oid, floats with -0, NaN and
infinities, money, dates and times, uuid, bytea, numeric of every scale and
its infinities, interval, text under "C", the database's default collation
and a deterministic ICU collation, varchar, bpchar with trailing blanks,
domains), named composites nested in fields and elements (some with a
dropped attribute, some under a domain), arrays of 1-3 dimensions with
other lower bounds, NULL elements and empty arrays; NULL fields and NULL
values.  It fills a table with groups of two values (random pairs, most
of them equal or nearly so: values are drawn from a small pool, and in the
narrow mode from small domains) and groups of up to 12, and checks per
group, in one statement against native:

- count_distinct = count(DISTINCT ...): key equality is record_eq /
  array_eq;
- array_agg_distinct equals array_agg(DISTINCT ... ORDER BY ...) element by
  element (array "=", which compares the records with record_eq): the same
  values in the same order, so the keys order pairs as record_cmp /
  array_cmp do (re-sorted at the end where a text field's collation is not
  byte order), and every decoded value equals an input value;
- in the canonical cases (values written in their normalized form: numeric
  without trailing fraction zeros, no -0, bpchar without trailing blanks
  nor a length, intervals as justify_interval leaves them), the text of
  both arrays is the same: decode(encode(x)) is x, not only equal to it.
  Elsewhere "same" is btree equality, and array_agg_distinct returns the
  normalized representative (docs/records.md), which the native side may
  not have picked.

Each case runs serially and again with a forced parallel plan (the
extension's aggregates alone below Gather, partial states serialized by
the workers and read back by the leader's decoder of untrusted states,
compared per group with native subqueries); the plan is checked with
EXPLAIN.

    python3 test/recordfuzz.py --seed 1 --cases 60
    python3 test/recordfuzz.py --seed 1 --case 17 -v     # one case again

Talks to the server with psql (from $CD_CLUSTER_BINDIR if set) using
PGHOST/PGPORT/PGUSER/PGDATABASE; the extension is created if missing.
Prints "N passed, N failed" last and exits non-zero on a failure.
"""

import argparse
import os
import random
import re
import shutil
import subprocess
import sys
import time

SCHEMA = "recordfuzz"


class SQLError(Exception):
    pass


def psql_path():
    bindir = os.environ.get("CD_CLUSTER_BINDIR")
    if bindir and os.access(os.path.join(bindir, "psql"), os.X_OK):
        return os.path.join(bindir, "psql")
    p = shutil.which("psql")
    if not p:
        sys.exit("recordfuzz: psql not found")
    return p


PSQL = psql_path()


def psql(sql):
    """Run a script in one session (stops at the first error); stdout."""
    env = dict(os.environ)
    env["PGOPTIONS"] = (env.get("PGOPTIONS", "") + " -c jit=off -c client_min_messages=warning"
                        " -c TimeZone=UTC -c extra_float_digits=1")
    env["PGCLIENTENCODING"] = "UTF8"
    p = subprocess.run([PSQL, "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1"], input=sql,
                       capture_output=True, env=env, encoding="utf-8", errors="replace",
                       timeout=600)
    if p.returncode != 0:
        raise SQLError((p.stderr or p.stdout).strip() or "psql exit %d" % p.returncode)
    return p.stdout


def q(s):
    return "'" + s.replace("'", "''") + "'"


def quote_elem(s):
    """A field of record_in or an element of array_in, always quoted."""
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


# --------------------------------------------------------------------------
# leaf types: (DDL type, collation, generator(rng, narrow, canon), canonical
# generation possible).  A generator returns the text the type's input
# function reads.


def g_int(lo, hi):
    def gen(rng, narrow, canon):
        r = rng.random()
        if r < 0.1:
            return str(rng.choice([lo, hi, 0, -1 if lo < 0 else 1]))
        if narrow:
            return str(rng.randint(max(lo, -3), 3))
        return str(rng.randint(lo, hi))
    return gen


def g_float(bits):
    def gen(rng, narrow, canon):
        r = rng.random()
        if r < 0.2:
            specials = ["0", "NaN", "Infinity", "-Infinity", "1", "-1"]
            if not canon:
                specials += ["-0", "-0", "nan", "-NaN"]
            return rng.choice(specials)
        if narrow:
            return repr(rng.randint(-4, 4) / 4.0)
        if bits == 32:
            return "%.9g" % (rng.uniform(-1, 1) * 10 ** rng.randint(-40, 38))
        return repr(rng.uniform(-1, 1) * 10 ** rng.randint(-300, 300))
    return gen


def g_numeric(rng, narrow, canon):
    r = rng.random()
    if r < 0.1:
        return rng.choice(["NaN", "0"] + (["Infinity", "-Infinity"] if PG14 else [])
                          + ([] if canon else ["-0.000", "NaN"]))
    if narrow:
        v = "%d.%s" % (rng.randint(-2, 2), rng.choice(["", "5", "25"]))
    else:
        ip = rng.randint(-10 ** rng.randint(0, 25), 10 ** rng.randint(0, 25))
        v = "%d.%s" % (ip, "".join(rng.choice("0123456789") for _ in range(rng.randint(0, 20))))
    ip, frac = v.split(".")
    frac = frac.rstrip("0")
    if ip in ("-0",) and not frac:
        ip = "0"
    if not canon:
        frac += "0" * rng.choice([0, 0, 1, 3])
        if ip == "0" and rng.random() < 0.2:
            ip = "-0"
    return ip + ("." + frac if frac else "")


def g_numeric_typmod(rng, narrow, canon):
    # numeric(12,3): the column's scale is forced on input
    if rng.random() < 0.1:
        return "NaN"
    if narrow:
        return "%d.%s" % (rng.randint(-2, 2), rng.choice(["", "5", "250", "0001"]))
    return "%d.%03d" % (rng.randint(-10 ** 8, 10 ** 8), rng.randint(0, 999))


def g_money(rng, narrow, canon):
    c = rng.randint(-500, 500) if narrow else rng.randint(-2 ** 63, 2 ** 63 - 1)
    return "%s%d.%02d" % ("-" if c < 0 else "", abs(c) // 100, abs(c) % 100)


def g_date(rng, narrow, canon):
    if rng.random() < 0.05:
        return rng.choice(["infinity", "-infinity"])
    if narrow:
        return "2024-01-%02d" % rng.randint(1, 4)
    return "%04d-%02d-%02d" % (rng.randint(1, 9999), rng.randint(1, 12), rng.randint(1, 28))


def g_time(rng, narrow, canon):
    if narrow:
        return "12:00:%02d" % rng.randint(0, 3)
    return "%02d:%02d:%02d.%06d" % (rng.randint(0, 23), rng.randint(0, 59), rng.randint(0, 59),
                                    rng.randint(0, 999999))


def g_timetz(rng, narrow, canon):
    return g_time(rng, narrow, canon) + rng.choice(["+00", "+02", "-05:30"])


def g_ts(rng, narrow, canon):
    if rng.random() < 0.05:
        return rng.choice(["infinity", "-infinity"])
    d = g_date(rng, narrow, canon)
    return ("2000-01-01" if "infinity" in d else d) + " " + g_time(rng, narrow, canon)


def g_tstz(rng, narrow, canon):
    t = g_ts(rng, narrow, canon)
    if "infinity" in t:
        return t
    return t + rng.choice(["+00", "+01", "-08", "+05:30"])


def g_uuid(rng, narrow, canon):
    n = rng.randint(0, 3) if narrow else rng.getrandbits(128)
    h = "%032x" % n
    return "%s-%s-%s-%s-%s" % (h[:8], h[8:12], h[12:16], h[16:20], h[20:])


def g_bytea(rng, narrow, canon):
    n = rng.randint(0, 2 if narrow else 12)
    return "\\x" + "".join("%02x" % rng.choice([0, 1, 0xff] if narrow else range(256))
                           for _ in range(n))


def g_interval(rng, narrow, canon):
    if canon:
        # justify_interval's form: months, days < 30, time < 24 h, one sign
        s = rng.choice(["", "-"])
        m, d = (rng.randint(0, 2), rng.randint(0, 2)) if narrow else (rng.randint(0, 10 ** 5), rng.randint(0, 29))
        us = rng.randint(0, 2) * 3600 * 10 ** 6 if narrow else rng.randint(0, 86400 * 10 ** 6 - 1)
        return "%s%d mons %s%d days %s%d.%06d seconds" % (s, m, s, d, s, us // 10 ** 6, us % 10 ** 6)
    if narrow:
        return rng.choice(["1 day", "24 hours", "1440 minutes", "1 mon", "30 days", "0",
                           "-1 day", "1 day -24 hours", "25 hours", "1 day 1 hour"])
    us = rng.randint(-10 ** 14, 10 ** 14)
    return "%d mons %d days %s%d.%06d seconds" % (rng.randint(-10 ** 5, 10 ** 5),
                                                  rng.randint(-10 ** 5, 10 ** 5),
                                                  "-" if us < 0 else "", abs(us) // 10 ** 6,
                                                  abs(us) % 10 ** 6)


PG14 = True     # numeric infinities (set from the server)

TEXT_CHARS = "abAB z09_,(){}\"\\'\t\né€ß😀"


def g_text(maxlen):
    def gen(rng, narrow, canon):
        if narrow:
            return "".join(rng.choice("aAé") for _ in range(rng.randint(0, 2)))
        return "".join(rng.choice(TEXT_CHARS) for _ in range(rng.randint(0, maxlen)))
    return gen


def g_bpchar(rng, narrow, canon):
    s = "".join(rng.choice("ab" if narrow else "abé z") for _ in range(rng.randint(0, 4)))
    if canon:
        return s.rstrip(" ")
    return s + " " * rng.choice([0, 0, 1, 2])


def g_bool(rng, narrow, canon):
    return rng.choice(["t", "f"])


def g_oid(rng, narrow, canon):
    return str(rng.randint(0, 3) if narrow else rng.choice([0, 4294967295, rng.randint(0, 4294967295)]))


# (DDL type, collation or None, generator, canonical-safe)
LEAVES = [
    ("bool", None, g_bool, True),
    ("int2", None, g_int(-32768, 32767), True),
    ("int4", None, g_int(-2 ** 31, 2 ** 31 - 1), True),
    ("int8", None, g_int(-2 ** 63, 2 ** 63 - 1), True),
    ("oid", None, g_oid, True),
    ("float4", None, g_float(32), True),
    ("float8", None, g_float(64), True),
    ("money", None, g_money, True),
    ("date", None, g_date, True),
    ("time", None, g_time, True),
    ("timetz", None, g_timetz, True),
    ("timestamp", None, g_ts, True),
    ("timestamptz", None, g_tstz, True),
    ("uuid", None, g_uuid, True),
    ("bytea", None, g_bytea, True),
    ("numeric", None, g_numeric, True),
    ("numeric(12,3)", None, g_numeric_typmod, False),
    ("interval", None, g_interval, True),
    ("text", '"C"', g_text(8), True),
    ("text", None, g_text(8), True),
    ("varchar(10)", '"C"', g_text(8), True),
    ("bpchar", None, g_bpchar, True),
    ("char(5)", None, g_bpchar, False),
    ("rf_dint", None, g_int(-5, 5), True),        # domain over int4 with a CHECK
    ("rf_dtext", None, g_text(6), True),          # domain over text COLLATE "C"
]
ICU_TEXT = ("text", '"und-x-icu"', g_text(8), True)


class T:
    """A type of the key path: a leaf, a named composite or an array."""

    def __init__(self, kind, ddl, collate=None, gen=None, canon_ok=True, fields=None, elem=None):
        self.kind = kind
        self.ddl = ddl
        self.collate = collate
        self.leafgen = gen
        self.canon_ok = canon_ok
        self.fields = fields or []
        self.elem = elem

    def spec(self):
        return self.ddl + (" COLLATE " + self.collate if self.collate else "")

    def gen(self, rng, narrow, canon, null_p=0.12):
        """Input text of a value, or None for NULL."""
        if rng.random() < null_p:
            return None
        if self.kind == "leaf":
            return self.leafgen(rng, narrow, canon)
        if self.kind == "comp":
            parts = []
            for f in self.fields:
                v = f.gen(rng, narrow, canon)
                parts.append("" if v is None else quote_elem(v))
            return "(" + ",".join(parts) + ")"
        # array
        if rng.random() < 0.1:
            return "{}"
        ndim = rng.choice([1, 1, 1, 2, 3])
        dims = [rng.randint(1, 2 if narrow else 3) for _ in range(ndim)]
        while ndim > 1 and _prod(dims) > 12:
            dims[-1] = 1
            if _prod(dims) > 12:
                dims[0] = 1
        prefix = ""
        if rng.random() < 0.3:
            lbs = [rng.randint(-2, 3) for _ in range(ndim)]
            prefix = "".join("[%d:%d]" % (lb, lb + n - 1) for lb, n in zip(lbs, dims)) + "="

        def nest(level):
            if level == ndim:
                v = self.elem.gen(rng, narrow, canon, null_p=0.15)
                return "NULL" if v is None else quote_elem(v)
            return "{" + ",".join(nest(level + 1) for _ in range(dims[level])) + "}"
        return prefix + nest(0)


def _prod(xs):
    p = 1
    for x in xs:
        p *= x
    return p


class Case:
    def __init__(self, seed, index, icu):
        self.rng = random.Random("%s/%s" % (seed, index))
        self.index = index
        self.ddl = []
        self.ntypes = 0
        self.leaves = LEAVES + ([ICU_TEXT] if icu else [])
        rng = self.rng
        self.narrow = rng.random() < 0.6
        self.canon = rng.random() < 0.35
        self.top = rng.choice(["anon", "anon", "multi", "comp", "comp", "arr", "arr"])
        if self.top in ("anon", "multi"):
            n = rng.randint(2 if self.top == "multi" else 1, 4)
            self.cols = [self.rand_type(2) for _ in range(n)]
        elif self.top == "comp":
            self.cols = [self.rand_comp(2)]
        else:
            self.cols = [self.rand_arr(2)]

    def leaf(self):
        cands = [l for l in self.leaves if l[3] or not self.canon]
        ddl, coll, gen, ok = self.rng.choice(cands)
        return T("leaf", ddl, coll, gen, ok)

    def rand_type(self, depth):
        r = self.rng.random()
        if depth > 0 and r < 0.15:
            return self.rand_comp(depth - 1)
        if depth > 0 and r < 0.3:
            return self.rand_arr(depth - 1)
        return self.leaf()

    def rand_comp(self, depth):
        rng = self.rng
        self.ntypes += 1
        name = "rf_c%d" % self.ntypes
        fields = [self.rand_type(depth) for _ in range(rng.randint(1, 3))]
        specs = ["f%d %s" % (i + 1, f.spec()) for i, f in enumerate(fields)]
        dropped = rng.random() < 0.3
        if dropped:
            specs.insert(rng.randint(0, len(specs)), "gone int4")
        self.ddl.append("CREATE TYPE %s AS (%s);" % (name, ", ".join(specs)))
        if dropped:
            self.ddl.append("ALTER TYPE %s DROP ATTRIBUTE gone;" % name)
        t = T("comp", name, fields=fields)
        if rng.random() < 0.2:
            self.ddl.append("CREATE DOMAIN %s_d AS %s CHECK (VALUE IS DISTINCT FROM NULL OR true);"
                            % (name, name))
            t = T("comp", name + "_d", fields=fields)
        return t

    def rand_arr(self, depth):
        if self.rng.random() < 0.25 and depth > 0:
            elem = self.rand_comp(depth - 1)
        else:
            elem = self.leaf()
        return T("arr", elem.ddl + "[]", elem.collate, elem=elem)

    def rows(self):
        """(group, [column texts]) rows: pairs, then small multisets."""
        rng = self.rng
        pool = []
        for _ in range(rng.randint(4, 24)):
            pool.append([c.gen(rng, self.narrow, self.canon,
                               null_p=0.12 if self.top in ("anon", "multi") else 0.05)
                         for c in self.cols])
        out = []
        g = 0
        for _ in range(60):
            a, b = rng.choice(pool), rng.choice(pool)
            out += [(g, a), (g, b)]
            g += 1
        for _ in range(25):
            for _ in range(rng.randint(1, 12)):
                out.append((g, rng.choice(pool)))
            g += 1
        rng.shuffle(out)
        return out

    def setup_sql(self):
        cols = ", ".join("c%d %s" % (i + 1, c.spec()) for i, c in enumerate(self.cols))
        lines = ["DROP SCHEMA IF EXISTS %s CASCADE;" % SCHEMA, "CREATE SCHEMA %s;" % SCHEMA,
                 "SET search_path = %s, public;" % SCHEMA,
                 "CREATE DOMAIN rf_dint AS int4 CHECK (VALUE BETWEEN -5 AND 5);",
                 'CREATE DOMAIN rf_dtext AS text COLLATE "C";']
        lines += self.ddl
        # pad: several pages, so that a parallel scan gives rows of one
        # group to different workers
        lines.append("CREATE TABLE t (g int4, %s, pad text) WITH (autovacuum_enabled = off);" % cols)
        vals = []
        for g, row in self.rows():
            vals.append("(%d, %s, repeat('x', 300))" % (
                g, ", ".join("NULL" if v is None else q(v) for v in row)))
        # every row four times: more rows per group make partial aggregation
        # the cheaper plan
        lines.append("INSERT INTO t VALUES\n" + ",\n".join(vals) + ";")
        lines.append("SELECT setseed(0.5);")
        lines.append("INSERT INTO t SELECT t.* FROM t, generate_series(1, 3) ORDER BY random();")
        lines.append("ANALYZE t;")
        lines.append("\\o")
        return "\n".join(lines)

    def exprs(self, a):
        """(count_distinct call, native count, aggregated value) over alias a."""
        cs = ["%s.c%d" % (a, i + 1) for i in range(len(self.cols))]
        row = "ROW(%s)" % ", ".join(cs)
        if self.top == "multi":
            return "count_distinct(%s)" % ", ".join(cs), "count(DISTINCT %s)" % row, row
        if self.top == "anon":
            return "count_distinct(%s)" % row, "count(DISTINCT %s)" % row, row
        if self.top == "arr":
            # array_agg_distinct would stack arrays of different shapes
            return "count_distinct(%s)" % cs[0], "count(DISTINCT %s)" % cs[0], "ROW(%s)" % cs[0]
        return "count_distinct(%s)" % cs[0], "count(DISTINCT %s)" % cs[0], cs[0]

    def native_array(self, r):
        return "coalesce(array_agg(DISTINCT %s ORDER BY %s) FILTER (WHERE num_nulls(%s) = 0), '{}')" % (r, r, r)

    def check_serial(self):
        cd, nat, r = self.exprs("t")
        cond = ["%s IS DISTINCT FROM %s" % (cd, nat),
                "array_agg_distinct(%s) IS DISTINCT FROM %s" % (r, self.native_array(r))]
        if self.canon:
            cond.append("array_agg_distinct(%s)::text IS DISTINCT FROM (%s)::text" % (r, self.native_array(r)))
        sel = "g, %s, %s, array_agg_distinct(%s)::text, (%s)::text" % (cd, nat, r, self.native_array(r))
        return ("SELECT %s FROM t GROUP BY g HAVING %s\nUNION ALL\nSELECT -1, %s, %s, array_agg_distinct(%s)::text, (%s)::text FROM t HAVING %s;"
                % (sel, " OR ".join(cond), cd, nat, r, self.native_array(r), " OR ".join(cond)))

    def check_parallel(self):
        cd, _, r = self.exprs("t")
        _, nat2, r2 = self.exprs("t2")
        inner = "SELECT g, %s AS n, array_agg_distinct(%s) AS a FROM t GROUP BY g" % (cd, r)
        na = "(SELECT %s FROM t t2 WHERE t2.g = e.g)" % self.native_array(r2)
        nn = "(SELECT %s FROM t t2 WHERE t2.g = e.g)" % nat2
        cond = ["e.n IS DISTINCT FROM %s" % nn, "e.a IS DISTINCT FROM %s" % na,
                "(SELECT count(DISTINCT g) FROM t) <> (SELECT count(*) FROM (%s) c)" % inner]
        if self.canon:
            cond.append("e.a::text IS DISTINCT FROM %s::text" % na)
        return "SELECT e.g, e.n, %s, e.a::text, %s::text FROM (%s) e WHERE %s" % (
            nn, na, inner, " OR ".join(cond))

    def describe(self):
        return "top=%s narrow=%s canon=%s columns: %s" % (
            self.top, self.narrow, self.canon, ", ".join(c.spec() for c in self.cols))


PARALLEL = ("SET max_parallel_workers_per_gather = 2; SET parallel_setup_cost = 0; "
            "SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0; "
            "SET parallel_leader_participation = off;\n")


def run_case(seed, index, icu, verbose):
    c = Case(seed, index, icu)
    setup = c.setup_sql()
    if verbose:
        print(c.describe())
    par = c.check_parallel()
    script = ("\\o /dev/null\n" + setup + "\n" + c.check_serial() + "\n\\echo ==parallel\n" + PARALLEL
              + "EXPLAIN (COSTS off) " + par + ";\n\\echo ==rows\n" + par + ";\n")
    try:
        out = psql(script)
    except SQLError as e:
        return False, False, "%s\nerror: %s" % (c.describe(), e), setup
    serial, rest = out.split("==parallel\n", 1)
    plan, prows = rest.split("==rows\n", 1)
    parallel = "Partial" in plan and "Gather" in plan
    bad = serial.strip() + ("\n" if serial.strip() else "") + prows.strip()
    if bad.strip():
        return False, parallel, "%s\ndiffering groups (g|cd|native|cd array|native array):\n%s" % (
            c.describe(), bad.strip()), setup
    return True, parallel, None, setup


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", default="1")
    ap.add_argument("--cases", type=int, default=60)
    ap.add_argument("--case", type=int)
    ap.add_argument("--seconds", type=float, default=0, help="stop after this many seconds")
    ap.add_argument("-v", action="store_true")
    a = ap.parse_args()
    info = psql("CREATE EXTENSION IF NOT EXISTS count_distinct;\n"
                "SELECT current_setting('server_version_num')::int >= 140000,"
                " EXISTS (SELECT FROM pg_collation WHERE collname = 'und-x-icu'),"
                " getdatabaseencoding() = 'UTF8';").strip().splitlines()[-1].split("|")
    global PG14
    PG14, icu, utf8 = (x == "t" for x in info)
    if not utf8:
        print("recordfuzz: the database is not UTF8")
        print("0 passed, 1 failed")
        return 1
    cases = [a.case] if a.case is not None else range(a.cases)
    passed = failed = npar = 0
    start = time.time()
    for i in cases:
        if a.seconds and time.time() - start > a.seconds:
            break
        ok, par, msg, setup = run_case(a.seed, i, icu, a.v)
        npar += par
        if ok:
            passed += 1
        else:
            failed += 1
            print("FAIL seed %s case %d: %s" % (a.seed, i, msg))
            print("-- reproduce: python3 test/recordfuzz.py --seed %s --case %d -v" % (a.seed, i))
            if a.v:
                print(setup[:20000])
    psql("DROP SCHEMA IF EXISTS %s CASCADE;" % SCHEMA)
    print("recordfuzz seed %s: %d cases, %d with a parallel plan, %.0f s (icu=%d)"
          % (a.seed, passed + failed, npar, time.time() - start, icu))
    # the planner may keep a case serial (costs); most must be parallel
    if passed + failed >= 10 and npar < (passed + failed) // 2:
        print("FAIL: only %d of %d cases had a parallel plan" % (npar, passed + failed))
        failed += 1
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
