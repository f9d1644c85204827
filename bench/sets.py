#!/usr/bin/env python3
"""Stored sets (distinct_set) against pg_roaringbitmap, postgresql-hll and
native COUNT(DISTINCT) over the raw events: sizes, build, rollups,
retention, cardinality over many stored sets.  Run by
`bash bench/run.sh --sets` (which builds roaring and hll when their source
snapshots are there); stdlib only, psql through subprocess.

Writes bench/results/sets/: results.json (every timing), report.md (tables).
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time

p = argparse.ArgumentParser()
p.add_argument("--psql", default="psql")
p.add_argument("--command", default="bash bench/run.sh --sets")
p.add_argument("--days", type=int, default=30)
p.add_argument("--per-day", type=int, default=1000000, help="events per day")
p.add_argument("--users", type=int, default=20000000)
p.add_argument("--runs", type=int, default=5)
p.add_argument("--quick", action="store_true", help="7 days of 100k events, 3 runs")
p.add_argument("--out", default="bench/results/sets")
p.add_argument("--note", default="", help="a line for the report (e.g. what else ran)")
a = p.parse_args()
if a.quick:
    a.days, a.per_day, a.runs = 7, 100000, 3
    a.out = a.out + "-quick"


def psql(sql, db="postgres"):
    r = subprocess.run([a.psql, "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-d", db],
                       input=sql, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("psql failed: %s\n%s" % (r.stderr, sql[:2000]))
    return r.stdout


def has_ext(name):
    return psql("SELECT count(*) FROM pg_available_extensions WHERE name = '%s'" % name).strip() == "1"


def timed(sql, runs=None):
    """median ms of runs executions (after one warm-up) and the last result"""
    runs = runs or a.runs
    script = "SET max_parallel_workers_per_gather = 0;\n" + "\n".join(
        ["\\timing off", sql, "\\timing on"] + [sql] * runs)
    out = psql(script, "bench_sets")
    times = [float(t) for t in re.findall(r"^Time: ([0-9.]+) ms", out, re.M)]
    res = [l for l in out.splitlines() if l and not l.startswith("Time:")]
    return statistics.median(times), res[-1] if res else None


psql("DROP DATABASE IF EXISTS bench_sets; CREATE DATABASE bench_sets")
rb = has_ext("roaringbitmap")
hll = has_ext("hll")
setup = ["CREATE EXTENSION count_distinct;"]
if rb:
    setup.append("CREATE EXTENSION roaringbitmap;")
if hll:
    setup.append("CREATE EXTENSION hll;")
psql("\n".join(setup), "bench_sets")
print("sets: roaringbitmap %s, hll %s" % ("yes" if rb else "absent", "yes" if hll else "absent"))

results = {"command": a.command, "days": a.days, "per_day": a.per_day, "users": a.users,
           "runs": a.runs, "roaringbitmap": rb, "hll": hll, "sizes": [], "timings": []}

# ---- sizes per value
shapes = [
    ("int4 random (100k of 2^31)", "int4", "SELECT (random() * 2147483647)::int4 FROM generate_series(1, 100000)"),
    ("int4 5%-dense (~1M of 20M)", "int4", "SELECT v FROM generate_series(1, 20000000) v WHERE random() < 0.05"),
    ("int4 dense 1..1M", "int4", "SELECT v FROM generate_series(1, 1000000) v"),
    ("int8 clustered (1M)", "int8", "SELECT v::int8 * 1000 + v % 7 FROM generate_series(1, 1000000) v"),
    ("uuid (100k)", "uuid", "SELECT md5(v::text)::uuid FROM generate_series(1, 100000) v"),
    ("text md5 (100k)", "text", "SELECT md5(v::text) FROM generate_series(1, 100000) v"),
]
for name, typ, q in shapes:
    cols = ["count(DISTINCT v)", "pg_column_size(distinct_set_agg(v))"]
    if rb and typ == "int4":
        cols.append("pg_column_size(rb_runoptimize(rb_build_agg(v)))")
    else:
        cols.append("NULL")
    if hll:
        h = {"int4": "hll_hash_integer(v)", "int8": "hll_hash_bigint(v)", "uuid": "hll_hash_text(v::text)",
             "text": "hll_hash_text(v)"}[typ]
        cols.append("pg_column_size(hll_add_agg(%s))" % h)
    else:
        cols.append("NULL")
    row = psql("SELECT %s FROM (%s) x(v)" % (", ".join(cols), q), "bench_sets").strip().split("|")
    n, ds, r, hl = int(row[0]), int(row[1]), row[2], row[3]
    results["sizes"].append({"shape": name, "n": n, "distinct_set": ds,
                             "roaring": int(r) if r else None, "hll": int(hl) if hl else None})
    print("size %-28s %9d values: distinct_set %d B (%.4g B/value)%s" % (
        name, n, ds, ds / n, ", roaring %s B (%.4g B/value)" % (r, int(r) / n) if r else ""))

# ---- events and daily sets
psql("""
CREATE UNLOGGED TABLE events AS
SELECT d AS day, (random() * %d)::int4 AS user_id
FROM generate_series(1, %d) d, generate_series(1, %d);
VACUUM ANALYZE events;
""" % (a.users, a.days, a.per_day), "bench_sets")

builds = [("distinct_set_agg", "CREATE TABLE ds_daily AS SELECT day, distinct_set_agg(user_id) AS s FROM events GROUP BY day")]
if rb:
    builds.append(("rb_build_agg", "CREATE TABLE rb_daily AS SELECT day, rb_runoptimize(rb_build_agg(user_id)) AS r FROM events GROUP BY day"))
if hll:
    builds.append(("hll_add_agg", "CREATE TABLE hll_daily AS SELECT day, hll_add_agg(hll_hash_integer(user_id)) AS h FROM events GROUP BY day"))
for name, q in builds:
    table = q.split()[2]
    ms = []
    for i in range(a.runs):
        t0 = time.time()
        psql("DROP TABLE IF EXISTS %s; SET max_parallel_workers_per_gather = 0; %s" % (table, q), "bench_sets")
        ms.append((time.time() - t0) * 1000)
    results["timings"].append({"question": "build %d daily sets" % a.days, "method": name,
                               "ms": statistics.median(ms), "result": None})
    print("build %-20s %8.0f ms" % (name, statistics.median(ms)))
psql("VACUUM ANALYZE ds_daily" + ("; VACUUM ANALYZE rb_daily" if rb else "") +
     ("; VACUUM ANALYZE hll_daily" if hll else ""), "bench_sets")

questions = [
    ("weekly distinct users (GROUP BY week)",
     "SELECT sum(n) FROM (SELECT cardinality(distinct_set_union_agg(s)) AS n FROM ds_daily GROUP BY (day - 1) / 7) x",
     "SELECT sum(n) FROM (SELECT rb_cardinality(rb_or_agg(r)) AS n FROM rb_daily GROUP BY (day - 1) / 7) x",
     "SELECT sum(n)::bigint FROM (SELECT hll_cardinality(hll_union_agg(h)) AS n FROM hll_daily GROUP BY (day - 1) / 7) x",
     "SELECT sum(n) FROM (SELECT count(DISTINCT user_id) AS n FROM events GROUP BY (day - 1) / 7) x"),
    ("distinct users over all days",
     "SELECT cardinality(distinct_set_union_agg(s)) FROM ds_daily",
     "SELECT rb_cardinality(rb_or_agg(r)) FROM rb_daily",
     "SELECT hll_cardinality(hll_union_agg(h))::bigint FROM hll_daily",
     "SELECT count(DISTINCT user_id) FROM events"),
    ("retention: day 1 users active on the last day",
     "SELECT cardinality(a.s & b.s) FROM ds_daily a, ds_daily b WHERE a.day = 1 AND b.day = %d" % a.days,
     "SELECT rb_and_cardinality(a.r, b.r) FROM rb_daily a, rb_daily b WHERE a.day = 1 AND b.day = %d" % a.days,
     None,
     "SELECT count(*) FROM (SELECT user_id FROM events WHERE day = 1 INTERSECT SELECT user_id FROM events WHERE day = %d) x" % a.days),
    ("weekly sets themselves (the union encoded, GROUP BY week)",
     "SELECT sum(cardinality(u)) FROM (SELECT distinct_set_union_agg(s) AS u FROM ds_daily GROUP BY (day - 1) / 7) x",
     "SELECT sum(rb_cardinality(u)) FROM (SELECT rb_or_agg(r) AS u FROM rb_daily GROUP BY (day - 1) / 7) x",
     None, None),
    ("7-day rolling distinct users, every day (sliding window frames)",
     "SELECT sum(n) FROM (SELECT cardinality(distinct_set_union_agg(s) OVER (ORDER BY day ROWS 6 PRECEDING)) AS n FROM ds_daily) x",
     "SELECT sum(n) FROM (SELECT rb_cardinality(rb_or_agg(r) OVER (ORDER BY day ROWS 6 PRECEDING)) AS n FROM rb_daily) x",
     "SELECT sum(n)::bigint FROM (SELECT hll_cardinality(hll_union_agg(h) OVER (ORDER BY day ROWS 6 PRECEDING)) AS n FROM hll_daily) x",
     None),
    ("7-day rolling sets themselves, every day (sliding frames)",
     "SELECT sum(cardinality(u)) FROM (SELECT distinct_set_union_agg(s) OVER (ORDER BY day ROWS 6 PRECEDING) AS u FROM ds_daily) x",
     "SELECT sum(rb_cardinality(u)) FROM (SELECT rb_or_agg(r) OVER (ORDER BY day ROWS 6 PRECEDING) AS u FROM rb_daily) x",
     None, None),
    ("distinct users since the first day, every day (running frames)",
     "SELECT sum(n) FROM (SELECT cardinality(distinct_set_union_agg(s) OVER (ORDER BY day)) AS n FROM ds_daily) x",
     "SELECT sum(n) FROM (SELECT rb_cardinality(rb_or_agg(r) OVER (ORDER BY day)) AS n FROM rb_daily) x",
     "SELECT sum(n)::bigint FROM (SELECT hll_cardinality(hll_union_agg(h) OVER (ORDER BY day)) AS n FROM hll_daily) x",
     None),
    ("sets since the first day themselves, every day (running frames)",
     "SELECT sum(cardinality(u)) FROM (SELECT distinct_set_union_agg(s) OVER (ORDER BY day) AS u FROM ds_daily) x",
     "SELECT sum(rb_cardinality(u)) FROM (SELECT rb_or_agg(r) OVER (ORDER BY day) AS u FROM rb_daily) x",
     None, None),
    ("cardinality of every daily set",
     "SELECT sum(cardinality(s)) FROM ds_daily",
     "SELECT sum(rb_cardinality(r)) FROM rb_daily",
     "SELECT sum(hll_cardinality(h))::bigint FROM hll_daily",
     "SELECT sum(n) FROM (SELECT count(DISTINCT user_id) AS n FROM events GROUP BY day) x"),
]
for q, ds, r, h, native in questions:
    for method, sql in (("distinct_set", ds), ("roaring", r if rb else None),
                        ("hll", h if hll else None), ("native COUNT(DISTINCT)", native)):
        if sql is None:
            continue
        runs = 1 if method.startswith("native") else None
        ms, res = timed(sql + ";", runs)
        results["timings"].append({"question": q, "method": method, "ms": ms, "result": res})
        print("%-48s %-24s %9.1f ms  %s" % (q, method, ms, res))

os.makedirs(a.out, exist_ok=True)
with open(os.path.join(a.out, "results.json"), "w") as f:
    json.dump(results, f, indent=1)
lines = ["# Stored sets", "", "`%s`: %d days of %d events, users drawn from %d; median of %d runs "
         "(native: 1 run); PostgreSQL serial plans." % (a.command, a.days, a.per_day, a.users, a.runs)]
if a.note:
    lines += ["", a.note]
lines += ["",
         "## Size (pg_column_size)", "",
         "| shape | values | distinct_set bytes | B/value | roaring (rb_runoptimize) bytes | B/value | hll bytes |",
         "|---|---|---|---|---|---|---|"]
for s in results["sizes"]:
    lines.append("| %s | %d | %d | %.4g | %s | %s | %s |" % (
        s["shape"], s["n"], s["distinct_set"], s["distinct_set"] / s["n"],
        s["roaring"] or "", "%.4g" % (s["roaring"] / s["n"]) if s["roaring"] else "", s["hll"] or ""))
lines += ["", "## Time (ms) and answers (hll: approximate)", "", "| question | method | ms | answer |", "|---|---|---|---|"]
for t in results["timings"]:
    lines.append("| %s | %s | %.1f | %s |" % (t["question"], t["method"], t["ms"], t["result"] or ""))
with open(os.path.join(a.out, "report.md"), "w") as f:
    f.write("\n".join(lines) + "\n")
print("sets: wrote %s/report.md" % a.out)
psql("DROP DATABASE bench_sets")
