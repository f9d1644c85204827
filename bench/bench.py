#!/usr/bin/env python3
"""count_distinct benchmark driver (stdlib only; charts need matplotlib).

Run through bench/run.sh, which installs, builds, starts a throwaway cluster
and exports PGHOST/PGPORT/PGUSER/PGDATABASE.  This script generates the data,
runs every query, and writes raw results, a Markdown report and PNG charts.

Timing method: every query runs as
    EXPLAIN (ANALYZE, TIMING OFF, VERBOSE, FORMAT JSON) <query>
and we take the server-side "Execution Time".  The whole plan runs (final
functions included, arrays built) but no result rows are sent to the client,
and TIMING OFF keeps the per-row instrumentation to a counter increment.  The
same JSON gives the plan shape (checked: HashAggregate, workers launched) and
the HashAggregate "Peak Memory Usage" (per worker with VERBOSE).
"""

import argparse
import csv
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))

SCALES = {"100k": 100_000, "1m": 1_000_000, "10m": 10_000_000, "100m": 100_000_000}

# ---------------------------------------------------------------- data shapes
#
# Every value starts as an integer u in [0, 2^32) and is then turned into the
# benchmarked type (TYPES below).  H(x) is a bijection of [0, 2^32)
# (xorshift-multiply), so distinct x give distinct u in a random-looking order
# spread over the whole key range.

MASK = "4294967295"


def _h1(e):
    return f"(((({e}) # (({e}) >> 16)) * 73244475) & {MASK})"


def H(e):
    x = _h1(_h1(f"(({e}) & {MASK})"))
    return f"(({x}) # (({x}) >> 16))"


