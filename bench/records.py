#!/usr/bin/env python3
"""Records as keys: count_distinct((a, b)) against native COUNT(DISTINCT (a, b))
and, for two int4 columns, against the same pairs as one int8 key.

    python3 bench/records.py [--scale 1.0] [--runs 3] [--only ii,tt,arr]

Talks to the server with psql (PGHOST, PGPORT, ... as usual; the extension
must be installed).  Data shapes (issue 38), rows times --scale:
  ii   3M rows (a int4, b int4), about 2.6M distinct pairs
  tt   1M rows (t text, ts timestamptz)
  arr  1M rows int4[] of two elements (no array keys yet: the comparator path)
For each shape: serial one group, 100 groups (hash aggregation), and one group
with 2 workers; work_mem 1GB.  Rounds are interleaved (native, count_distinct,
int8, native, ...) and the median is reported.  Memory: the HashAggregate's
peak memory of one group (GROUP BY a constant column) minus that of count(v)
over the same rows, divided by the number of distinct values.
"""
import argparse
import json
import statistics
import subprocess
import time

SHAPES = {
    "ii": dict(rows=3_000_000,
               create="SELECT (random() * 999999)::int4 AS a, (random() * 9)::int4 AS b, "
                      "(random() * 99)::int4 AS g, 0 AS z FROM generate_series(1, {n})",
               value="(a, b)", int8="a::int8 << 32 | b"),
    "tt": dict(rows=1_000_000,
               create="SELECT 'user' || (random() * 99999)::int AS t, "
                      "timestamptz '2024-01-01' + (random() * 999)::int * interval '1 hour' AS ts, "
                      "(random() * 99)::int4 AS g, 0 AS z FROM generate_series(1, {n})",
               value="(t, ts)", int8=None),
    "arr": dict(rows=1_000_000,
                create="SELECT ARRAY[(random() * 999)::int4, (random() * 999)::int4] AS v, "
                       "(random() * 99)::int4 AS g, 0 AS z FROM generate_series(1, {n})",
                value="v", int8=None),
}

SERIAL = ["SET work_mem = '1GB'", "SET max_parallel_workers_per_gather = 0", "SET jit = off"]
PARALLEL = ["SET work_mem = '1GB'", "SET max_parallel_workers_per_gather = 2", "SET jit = off",
            "SET parallel_setup_cost = 0", "SET parallel_tuple_cost = 0",
            "SET min_parallel_table_scan_size = 0"]


def psql(cmds):
    args = ["psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1"]
    for c in cmds:
        args += ["-c", c]
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout


def timed(settings, query):
    t = time.time()
    psql(settings + [query])
    return time.time() - t


def peak_kb(query):
    out = psql(SERIAL + ["SET enable_sort = off",
                         "EXPLAIN (ANALYZE, FORMAT JSON, COSTS OFF, TIMING OFF) " + query])
    plan = json.loads(out)[0]["Plan"]
    while plan.get("Node Type") != "Aggregate":
        plan = plan["Plans"][0]
    return plan.get("Peak Memory Usage")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--only", default=",".join(SHAPES))
    args = ap.parse_args()
    psql(["CREATE EXTENSION IF NOT EXISTS count_distinct"])
    for name in args.only.split(","):
        s = SHAPES[name]
        n = int(s["rows"] * args.scale)
        table = "bench_rec_%s" % name
        psql(["DROP TABLE IF EXISTS %s" % table, "SELECT setseed(0.38)",
              "CREATE TABLE %s AS %s" % (table, s["create"].format(n=n)),
              "VACUUM ANALYZE %s" % table])
        v = s["value"]
        nd = int(psql(SERIAL + ["SELECT count_distinct(%s) FROM %s" % (v, table)]))
        print("## %s: %d rows, %d distinct" % (name, n, nd))
        variants = [("serial, one group", SERIAL, ""),
                    ("serial, 100 groups", SERIAL, " GROUP BY g"),
                    ("2 workers, one group", PARALLEL, "")]
        for label, settings, group in variants:
            queries = [("native", "SELECT count(DISTINCT %s) FROM %s%s" % (v, table, group)),
                       ("count_distinct", "SELECT count_distinct(%s) FROM %s%s" % (v, table, group))]
            if s["int8"]:
                queries.append(("int8 key", "SELECT count_distinct(%s) FROM %s%s"
                                % (s["int8"], table, group)))
            times = {q[0]: [] for q in queries}
            for _ in range(args.runs):
                for lab, q in queries:
                    times[lab].append(timed(settings, q))
            med = {k: statistics.median(x) for k, x in times.items()}
            line = ", ".join("%s %.2f s" % (k, med[k]) for k in med)
            line += "; native / count_distinct = %.1fx" % (med["native"] / med["count_distinct"])
            if "int8 key" in med:
                line += "; count_distinct / int8 = %.2fx" % (med["count_distinct"] / med["int8 key"])
            print("  %-22s %s" % (label + ":", line))
        cd = peak_kb("SELECT count_distinct(%s) FROM %s GROUP BY z" % (v, table))
        floor = peak_kb("SELECT count(%s) FROM %s GROUP BY z" % (v, table))
        if cd is not None and floor is not None and nd > 0:
            print("  memory: peak %d kB, floor %d kB: %.1f bytes per distinct value"
                  % (cd, floor, (cd - floor) * 1024.0 / nd))
        psql(["DROP TABLE %s" % table])


if __name__ == "__main__":
    main()
