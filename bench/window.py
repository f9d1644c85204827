#!/usr/bin/env python3
"""count_distinct window benchmark (stdlib only): running and sliding frames.

Run through `bash bench/run.sh --window`, which installs, builds, starts a
throwaway cluster and exports PGHOST/PGPORT/PGUSER/PGDATABASE; or directly
against any server with the extension installed.

Timing method (as bench.py): every query runs as
    EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON) <query>
and we take the server-side "Execution Time": the window runs completely,
no rows go to the client.  Runs are interleaved (round 1 of every query,
then round 2, ..., each round rotated) and we report medians.

Shapes (N rows, i = 1..N, values H(i) mod N/4: about N/4.07 distinct, in
random order; "text" is md5 of that number):
  running   count_distinct(v) OVER (ORDER BY i ROWS UNBOUNDED PRECEDING)
  sliding   count_distinct(v) OVER (ORDER BY i ROWS BETWEEN 999 PRECEDING AND CURRENT ROW)
each against count(v) OVER the same frame (the floor), at 200k and 1M rows
(scaling); and a rolling 7-day distinct-users count over a year of daily
events (RANGE BETWEEN '6 days' PRECEDING AND CURRENT ROW), per day, against
the usual rewrites with native COUNT(DISTINCT) per day: a self-join of each
day with its 7 days (index on day), and each event copied to its 7 days.  Every query pair is checked for equal results.
"""

import argparse
import csv
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from bench import PG, H, machine_info, median, log  # noqa: E402

SETTINGS = {"jit": "off", "max_parallel_workers_per_gather": "0", "work_mem": "'1GB'"}

TYPES = {
    "int4": "(({u}) % {d})::int4",
    "text": "md5((({u}) % {d})::text)",
}

FRAMES = {
    "running": "ORDER BY i ROWS UNBOUNDED PRECEDING",
    "sliding": "ORDER BY i ROWS BETWEEN 999 PRECEDING AND CURRENT ROW",
}

# the rolling 7-day query: a year of days, EVENTS_PER_DAY events a day from
# USERS users (a few heavy users, most rare)
DAYS = 365
EVENTS_PER_DAY = 1000
USERS = 50000

ROLLING_WINDOW = """SELECT DISTINCT day, count_distinct(user_id) OVER w AS users_7d
FROM events WINDOW w AS (ORDER BY day RANGE BETWEEN '6 days' PRECEDING AND CURRENT ROW)"""

ROLLING_SELFJOIN = """SELECT d.day, count(DISTINCT e.user_id) AS users_7d
FROM (SELECT DISTINCT day FROM events) d
JOIN events e ON e.day BETWEEN d.day - 6 AND d.day
GROUP BY d.day"""

ROLLING_EXPAND = """SELECT e.day + k AS day, count(DISTINCT e.user_id) AS users_7d
FROM events e, generate_series(0, 6) k
WHERE e.day + k <= (SELECT max(day) FROM events)
GROUP BY 1"""


def table(tname, n):
    return f"win_{tname}_{n}"


