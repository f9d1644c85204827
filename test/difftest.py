#!/usr/bin/env python3
"""Randomized differential test: the count_distinct family against native SQL.

Every case builds a random table (column types from TYPES below, NULL ratio,
duplicate ratio, number of groups, skew, extreme values), then runs random
queries that compare each count_distinct-family result with its native
equivalent IN THE SAME QUERY and return only the rows where they differ:

    count_distinct(v)               vs  count(DISTINCT v)
    array_agg_distinct(v)           vs  coalesce(array_agg(DISTINCT v ORDER BY v)
                                                 FILTER (WHERE v IS NOT NULL), '{}')
    count_distinct_elements(a)      vs  count(DISTINCT x) over unnest(a) x
    array_agg_distinct_elements(a)  vs  the array form over unnest(a) x

Query shapes: "mixed" (extension and native aggregates side by side, plain,
GROUP BY, grouping sets, FILTER, HAVING), "split" (the extension aggregates
alone in one subquery so the planner may run them in parallel or in a
spilling HashAggregate, compared with EXCEPT ALL against a native subquery),
"window" (random PARTITION BY, ORDER BY and ROWS / RANGE with int, date and
timestamp offsets / GROUPS frames with any bounds and EXCLUDE, FILTER)
and "corr" (correlated scalar subqueries).

--replace-native: transparent mode (count_distinct.replace_native).  The
extension side of a count pair is then an unmodified count(DISTINCT v),
which the setting plans as count_distinct(v), and the native side counts
without count(DISTINCT): the length of native array_agg(DISTINCT v) over
the non-NULL values.  Every session loads the library
(session_preload_libraries, so the server must let the user set it) and
switches the setting on; the plans (EXPLAIN VERBOSE) are counted: planned
as count_distinct, or left native (many small groups, src/replace_native.c).  Inputs are the table itself, a
UNION ALL of it (parallel append) or an ORDER BY ... LIMIT subquery.  Planner
settings per query: default, forced parallel, spilling hash aggregation
(work_mem=64kB, enable_sort=off, hash_mem_multiplier=1), both, or sorted
(enable_hashagg=off).

Deterministic: case i of seed s depends on (s, i) only.  A failing case is
shrunk (fewer rows) and printed as a self-contained SQL reproducer.

    python3 test/difftest.py --seed 1 --cases 40
    python3 test/difftest.py --seed 7 --minutes 30       # long mode
    python3 test/difftest.py --seed 1 --case 17          # rerun one case
    python3 test/difftest.py --seed 1 --replace-native   # transparent mode

Talks to the server with psql (from $CD_CLUSTER_BINDIR if set) using the
usual PGHOST/PGPORT/PGUSER/PGDATABASE.  Needs the extension installed in the
database (CREATE EXTENSION is done if missing).
"""

import argparse
import datetime
import os
import random
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import uuid

SCHEMA = "difftest"

# --------------------------------------------------------------------------
# Value generators.  Each returns the text a type's input function receives.


def _int_gen(lo, hi):
    def gen(rng, mode):
        if mode == "narrow":
            c = rng.randint(lo // 2, hi // 2) if rng.random() < 0.1 else 0
            return str(max(lo, min(hi, c + rng.randint(-50, 50))))
        return str(rng.randint(lo, hi))
    return gen


def _float4_gen(rng, mode):
    if mode == "narrow":
        return repr(rng.randint(-40, 40) / 8.0)
    while True:
        bits = rng.getrandbits(32)
        if (bits >> 23) & 0xFF != 0xFF:       # no NaN/Inf from random bits
            f = struct.unpack("<f", struct.pack("<I", bits))[0]
            return "%.9g" % f


def _float8_gen(rng, mode):
    if mode == "narrow":
        return repr(rng.randint(-40, 40) / 8.0)
    while True:
        bits = rng.getrandbits(64)
        if (bits >> 52) & 0x7FF != 0x7FF:
            return repr(struct.unpack("<d", struct.pack("<Q", bits))[0])


def _char_gen(rng, mode):
    b = rng.randint(32, 126) if mode == "narrow" else rng.randint(0, 255)
    if b == 0:
        return ""
    if 33 <= b <= 126:
        return chr(b)
    return "\\%03o" % b                       # "char" input: \ooo


def _date_gen(rng, mode):
    if mode == "narrow":
        d = datetime.date(2000, 1, 1) + datetime.timedelta(days=rng.randint(-60, 60))
    else:
        d = datetime.date.fromordinal(rng.randint(1, 3652059))
    return d.isoformat()


def _time_gen(rng, mode):
    us = rng.randint(0, 86400 * 10**6 - 1)
    if mode == "narrow":
        us = rng.randint(0, 200) * 10**6
    s, us = divmod(us, 10**6)
    return "%02d:%02d:%02d.%06d" % (s // 3600, s // 60 % 60, s % 60, us)


def _ts(rng, mode):
    if mode == "narrow":
        base = datetime.datetime(2000, 1, 1)
        return (base + datetime.timedelta(seconds=rng.randint(-100, 100))).isoformat(" ")
    d = datetime.date.fromordinal(rng.randint(1, 3652059))
    return "%s %s" % (d.isoformat(), _time_gen(rng, "wide"))


def _tstz_gen(rng, mode):
    return _ts(rng, mode) + rng.choice(["+00", "+05:30", "-08", "+14"])


def _money_gen(rng, mode):
    c = rng.randint(-500, 500) if mode == "narrow" else rng.randint(-2**63, 2**63 - 1)
    sign = "-" if c < 0 else ""
    c = abs(c)
    return "%s%d.%02d" % (sign, c // 100, c % 100)


def _numeric_gen(rng, mode):
    if mode == "narrow":
        v = rng.randint(-20, 20)
        return rng.choice(["%d", "%d.0", "%d.00", "%d.000"]) % v
    ip = rng.randint(-10**rng.randint(0, 30), 10**rng.randint(0, 30))
    frac = "".join(rng.choice("0123456789") for _ in range(rng.randint(0, 20)))
    return "%d.%s" % (ip, frac) if frac else str(ip)


def _text_gen(rng, mode):
    alphabet = "ab" if mode == "narrow" else "abcXYZ 019_-'\"\\\t\n{},éß€😀"
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 3 if mode == "narrow" else 12)))


def _bpchar_gen(rng, mode):
    return "".join(rng.choice("ab ") for _ in range(rng.randint(0, 4)))


def _uuid_gen(rng, mode):
    if mode == "narrow":
        return str(uuid.UUID(int=rng.randint(0, 30)))
    return str(uuid.UUID(int=rng.getrandbits(128)))


