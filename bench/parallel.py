#!/usr/bin/env python3
"""count_distinct parallel, state-size and memory benchmark (stdlib only; charts need matplotlib).

Run through `bash bench/run.sh --parallel`, which installs, builds, starts a
throwaway cluster and exports PGHOST/PGPORT/PGUSER/PGDATABASE and
CD_CLUSTER_DIR (the server log is $CD_CLUSTER_DIR/log); or directly against
any server with the extension installed (`--server-log FILE` for part 2).

1. Parallel speedups: int4 tables of N rows (--rows, default 10M), values
   hashint4(i), in 1 group, 100 groups, 10k groups (~N/10k each) and N/10
   groups of 10.  Per shape: count(v) serial (the floor) and with 2 forced
   workers, native COUNT(DISTINCT v) serial, count_distinct(v) serial, with 2
   forced workers (parallel_setup_cost = parallel_tuple_cost = 0,
   min_parallel_table_scan_size = 0) and with the planner's default costs at
   max_parallel_workers_per_gather = 2 (the plan it chose is recorded).
2. Serialized state sizes: cd_state_write (serialize.c) logs at DEBUG2 one line per state
   ("count_distinct: N keys of W bytes serialized into B bytes"); a forced
   parallel count_distinct runs with log_min_messages = debug2 (workers
   inherit it) and the lines it added to the server log are summed.
3. Transient memory: the backend's RssAnon (/proc/<pid>/status, pid from
   pg_backend_pid() in the same session) is sampled every 10 ms by a thread
   while the serial query over the one-group table runs; peak minus the value
   before the query, over the distinct data (distinct x 4 bytes), next to
   EXPLAIN's "Peak Memory Usage" of the HashAggregate (GROUP BY a constant).
4. Scale series, one group of int8 (distinct by construction): 1M and 10M
   rows, plus --big-rows (default 100M) with --big: time per row and memory
   per distinct value.

Timing: server-side "Execution Time" of EXPLAIN (ANALYZE, TIMING OFF), median
of --runs interleaved rounds (each round rotated).

Output in --outdir: report.md, results.json, runs.csv and, with matplotlib,
speedup.png, state_size.png, scale_series.png and transient_memory.png, drawn
from results.json alone: `python3 bench/parallel.py --charts-only DIR` redraws
them from DIR/results.json without a server.
"""

import argparse
import csv
import json
import os
import re
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from bench import PG, H, machine_info, median, log, plan_info  # noqa: E402

BASE = {"jit": "off"}
SERIAL = {**BASE, "max_parallel_workers_per_gather": "0", "enable_sort": "off"}
FORCED = {**BASE, "max_parallel_workers_per_gather": "2", "parallel_setup_cost": "0",
          "parallel_tuple_cost": "0", "min_parallel_table_scan_size": "0", "enable_sort": "off"}
DEFAULT = {**BASE, "max_parallel_workers_per_gather": "2"}
NATIVE = {**BASE, "max_parallel_workers_per_gather": "0"}

LOGLINE = re.compile(r"count_distinct: (\d+) keys of (\d+) bytes serialized into (\d+) bytes")


def shapes(n):
    """name -> (groups expression or None, description)."""
    return {
        "1g": (None, f"1 group, {n:,} rows"),
        "100g": ("i % 100", f"100 groups x {n // 100:,} rows"),
        "10kg": ("i % 10000", f"10k groups x {n // 10000:,} rows"),
        "n10g_x10": (f"i % {max(n // 10, 1)}", f"{max(n // 10, 1):,} groups x 10 rows"),
    }


# extra shapes for the state sizes only: one group each
SER_EXTRA = {
    "dense_int4": ("int4", "i::int4", "1 group, int4 1..N (dense)"),
    "text_user": ("text", "'user_' || lpad(i::text, 8, '0')", "1 group, 'user_' || 8 digits"),
    "text_md5": ("text", "md5(i::text)", "1 group, md5(i::text)"),
}

INT8 = f"((({H('i')}) - 2147483648) * 2147483659)::int8"


def exists(pg, t):
    return pg.value(f"SELECT count(*) FROM pg_class WHERE relname = '{t}'") == "1"


def create(pg, t, rows, g, v):
    if exists(pg, t):
        return
    log(f"generate {t}")
    t0 = time.time()
    pg.run(f"CREATE UNLOGGED TABLE {t} AS SELECT ({g})::int4 AS g, {v} AS v "
           f"FROM generate_series(0, {rows - 1}::int8) i; "
           f"ALTER TABLE {t} SET (autovacuum_enabled = off); VACUUM (FREEZE, ANALYZE) {t}")
    log(f"  {t}: {time.time() - t0:.0f} s")


def rss_anon_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("RssAnon:"):
                return int(line.split()[1])
    return None