def generate(pg, tname, n):
    t = table(tname, n)
    if pg.value(f"SELECT count(*) FROM pg_class WHERE relname = '{t}'") == "1":
        return
    log(f"generate {t}")
    v = TYPES[tname].format(u=H("i"), d=n // 4)
    pg.run(f"CREATE TABLE {t} AS SELECT i::int4 AS i, {v} AS v "
           f"FROM generate_series(1, {n}) i; VACUUM ANALYZE {t}")


def generate_events(pg):
    if pg.value("SELECT count(*) FROM pg_class WHERE relname = 'events'") == "1":
        return
    log("generate events")
    pg.run(f"""CREATE TABLE events AS
        SELECT date '2024-01-01' + d AS day,
               (floor(exp(random() * ln({USERS}))))::int4 AS user_id
        FROM generate_series(0, {DAYS - 1}) d, generate_series(1, {EVENTS_PER_DAY}) k;
        CREATE INDEX ON events (day);
        VACUUM ANALYZE events""")


def window_query(agg, tname, n, frame):
    return f"SELECT {agg}(v) OVER w FROM {table(tname, n)} WINDOW w AS ({FRAMES[frame]})"


def check_equal(pg, a, b, what):
    """Both queries return the same rows (as multisets)."""
    diff = pg.value(f"SELECT count(*) FROM ((({a}) EXCEPT ALL ({b})) UNION ALL "
                    f"(({b}) EXCEPT ALL ({a}))) x", SETTINGS)
    ok = diff == "0"
    log(f"check {what}: {'same results' if ok else 'DIFFERENT (' + diff + ' rows)'}")
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--sizes", default="200000,1000000")
    ap.add_argument("--types", default="int4,text")
    ap.add_argument("--outdir", default=os.path.join(HERE, "results", "window"))
    ap.add_argument("--psql", default="psql")
    ap.add_argument("--command", default="bash bench/run.sh --window")
    a = ap.parse_args()
    os.makedirs(a.outdir, exist_ok=True)
    pg = PG(a.psql)
    pg.run("CREATE EXTENSION IF NOT EXISTS count_distinct")
    sizes = [int(s) for s in a.sizes.split(",")]
    types = a.types.split(",")
    meta = dict(runs=a.runs, command=a.command, machine=machine_info(pg), settings=SETTINGS)

    # queries: name -> sql; pairs checked for equal results
    qs = {}
    checks = []
    for n in sizes:
        for tname in types:
            generate(pg, tname, n)
            for frame in FRAMES:
                cd = f"{frame}/{tname}/{n}/count_distinct"
                fl = f"{frame}/{tname}/{n}/count"
                qs[cd] = window_query("count_distinct", tname, n, frame)
                qs[fl] = window_query("count", tname, n, frame)
    generate_events(pg)
    qs["rolling7d/window"] = ROLLING_WINDOW
    qs["rolling7d/selfjoin_count_distinct_native"] = ROLLING_SELFJOIN
    qs["rolling7d/expand_count_distinct_native"] = ROLLING_EXPAND

    # correctness: running counts against first-occurrence flags, sliding
    # frames (smallest size) against a self-join, rolling against the rewrite
    n0 = sizes[0]
    for tname in types:
        t = table(tname, n0)
        checks.append(check_equal(
            pg, f"SELECT i, count_distinct(v) OVER (ORDER BY i ROWS UNBOUNDED PRECEDING) FROM {t}",
            f"SELECT i, sum((r = 1)::int) OVER (ORDER BY i ROWS UNBOUNDED PRECEDING) "
            f"FROM (SELECT i, row_number() OVER (PARTITION BY v ORDER BY i) r FROM {t}) s",
            f"running/{tname}/{n0} vs first-occurrence flags"))
        checks.append(check_equal(
            pg, f"SELECT i, c FROM (SELECT i, count_distinct(v) OVER (ORDER BY i ROWS BETWEEN 999 "
                f"PRECEDING AND CURRENT ROW) c FROM {t}) s WHERE i % 50 = 0",
            f"SELECT a.i, count(DISTINCT b.v) FROM {t} a JOIN {t} b ON b.i BETWEEN a.i - 999 AND a.i "
            f"WHERE a.i % 50 = 0 GROUP BY a.i",
            f"sliding/{tname}/{n0} vs self-join (every 50th row)"))
    checks.append(check_equal(pg, ROLLING_WINDOW, ROLLING_SELFJOIN, "rolling7d window vs self-join"))
    checks.append(check_equal(pg, ROLLING_WINDOW, ROLLING_EXPAND, "rolling7d window vs expansion"))

    names = list(qs)
    times = {k: [] for k in names}
    rows = []
    for r in range(a.runs):
        order = names[r % len(names):] + names[:r % len(names)]
        for k in order:
            ex = pg.explain(qs[k], SETTINGS)
            ms = ex["Execution Time"]
            times[k].append(ms)
            rows.append(dict(run=r + 1, query=k, ms=round(ms, 3), load1=os.getloadavg()[0]))
        log(f"round {r + 1}/{a.runs} done")
    meta["machine"]["loadavg_end"] = os.getloadavg()

    med = {k: median(v) for k, v in times.items()}
    summary = []
    for n in sizes:
        for tname in types:
            for frame in FRAMES:
                cd = med[f"{frame}/{tname}/{n}/count_distinct"]
                fl = med[f"{frame}/{tname}/{n}/count"]
                summary.append(dict(frame=frame, type=tname, rows=n, cd_ms=cd, count_ms=fl,
                                    ratio=cd / fl))
    scaling = []
    if len(sizes) > 1:
        for tname in types:
            for frame in FRAMES:
                lo = med[f"{frame}/{tname}/{sizes[0]}/count_distinct"]
                hi = med[f"{frame}/{tname}/{sizes[-1]}/count_distinct"]
                scaling.append(dict(frame=frame, type=tname, small=sizes[0], large=sizes[-1],
                                    ratio=hi / lo, rows_ratio=sizes[-1] / sizes[0]))
    rolling = {k.split("/")[1]: med[k] for k in med if k.startswith("rolling7d/")}

    with open(os.path.join(a.outdir, "runs.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["run", "query", "ms", "load1"])
        w.writeheader()
        w.writerows(rows)
    with open(os.path.join(a.outdir, "results.json"), "w") as f:
        json.dump(dict(meta=meta, queries=qs, times=times, medians=med, summary=summary,
                       scaling=scaling, rolling=rolling, checks_passed=all(checks)), f, indent=1)

    m = meta["machine"]
    out = ["# count_distinct window benchmark", "",
           f"`{a.command}`; {m['pg_version']}; {m.get('cpu_model_name', '?')}, {m['nproc']} CPUs; "
           f"load average at start {m['loadavg_start'][0]:.2f}, at end {m['loadavg_end'][0]:.2f} "
           "(the machine may be shared).", "",
           f"Server-side execution time (`EXPLAIN (ANALYZE, TIMING OFF)`), median of {a.runs} "
           f"interleaved runs, ms. Settings: {', '.join(f'{k}={v}' for k, v in SETTINGS.items())}.",
           f"Results checked: {'all equal to their references' if all(checks) else 'MISMATCH'} "
           "(running counts vs first-occurrence flags, sliding vs a self-join, rolling vs the rewrite).",
           "", "## Running and sliding frames, against count(v) over the same frame", "",
           "| frame | type | rows | count_distinct ms | count(v) ms | ratio | target |",
           "|---|---|---|---|---|---|---|"]
    for s in summary:
        target = 3.0 if s["frame"] == "running" else 4.0
        verdict = ("PASS" if s["ratio"] <= target else "MISS") + f" (<= {target:g}x)"
        out.append(f"| {FRAMES[s['frame']]} | {s['type']} | {s['rows']:,} | {s['cd_ms']:,.0f} | "
                   f"{s['count_ms']:,.0f} | {s['ratio']:.2f} | {verdict} |")
    if scaling:
        out += ["", "## Scaling", "",
                "| frame | type | rows | count_distinct ms ratio | rows ratio |", "|---|---|---|---|---|"]
        for s in scaling:
            out.append(f"| {s['frame']} | {s['type']} | {s['small']:,} -> {s['large']:,} | "
                       f"{s['ratio']:.2f} | {s['rows_ratio']:.0f} |")
    out += ["", f"## Rolling 7-day distinct users ({DAYS} days x {EVENTS_PER_DAY:,} events, "
            f"{USERS:,} possible users)", "",
            "| query | ms |", "|---|---|",
            f"| window: `count_distinct(user_id) OVER (ORDER BY day RANGE BETWEEN '6 days' PRECEDING "
            f"AND CURRENT ROW)` | {rolling['window']:,.0f} |",
            f"| self-join rewrite, native `count(DISTINCT user_id)` per day | "
            f"{rolling['selfjoin_count_distinct_native']:,.0f} |",
            f"| rewrite: each event copied to its 7 days, native `count(DISTINCT user_id)` per day | "
            f"{rolling['expand_count_distinct_native']:,.0f} |", "",
            "Queries (`events` has an index on `day`):", "", "```sql", ROLLING_WINDOW + ";", "",
            ROLLING_SELFJOIN + ";", "", ROLLING_EXPAND + ";", "```", ""]
    with open(os.path.join(a.outdir, "report.md"), "w") as f:
        f.write("\n".join(out))
    print("\n".join(out))
    if not all(checks):
        sys.exit(1)


if __name__ == "__main__":
    main()