def shapes(n):
    """name -> dict(rows, g, u, desc, const, target_key).  i runs 0..rows-1."""
    n10 = max(n // 10, 1)
    per_group_644 = min(n // 10000, 644)
    s = {}
    s["1g_distinct"] = dict(
        rows=n, g="1", u=H("i"), const=True,
        desc=f"1 group, {n:,} distinct")
    s["10g"] = dict(
        rows=n, g="i % 10", u=H("i"), const=False,
        desc=f"10 groups x {n // 10:,} distinct")
    s["100g"] = dict(
        rows=n, g="i % 100", u=H("i"), const=False,
        desc=f"100 groups x {n // 100:,} distinct")
    s["10kg"] = dict(
        rows=n, g="i % 10000", u=H("i"), const=False,
        desc=f"10k groups x {n // 10000:,} distinct")
    s["n10g_x10"] = dict(
        rows=n, g=f"i % {n10}", u=H("i"), const=False,
        desc=f"{n10:,} groups x 10 distinct")
    s["10kg_x644"] = dict(
        rows=n, g="i % 10000", u=H("(i % 10000) * 1000 + (i / 10000) % 644"), const=False,
        desc=f"10k groups x {per_group_644} distinct of {n // 10000:,} rows")
    s["corr_100g"] = dict(
        rows=n, g=f"i / {max(n // 100, 1)}", u="(i / 4)", const=False,
        desc="100 groups stored clustered, values ascending in runs of 4 (correlated)")
    s["zipf_100g"] = dict(
        rows=n, g="i % 100", u=H("z"), const=False,
        pre=f"floor(exp(random() * ln({n})))::int8",
        desc="100 groups, Zipf(s~1) values over 1..N (log-uniform), random order")
    s["dense_100g"] = dict(
        rows=n, g="i % 100", u="z", const=False,
        pre="(random() * 100000)::int8",
        desc="100 groups, dense values: (random() * 100000) in random order")
    s["hh50"] = dict(
        rows=n, g="1", u=f"(CASE WHEN {H('i')} % 100 < 50 THEN 0 ELSE {H('i')} END)", const=True,
        desc="1 group, 50% one value, rest distinct")
    s["hh90"] = dict(
        rows=n, g="1", u=f"(CASE WHEN {H('i')} % 100 < 90 THEN 0 ELSE {H('i')} END)", const=True,
        desc="1 group, 90% one value, rest distinct")
    s["10kg_x10"] = dict(
        rows=100_000, g="i % 10000", u=H("i"), const=False,
        desc="10k groups x 10 distinct (always 100k rows)")
    # Time budget: the rewrite and the array_agg comparison run on these shapes
    # only (unless --all-queries); hll only on shapes with few groups (its
    # per-group state is large and slow to create, minutes for 1M groups).
    for k in ("1g_distinct", "10kg", "n10g_x10", "zipf_100g", "10kg_x10"):
        s[k]["rewrite"] = True
    for k in ("1g_distinct", "100g", "10kg", "n10g_x10", "hh90"):
        s[k]["array_agg"] = True
    for k in ("1g_distinct", "10g", "100g", "corr_100g", "zipf_100g", "hh50", "hh90"):
        s[k]["hll"] = True
    return s


# type name -> (SQL type, expression of u, width in bytes or None, hll hash fn)
TYPES = {
    "int4": ("int4", "(({u}) - 2147483648)::int4", 4, "hll_hash_integer"),
    "int8": ("int8", "((({u}) - 2147483648) * 2147483659)::int8", 8, "hll_hash_bigint"),
    "text": ("text", "to_hex(({u})::int8)", None, "hll_hash_text"),
    "uuidtext": ("text", "md5(({u})::text)::uuid::text", None, "hll_hash_text"),
    # URL-like text: a long common prefix, then the number (front coding)
    "url": ("text", "'https://example.com/products/item-' || ({u})::int8::text", None,
            "hll_hash_text"),
    "uuid": ("uuid", "md5(({u})::text)::uuid", 16, "hll_hash_any"),
    "numeric": ("numeric", "((({u}) - 2147483648)::numeric / 100)", None, "hll_hash_any"),
}

# data bytes of one distinct value for types without a fixed width
VARLEN_BYTES = {
    "text": "octet_length(v)",
    "numeric": "pg_column_size(v)",
}

# ---------------------------------------------------------------- targets
# (type, shape) -> (kind, limit); checked at scale 10m for int4
MEM_TARGETS = {
    "1g_distinct": 1.10, "10g": 1.10, "10kg": 1.30, "n10g_x10": 2.0, "10kg_x10": 2.0,
}
SERIAL_FLOOR_TARGET = 1.3
PARALLEL_SPEEDUP_TARGET = 1.6

# ---------------------------------------------------------------- settings
SERIAL = {"max_parallel_workers_per_gather": "0"}
PARALLEL = {"max_parallel_workers_per_gather": "2", "parallel_setup_cost": "0",
            "parallel_tuple_cost": "0", "min_parallel_table_scan_size": "0"}
HASHONLY = {"enable_sort": "off"}


def log(*a):
    print(time.strftime("%H:%M:%S"), *a, flush=True)


class PG:
    def __init__(self, psql):
        self.psql = psql

    def run(self, sql, settings=None, check=True):
        pre = "".join(f"SET {k} = {v};\n" for k, v in (settings or {}).items())
        p = subprocess.run(
            [self.psql, "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1"],
            input=pre + sql + "\n", capture_output=True, text=True)
        if check and p.returncode != 0:
            raise RuntimeError(f"psql failed: {p.stderr.strip()}\nSQL: {sql[:500]}")
        return p

    def value(self, sql, settings=None):
        return self.run(sql, settings).stdout.strip()

    def explain(self, query, settings):
        out = self.run("EXPLAIN (ANALYZE, TIMING OFF, VERBOSE, FORMAT JSON) " + query,
                       settings).stdout
        return json.loads(out)[0]


def walk(node):
    yield node
    for c in node.get("Plans", []):
        yield from walk(c)


def plan_info(ex):
    """Summary of one EXPLAIN ANALYZE JSON."""
    root = ex["Plan"]
    nodes = list(walk(root))
    info = {"ms": ex["Execution Time"], "workers_launched": 0, "plan": "", "hash": None,
            "partial": None, "final": None}
    kinds = []
    for nd in nodes:
        t = nd["Node Type"]
        if t == "Aggregate":
            strat = nd.get("Strategy", "")
            part = nd.get("Partial Mode", "Simple")
            label = {"Hashed": "HashAgg", "Sorted": "GroupAgg", "Plain": "Agg",
                     "Mixed": "MixedAgg"}.get(strat, strat)
            if part != "Simple":
                label = part.split()[0] + " " + label
            kinds.append(label)
            if strat == "Hashed":
                h = {"peak_kb": nd.get("Peak Memory Usage"),
                     "batches": nd.get("HashAgg Batches"),
                     "disk_kb": nd.get("Disk Usage"),
                     "workers": [{"peak_kb": w.get("Peak Memory Usage"),
                                  "batches": w.get("HashAgg Batches"),
                                  "disk_kb": w.get("Disk Usage")}
                                 for w in nd.get("Workers", [])
                                 if "Peak Memory Usage" in w]}
                if part == "Partial":
                    info["partial"] = h
                elif part == "Finalize":
                    info["final"] = h
                else:
                    info["hash"] = h
        elif t in ("Gather", "Gather Merge"):
            kinds.append(t)
            info["workers_launched"] += nd.get("Workers Launched", 0)
        elif t in ("Sort", "Unique"):
            kinds.append(t)
    info["plan"] = " > ".join(kinds)
    return info


def median(xs):
    return statistics.median(xs) if xs else None


def fmt(x, nd=1):
    if x is None:
        return "-"
    if isinstance(x, float):
        return f"{x:,.{nd}f}"
    return f"{x:,}"


def ratio(a, b):
    if a is None or b is None or b == 0:
        return None
    return a / b


# ---------------------------------------------------------------- machine info
def machine_info(pg):
    info = {"time": datetime.datetime.now().isoformat(timespec="seconds"),
            "platform": platform.platform(),
            "python": platform.python_version()}
    try:
        for line in subprocess.run(["lscpu"], capture_output=True, text=True).stdout.splitlines():
            k, _, v = line.partition(":")
            if k.strip() in ("Model name", "CPU(s)", "Thread(s) per core", "CPU max MHz"):
                info["cpu_" + k.strip().lower().replace(" ", "_").replace("(s)", "s")] = v.strip()
    except OSError:
        pass
    info["nproc"] = os.cpu_count()
    try:
        with open("/proc/meminfo") as f:
            info["mem_total"] = f.readline().split(":")[1].strip()
    except OSError:
        pass
    info["loadavg_start"] = os.getloadavg()
    info["pg_version"] = pg.value("SELECT version()")
    info["count_distinct_version"] = pg.value(
        "SELECT extversion FROM pg_extension WHERE extname = 'count_distinct'")
    for s in ("work_mem", "hash_mem_multiplier", "shared_buffers", "max_parallel_workers_per_gather",
              "max_parallel_workers", "max_worker_processes", "parallel_leader_participation",
              "jit", "effective_cache_size", "fsync"):
        info[s] = pg.value(f"SHOW {s}")
    return info


# ---------------------------------------------------------------- the benchmark
def type_supported(pg, tname, expr):
    sqlt = TYPES[tname][0]
    v = expr.format(u="i")
    p = pg.run(f"SELECT count_distinct(x) FROM (SELECT ({v})::{sqlt} AS x "
               f"FROM generate_series(1, 3) i) s", check=False)
    if p.returncode == 0:
        return True, ""
    return False, p.stderr.strip().splitlines()[0] if p.stderr.strip() else "error"


def table_name(tname, shape):
    return f"bench_{tname}_{shape}"


def generate(pg, tname, shape, sh):
    sqlt, expr, _, _ = TYPES[tname]
    t = table_name(tname, shape)
    v = expr.format(u=sh["u"])
    pg.run(f"DROP TABLE IF EXISTS {t}; "
           f"SELECT setseed(0.42); "
           f"CREATE UNLOGGED TABLE {t} AS SELECT ({sh['g']})::int4 AS g, ({v})::{sqlt} AS v "
           f"FROM (SELECT i, ({sh.get('pre', '0')}) AS z "
           f"FROM generate_series(0, {sh['rows'] - 1}::int8) i OFFSET 0) s; "
           f"ALTER TABLE {t} SET (autovacuum_enabled = off); "
           f"VACUUM (FREEZE, ANALYZE) {t};")
    return t


def queries(t, sh, hll_fn, all_queries=False):
    """name -> (sql, settings, role)."""
    const = sh["const"]
    sel = "" if const else "g, "
    grp = "" if const else " GROUP BY g"
    q = {}
    q["native"] = (f"SELECT {sel}count(DISTINCT v) FROM {t}{grp}", {}, "time")
    q["cd_serial"] = (f"SELECT {sel}count_distinct(v) FROM {t}{grp}", {**SERIAL, **HASHONLY}, "time")
    q["cd_par2"] = (f"SELECT {sel}count_distinct(v) FROM {t}{grp}", {**PARALLEL, **HASHONLY}, "time")
    if const:
        rw = f"SELECT count(*) FROM (SELECT DISTINCT v FROM {t}) s"
    else:
        rw = f"SELECT g, count(*) FROM (SELECT DISTINCT g, v FROM {t}) s GROUP BY g"
    if all_queries or sh.get("rewrite"):
        q["rewrite_serial"] = (rw, dict(SERIAL), "time")
        q["rewrite_par2"] = (rw, dict(PARALLEL), "time")
    q["floor_serial"] = (f"SELECT {sel}count(v) FROM {t}{grp}", {**SERIAL, **HASHONLY}, "time")
    q["floor_par2"] = (f"SELECT {sel}count(v) FROM {t}{grp}", {**PARALLEL, **HASHONLY}, "time")
    if all_queries or sh.get("array_agg"):
        q["aad_serial"] = (f"SELECT {sel}array_agg_distinct(v) FROM {t}{grp}", {**SERIAL, **HASHONLY}, "time")
        q["array_agg_native"] = (f"SELECT {sel}array_agg(DISTINCT v ORDER BY v) FROM {t}{grp}", {}, "time")
    if hll_fn and sh.get("hll"):
        q["hll_serial"] = (f"SELECT {sel}hll_cardinality(hll_add_agg({hll_fn}(v))) FROM {t}{grp}",
                           {**SERIAL, **HASHONLY}, "time")
    # memory: group by g (a constant for one-group shapes) so both are HashAggregates
    if const:
        for name, agg in (("cd", "count_distinct(v)"), ("floor", "count(v)")):
            q[f"mem_{name}_serial"] = (f"SELECT g, {agg} FROM {t} GROUP BY g",
                                       {**SERIAL, **HASHONLY}, "mem")
            q[f"mem_{name}_par2"] = (f"SELECT g, {agg} FROM {t} GROUP BY g",
                                     {**PARALLEL, **HASHONLY}, "mem")
    return q


def truth(pg, t, tname, const):
    """groups, distinct (group, value) pairs and their data bytes; cd's own total.
    The reference count is native count(DISTINCT v) per group."""
    width = TYPES[tname][2]
    if const:
        pairs = int(pg.value(f"SELECT count(DISTINCT v) FROM {t}"))
    else:
        pairs = int(pg.value(f"SELECT sum(c) FROM (SELECT g, count(DISTINCT v) c FROM {t} GROUP BY g) s"))
    if width:
        data_bytes = pairs * width
    else:
        lenexpr = VARLEN_BYTES["numeric" if TYPES[tname][0] == "numeric" else "text"]
        data_bytes = int(pg.value(f"SELECT coalesce(sum({lenexpr}), 0) FROM "
                                  f"(SELECT DISTINCT g, v FROM {t}) s", PARALLEL))
    r = pg.value(f"SELECT count(*), sum(c) FROM (SELECT g, count_distinct(v) c FROM {t} GROUP BY g) s",
                 {**SERIAL, **HASHONLY}).split("|")
    groups, cd_total = int(r[0]), int(r[1])
    return dict(groups=groups, pairs=pairs, data_bytes=data_bytes, cd_total=cd_total,
                correct=(cd_total == pairs))


def bench_shape(pg, tname, shape, sh, runs, hll_fn, raw, all_queries=False):
    t = table_name(tname, shape)
    tr = truth(pg, t, tname, sh["const"])
    log(f"  {shape}: {tr['groups']:,} groups, {tr['pairs']:,} distinct pairs, "
        f"{tr['data_bytes'] / 1024:,.0f} kB data, cd {'OK' if tr['correct'] else 'WRONG'}")
    qs = queries(t, sh, hll_fn, all_queries)
    # warm the table into shared buffers
    pg.explain(qs["floor_serial"][0], qs["floor_serial"][1])
    res = {name: [] for name in qs}
    timed = [n for n, q in qs.items() if q[2] == "time"]
    memq = [n for n, q in qs.items() if q[2] == "mem"]
    for name in memq:
        res[name].append(plan_info(pg.explain(qs[name][0], qs[name][1])))
    for r in range(runs):
        order = timed[r % len(timed):] + timed[:r % len(timed)]
        for name in order:
            sql, settings, _ = qs[name]
            try:
                info = plan_info(pg.explain(sql, settings))
            except RuntimeError as e:
                log(f"    {name} failed: {str(e).splitlines()[0]}")
                info = None
            res[name].append(info)
            if info is not None:
                raw.append(dict(type=tname, shape=shape, query=name, run=r, ms=info["ms"],
                                plan=info["plan"], workers=info["workers_launched"],
                                peak_kb=(info["hash"] or info["partial"] or {}).get("peak_kb"),
                                loadavg1=os.getloadavg()[0]))
    return summarize(tname, shape, sh, tr, qs, res)


def summarize(tname, shape, sh, tr, qs, res):
    out = dict(type=tname, shape=shape, desc=sh["desc"], rows=sh["rows"], **tr)
    out["times_ms"] = {}
    out["plans"] = {}
    out["workers"] = {}
    for name, infos in res.items():
        infos = [i for i in infos if i]
        if not infos:
            continue
        if qs[name][2] == "time":
            out["times_ms"][name] = median([i["ms"] for i in infos])
            out.setdefault("times_min_ms", {})[name] = min(i["ms"] for i in infos)
            out["times_all_ms"] = out.get("times_all_ms", {})
            out["times_all_ms"][name] = [round(i["ms"], 2) for i in infos]
        out["plans"][name] = infos[0]["plan"]
        out["workers"][name] = infos[0]["workers_launched"]

    def first(name):
        infos = [i for i in res.get(name, []) if i]
        return infos[0] if infos else None

    if sh["const"]:
        cd_s, fl_s, cd_p, fl_p = (first("mem_cd_serial"), first("mem_floor_serial"),
                                  first("mem_cd_par2"), first("mem_floor_par2"))
    else:
        cd_s, fl_s, cd_p, fl_p = (first("cd_serial"), first("floor_serial"),
                                  first("cd_par2"), first("floor_par2"))
    m = {}
    if cd_s and fl_s and cd_s["hash"] and fl_s["hash"]:
        m["cd_peak_kb"] = cd_s["hash"]["peak_kb"]
        m["floor_peak_kb"] = fl_s["hash"]["peak_kb"]
        m["cd_batches"] = cd_s["hash"]["batches"]
        m["floor_batches"] = fl_s["hash"]["batches"]
        m["state_kb"] = m["cd_peak_kb"] - m["floor_peak_kb"]
        m["data_kb"] = tr["data_bytes"] / 1024.0
        m["ratio"] = ratio(m["state_kb"], m["data_kb"])
    for lab, inf in (("cd", cd_p), ("floor", fl_p)):
        if inf and inf["partial"]:
            m[f"{lab}_par_leader_peak_kb"] = inf["partial"]["peak_kb"]
            m[f"{lab}_par_worker_peak_kb"] = [w["peak_kb"] for w in inf["partial"]["workers"]]
            m[f"{lab}_par_workers_launched"] = inf["workers_launched"]
        if inf and inf["final"]:
            m[f"{lab}_final_peak_kb"] = inf["final"]["peak_kb"]
    out["memory"] = m
    T = out["times_ms"]
    out["ratios"] = {
        "cd_serial/native": ratio(T.get("cd_serial"), T.get("native")),
        "cd_par2/native": ratio(T.get("cd_par2"), T.get("native")),
        "cd_serial/floor_serial": ratio(T.get("cd_serial"), T.get("floor_serial")),
        "cd_par2/floor_par2": ratio(T.get("cd_par2"), T.get("floor_par2")),
        "speedup_par2": ratio(T.get("cd_serial"), T.get("cd_par2")),
        "rewrite_serial/cd_serial": ratio(T.get("rewrite_serial"), T.get("cd_serial")),
        "rewrite_par2/cd_par2": ratio(T.get("rewrite_par2"), T.get("cd_par2")),
        "array_agg_native/aad_serial": ratio(T.get("array_agg_native"), T.get("aad_serial")),
        "hll_serial/cd_serial": ratio(T.get("hll_serial"), T.get("cd_serial")),
    }
    return out


# ---------------------------------------------------------------- targets
def check_targets(summary, scale):
    """rows of (type, shape, what, value, target, status)."""
    rows = []
    for s in summary:
        official = s["type"] == "int4" and scale == "10m"
        tag = "" if official else " (informal)"
        r = s["ratios"].get("cd_serial/floor_serial")
        if r is not None:
            rows.append((s["type"], s["shape"], "cd serial / floor serial", r,
                         f"<= {SERIAL_FLOOR_TARGET}", ("PASS" if r <= SERIAL_FLOOR_TARGET else "MISS") + tag))
        sp = s["ratios"].get("speedup_par2")
        wl = s["workers"].get("cd_par2", 0)
        if sp is not None:
            if wl >= 2:
                st = ("PASS" if sp >= PARALLEL_SPEEDUP_TARGET else "MISS") + tag
            else:
                st = f"n/a (workers launched: {wl})"
            rows.append((s["type"], s["shape"], "cd serial / cd 2 workers (speedup)", sp,
                         f">= {PARALLEL_SPEEDUP_TARGET}", st))
        if s["shape"] in MEM_TARGETS and s["memory"].get("ratio") is not None:
            lim = MEM_TARGETS[s["shape"]]
            r = s["memory"]["ratio"]
            rows.append((s["type"], s["shape"], "memory state / data", r, f"<= {lim}",
                         ("PASS" if r <= lim else "MISS") + tag))
    return rows


# ---------------------------------------------------------------- report
def md_table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    for r in rows:
        lines.append("| " + " | ".join(str(c) for c in r) + " |")
    return "\n".join(lines)


def report(meta, summary, skipped, targets, outdir, charts):
    L = []
    L.append(f"# count_distinct benchmark — scale {meta['scale']}{' (quick)' if meta['quick'] else ''}\n")
    L.append(f"Command: `{meta['command']}`  ")
    L.append(f"Started {meta['machine']['time']}, took {meta['elapsed_s'] / 60:.1f} min, "
             f"{meta['runs']} interleaved runs per query (median reported).\n")
    L.append("## Machine and settings\n")
    mi = meta["machine"]
    L.append(md_table(["key", "value"], list(mi.items())
                      + [("loadavg_end", meta.get("loadavg_end"))]))
    L.append("\nOther processes may share the CPUs (see loadavg columns in the raw runs); "
             "medians over interleaved runs damp but do not remove that noise.\n")
    L.append("## Method\n")
    L.append(
        "- Each query runs as `EXPLAIN (ANALYZE, TIMING OFF, VERBOSE, FORMAT JSON)`; time = server-side "
        "*Execution Time* (plan fully executed, final functions run, no rows sent to the client).\n"
        "- `native` = `count(DISTINCT v)` and `array_agg_native` = `array_agg(DISTINCT v ORDER BY v)` "
        "with the planner's own choice (parallel allowed at default costs). `cd_*`, `floor_*`, `aad_*`, "
        "`hll_*` run with `enable_sort = off` (HashAggregate, the plan count_distinct is made for; same "
        "plan shape for the floor `count(v)`). `*_serial`: `max_parallel_workers_per_gather = 0`; "
        "`*_par2`: 2 workers forced with `parallel_setup_cost = parallel_tuple_cost = 0`, "
        "`min_parallel_table_scan_size = 0` (leader participates).\n"
        "- `rewrite` = `SELECT g, count(*) FROM (SELECT DISTINCT g, v FROM t) s GROUP BY g`.\n"
        "- One-group shapes are timed without GROUP BY (plain Aggregate); their memory is measured "
        "with `GROUP BY g` on a constant column so both count_distinct and count(v) use a HashAggregate.\n"
        "- Memory: *state* = HashAggregate Peak Memory Usage of `count_distinct(v)` minus that of `count(v)` "
        "for the same grouping (serial). *data* = distinct (group, value) pairs x type width "
        "(text: sum of octet_length; numeric: sum of pg_column_size). Peak Memory Usage is sampled "
        "when input ends (transient peaks during merges are not seen).\n")
    if skipped:
        L.append("## Skipped types\n")
        for t, why in skipped.items():
            L.append(f"- `{t}`: {why}")
        L.append("")
    L.append("## Targets\n")
    L.append("Official targets apply to int4 at scale 10m; other rows are marked informal.\n")
    L.append(md_table(["type", "shape", "check", "value", "target", "status"],
                      [(a, b, c, f"{d:.2f}", e, f) for a, b, c, d, e, f in targets]))
    L.append("")
    types = []
    for s in summary:
        if s["type"] not in types:
            types.append(s["type"])
    for t in types:
        rows = [s for s in summary if s["type"] == t]
        L.append(f"## {t}\n")
        L.append("### Shapes\n")
        L.append(md_table(["shape", "description", "rows", "groups", "distinct pairs", "cd correct"],
                          [(s["shape"], s["desc"], fmt(s["rows"]), fmt(s["groups"]), fmt(s["pairs"]),
                            "yes" if s["correct"] else "**NO**") for s in rows]))
        L.append("\n### Memory (serial HashAggregate, kB)\n")
        mr = []
        for s in rows:
            m = s["memory"]
            lim = MEM_TARGETS.get(s["shape"])
            st = "-"
            if lim is not None and m.get("ratio") is not None:
                st = ("PASS" if m["ratio"] <= lim else "MISS") + f" (<= {lim})"
            mr.append((s["shape"], fmt(m.get("data_kb"), 0), fmt(m.get("cd_peak_kb")),
                       fmt(m.get("floor_peak_kb")), fmt(m.get("state_kb")),
                       fmt(m.get("ratio"), 2), st,
                       f"{m.get('cd_batches')}/{m.get('floor_batches')}"))
        L.append(md_table(["shape", "data", "peak cd", "peak count(v)", "state", "state/data",
                           "target", "batches cd/floor"], mr))
        L.append("\n### Memory with 2 workers (Partial HashAggregate, kB)\n")
        pr = []
        for s in rows:
            m = s["memory"]
            if "cd_par_leader_peak_kb" not in m:
                continue
            pr.append((s["shape"], m.get("cd_par_workers_launched"),
                       fmt(m.get("cd_par_leader_peak_kb")),
                       ", ".join(fmt(x) for x in m.get("cd_par_worker_peak_kb", [])),
                       fmt(m.get("floor_par_leader_peak_kb")),
                       ", ".join(fmt(x) for x in m.get("floor_par_worker_peak_kb", [])),
                       fmt(m.get("cd_final_peak_kb")), fmt(m.get("floor_final_peak_kb"))))
        L.append(md_table(["shape", "workers", "cd leader", "cd workers", "count(v) leader",
                           "count(v) workers", "cd finalize", "count(v) finalize"], pr))
        L.append("\n### Times (median ms)\n")
        cols = ["native", "cd_serial", "cd_par2", "rewrite_serial", "rewrite_par2", "floor_serial",
                "floor_par2", "aad_serial", "array_agg_native", "hll_serial"]
        cols = [c for c in cols if any(c in s["times_ms"] for s in rows)]
        L.append(md_table(["shape"] + cols,
                          [[s["shape"]] + [fmt(s["times_ms"].get(c)) for c in cols] for s in rows]))
        L.append("\n### Ratios\n")
        rk = ["cd_serial/native", "cd_par2/native", "cd_serial/floor_serial", "cd_par2/floor_par2",
              "speedup_par2", "rewrite_serial/cd_serial", "rewrite_par2/cd_par2",
              "array_agg_native/aad_serial", "hll_serial/cd_serial"]
        rk = [k for k in rk if any(s["ratios"].get(k) is not None for s in rows)]
        L.append(md_table(["shape"] + rk,
                          [[s["shape"]] + [fmt(s["ratios"].get(k), 2) for k in rk] for s in rows]))
        L.append("\n### Plans (first run)\n")
        pl = []
        for s in rows:
            for q, p in s["plans"].items():
                if q.startswith("mem_"):
                    continue
                pl.append((s["shape"], q, p, s["workers"].get(q, 0)))
        L.append("<details><summary>plan shapes</summary>\n")
        L.append(md_table(["shape", "query", "plan (top-down aggregate/gather/sort nodes)", "workers"], pl))
        L.append("\n</details>\n")
        for c in charts.get(t, []):
            L.append(f"![{c}]({c})\n")
    path = os.path.join(outdir, "report.md")
    with open(path, "w") as f:
        f.write("\n".join(L) + "\n")
    return path


def charts(summary, outdir):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        log("matplotlib not available: no charts")
        return {}
    made = {}
    types = sorted({s["type"] for s in summary}, key=lambda t: list(TYPES).index(t))
    for t in types:
        rows = [s for s in summary if s["type"] == t]
        names = [s["shape"] for s in rows]
        made[t] = []
        # memory ratio
        vals = [s["memory"].get("ratio") or 0 for s in rows]
        fig, ax = plt.subplots(figsize=(10, 4.5))
        bars = ax.bar(names, vals, color="tab:red")
        for name, b in zip(names, bars):
            lim = MEM_TARGETS.get(name)
            if lim:
                ax.hlines(lim, b.get_x(), b.get_x() + b.get_width(), colors="black", linestyles="--")
        ax.axhline(1.0, color="grey", linewidth=0.8)
        ax.set_ylabel("state memory / distinct data bytes")
        ax.set_title(f"count_distinct memory overhead ({t}); dashed = target")
        ax.tick_params(axis="x", rotation=30)
        for b, v in zip(bars, vals):
            ax.text(b.get_x() + b.get_width() / 2, v, f"{v:.2f}", ha="center", va="bottom", fontsize=8)
        fig.tight_layout()
        fn = f"memory_ratio_{t}.png"
        fig.savefig(os.path.join(outdir, fn), dpi=110)
        plt.close(fig)
        made[t].append(fn)
        # speed ratios
        keys = [("cd_serial/native", "cd serial / native"), ("cd_par2/native", "cd 2 workers / native"),
                ("cd_serial/floor_serial", "cd serial / floor serial"),
                ("cd_par2/floor_par2", "cd 2 workers / floor 2 workers"),
                ("rewrite_serial/cd_serial", "rewrite serial / cd serial")]
        fig, ax = plt.subplots(figsize=(11, 5))
        w = 0.8 / len(keys)
        for k, (key, lab) in enumerate(keys):
            v = [s["ratios"].get(key) or 0 for s in rows]
            ax.bar([i + (k - len(keys) / 2 + 0.5) * w for i in range(len(rows))], v, w, label=lab)
        ax.axhline(1.0, color="grey", linewidth=0.8)
        ax.axhline(SERIAL_FLOOR_TARGET, color="black", linestyle="--", linewidth=0.8,
                   label=f"target cd serial / floor <= {SERIAL_FLOOR_TARGET}")
        ax.set_xticks(range(len(rows)))
        ax.set_xticklabels(names, rotation=30)
        ax.set_yscale("log")
        from matplotlib.ticker import ScalarFormatter, NullFormatter
        ax.yaxis.set_major_formatter(ScalarFormatter())
        ax.yaxis.set_minor_formatter(NullFormatter())
        ax.set_yticks([0.25, 0.5, 1, 1.3, 2, 4, 8])
        ax.set_ylabel("time ratio (log scale; < 1 = first is faster)")
        ax.set_title(f"count_distinct speed ratios ({t})")
        ax.legend(fontsize=8)
        fig.tight_layout()
        fn = f"speed_ratio_{t}.png"
        fig.savefig(os.path.join(outdir, fn), dpi=110)
        plt.close(fig)
        made[t].append(fn)
    return made


def print_summary(summary, targets):
    print()
    for t in dict.fromkeys(s["type"] for s in summary):
        rows = [s for s in summary if s["type"] == t]
        print(f"== {t}: memory (kB) and time (median ms) ==")
        hdr = (f"{'shape':<12} {'data':>9} {'state':>9} {'st/data':>7} | {'native':>8} {'cd_ser':>8} "
               f"{'cd_par2':>8} {'floor_s':>8} {'floor_p':>8} {'rw_ser':>8} | {'cd/nat':>6} "
               f"{'cd/floor':>8} {'par_x':>5}")
        print(hdr)
        for s in rows:
            m, T, R = s["memory"], s["times_ms"], s["ratios"]
            print(f"{s['shape']:<12} {fmt(m.get('data_kb'), 0):>9} {fmt(m.get('state_kb')):>9} "
                  f"{fmt(m.get('ratio'), 2):>7} | {fmt(T.get('native'), 0):>8} {fmt(T.get('cd_serial'), 0):>8} "
                  f"{fmt(T.get('cd_par2'), 0):>8} {fmt(T.get('floor_serial'), 0):>8} "
                  f"{fmt(T.get('floor_par2'), 0):>8} {fmt(T.get('rewrite_serial'), 0):>8} | "
                  f"{fmt(R.get('cd_serial/native'), 2):>6} {fmt(R.get('cd_serial/floor_serial'), 2):>8} "
                  f"{fmt(R.get('speedup_par2'), 2):>5}")
        print()
    print("== targets ==")
    for a, b, c, d, e, f in targets:
        print(f"{a:<6} {b:<12} {c:<36} {d:7.2f} {e:<8} {f}")


# ---------------------------------------------------------------- profile
def profile(pg, psql, tname, shape, sh, outdir, seconds=20):
    """perf record the backend running the count_distinct serial query of one shape."""
    t = table_name(tname, shape)
    grp = "" if sh["const"] else " GROUP BY g"
    sql = f"SELECT count_distinct(v) AS c FROM {t}{grp}"
    settings = {**SERIAL, **HASHONLY}
    loop = "".join(f"SET {k} = {v};\n" for k, v in settings.items())
    loop += "SET application_name = 'cd_bench_profile';\n"
    loop += (f"SELECT sum(c) FROM ({sql}) s;\n") * 1000
    script = os.path.join(outdir, f".profile_{tname}_{shape}.sql")
    with open(script, "w") as f:
        f.write(loop)
    # from a file, not a pipe: a pipe's buffer holds only part of the script
    p = subprocess.Popen([psql, "-X", "-q", "-A", "-t", "-f", script],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    pid = None
    for _ in range(100):
        pid = pg.value("SELECT pid FROM pg_stat_activity WHERE application_name = 'cd_bench_profile' "
                       "AND backend_type = 'client backend' AND state = 'active' "
                       "AND query LIKE 'SELECT sum(c)%' LIMIT 1")
        if pid and os.path.exists(f"/proc/{pid}"):
            break
        pid = None
        time.sleep(0.1)
    if not pid:
        p.kill()
        os.unlink(script)
        log(f"    profile: backend not found ({p.stderr.read() if p.poll() is not None else 'psql running'})")
        return None
    base = os.path.join(outdir, f"perf_{tname}_{shape}")
    # flat profile: PostgreSQL and the extension are built without frame
    # pointers, so -g call graphs come out as garbage (and are slow to report)
    rec = subprocess.run(["perf", "record", "-o", base + ".data", "-p", pid, "--", "sleep",
                          str(seconds)], capture_output=True, text=True)
    st = None
    if rec.returncode != 0:
        # e.g. perf_event_paranoid: fall back to counters
        st = subprocess.run(["perf", "stat", "-p", pid, "--", "sleep", str(seconds)],
                            capture_output=True, text=True)
    p.kill()
    p.wait()
    pg.run(f"SELECT pg_terminate_backend({pid})", check=False)
    os.unlink(script)
    if st is not None:
        with open(base + ".txt", "w") as f:
            f.write("perf record failed:\n" + rec.stderr + "\nperf stat:\n" + st.stderr)
        return base + ".txt"
    with open(base + ".txt", "w") as f:
        rep = subprocess.run(["perf", "report", "-i", base + ".data", "--stdio",
                              "--percent-limit", "0.3", "--sort", "symbol,dso"],
                             capture_output=True, text=True)
        f.write(f"# perf record -p <backend> for {seconds}s while running\n#   {sql}\n"
                f"# repeatedly with {settings}\n")
        f.write(rep.stdout)
    os.unlink(base + ".data")
    return base + ".txt"


# ---------------------------------------------------------------- main
def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", choices=list(SCALES), default=None)
    ap.add_argument("--quick", action="store_true", help="small scale (default 1m), 3 runs")
    ap.add_argument("--types", default="int4,int8")
    ap.add_argument("--shapes", default=None, help="comma list (default: all)")
    ap.add_argument("--runs", type=int, default=None)
    ap.add_argument("--all-queries", action="store_true",
                    help="run the rewrite and array_agg comparisons on every shape (slow at 10m)")
    ap.add_argument("--profile", default=None,
                    help="comma list of shapes to perf-profile (count_distinct serial, first type)")
    ap.add_argument("--profile-only", action="store_true", help="generate + profile, no benchmark")
    ap.add_argument("--outdir", default=None)
    ap.add_argument("--psql", default="psql")
    ap.add_argument("--command", default="bench/run.sh")
    a = ap.parse_args()

    scale = a.scale or ("1m" if a.quick else "10m")
    n = SCALES[scale]
    runs = a.runs or (3 if a.quick else 5)
    outdir = a.outdir or os.path.join(HERE, "results", scale + ("-quick" if a.quick else ""))
    os.makedirs(outdir, exist_ok=True)
    pg = PG(a.psql)
    t0 = time.time()

    pg.run("CREATE EXTENSION IF NOT EXISTS count_distinct")
    hll = pg.run("CREATE EXTENSION IF NOT EXISTS hll", check=False).returncode == 0
    log(f"scale {scale} ({n:,} rows), {runs} runs, hll {'available' if hll else 'not available'}")
    meta = dict(scale=scale, rows=n, quick=a.quick, runs=runs, command=a.command,
                machine=machine_info(pg), hll=hll)
    all_shapes = shapes(n)
    sel = a.shapes.split(",") if a.shapes else list(all_shapes)
    for s in sel:
        if s not in all_shapes:
            sys.exit(f"unknown shape {s}; known: {', '.join(all_shapes)}")
    types = a.types.split(",")
    for t in types:
        if t not in TYPES:
            sys.exit(f"unknown type {t}; known: {', '.join(TYPES)}")

    summary, raw, skipped = [], [], {}
    profiles = {}
    for tname in types:
        ok, why = type_supported(pg, tname, TYPES[tname][1])
        if not ok:
            msg = f"skipped: count_distinct raised: {why}"
            log(f"type {tname}: {msg}")
            skipped[tname] = msg
            continue
        hll_fn = None
        if hll:
            sqlt = TYPES[tname][0]
            v = TYPES[tname][1].format(u="i")
            p = pg.run(f"SELECT hll_cardinality(hll_add_agg({TYPES[tname][3]}(x))) FROM "
                       f"(SELECT ({v})::{sqlt} x FROM generate_series(1, 3) i) s", check=False)
            hll_fn = TYPES[tname][3] if p.returncode == 0 else None
        for shape in sel:
            sh = all_shapes[shape]
            tg = time.time()
            generate(pg, tname, shape, sh)
            log(f"type {tname} shape {shape}: generated {sh['rows']:,} rows in {time.time() - tg:.0f}s")
            if not a.profile_only:
                res = bench_shape(pg, tname, shape, sh, runs, hll_fn, raw, a.all_queries)
                summary.append(res)
                T = res["times_ms"]
                log(f"    native {fmt(T.get('native'), 0)} ms, cd {fmt(T.get('cd_serial'), 0)} / "
                    f"{fmt(T.get('cd_par2'), 0)} ms, floor {fmt(T.get('floor_serial'), 0)} ms, "
                    f"mem ratio {fmt(res['memory'].get('ratio'), 2)}")
            if a.profile and tname == types[0] and shape in a.profile.split(","):
                f = profile(pg, a.psql, tname, shape, sh, outdir)
                profiles[shape] = f
                log(f"    profile written: {f}")
            pg.run(f"DROP TABLE IF EXISTS {table_name(tname, shape)}")
        # incremental save after each type
        meta["elapsed_s"] = time.time() - t0
        meta["loadavg_end"] = os.getloadavg()
        with open(os.path.join(outdir, "results.json"), "w") as f:
            json.dump(dict(meta=meta, skipped=skipped, summary=summary), f, indent=1)

    if a.profile_only:
        return
    targets = check_targets(summary, scale)
    meta["elapsed_s"] = time.time() - t0
    meta["loadavg_end"] = os.getloadavg()
    with open(os.path.join(outdir, "results.json"), "w") as f:
        json.dump(dict(meta=meta, skipped=skipped, summary=summary,
                       targets=[dict(type=a_, shape=b, check=c, value=d, target=e, status=g)
                                for a_, b, c, d, e, g in targets]), f, indent=1)
    with open(os.path.join(outdir, "runs.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["type", "shape", "query", "run", "ms", "plan", "workers",
                                          "peak_kb", "loadavg1"])
        w.writeheader()
        w.writerows(raw)
    with open(os.path.join(outdir, "summary.csv"), "w", newline="") as f:
        w = csv.writer(f)
        rk = list(summary[0]["ratios"]) if summary else []
        tk = ["native", "cd_serial", "cd_par2", "rewrite_serial", "rewrite_par2", "floor_serial",
              "floor_par2", "aad_serial", "array_agg_native", "hll_serial"]
        mk = ["data_kb", "cd_peak_kb", "floor_peak_kb", "state_kb", "ratio"]
        w.writerow(["type", "shape", "rows", "groups", "pairs", "correct"] + ["mem_" + k for k in mk]
                   + ["ms_" + k for k in tk] + rk)
        for s in summary:
            w.writerow([s["type"], s["shape"], s["rows"], s["groups"], s["pairs"], s["correct"]]
                       + [s["memory"].get(k) for k in mk] + [s["times_ms"].get(k) for k in tk]
                       + [s["ratios"].get(k) for k in rk])
    ch = charts(summary, outdir)
    path = report(meta, summary, skipped, targets, outdir, ch)
    print_summary(summary, targets)
    print(f"\nreport: {os.path.relpath(path)}")


if __name__ == "__main__":
    main()