def sampled(psql, sql, settings, interval=0.01):
    """Run sql in a fresh session while a thread samples the backend's RssAnon.
    Returns (peak_kb - before_kb, before_kb, peak_kb, samples, output)."""
    p = subprocess.Popen([psql, "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    pre = "".join(f"SET {k} = {v};\n" for k, v in settings.items())
    # load the library and warm the session before measuring "before"
    p.stdin.write(pre + "SELECT count_distinct(x) FROM (VALUES (1), (2)) s(x) \\g /dev/null\n"
                  "SELECT pg_backend_pid();\n")
    p.stdin.flush()
    pid = int(p.stdout.readline().strip())
    before = rss_anon_kb(pid)
    state = {"peak": before, "n": 0, "stop": False}

    def sample():
        while not state["stop"]:
            try:
                x = rss_anon_kb(pid)
            except OSError:
                break
            if x is not None and x > state["peak"]:
                state["peak"] = x
            state["n"] += 1
            time.sleep(interval)

    th = threading.Thread(target=sample, daemon=True)
    th.start()
    p.stdin.write(sql + ";\n\\echo __cd_end__\n")
    p.stdin.flush()
    out = []
    while True:
        line = p.stdout.readline()
        if not line or line.strip() == "__cd_end__":
            break
        out.append(line)
    state["stop"] = True
    th.join()
    p.stdin.close()
    if p.wait() != 0:
        raise RuntimeError(f"psql failed in sampled run: {sql[:200]}")
    return dict(delta_kb=state["peak"] - before, before_kb=before, peak_kb=state["peak"],
                samples=state["n"]), "".join(out)


def agg_peak_kb(ex):
    for nd in _walk(ex["Plan"]):
        if nd["Node Type"] == "Aggregate" and "Peak Memory Usage" in nd:
            return nd["Peak Memory Usage"]
    return None


def _walk(node):
    yield node
    for c in node.get("Plans", []):
        yield from _walk(c)


def serialized_sizes(pg, logfile, t, query):
    """Run query (forced parallel) with log_min_messages = debug2 and sum the
    cd_state_write lines it added to the server log."""
    start = os.path.getsize(logfile)
    ex = pg.explain(query, {**FORCED, "log_min_messages": "debug2"})
    time.sleep(0.2)
    with open(logfile, "rb") as f:
        f.seek(start)
        text = f.read().decode("utf-8", "replace")
    lines = [tuple(int(x) for x in m.groups()) for m in LOGLINE.finditer(text)]
    info = plan_info(ex)
    return dict(states=len(lines), keys=sum(k for k, _, _ in lines),
                widths=sorted({w for _, w, _ in lines}),
                serialized_bytes=sum(b for _, _, b in lines),
                workers=info["workers_launched"], plan=info["plan"])


# ---------------------------------------------------------------- charts
# Drawn from results.json alone (python3 bench/parallel.py --charts-only DIR);
# matplotlib is optional: without it the charts are skipped.
SPEEDUP_GOAL = 1.6       # 2 workers vs serial
STATE_GOAL = 3.0         # raw / serialized, dense or clustered ints
TRANSIENT_LINES = (1.10, 1.3)  # peak RssAnon / data

SHAPE_LABELS = {"1g": "1 group", "100g": "100 groups", "10kg": "10k groups", "n10g_x10": "N/10 groups x 10"}


def _caption(meta):
    """One line on where the numbers come from, for the foot of every chart."""
    m = meta.get("machine", {})
    pg = " ".join(str(m.get("pg_version", "PostgreSQL ?")).split()[:2])
    la = m.get("loadavg_start"), m.get("loadavg_end")
    load = f", load {la[0][0]:.2f} -> {la[1][0]:.2f}" if la[0] and la[1] else ""
    return (f"{pg}, {m.get('nproc', '?')} CPUs{load}; median of {meta.get('runs', '?')} runs; "
            f"{meta.get('command', '')}")


def _log_ticks(ax, lo, hi, cands=(0.1, 0.25, 0.5, 1, 1.5, 2, 3, 5, 10, 20, 50, 100, 200)):
    from matplotlib.ticker import FormatStrFormatter, NullFormatter
    ax.set_yscale("log")
    ax.set_ylim(lo, hi)
    ax.set_yticks([c for c in cands if lo <= c <= hi])
    ax.yaxis.set_major_formatter(FormatStrFormatter("%g"))
    ax.yaxis.set_minor_formatter(NullFormatter())


def charts(res, outdir):
    """PNG charts from a results.json dict; returns [(file, title)] of those written."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        log("matplotlib not available: no charts")
        return []
    import textwrap
    meta = res.get("meta", {})
    cap = _caption(meta)
    made = []

    def save(fig, fn, title):
        fig.text(0.005, 0.005, cap, fontsize=7, color="dimgrey", ha="left", va="bottom")
        fig.tight_layout(rect=(0, 0.03, 1, 1))
        fig.savefig(os.path.join(outdir, fn), dpi=110)
        plt.close(fig)
        made.append((fn, title))

    def label_bars(ax, bars, texts, fontsize=8):
        for b, t in zip(bars, texts):
            if t:
                ax.annotate(t, (b.get_x() + b.get_width() / 2, b.get_height()), textcoords="offset points",
                            xytext=(0, 2), ha="center", va="bottom", fontsize=fontsize,
                            bbox=dict(boxstyle="square,pad=0.1", fc="white", ec="none", alpha=0.8))

    # 1. parallel speedups per shape
    par = res.get("parallel") or []
    if par:
        fig, ax = plt.subplots(figsize=(10, 5))
        x = range(len(par))
        series = [("speedup_forced", "count_distinct, 2 workers forced", "tab:blue"),
                  ("speedup_default", "count_distinct, planner's default plan", "tab:orange"),
                  ("floor_speedup_forced", "count(v) floor, 2 workers forced", "tab:grey")]
        w = 0.8 / len(series)
        for k, (key, lab, col) in enumerate(series):
            v = [p.get(key) or 0 for p in par]
            bars = ax.bar([i + (k - len(series) / 2 + 0.5) * w for i in x], v, w, label=lab, color=col)
            texts = [f"{y:.2f}x" for y in v]
            if key == "speedup_default":  # say which plan the planner chose
                texts = [t + ("" if p.get("default_parallel") else "\nserial plan")
                         for t, p in zip(texts, par)]
            label_bars(ax, bars, texts, fontsize=7)
        ax.axhline(SPEEDUP_GOAL, color="black", linestyle="--", linewidth=0.9,
                   label=f"goal: {SPEEDUP_GOAL}x with 2 workers")
        ax.axhline(1.0, color="black", linewidth=0.8, label="1.0x: as fast as serial")
        ax.set_xticks(list(x))
        ax.set_xticklabels([textwrap.fill(p.get("desc") or SHAPE_LABELS.get(p["shape"], p["shape"]), 28)
                            for p in par], fontsize=8)
        top = max([SPEEDUP_GOAL] + [p.get(k) or 0 for p in par for k, _, _ in series])
        ax.set_ylim(0, top * 1.5)  # room for the legend above the goal line
        ax.set_ylabel("speedup = serial time / parallel time (x)")
        ax.set_title(f"Parallel speedup over serial, int4, {meta.get('rows', 0):,} rows "
                     "(values hashint4(i))")
        ax.legend(fontsize=8, loc="upper right")
        save(fig, "speedup.png", "parallel speedup per shape")

    # 2. serialized state size
    ser = [r for r in res.get("serialized") or [] if r.get("ratio")]
    if ser:
        fig, ax = plt.subplots(figsize=(11, 5.5))
        colors = {"int4": "tab:blue", "int8": "tab:cyan", "text": "tab:green"}
        v = [r["ratio"] for r in ser]
        bars = ax.bar(range(len(ser)), v, 0.6, color=[colors.get(r.get("type"), "tab:purple") for r in ser])
        label_bars(ax, bars, [f"{y:.2f}x" for y in v])
        ax.axhline(STATE_GOAL, color="black", linestyle="--", linewidth=0.9,
                   label=f"goal: {STATE_GOAL:g}x for dense / clustered ints")
        ax.axhline(1.0, color="black", linewidth=0.8, label="1x: serialized = raw")
        for t in dict.fromkeys(r.get("type") for r in ser):  # legend entries for the bar colours
            ax.bar([0], [0], color=colors.get(t, "tab:purple"), label=f"{t} keys")
        ax.set_xticks(range(len(ser)))
        ax.set_xticklabels([textwrap.fill(f"{r.get('desc', r['shape'])} ({r.get('type', '?')}, "
                                          f"{r.get('states', 0):,} states)", 24) for r in ser], fontsize=7)
        _log_ticks(ax, min(v + [1.0]) / 1.6, max(v + [STATE_GOAL]) * 2)
        ax.set_ylabel("raw keys / serialized bytes (log scale; > 1 = smaller)")
        ax.set_title("Serialized partial states (forced 2 workers): raw size over serialized size\n"
                     "raw = keys x 4 for int4, keys x (4 + avg length) for text; "
                     "the first four shapes hold hashint4(i) (spread, not dense)", fontsize=10)
        ax.legend(fontsize=8, loc="upper left")
        save(fig, "state_size.png", "serialized state size")

    # 3. int8 scale series
    sc = sorted(res.get("scale") or [], key=lambda r: r["rows"])
    if sc:
        fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4.8))
        xs = [r["rows"] for r in sc]
        for key, lab, col in (("cd_ns_per_row", "count_distinct(v)", "tab:blue"),
                              ("floor_ns_per_row", "count(v) floor", "tab:grey")):
            ys = [r[key] for r in sc]
            a1.plot(xs, ys, marker="o", color=col, label=lab)
            for xx, yy in zip(xs, ys):
                a1.annotate(f"{yy:.0f}", (xx, yy), textcoords="offset points", xytext=(0, 6),
                            ha="center", fontsize=8)
        a1.set_xscale("log")
        a1.set_ylim(0, max(r["cd_ns_per_row"] for r in sc) * 1.25)
        a1.set_xlabel("rows = distinct values (log scale)")
        a1.set_ylabel("ns per row (serial execution time / rows)")
        a1.set_title("Time per row", fontsize=10)
        a1.legend(fontsize=8, loc="lower right")
        ys = [r["cd_bytes_per_distinct"] for r in sc]
        a2.plot(xs, ys, marker="o", color="tab:red", label="count_distinct(v): peak RssAnon / distinct")
        for xx, yy in zip(xs, ys):
            a2.annotate(f"{yy:.2f}", (xx, yy), textcoords="offset points", xytext=(0, 6), ha="center",
                        fontsize=8)
        a2.axhline(8, color="black", linestyle="--", linewidth=0.9, label="data: 8 bytes (int8)")
        a2.set_xscale("log")
        a2.set_ylim(0, max(ys + [8]) * 1.3)
        a2.set_xlabel("rows = distinct values (log scale)")
        a2.set_ylabel("bytes per distinct value")
        a2.set_title("Transient memory per distinct value", fontsize=10)
        a2.legend(fontsize=8, loc="lower right")
        fig.suptitle("Scale series: one group of int8, all values distinct (serial)")
        save(fig, "scale_series.png", "int8 scale series")

    # 4. transient memory, one group
    mem = res.get("memory") or []
    if mem:
        fig, ax = plt.subplots(figsize=(10, 5))
        x = range(len(mem))
        w = 0.38
        v = [r["ratio"] for r in mem]
        mx = [r["delta_kb_max"] * 1024 / r["data_bytes"] for r in mem]
        bars = ax.bar([i - w / 2 for i in x], v, w, color="tab:red",
                      label="backend peak RssAnon - before, median of runs (black: max of runs)")
        ax.vlines([i - w / 2 for i in x], v, mx, color="black", linewidth=1)
        ax.plot([i - w / 2 for i in x], mx, linestyle="", marker="_", markersize=14, color="black")
        for b, y, m in zip(bars, v, mx):  # above the max mark
            ax.annotate(f"{y:.2f}" + (f" (max {m:.2f})" if m - y >= 0.005 else ""),
                        (b.get_x() + b.get_width() / 2, max(y, m)), textcoords="offset points",
                        xytext=(0, 3), ha="center", va="bottom", fontsize=8,
                        bbox=dict(boxstyle="square,pad=0.1", fc="white", ec="none", alpha=0.8))
        ev = [r.get("explain_ratio") for r in mem]
        bars = ax.bar([i + w / 2 for i in x], [e or 0 for e in ev], w, color="tab:olive",
                      label="EXPLAIN Peak Memory Usage (HashAggregate only; -: not reported)")
        label_bars(ax, bars, [f"{e:.2f}" if e else "-" for e in ev])
        for y, ls in zip(TRANSIENT_LINES, ("--", ":")):
            ax.axhline(y, color="black", linestyle=ls, linewidth=0.9, label=f"{y:.2f}x data")
        ax.set_xticks(list(x))
        ax.set_xticklabels([textwrap.fill(r["query"], 26) for r in mem], fontsize=8)
        ax.set_ylim(0, max(v + mx + [max(TRANSIENT_LINES)]) * 1.5)
        ax.set_ylabel("memory / distinct data bytes (x)")
        d = mem[0].get("data_bytes")
        ax.set_title("Transient memory, one group of int4 (serial)"
                     + (f": over the distinct data, {d / 4:,.0f} x 4 = {d / 1e6:.1f} MB" if d else ""),
                     fontsize=10)
        ax.legend(fontsize=8, loc="upper right")
        save(fig, "transient_memory.png", "transient memory")
    for fn, _ in made:
        log(f"chart {os.path.join(outdir, fn)}")
    return made


def charts_md(made):
    if not made:
        return []
    return ["## Charts", ""] + [f"![{t}]({fn})" for fn, t in made] + [""]


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--mem-reps", type=int, default=3, help="sampled runs per memory query")
    ap.add_argument("--ser-rows", type=int, default=4_000_000, help="rows of the extra state-size shapes")
    ap.add_argument("--scale", default="1000000,10000000", help="int8 one-group sizes")
    ap.add_argument("--big", action="store_true", help="add --big-rows to the scale series")
    ap.add_argument("--big-rows", type=int, default=100_000_000)
    ap.add_argument("--server-log", default=os.path.join(os.environ.get("CD_CLUSTER_DIR", ""), "log")
                    if os.environ.get("CD_CLUSTER_DIR") else None)
    ap.add_argument("--outdir", default=os.path.join(HERE, "results", "parallel"))
    ap.add_argument("--psql", default="psql")
    ap.add_argument("--command", default="bash bench/run.sh --parallel")
    ap.add_argument("--charts-only", metavar="DIR",
                    help="only draw the charts from DIR/results.json into DIR (needs matplotlib, no server)")
    a = ap.parse_args()
    if a.charts_only:
        with open(os.path.join(a.charts_only, "results.json")) as f:
            made = charts(json.load(f), a.charts_only)
        if made:
            print("\n".join(charts_md(made)))
        sys.exit(0 if made else 1)
    os.makedirs(a.outdir, exist_ok=True)
    t_start = time.time()
    pg = PG(a.psql)
    pg.run("CREATE EXTENSION IF NOT EXISTS count_distinct")
    meta = dict(runs=a.runs, rows=a.rows, command=a.command, machine=machine_info(pg),
                settings=dict(serial=SERIAL, forced=FORCED, default=DEFAULT, native=NATIVE))
    n = a.rows
    SH = shapes(n)
    scale = [int(x) for x in a.scale.split(",") if x] + ([a.big_rows] if a.big else [])

    # ---- data
    for s, (g, _) in SH.items():
        create(pg, f"par_{s}_{n}", n, g or "0", "hashint4(i::int4)")
    for s in scale:
        create(pg, f"scale_int8_{s}", s, "0", INT8)

    # ---- queries
    qs = {}  # name -> (sql, settings)
    for s, (g, _) in SH.items():
        t = f"par_{s}_{n}"
        sel, grp = ("", "") if g is None else ("g, ", " GROUP BY g")
        qs[f"{s}/floor_serial"] = (f"SELECT {sel}count(v) FROM {t}{grp}", SERIAL)
        qs[f"{s}/floor_forced2"] = (f"SELECT {sel}count(v) FROM {t}{grp}", FORCED)
        qs[f"{s}/native_serial"] = (f"SELECT {sel}count(DISTINCT v) FROM {t}{grp}", NATIVE)
        qs[f"{s}/cd_serial"] = (f"SELECT {sel}count_distinct(v) FROM {t}{grp}", SERIAL)
        qs[f"{s}/cd_forced2"] = (f"SELECT {sel}count_distinct(v) FROM {t}{grp}", FORCED)
        qs[f"{s}/cd_default"] = (f"SELECT {sel}count_distinct(v) FROM {t}{grp}", DEFAULT)
    for s in scale:
        t = f"scale_int8_{s}"
        qs[f"scale{s}/cd_serial"] = (f"SELECT count_distinct(v) FROM {t}", SERIAL)
        qs[f"scale{s}/floor_serial"] = (f"SELECT count(v) FROM {t}", SERIAL)

    # ---- correctness: count_distinct against native per shape
    truth = {}
    checks = []
    for s, (g, _) in SH.items():
        t = f"par_{s}_{n}"
        nat = pg.value(f"SELECT count(*), sum(c) FROM (SELECT g, count(DISTINCT v) c FROM {t} GROUP BY g) x",
                       NATIVE).split("|")
        cds = pg.value(f"SELECT count(*), sum(c) FROM (SELECT g, count_distinct(v) c FROM {t} GROUP BY g) x",
                       FORCED).split("|")
        truth[s] = dict(groups=int(nat[0]), distinct=int(nat[1]))
        ok = nat == cds
        checks.append(ok)
        log(f"check {s}: {truth[s]['groups']:,} groups, {truth[s]['distinct']:,} distinct; "
            f"count_distinct (forced parallel) {'same' if ok else 'DIFFERENT: ' + '|'.join(cds)}")

    # ---- timed rounds, interleaved
    names = list(qs)
    for k in names:  # warm-up: one untimed pass (tables into shared buffers)
        if k.endswith("floor_serial"):
            pg.explain(*qs[k])
    times = {k: [] for k in names}
    plans = {}
    rows = []
    for r in range(a.runs):
        order = names[r % len(names):] + names[:r % len(names)]
        for k in order:
            ex = pg.explain(*qs[k])
            info = plan_info(ex)
            times[k].append(ex["Execution Time"])
            plans.setdefault(k, []).append(dict(plan=info["plan"], workers=info["workers_launched"]))
            rows.append(dict(run=r + 1, query=k, ms=round(ex["Execution Time"], 3), plan=info["plan"],
                             workers=info["workers_launched"], load1=os.getloadavg()[0]))
        log(f"round {r + 1}/{a.runs} done ({time.time() - t_start:.0f} s)")
    med = {k: median(v) for k, v in times.items()}

    par = []
    for s, (g, desc) in SH.items():
        T = {q: med[f"{s}/{q}"] for q in ("floor_serial", "floor_forced2", "native_serial", "cd_serial",
                                          "cd_forced2", "cd_default")}
        dp = plans[f"{s}/cd_default"]
        fp = plans[f"{s}/cd_forced2"]
        par.append(dict(shape=s, desc=desc, **truth[s], ms=T,
                        forced_workers=[p["workers"] for p in fp],
                        default_plan=dp[0]["plan"], default_workers=[p["workers"] for p in dp],
                        default_parallel=any("Gather" in p["plan"] for p in dp),
                        speedup_forced=T["cd_serial"] / T["cd_forced2"],
                        speedup_default=T["cd_serial"] / T["cd_default"],
                        floor_speedup_forced=T["floor_serial"] / T["floor_forced2"],
                        cd_over_floor=T["cd_serial"] / T["floor_serial"],
                        cd_over_native=T["cd_serial"] / T["native_serial"]))

    # ---- serialized state sizes
    ser = []
    if a.server_log and os.access(a.server_log, os.R_OK):
        for s, (g, desc) in SH.items():
            t = f"par_{s}_{n}"
            sel, grp = ("", "") if g is None else ("g, ", " GROUP BY g")
            r = serialized_sizes(pg, a.server_log, t, f"SELECT {sel}count_distinct(v) FROM {t}{grp}")
            r.update(shape=s, desc=desc, type="int4", rows=n, raw_bytes=r["keys"] * 4, raw_kind="keys x 4")
            ser.append(r)
        for s, (typ, expr, desc) in SER_EXTRA.items():
            t = f"ser_{s}_{a.ser_rows}"
            create(pg, t, a.ser_rows, "0", expr)
            r = serialized_sizes(pg, a.server_log, t, f"SELECT count_distinct(v) FROM {t}")
            r.update(shape=s, desc=desc, type=typ, rows=a.ser_rows)
            if typ == "int4":
                r.update(raw_bytes=r["keys"] * 4, raw_kind="keys x 4")
            else:
                # every row's value is distinct, so each key is one row's value
                avg = float(pg.value(f"SELECT avg(octet_length(v)) FROM {t}"))
                r.update(raw_bytes=round(r["keys"] * (4 + avg)), avg_len=avg,
                         raw_kind="keys x (4 + avg octet_length): the former length + bytes form")
            ser.append(r)
        for r in ser:
            r["ratio"] = r["raw_bytes"] / r["serialized_bytes"] if r["serialized_bytes"] else None
            log(f"state sizes {r['shape']}: {r['states']} states, {r['keys']:,} keys, "
                f"{r['serialized_bytes']:,} bytes, {r['ratio'] or 0:.2f}x smaller")
    else:
        log("no readable server log (--server-log): serialized sizes skipped")

    # ---- transient memory, one big group (int4, N rows)
    t1 = f"par_1g_{n}"
    memq = {
        "count_distinct, Aggregate": (f"SELECT count_distinct(v) FROM {t1}", "cd"),
        "count_distinct, HashAggregate (GROUP BY constant)": (f"SELECT g, count_distinct(v) FROM {t1} GROUP BY g", "cd"),
        "count(v), Aggregate": (f"SELECT count(v) FROM {t1}", "floor"),
        "count(v), HashAggregate (GROUP BY constant)": (f"SELECT g, count(v) FROM {t1} GROUP BY g", "floor"),
    }
    mem_runs = {k: [] for k in memq}
    for r in range(a.mem_reps):
        for k, (sql, _) in memq.items():
            m, out = sampled(a.psql, "EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON) " + sql, SERIAL)
            ex = json.loads(out)[0]
            m.update(ms=ex["Execution Time"], explain_peak_kb=agg_peak_kb(ex))
            mem_runs[k].append(m)
    data1 = truth["1g"]["distinct"] * 4
    mem = []
    for k, ms in mem_runs.items():
        d = int(median([x["delta_kb"] for x in ms]))
        ep = ms[0]["explain_peak_kb"]
        mem.append(dict(query=k, delta_kb_median=d, delta_kb_max=max(x["delta_kb"] for x in ms),
                        before_kb=int(median([x["before_kb"] for x in ms])), explain_peak_kb=ep,
                        samples=median([x["samples"] for x in ms]), data_bytes=data1,
                        ratio=d * 1024 / data1, explain_ratio=(ep * 1024 / data1) if ep else None,
                        runs=ms))
        log(f"memory {k}: peak RssAnon +{d:,} kB = {d * 1024 / data1:.2f}x data")

    # ---- scale series
    sc = []
    for s in scale:
        t = f"scale_int8_{s}"
        reps = a.mem_reps if s <= 10_000_000 else 1
        runs_cd, runs_fl = [], []
        got = None
        for _ in range(reps):
            m, out = sampled(a.psql, f"SELECT count_distinct(v) FROM {t}", SERIAL)
            got = int(out.strip())
            runs_cd.append(m)
            m, _ = sampled(a.psql, f"SELECT count(v) FROM {t}", SERIAL)
            runs_fl.append(m)
        checks.append(got == s)
        cd_ms, fl_ms = med[f"scale{s}/cd_serial"], med[f"scale{s}/floor_serial"]
        dcd = int(median([x["delta_kb"] for x in runs_cd]))
        dfl = int(median([x["delta_kb"] for x in runs_fl]))
        sc.append(dict(rows=s, distinct=got, correct=(got == s), cd_ms=cd_ms, floor_ms=fl_ms,
                       cd_ns_per_row=cd_ms * 1e6 / s, floor_ns_per_row=fl_ms * 1e6 / s,
                       cd_over_floor=cd_ms / fl_ms, cd_peak_delta_kb=dcd, floor_peak_delta_kb=dfl,
                       cd_bytes_per_distinct=dcd * 1024 / s, floor_bytes_per_distinct=dfl * 1024 / s,
                       mem_reps=reps, cd_mem_runs=runs_cd, floor_mem_runs=runs_fl))
        log(f"scale {s:,}: {cd_ms * 1e6 / s:.0f} ns/row, {dcd * 1024 / s:.2f} bytes/distinct "
            f"({'correct' if got == s else 'WRONG ' + str(got)})")

    meta["machine"]["loadavg_end"] = os.getloadavg()
    meta["elapsed_s"] = round(time.time() - t_start)

    with open(os.path.join(a.outdir, "runs.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["run", "query", "ms", "plan", "workers", "load1"])
        w.writeheader()
        w.writerows(rows)
    with open(os.path.join(a.outdir, "results.json"), "w") as f:
        json.dump(dict(meta=meta, queries={k: v[0] for k, v in qs.items()}, times=times, medians=med,
                       parallel=par, serialized=ser, memory=mem, scale=sc,
                       checks_passed=all(checks)), f, indent=1)

    m = meta["machine"]
    out = ["# count_distinct: parallel speedups, state sizes, transient memory", "",
           f"`{a.command}`; {m['pg_version']}; {m.get('cpu_model_name', '?')}, {m['nproc']} CPUs, "
           f"{m.get('mem_total', '?')}; shared_buffers {m['shared_buffers']}, work_mem {m['work_mem']}, "
           f"hash_mem_multiplier {m['hash_mem_multiplier']}, jit off. "
           f"Load average at start {m['loadavg_start'][0]:.2f}, at end {m['loadavg_end'][0]:.2f}: "
           "the machine may be shared with other jobs, and with 2 CPUs a third process "
           "competes with the leader and its 2 workers.", "",
           f"Server-side execution time (`EXPLAIN (ANALYZE, TIMING OFF)`), median of {a.runs} "
           f"interleaved runs, ms. Whole run: {meta['elapsed_s'] / 60:.0f} min. Results checked: "
           f"{'count_distinct equals native COUNT(DISTINCT) on every shape' if all(checks) else 'MISMATCH'}.",
           "", f"## 1. Parallel speedups (int4, {n:,} rows, values `hashint4(i)`)", "",
           "Serial: `max_parallel_workers_per_gather = 0`. Forced: 2 workers with "
           "`parallel_setup_cost = parallel_tuple_cost = 0`, `min_parallel_table_scan_size = 0` "
           "(the leader participates). Serial and forced run with `enable_sort = off` (HashAggregate); "
           "*default* is the planner's own choice at default costs with "
           "`max_parallel_workers_per_gather = 2` (enable_sort on). Native is "
           "`count(DISTINCT v)` serial.", "",
           "| shape | groups | distinct | count(v) serial | count(v) forced 2w | native serial | "
           "cd serial | cd forced 2w | speedup forced | cd default | default plan | speedup default | "
           "cd / floor (serial) |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for p in par:
        T = p["ms"]
        wk = ",".join(str(x) for x in sorted(set(p["default_workers"])))
        out.append(f"| {p['desc']} | {p['groups']:,} | {p['distinct']:,} | {T['floor_serial']:,.0f} | "
                   f"{T['floor_forced2']:,.0f} | {T['native_serial']:,.0f} | {T['cd_serial']:,.0f} | "
                   f"{T['cd_forced2']:,.0f} | {p['speedup_forced']:.2f}x | {T['cd_default']:,.0f} | "
                   f"{'parallel' if p['default_parallel'] else 'serial'}: {p['default_plan']} "
                   f"(workers {wk}) | {p['speedup_default']:.2f}x | {p['cd_over_floor']:.2f} |")
    out += ["", "Speedup = cd serial / cd with workers (> 1 is faster). Forced plans launched "
            + ", ".join(f"{p['shape']}: {','.join(str(x) for x in sorted(set(p['forced_workers'])))}"
                        for p in par) + " workers; the count(v) floor's own forced speedup is "
            + ", ".join(f"{p['shape']} {p['floor_speedup_forced']:.2f}x" for p in par) + "."]
    out += ["", "## 2. Serialized state sizes (forced 2 workers)", ""]
    if ser:
        out += ["One line per serialized partial state (each worker's and the leader's, per group) "
                "from `cd_state_write` at DEBUG2, summed. Raw = keys x width; for byte keys (width 0) "
                "raw is the former form, 4-byte length + bytes per key, estimated as keys x (4 + "
                "average `octet_length`) (every row's value is distinct in these shapes).", "",
                "| shape | type | rows | states | keys | width | raw bytes | serialized bytes | raw / serialized |",
                "|---|---|---|---|---|---|---|---|---|"]
        for r in ser:
            w = ",".join(str(x) for x in r["widths"])
            out.append(f"| {r['desc'].replace('|', chr(92) + '|')} | {r['type']} | {r['rows']:,} | {r['states']:,} | {r['keys']:,} | "
                       f"{w} | {r['raw_bytes']:,} | {r['serialized_bytes']:,} | "
                       f"{r['ratio']:.2f}x |" if r["ratio"] else f"| {r['desc']} | - | - | - | - | - | - | - | - |")
    else:
        out.append("Skipped: no readable server log.")
    out += ["", f"## 3. Transient memory, one group of {truth['1g']['distinct']:,} distinct int4 (serial)", "",
            f"Backend RssAnon sampled every 10 ms during the query; peak minus the value before it "
            f"(same session, after a warm-up query), median of {a.mem_reps} runs (max in brackets), over "
            f"the distinct data ({truth['1g']['distinct']:,} x 4 = {data1:,} bytes). EXPLAIN's "
            "*Peak Memory Usage* is the HashAggregate's memory when input ends (a plain Aggregate "
            "reports none).", "",
            "| query | RssAnon before kB | peak - before kB | / data | EXPLAIN peak kB | / data | ms |",
            "|---|---|---|---|---|---|---|"]
    for r in mem:
        ep = f"{r['explain_peak_kb']:,}" if r["explain_peak_kb"] else "-"
        er = f"{r['explain_ratio']:.2f}" if r["explain_ratio"] else "-"
        out.append(f"| `{r['query']}` | {r['before_kb']:,} | {r['delta_kb_median']:,} "
                   f"({r['delta_kb_max']:,}) | {r['ratio']:.2f} | {ep} | {er} | "
                   f"{median([x['ms'] for x in r['runs']]):,.0f} |")
    out += ["", "## 4. Scale series: one group of int8, all values distinct (serial)", "",
            "Values `((H(i) - 2^31) * 2147483659)::int8` (H a bijective 32-bit hash: distinct, spread "
            "over the 64-bit range). Time: median of the interleaved runs above. Memory: peak "
            "RssAnon minus before, sampled as in 3 (median of "
            f"{a.mem_reps} runs up to 10M rows, 1 run above), over the distinct count.", "",
            "| rows = distinct | count_distinct ms | ns / row | count(v) ms | ns / row | cd / floor | "
            "cd peak RssAnon kB | bytes / distinct | count(v) peak kB |",
            "|---|---|---|---|---|---|---|---|---|"]
    for r in sc:
        out.append(f"| {r['rows']:,} | {r['cd_ms']:,.0f} | {r['cd_ns_per_row']:.0f} | {r['floor_ms']:,.0f} | "
                   f"{r['floor_ns_per_row']:.0f} | {r['cd_over_floor']:.2f} | {r['cd_peak_delta_kb']:,} | "
                   f"{r['cd_bytes_per_distinct']:.2f} (data: 8) | {r['floor_peak_delta_kb']:,} |")
    out.append("")
    # the charts are drawn from results.json as written, as --charts-only does
    with open(os.path.join(a.outdir, "results.json")) as f:
        out += charts_md(charts(json.load(f), a.outdir))
    with open(os.path.join(a.outdir, "report.md"), "w") as f:
        f.write("\n".join(out))
    print("\n".join(out))
    if not all(checks):
        sys.exit(1)


if __name__ == "__main__":
    main()