def _interval_gen(rng, mode):
    if mode == "narrow":
        return rng.choice(["1 day", "24 hours", "1440 minutes", "1 mon", "30 days",
                           "0", "-1 day", "1 day -24 hours"])
    # the time part as seconds with a fraction: PostgreSQL 13 reads each
    # field of an interval as a 32-bit number (10^15 microseconds fail)
    us = rng.randint(-10**15, 10**15)
    return "%d mons %d days %s%d.%06d seconds" % (rng.randint(-10**6, 10**6),
                                                  rng.randint(-10**6, 10**6),
                                                  "-" if us < 0 else "",
                                                  abs(us) // 10**6, abs(us) % 10**6)


def _bytea_gen(rng, mode):
    n = rng.randint(0, 2 if mode == "narrow" else 10)
    return "\\x" + "".join("%02x" % rng.randint(0, 3 if mode == "narrow" else 255)
                           for _ in range(n))


def _inet_gen(rng, mode):
    if rng.random() < 0.5:
        return "10.0.%d.%d/%d" % (rng.randint(0, 3), rng.randint(0, 255), rng.choice([8, 24, 32]))
    return "::%x/%d" % (rng.randint(0, 0xffff), rng.choice([64, 128]))


# The type table: name, SQL type, generator, special values (extremes and
# equality traps).  Types the extension does not support (yet) are detected
# at start (SQLSTATE 0A000) and skipped, so entries can stay here before
# support lands.
TYPES = [
    ("int2", "int2", _int_gen(-32768, 32767), ["-32768", "32767", "0", "-1", "1"]),
    ("int4", "int4", _int_gen(-2**31, 2**31 - 1), ["-2147483648", "2147483647", "0", "-1", "1"]),
    ("int8", "int8", _int_gen(-2**63, 2**63 - 1),
     ["-9223372036854775808", "9223372036854775807", "0", "-1", "1"]),
    ("float4", "float4", _float4_gen,
     ["0", "-0", "NaN", "Infinity", "-Infinity", "1.40129846e-45", "-1.40129846e-45",
      "3.40282347e+38", "-3.40282347e+38", "1.17549435e-38"]),
    ("float8", "float8", _float8_gen,
     ["0", "-0", "NaN", "Infinity", "-Infinity", "5e-324", "-5e-324",
      "1.7976931348623157e+308", "-1.7976931348623157e+308", "2.2250738585072014e-308"]),
    ("bool", "bool", lambda rng, mode: rng.choice(["t", "f"]), ["t", "f"]),
    ("char", '"char"', _char_gen, ["", "\\377", "\\200", "\\177", "\\001", "a"]),
    ("oid", "oid", _int_gen(0, 2**32 - 1), ["0", "4294967295", "2147483648", "2147483647"]),
    ("date", "date", _date_gen,
     ["-infinity", "infinity", "4713-11-24 BC", "5874897-12-31", "2000-01-01", "1999-12-31"]),
    ("time", "time", _time_gen, ["00:00:00", "24:00:00", "23:59:59.999999"]),
    ("timestamp", "timestamp", _ts,
     ["-infinity", "infinity", "4713-11-24 00:00:00 BC", "294276-12-31 23:59:59.999999",
      "2000-01-01 00:00:00"]),
    ("timestamptz", "timestamptz", _tstz_gen,
     ["-infinity", "infinity", "4713-11-24 00:00:00+00 BC", "294276-12-31 23:59:59.999999+00",
      "2000-01-01 00:00:00+00", "2000-01-01 05:30:00+05:30"]),
    ("money", "money", _money_gen,
     ["-92233720368547758.08", "92233720368547758.07", "0", "-0.01", "0.01"]),
    # variable-length types (skipped while unsupported)
    ("text", "text", _text_gen, ["", "a", "A", "a "]),
    ("text_c", 'text COLLATE "C"', _text_gen, ["", "a", "A", "a "]),
    ("varchar", "varchar", _text_gen, ["", "a", "b"]),
    ("bpchar", "char(4)", _bpchar_gen, ["", " ", "a", "a  "]),
    ("numeric", "numeric", _numeric_gen,
     ["NaN", "Infinity", "-Infinity", "0", "0.0", "-0", "1.0", "1.00", "1e100", "-1e-100"]),
    ("uuid", "uuid", _uuid_gen,
     ["00000000-0000-0000-0000-000000000000", "ffffffff-ffff-ffff-ffff-ffffffffffff"]),
    ("interval", "interval", _interval_gen, ["1 day", "24 hours", "-infinity" if False else "0"]),
    ("bytea", "bytea", _bytea_gen, ["\\x", "\\x00", "\\xff"]),
    ("inet", "inet", _inet_gen, ["0.0.0.0/0", "::/0", "10.0.0.1/32"]),
]
TYPE_BY_NAME = {t[0]: t for t in TYPES}

# Types without a btree equality: the extension must raise an error, like
# native COUNT(DISTINCT).
NO_EQUALITY_TYPES = [("point", "point(1,2)"), ("json", "'{}'::json")]

# float NaN with the sign bit set cannot be typed in; make some by negation
NEG_NAN_TYPES = {"float4", "float8"}

# --------------------------------------------------------------------------
# psql


class SQLError(Exception):
    def __init__(self, sqlstate, message):
        super().__init__(message)
        self.sqlstate = sqlstate
        self.message = message


def psql_path():
    bindir = os.environ.get("CD_CLUSTER_BINDIR")
    if bindir and os.access(os.path.join(bindir, "psql"), os.X_OK):
        return os.path.join(bindir, "psql")
    p = shutil.which("psql")
    if not p:
        sys.exit("difftest: psql not found")
    return p


PSQL = None


REPLACE_NATIVE = False   # --replace-native


def psql(commands, stdin=None, timeout=600):
    """Run commands (list of SQL strings) in one session; return stdout."""
    args = [PSQL, "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-v", "VERBOSITY=verbose"]
    for c in commands:
        args += ["-c", c]
    env = dict(os.environ)
    env["PGOPTIONS"] = (env.get("PGOPTIONS", "") + " -c jit=off -c client_min_messages=warning"
                        " -c search_path=%s,public -c TimeZone=UTC -c extra_float_digits=3" % SCHEMA)
    if REPLACE_NATIVE:
        env["PGOPTIONS"] += (" -c session_preload_libraries=count_distinct"
                             " -c count_distinct.replace_native=on")
    env.setdefault("PGCLIENTENCODING", "UTF8")
    p = subprocess.run(args, input=stdin, capture_output=True, env=env, timeout=timeout,
                       encoding="utf-8", errors="replace")
    if p.returncode != 0:
        m = next(re.finditer(r"ERROR:\s+([0-9A-Z]{5}):\s*(.*)", p.stderr), None)
        if m:
            raise SQLError(m.group(1), p.stderr.strip())
        raise SQLError("XXXXX", (p.stderr or p.stdout).strip() or "psql exit %d" % p.returncode)
    return p.stdout


# --------------------------------------------------------------------------
# escaping


def copy_escape(s):
    if s is None:
        return "\\N"
    return (s.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")
            .replace("\r", "\\r"))


def array_elem(e):
    if e is None:
        return "NULL"
    return '"' + e.replace("\\", "\\\\").replace('"', '\\"') + '"'


def array_literal(elems, dims=None):
    """elems: flat list; dims: None (1-D) or (rows, cols)."""
    if dims is None:
        return "{" + ",".join(array_elem(e) for e in elems) + "}"
    r, c = dims
    return "{" + ",".join("{" + ",".join(array_elem(e) for e in elems[i * c:(i + 1) * c]) + "}"
                          for i in range(r)) + "}"


def sql_literal(s):
    if s is None:
        return "NULL"
    return "'" + s.replace("'", "''") + "'"


# --------------------------------------------------------------------------
# a case: table + queries


class Column:
    def __init__(self, name, tname, domain, is_array):
        self.name = name
        self.tname = tname                    # key in TYPE_BY_NAME
        self.domain = domain                  # use the domain over the type
        self.is_array = is_array
        t = TYPE_BY_NAME[tname]
        self.base_sql = t[1].split(" COLLATE ")[0]
        parts = t[1].split(" COLLATE ")
        self.sql = ("d_%s" % tname) if domain else parts[0]
        if is_array:
            self.sql += "[]"
        if not domain and len(parts) > 1:
            self.sql += " COLLATE " + parts[1]

    @property
    def base_array(self):
        return self.base_sql + "[]"


def domain_ddl(tname):
    t = TYPE_BY_NAME[tname]
    return "CREATE DOMAIN d_%s AS %s CHECK (VALUE IS NOT NULL OR VALUE IS NULL)" % (tname, t[1])


def make_pool(rng, tname, size):
    _, _, gen, specials = TYPE_BY_NAME[tname]
    mode = rng.choice(["narrow", "wide", "wide"])
    pool = []
    if rng.random() < 0.7:
        pool += rng.sample(specials, rng.randint(1, len(specials)))
    while len(pool) < size:
        pool.append(gen(rng, mode))
    rng.shuffle(pool)
    return pool[:max(size, 1)]


def pick(rng, pool, skew):
    # skew 1 = uniform; larger = more weight on the first pool entries
    return pool[min(len(pool) - 1, int(len(pool) * (rng.random() ** skew)))]


class Case:
    def __init__(self, seed, index, types, long_mode):
        self.seed = seed
        self.index = index
        self.rng = random.Random("%s/%d" % (seed, index))
        rng = self.rng
        self.table = "t%d" % index
        size = rng.choices(["empty", "tiny", "small", "medium", "large"],
                           [3, 15, 30, 32, 20])[0]
        self.nrows = {"empty": 0, "tiny": rng.randint(1, 20), "small": rng.randint(21, 500),
                      "medium": rng.randint(501, 5000),
                      "large": rng.randint(20000, 120000 if long_mode else 60000)}[size]
        n = self.nrows
        gkind = rng.choice(["one", "few", "many", "most"])
        self.ngroups = max(1, {"one": 1, "few": rng.randint(2, 10),
                               "many": rng.randint(10, max(10, n // 20)),
                               "most": max(1, n // rng.randint(2, 4))}[gkind])
        self.gskew = rng.choice([1, 1, 2, 4])
        self.gnull = rng.choice([0, 0, 0.01, 0.2])
        self.cols = []
        for i in range(rng.randint(1, 3)):
            self.cols.append(Column("c%d" % (i + 1), rng.choice(types), rng.random() < 0.2, False))
        if rng.random() < 0.6:
            self.cols.append(Column("a", rng.choice(types), rng.random() < 0.15, True))
        # a named composite type over the scalar columns, with a dropped
        # attribute first (record_cmp and the keys skip it)
        scalars = [c for c in self.cols if not c.is_array]
        self.comp = ("comp_%d" % index) if scalars and rng.random() < 0.5 else None
        self.comp_cols = scalars
        self.gen_rows()

    def gen_rows(self):
        rng = self.rng
        n = self.nrows
        colgen = []
        for c in self.cols:
            distinct = rng.choice([1, 2, 3, 10, 100, 1000, max(1, n // 10), max(1, n), 2 * n + 10])
            if c.tname == "bool":
                distinct = min(distinct, 3)
            pool = make_pool(rng, c.tname, min(distinct, 200000))
            pnull = rng.choice([0, 0, 0.05, 0.3, 0.9, 1.0])
            skew = rng.choice([1, 1, 2, 5])
            colgen.append((c, pool, pnull, skew))
        ids = list(range(1, n + 1))
        rng.shuffle(ids) if rng.random() < 0.7 else None
        rows = []
        for i in range(n):
            g = None if rng.random() < self.gnull else \
                int(self.ngroups * (rng.random() ** self.gskew))
            h = rng.randint(0, 4)
            row = [str(ids[i]), None if g is None else str(g), str(h)]
            for c, pool, pnull, skew in colgen:
                if c.is_array:
                    if rng.random() < pnull * 0.5:
                        row.append(None)
                        continue
                    if rng.random() < 0.1:
                        r, k = rng.randint(1, 3), rng.randint(1, 3)
                        els = [None if rng.random() < pnull else pick(rng, pool, skew)
                               for _ in range(r * k)]
                        row.append(array_literal(els, (r, k)))
                    else:
                        k = rng.choice([0, 1, 2, 3, 5, 10, 30])
                        els = [None if rng.random() < pnull else pick(rng, pool, skew)
                               for _ in range(k)]
                        lit = array_literal(els)
                        if k > 0 and rng.random() < 0.15:
                            lb = rng.choice([-3, 0, 2])
                            lit = "[%d:%d]=%s" % (lb, lb + k - 1, lit)
                        row.append(lit)
                else:
                    row.append(None if rng.random() < pnull else pick(rng, pool, skew))
            rows.append(row)
        self.rows = rows
        # post-load statements (NaN with the sign bit set)
        self.fixups = []
        for c in self.cols:
            if c.tname in NEG_NAN_TYPES and not c.is_array and rng.random() < 0.5:
                self.fixups.append("UPDATE %s SET %s = -%s WHERE %s = 'NaN' AND id %% 2 = 0"
                                   % (self.table, c.name, c.name, c.name))

    # -- SQL ---------------------------------------------------------------
    def domains(self):
        return sorted({c.tname for c in self.cols if c.domain})

    def create_sql(self):
        cols = ", ".join("%s %s" % (c.name, c.sql) for c in self.cols)
        return "CREATE TABLE %s (id int4, g int4, h int4, %s)" % (self.table, cols)

    def type_sql(self):
        if not self.comp:
            return []
        return ["DROP TYPE IF EXISTS %s CASCADE" % self.comp,
                "CREATE TYPE %s AS (gone int4, %s)" % (
                    self.comp, ", ".join("%s %s" % (c.name, c.sql) for c in self.comp_cols)),
                "ALTER TYPE %s DROP ATTRIBUTE gone" % self.comp]

    def load(self, rows=None):
        rows = self.rows if rows is None else rows
        data = "".join("\t".join(copy_escape(v) for v in r) + "\n" for r in rows)
        psql(self.type_sql() + ["DROP TABLE IF EXISTS %s" % self.table, self.create_sql(),
              "COPY %s FROM STDIN" % self.table] + self.fixups + ["ANALYZE %s" % self.table],
             stdin=data)

    def drop(self):
        psql(["DROP TABLE IF EXISTS %s" % self.table] +
             (["DROP TYPE IF EXISTS %s" % self.comp] if self.comp else []))

    def reproducer(self, query, settings, rows, detail):
        out = ["-- count_distinct difftest failure: seed %s case %d (%d of %d rows kept)"
               % (self.seed, self.index, len(rows), len(self.rows)),
               "-- " + detail.replace("\n", "\n-- "),
               "CREATE EXTENSION IF NOT EXISTS count_distinct;",
               "SET TimeZone = 'UTC';", "SET jit = off;"]
        if REPLACE_NATIVE:
            out += ["LOAD 'count_distinct';", "SET count_distinct.replace_native = on;"]
        for d in self.domains():
            out.append(domain_ddl(d) + ";")
        for t in self.type_sql()[1:]:
            out.append(t + ";")
        out.append(self.create_sql() + ";")
        names = "id, g, h, " + ", ".join(c.name for c in self.cols)
        for i in range(0, len(rows), 50):
            out.append("INSERT INTO %s (%s) VALUES\n  %s;" % (
                self.table, names,
                ",\n  ".join("(" + ", ".join(sql_literal(v) for v in r) + ")"
                             for r in rows[i:i + 50])))
        for f in self.fixups:
            out.append(f + ";")
        out.append("ANALYZE %s;" % self.table)
        for s in settings:
            out.append(s + ";")
        out.append(query + ";")
        return "\n".join(out)


# -- query generation -------------------------------------------------------

MODES = {
    "default": [],
    "parallel": ["SET parallel_setup_cost = 0", "SET parallel_tuple_cost = 0",
                 "SET min_parallel_table_scan_size = 0",
                 "SET max_parallel_workers_per_gather = 2"],
    "spill": ["SET work_mem = '64kB'", "SET enable_sort = off", "SET hash_mem_multiplier = 1"],
    "sorted": ["SET enable_hashagg = off"],
}


def native_count(expr, cond, nullable=True):
    """count(DISTINCT expr) FILTER (WHERE TRUE cond) without count(DISTINCT)
    (--replace-native): array_agg(DISTINCT) is never rewritten."""
    return ("coalesce(array_length(array_agg(DISTINCT %s) FILTER (WHERE %s%s), 1), 0)"
            % (expr, "%s IS NOT NULL" % expr if nullable else "true", cond))


def count_pair(ext_fn, expr, fil, native_expr, cond, nullable=True):
    """(ext, native) of a count: ext_fn(expr) against count(DISTINCT
    native_expr), or, with --replace-native, count(DISTINCT expr) (where
    ext_fn is count_distinct) against native_count."""
    if REPLACE_NATIVE:
        ext = ("count(DISTINCT %s)%s" % (expr, fil) if ext_fn == "count_distinct"
               else "%s(%s)%s" % (ext_fn, expr, fil))
        return ext, native_count(native_expr, cond, nullable)
    return "%s(%s)%s" % (ext_fn, expr, fil), "count(DISTINCT %s)%s" % (native_expr, fil)


def record_expr(rng, case, arrays_of_records=True):
    """A record built from scalar columns: ROW of 1-4 columns (of any type,
    domains included, NULL fields wherever the columns are NULL), a nested
    ROW(ROW(a, b), c), the case's named composite type (with a dropped
    attribute) or a ROW holding it; or records the extension leaves to its
    comparator (an array of records, a record holding one).  None: no
    scalar column."""
    scalars = [c for c in case.cols if not c.is_array]
    if not scalars:
        return None
    # (arrays_of_records=False: window frames, whose native side unnests the arrays of
    # values that array_agg collects, which would flatten arrays of records)

    def some(k):
        return ", ".join(rng.choice(scalars).name for _ in range(k))
    a = rng.choice(scalars).name
    b = rng.choice(scalars).name
    kinds = ["row", "row", "row", "nested"] + (["array", "holds_array"] if arrays_of_records else [])
    arrays = [c for c in case.cols if c.is_array]
    if arrays:
        kinds.append("array_field")
    if case.comp:
        kinds += ["comp", "comp", "comp_nested"]
    kind = rng.choice(kinds)
    if kind == "row":
        return "ROW(%s)" % some(rng.randint(1, 4))
    if kind == "nested":
        return "ROW(ROW(%s), %s)" % (some(rng.randint(1, 2)), b)
    if kind == "array":
        return "ARRAY[ROW(%s, %s), ROW(%s, %s)]" % (a, b, b, a)
    if kind == "holds_array":
        return "ROW(%s, ARRAY[ROW(%s)])" % (a, b)
    if kind == "array_field":
        return "ROW(%s, %s)" % (arrays[0].name, a)
    comp = "ROW(%s)::%s" % (", ".join(c.name for c in scalars), case.comp)
    if kind == "comp":
        return comp
    return "ROW(%s, %s)" % (comp, a)


def record_pair(rng, case, fil, andf=""):
    """An aggregate over a record (record_expr; records are never NULL
    themselves)."""
    expr = record_expr(rng, case)
    if expr is None:
        return None
    if expr.startswith("ARRAY") or rng.random() < 0.5:
        return count_pair("count_distinct", expr, fil, expr, andf, nullable=False) + (None,)
    return ("array_agg_distinct(%s)%s" % (expr, fil),
            "coalesce(array_agg(DISTINCT %s ORDER BY %s)%s, '{}')" % (expr, expr, fil), None)


RECORD_SHARE = 0.15      # --records


def agg_pairs(rng, case, where_f, with_arrays=True, elements_ok=True):
    """(ext_expr, native_expr, needs_unnest) triples for 1-4 aggregates."""
    pairs = []
    for _ in range(rng.randint(1, 4)):
        if rng.random() < RECORD_SHARE:
            f = rng.choice([None, None, "id % 3 = 0"]) if where_f else None
            p = record_pair(rng, case, " FILTER (WHERE %s)" % f if f else "",
                            " AND (%s)" % f if f else "")
            if p is not None:
                pairs.append(p)
                continue
        c = rng.choice(case.cols)
        if c.is_array and not elements_ok:
            continue
        f = rng.choice([None, None, None, "id % 3 = 0", "h <> 1", "%s IS NULL" % c.name,
                        "g IS NOT NULL"]) if where_f else None
        fil = " FILTER (WHERE %s)" % f if f else ""
        andf = " AND (%s)" % f if f else ""
        kind = rng.choice(["count", "array"]) if with_arrays else "count"
        if c.is_array and not REPLACE_NATIVE and rng.random() < 0.3:
            # the array itself as the value (array keys; not with
            # --replace-native, whose native side would stack the arrays)
            pairs.append(count_pair("count_distinct", c.name, fil, c.name, andf) + (None,))
            continue
        if c.is_array:
            v = "x_" + c.name
            if kind == "count":
                pairs.append(count_pair("count_distinct_elements", c.name, fil, v, andf) + (c,))
            else:
                pairs.append(("array_agg_distinct_elements(%s)%s::%s" % (c.name, fil, c.base_array),
                              "coalesce(array_agg(DISTINCT %s ORDER BY %s) FILTER (WHERE %s IS NOT NULL%s), '{}')::%s"
                              % (v, v, v, andf, c.base_array), c))
        else:
            if kind == "count":
                pairs.append(count_pair("count_distinct", c.name, fil, c.name, andf) + (None,))
            else:
                pairs.append(("array_agg_distinct(%s)%s::%s" % (c.name, fil, c.base_array),
                              "coalesce(array_agg(DISTINCT %s ORDER BY %s) FILTER (WHERE %s IS NOT NULL%s), '{}')::%s"
                              % (c.name, c.name, c.name, andf, c.base_array), None))
    if not pairs:
        c = next(c for c in case.cols if not c.is_array) if any(
            not c.is_array for c in case.cols) else None
        if c is None:
            return []
        pairs.append(count_pair("count_distinct", c.name, "", c.name, "") + (None,))
    return pairs


def native_from(source, pairs):
    """FROM clause for the native side: unnest every array column used."""
    fr = source
    for c in sorted({p[2].name: p[2] for p in pairs if p[2] is not None}.values(),
                    key=lambda c: c.name):
        fr += " LEFT JOIN LATERAL unnest(t.%s) AS u_%s(x_%s) ON true" % (c.name, c.name, c.name)
    return fr


def gen_source(rng, case):
    t = case.table
    k = rng.choice(["base"] * 5 + ["union", "limit"])
    if k == "union":
        return "(SELECT * FROM %s UNION ALL SELECT * FROM %s WHERE id %% 3 = 0) AS t" % (t, t)
    if k == "limit":
        return "(SELECT * FROM %s ORDER BY id LIMIT %d) AS t" % (t, rng.randint(0, max(1, case.nrows)))
    return "%s AS t" % t


GROUPINGS = [
    (None, None),
    ("g", "g"),
    ("h", "h"),
    ("g, h", "g, h"),
    ("g % 7 AS gm", "g % 7"),
    ("g, h, GROUPING(g, h) AS gs", "ROLLUP (g, h)"),
    ("g, h, GROUPING(g, h) AS gs", "GROUPING SETS ((g), (h), ())"),
]


ONLY_SHAPES = None      # --shapes


def gen_query(rng, case):
    """Returns (shape, mode, settings, query)."""
    small = case.nrows <= 3000
    shapes = ["mixed", "split", "split"]
    if small:
        shapes += ["window", "window"]
    if case.nrows * case.ngroups <= 3000000:
        shapes.append("corr")
    if ONLY_SHAPES:
        shapes = [s for s in shapes if s in ONLY_SHAPES]
        if not shapes:
            return None
    shape = rng.choice(shapes)
    if shape in ("split",):
        mode = rng.choice(["default", "parallel", "parallel", "spill", "spill", "parallel+spill",
                           "sorted"])
    else:
        mode = rng.choice(["default", "parallel", "sorted"])
    settings = []
    for m in mode.split("+"):
        settings += MODES[m]
    if "parallel" in mode and rng.random() < 0.5:
        settings.append("SET parallel_leader_participation = off")
    where = rng.choice(["", "", "", " WHERE id % 5 <> 0", " WHERE g IS NOT NULL", " WHERE h < 3"])
    if shape == "mixed":
        q = gen_mixed(rng, case, where)
    elif shape == "split":
        q = gen_split(rng, case, where, "spill" in mode)
    elif shape == "window":
        q = gen_window(rng, case)
    else:
        q = gen_corr(rng, case, where)
    if q is None:
        return None
    return shape, mode, settings, q


def gen_mixed(rng, case, where):
    pairs = agg_pairs(rng, case, True)
    if not pairs:
        return None
    sel, grp = rng.choice(GROUPINGS)
    src = gen_source(rng, case)
    cols = []
    conds = []
    for i, (e, n, _) in enumerate(pairs):
        cols += ["%s AS e%d" % (e, i), "%s AS n%d" % (n, i)]
        conds.append("(%s) IS DISTINCT FROM (%s)" % (e, n))
    return "SELECT %s FROM %s%s%s HAVING %s" % (
        ", ".join(([sel] if sel else []) + cols), native_from(src, pairs), where,
        " GROUP BY " + grp if grp else "", " OR ".join(conds))


def gen_split(rng, case, where, spill):
    pairs = agg_pairs(rng, case, True)
    if not pairs:
        return None
    sel, grp = rng.choice(GROUPINGS)
    if spill and rng.random() < 0.7:
        sel, grp = GROUPINGS[rng.choice([1, 3])]     # many groups: the hash table spills
    src = gen_source(rng, case)
    ecols = ", ".join(([sel] if sel else []) + ["%s AS r%d" % (e, i) for i, (e, _, _) in enumerate(pairs)])
    ncols = ", ".join(([sel] if sel else []) + ["%s AS r%d" % (n, i) for i, (_, n, _) in enumerate(pairs)])
    gb = " GROUP BY " + grp if grp else ""
    return ("WITH e AS (SELECT %s FROM %s%s%s), n AS (SELECT %s FROM %s%s%s) "
            "SELECT 'ext' AS side, * FROM (TABLE e EXCEPT ALL TABLE n) x "
            "UNION ALL SELECT 'native', * FROM (TABLE n EXCEPT ALL TABLE e) y"
            % (ecols, src, where, gb, ncols, native_from(src, pairs), where, gb))


# Window frames: random PARTITION BY, ORDER BY and frame clause (ROWS,
# RANGE with offsets on int, date and timestamp, GROUPS; every bound kind;
# EXCLUDE), or a default frame.  The frame's bounds are drawn in order
# (UNBOUNDED PRECEDING < n PRECEDING < CURRENT ROW < n FOLLOWING < UNBOUNDED
# FOLLOWING) so the clause is valid; offsets may still make frames empty.
FRAME_BOUNDS = ["UNBOUNDED PRECEDING", "%s PRECEDING", "CURRENT ROW", "%s FOLLOWING",
                "UNBOUNDED FOLLOWING"]
RANGE_ORDERS = [("id", "%d"), ("id / 3", "%d"), ("h", "%d"),
                ("date '2000-01-01' + id / 4", "'%d days'"),
                ("timestamp '2000-01-01' + id * interval '37 minutes'", "'%d hours'")]


def random_window(rng):
    part = rng.choice(["", "", "PARTITION BY g ", "PARTITION BY h "])
    mode = rng.choice(["ROWS", "ROWS", "RANGE", "RANGE", "GROUPS", "default", "running"])
    if mode == "default":
        return part + rng.choice(["", "ORDER BY id", "ORDER BY h", "ORDER BY id / 3"])
    if mode == "running":
        return part + "ORDER BY id ROWS UNBOUNDED PRECEDING"
    if mode == "RANGE":
        order, unit = rng.choice(RANGE_ORDERS)
    elif mode == "GROUPS":
        order, unit = rng.choice(["h", "id / 3", "id", "h, id / 5"]), "%d"
    else:
        order, unit = rng.choice(["id", "id", "h, id"]), "%d"
    while True:
        start, end = rng.choice([0, 1, 1, 2, 3]), rng.choice([1, 2, 3, 3, 4])
        if start <= end:
            break

    def bound(k):
        b = FRAME_BOUNDS[k]
        return b % (unit % rng.choice([0, 1, 2, 3, 5, 10, 40])) if "%s" in b else b
    excl = rng.choice(["", "", "", " EXCLUDE CURRENT ROW", " EXCLUDE GROUP", " EXCLUDE TIES",
                       " EXCLUDE NO OTHERS"])
    return "%sORDER BY %s %s BETWEEN %s AND %s%s" % (part, order, mode, bound(start), bound(end),
                                                    excl)


def gen_window(rng, case):
    """count_distinct* and array_agg_distinct* over a random window, against
    native aggregates over the same frame's rows: for a scalar, the values
    native array_agg(v) OVER the same window collects; for arrays, the rows
    whose ids native array_agg(id) OVER the same window collects (both in the
    same WindowAgg node, so they see the very same frames)."""
    scalars = [c for c in case.cols if not c.is_array]
    arrays = [c for c in case.cols if c.is_array]
    use_elements = bool(arrays) and rng.random() < 0.3
    w = random_window(rng)
    inner = ["id", "g"]
    outer_conds = []
    laterals = []
    for i in range(rng.randint(1, 3)):
        f = rng.choice(["", "", " FILTER (WHERE id % 2 = 0)", " FILTER (WHERE h < 2)"])
        if scalars and rng.random() < RECORD_SHARE:
            # a record (never NULL itself: no filter on the native side)
            rec = record_expr(rng, case, arrays_of_records=False)
            inner += ["count_distinct(%s)%s OVER w AS e%d" % (rec, f, i),
                      "array_agg_distinct(%s)%s OVER w AS ea%d" % (rec, f, i),
                      "array_agg(%s)%s OVER w AS all%d" % (rec, f, i)]
            laterals.append(
                "LATERAL (SELECT count(DISTINCT z) AS n%d, coalesce(array_agg(DISTINCT z ORDER BY z), "
                "'{}')::record[] AS na%d FROM (SELECT unnest(s.all%d) AS z) AS u) AS l%d"
                % (i, i, i, i))
            outer_conds += ["s.e%d IS DISTINCT FROM l%d.n%d" % (i, i, i),
                            "s.ea%d::record[] IS DISTINCT FROM l%d.na%d" % (i, i, i)]
            continue
        if scalars and not (use_elements and rng.random() < 0.6):
            c = rng.choice(scalars)
            inner += ["count_distinct(%s)%s OVER w AS e%d" % (c.name, f, i),
                      "array_agg_distinct(%s)%s OVER w AS ea%d" % (c.name, f, i),
                      "array_agg(%s)%s OVER w AS all%d" % (c.name, f, i)]
            laterals.append(
                "LATERAL (SELECT count(DISTINCT z) AS n%d, coalesce(array_agg(DISTINCT z ORDER BY z) "
                "FILTER (WHERE z IS NOT NULL), '{}')::%s AS na%d FROM unnest(s.all%d) AS z) AS l%d"
                % (i, c.base_array, i, i, i))
        elif use_elements:
            c = rng.choice(arrays)
            inner += ["count_distinct_elements(%s)%s OVER w AS e%d" % (c.name, f, i),
                      "array_agg_distinct_elements(%s)%s OVER w AS ea%d" % (c.name, f, i),
                      "array_agg(id)%s OVER w AS ids%d" % (f, i)]
            laterals.append(
                "LATERAL (SELECT count(DISTINCT z) AS n%d, coalesce(array_agg(DISTINCT z ORDER BY z) "
                "FILTER (WHERE z IS NOT NULL), '{}')::%s AS na%d FROM unnest(s.ids%d) AS f(id) "
                "JOIN %s AS t2 USING (id), unnest(t2.%s) AS z) AS l%d"
                % (i, c.base_array, i, i, case.table, c.name, i))
        else:
            continue
        outer_conds += ["s.e%d IS DISTINCT FROM l%d.n%d" % (i, i, i),
                        "s.ea%d::%s IS DISTINCT FROM l%d.na%d" % (i, c.base_array, i, i)]
    if not outer_conds:
        return None
    n = len(laterals)
    return ("SELECT s.id, s.g, %s FROM (SELECT %s FROM %s AS t WINDOW w AS (%s)) AS s, %s WHERE %s"
            % (", ".join("s.e%d, s.ea%d" % (i, i) for i in range(n)),
               ", ".join(inner), case.table, w, ", ".join(laterals), " OR ".join(outer_conds)))


def gen_corr(rng, case, where):
    pairs = agg_pairs(rng, case, False, with_arrays=True)
    if not pairs:
        return None
    conds = []
    for e, n, _ in pairs:
        conds.append("(SELECT %s FROM %s AS t WHERE t.g IS NOT DISTINCT FROM s.g0) IS DISTINCT FROM "
                     "(SELECT %s FROM %s WHERE t.g IS NOT DISTINCT FROM s.g0)"
                     % (e, case.table, n, native_from("%s AS t" % case.table, pairs)))
    return "SELECT s.g0 FROM (SELECT DISTINCT g AS g0 FROM %s%s) AS s WHERE %s" % (
        case.table, where, " OR ".join(conds))


# --------------------------------------------------------------------------


def check_stats(case):
    """pg_stats.most_common_vals (pseudo-type anyarray) passes arrays of a
    different element type in each row.  Grouped by column, each group must
    count its MCVs (distinct already) whatever plan; one group over columns
    of different element types must fail with 42804, never crash.
    Returns None or a failure detail."""
    t = case.table.split(".")[-1]
    stats = ("pg_stats WHERE schemaname = '%s' AND tablename = '%s' AND most_common_vals IS NOT NULL"
             % (SCHEMA, t))
    settings = case.rng.choice(list(MODES.values()))
    q = ("SELECT attname, e, n FROM (SELECT attname, count_distinct_elements(most_common_vals) AS e, "
         "cardinality(array_agg_distinct_elements(most_common_vals)::text::text[]) AS ea, "
         "cardinality(most_common_vals::text::text[]) AS n FROM %s "
         "GROUP BY attname, most_common_vals::text) s WHERE e <> n OR ea <> n" % stats)
    try:
        res = run_query(settings, q)
        if res is not None:
            return "pg_stats per column: mismatching rows:\n" + res.strip()[:2000]
    except SQLError as e:
        return "pg_stats per column: error %s: %s" % (e.sqlstate, e.message[:1000])
    # the element types of the MCV arrays: the columns' types
    types = psql(["SELECT DISTINCT format_type(a.atttypid, NULL) FROM pg_stats s "
                  "JOIN pg_attribute a ON a.attrelid = '%s'::regclass AND a.attname = s.attname "
                  "WHERE s.schemaname = '%s' AND s.tablename = '%s' AND s.most_common_vals IS NOT NULL"
                  % (case.table, SCHEMA, t)]).strip().splitlines()
    try:
        psql(settings + ["SELECT count_distinct_elements(most_common_vals) FROM %s" % stats])
        if len(set(types)) > 1:
            return "pg_stats, one group of element types %s: no error" % ",".join(types)
    except SQLError as e:
        if len(set(types)) <= 1 or e.sqlstate != "42804":
            return "pg_stats, one group: error %s: %s" % (e.sqlstate, e.message[:1000])
    return None


def run_query(settings, query):
    """None if the query returns no rows; else the rows (or raises SQLError)."""
    out = psql(settings + [query])
    return out if out.strip() else None


def explain_run(settings, query):
    """Run the query under EXPLAIN ANALYZE: (number of result rows, plan text)."""
    plan = psql(settings + ["EXPLAIN (ANALYZE, %sCOSTS OFF, TIMING OFF, SUMMARY OFF) "
                            % ("VERBOSE, " if REPLACE_NATIVE else "") + query])
    first = plan.strip().splitlines()[0]
    m = next(re.finditer(r"actual rows=(\d+) loops=(\d+)", first), None)
    nrows = int(m.group(1)) * int(m.group(2)) if m else -1
    return nrows, plan


def shrink(case, settings, query, budget_s):
    """Fewer rows that still fail (ddmin on row chunks), within budget_s."""
    rows = case.rows
    deadline = time.time() + budget_s

    def fails(rs):
        try:
            case.load(rs)
            return run_query(settings, query) is not None
        except SQLError:
            return True

    chunks = 2
    while len(rows) > 1 and time.time() < deadline:
        size = (len(rows) + chunks - 1) // chunks
        reduced = False
        for i in range(chunks):
            if time.time() > deadline:
                break
            cand = rows[:i * size] + rows[(i + 1) * size:]
            if cand != rows and fails(cand):
                rows = cand
                chunks = max(chunks - 1, 2)
                reduced = True
                break
        if not reduced:
            if chunks >= len(rows):
                break
            chunks = min(len(rows), chunks * 2)
    if not fails(rows):           # leave the table as it was for the caller
        rows = case.rows
    return rows


def probe_types(log):
    ok = []
    for name, sqltype, gen, specials in TYPES:
        lit = sql_literal(specials[0])
        try:
            psql(["SELECT count_distinct(v), array_agg_distinct(v) FROM (VALUES (CAST(%s AS %s))) s(v)"
                  % (lit, sqltype.split(" COLLATE ")[0])])
            ok.append(name)
        except SQLError as e:
            if e.sqlstate == "0A000":
                continue
            log("type probe for %s failed: %s" % (name, e.message))
            ok.append(name)           # let the cases report it
    return ok


def prune_specials(log, types):
    """Drop the special values this server's input refuses (numeric
    infinities before PostgreSQL 14), so that older servers run the rest."""
    for name in types:
        tname, sqltype, gen, specials = TYPE_BY_NAME[name]
        kept = []
        for v in specials:
            try:
                psql(["SELECT CAST(%s AS %s)" % (sql_literal(v), sqltype.split(" COLLATE ")[0])])
                kept.append(v)
            except SQLError:
                log("%s: special value %r not accepted by this server, left out" % (name, v))
        TYPE_BY_NAME[name] = (tname, sqltype, gen, kept or specials[:1])


def check_no_equality(log):
    """The extension must refuse types without btree equality, like native."""
    failures = 0
    for sqltype, lit in NO_EQUALITY_TYPES:
        try:
            psql(["SELECT count(DISTINCT v) FROM (VALUES (%s)) s(v)" % lit])
            native = None
        except SQLError as e:
            native = e.sqlstate
        try:
            psql(["SELECT count_distinct(v) FROM (VALUES (%s)) s(v)" % lit])
            ext = None
        except SQLError as e:
            ext = e.sqlstate
        if ext is None and native is not None:
            log("FAIL: count_distinct(%s) succeeded; native COUNT(DISTINCT) raises %s" % (sqltype, native))
            failures += 1
        elif ext != native:
            log("note: count_distinct(%s) raises %s, native COUNT(DISTINCT) raises %s"
                % (sqltype, ext, native))
    return failures


def main():
    global PSQL, ONLY_SHAPES, RECORD_SHARE, REPLACE_NATIVE
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", default="1")
    ap.add_argument("--cases", type=int, default=40)
    ap.add_argument("--case", type=int, default=None, help="run only this case")
    ap.add_argument("--minutes", type=float, default=None,
                    help="long mode: run cases until this many minutes have passed")
    ap.add_argument("--queries", type=int, default=6, help="queries per case")
    ap.add_argument("--types", default=None, help="comma-separated subset of the type table")
    ap.add_argument("--out", default=None, help="directory for reproducer files")
    ap.add_argument("--max-failures", type=int, default=5)
    ap.add_argument("--records", type=float, default=None,
                    help="share of aggregates over records (default %s)" % RECORD_SHARE)
    ap.add_argument("--replace-native", action="store_true",
                    help="transparent mode: unmodified count(DISTINCT) planned as count_distinct")
    ap.add_argument("--shapes", default=None,
                    help="comma-separated subset of the query shapes (mixed,split,window,corr)")
    args = ap.parse_args()
    if args.shapes:
        ONLY_SHAPES = args.shapes.split(",")
    if args.records is not None:
        RECORD_SHARE = args.records
    REPLACE_NATIVE = args.replace_native
    PSQL = psql_path()
    long_mode = args.minutes is not None

    def log(msg):
        print(msg, flush=True)

    psql(["CREATE EXTENSION IF NOT EXISTS count_distinct",
          "DROP SCHEMA IF EXISTS %s CASCADE" % SCHEMA, "CREATE SCHEMA %s" % SCHEMA])
    types = probe_types(log)
    if args.types:
        types = [t for t in types if t in args.types.split(",")]
    prune_specials(log, types)
    skipped = [t[0] for t in TYPES if t[0] not in types]
    log("difftest: seed %s; types %s; skipped (not supported): %s"
        % (args.seed, ",".join(types), ",".join(skipped) or "none"))
    for t in types:
        psql([domain_ddl(t)])
    outdir = args.out or tempfile.mkdtemp(prefix="cd_difftest.")

    passed = failed = 0
    failed += check_no_equality(log)
    stats = {}
    start = time.time()
    index = args.case if args.case is not None else 0
    ncases = 0
    while True:
        if args.case is not None:
            if ncases >= 1:
                break
        elif long_mode:
            if time.time() - start > args.minutes * 60:
                break
        elif ncases >= args.cases:
            break
        case = Case(args.seed, index, types, long_mode)
        ncases += 1
        index += 1
        case.load()
        case_failed = False
        detail = check_stats(case)
        stats["pg_stats: element type per group"] = stats.get("pg_stats: element type per group", 0) + 1
        if detail is None:
            passed += 1
        else:
            failed += 1
            log("FAIL: seed %s case %d pg_stats: %s" % (args.seed, case.index, detail))
        for qi in range(args.queries):
            g = gen_query(case.rng, case)
            if g is None:
                continue
            shape, mode, settings, query = g
            key = "%s/%s" % (shape, mode)
            stats[key] = stats.get(key, 0) + 1
            if "ROW(" in query:
                stats["expr: anonymous records"] = stats.get("expr: anonymous records", 0) + 1
            if case.comp and "::" + case.comp in query:
                stats["expr: named composite"] = stats.get("expr: named composite", 0) + 1
            detail = None
            try:
                nrows, plan = explain_run(settings, query)
                if "Partial" in plan and "Workers Launched: 0" not in plan:
                    stats["plan: partial aggregate in workers"] = stats.get(
                        "plan: partial aggregate in workers", 0) + 1
                if "HashAggregate" in plan or "MixedAggregate" in plan:
                    stats["plan: hash aggregate"] = stats.get("plan: hash aggregate", 0) + 1
                if REPLACE_NATIVE and "count(DISTINCT" in query:
                    # left native: planned again because count_distinct would
                    # have hash-aggregated many small groups (the rule of
                    # src/replace_native.c); the result is compared all the same
                    key2 = ("plan: count(DISTINCT) left native (many small groups)"
                            if "count(DISTINCT" in plan else
                            "plan: count(DISTINCT) planned as count_distinct")
                    stats[key2] = stats.get(key2, 0) + 1
                if re.findall(r"Batches: (?:[2-9]|\d\d+)", plan):
                    stats["plan: spilled hash aggregate"] = stats.get(
                        "plan: spilled hash aggregate", 0) + 1
                if nrows != 0:
                    res = run_query(settings, query)
                    if res is not None:
                        detail = "mismatching rows:\n" + res.strip()[:4000]
            except SQLError as e:
                detail = "error %s: %s" % (e.sqlstate, e.message[:2000])
            except subprocess.TimeoutExpired:
                detail = "timeout"
            if detail is None:
                passed += 1
                continue
            failed += 1
            case_failed = True
            log("FAIL: seed %s case %d query %d (%s, %s rows, %d groups)"
                % (args.seed, case.index, qi, key, case.nrows, case.ngroups))
            rows = shrink(case, settings, query, 60 if not long_mode else 180)
            repro = case.reproducer(query, settings, rows, detail)
            path = os.path.join(outdir, "difftest-%s-%d-%d.sql" % (args.seed, case.index, qi))
            with open(path, "w") as f:
                f.write(repro + "\n")
            lines = repro.splitlines()
            log("---- reproducer (%s) ----" % path)
            log("\n".join(lines if len(lines) <= 120 else lines[:60] + ["..."] + lines[-30:]))
            log("----")
            case.load()
            break                  # next case
        if not case_failed:
            case.drop()
        if failed >= args.max_failures:
            log("difftest: stopping after %d failures" % failed)
            break
    log("difftest: %d cases, %d queries in %.0f s" % (ncases, passed + failed, time.time() - start))
    for k, v in sorted(stats.items()):
        log("  %-40s %d" % (k, v))
    if failed == 0:
        psql(["DROP SCHEMA IF EXISTS %s CASCADE" % SCHEMA])
    print("difftest: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
