#!/usr/bin/env python3
"""stats.py - the statistics and the summary of bench/run.sh.

    python3 bench/stats.py OUT_DIR

Reads OUT_DIR/meta.txt, overhead.txt and analysis.txt (one run per line,
key=value pairs, written by bench/run.sh), prints the summary table on
stdout, and writes OUT_DIR/summary.md (the same as Markdown tables, ready
for bench/RESULTS.md) and OUT_DIR/summary.json.

Every figure is a median over the repetitions.  A slowdown is the median
elapsed time of the workload under a recorder over its median plain elapsed
time; the "paired" figure is the median over repetitions of the same ratio
taken within one repetition (the three variants of one repetition run back
to back, so it cancels slow drifts of the machine's load).
"""
import json
import os
import statistics
import sys


def parse(path):
    rows = []
    if not os.path.exists(path):
        return rows
    with open(path) as f:
        for line in f:
            row = {}
            for tok in line.split():
                if "=" in tok:
                    k, v = tok.split("=", 1)
                    try:
                        row[k] = float(v) if any(c in v for c in ".e") else int(v)
                    except ValueError:
                        row[k] = v
            if row:
                rows.append(row)
    return rows


def meta(path):
    m = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                if "=" in line:
                    k, v = line.rstrip("\n").split("=", 1)
                    m[k] = v
    return m


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def fmt(x, spec=".3f", none="-"):
    return none if x is None else format(x, spec)


TOOLS = ("threadlens", "perf", "threadlens-nofutex", "threadlens-perf")
SHOW = {"threadlens": "threadlens (bpf)", "threadlens-nofutex": "threadlens --no-futex",
        "threadlens-perf": "threadlens --backend perf"}


def by_variant(rows, v):
    return [r for r in rows if r["variant"] == v]


def overhead(rows):
    """Per mode: the figures of benchmarks 1 and 2."""
    res = {}
    for mode in sorted({r["mode"] for r in rows}, key=lambda m: (m != "futex", m)):
        mr = [r for r in rows if r["mode"] == mode]
        by = {v: [r for r in mr if r["variant"] == v] for v in ("plain",) + TOOLS}
        plain = med(r["elapsed_s"] for r in by["plain"])
        plain_cpu = med(r["user_s"] + r["sys_s"] for r in by["plain"])
        plain_pp = med(r["pp_s"] for r in by["plain"])
        m = {"reps": len(by["plain"]), "plain_elapsed_s": plain,
             "plain_switch_rate": med(r["switch_rate"] for r in by["plain"]),
             "plain_wl_cpu_s": plain_cpu,
             "plain_cmd_wall_s": med(r["rs_wall_s"] for r in by["plain"])}
        reps = {r["rep"]: r for r in by["plain"]}
        for tool in TOOLS:
            t = by[tool]
            if not t:
                continue
            e = med(r["elapsed_s"] for r in t)
            ev = med(r.get("events") for r in t)
            lost = med(r.get("lost") for r in t)
            cpu = med(r["rs_user_s"] + r["rs_sys_s"] - r["user_s"] - r["sys_s"] for r in t)
            wl_cpu = med(r["user_s"] + r["sys_s"] for r in t)
            processed = (ev or 0) + (lost or 0)
            d = {
                "elapsed_s": e,
                "slowdown": e / plain if plain else None,
                "paired_slowdown": med(r["elapsed_s"] / reps[r["rep"]]["elapsed_s"]
                                       for r in t if r["rep"] in reps),
                "switch_rate": med(r["switch_rate"] for r in t),
                "pp_slowdown": med(r["pp_s"] for r in t) / med(r["pp_s"] for r in by["plain"]),
                "hog_slowdown": med(r["hog_s"] for r in t) / med(r["hog_s"] for r in by["plain"]),
                "cmd_wall_s": med(r["rs_wall_s"] for r in t),
                "recorder_cpu_s": cpu,
                "recorder_cpu_ns_per_event": cpu * 1e9 / processed if processed else None,
                "wl_cpu_s": wl_cpu,
                "wl_added_cpu_ns_per_event": (wl_cpu - plain_cpu) * 1e9 / processed if processed else None,
                "added_wall_ns_per_event": (e - plain) * 1e9 / processed if processed else None,
                "pp_added_wall_ns_per_event": ((med(r["pp_s"] for r in t) - plain_pp) * 1e9 / processed
                                               if processed else None),
                "events": ev,
                "lost": lost,
                "lost_pct": 100.0 * lost / processed if processed else None,
                "bytes": med(r.get("bytes") for r in t),
                "bytes_per_event": med(r["bytes"] / r["events"] for r in t if r.get("events")),
                "maxrss_kb": med(r["rs_maxrss_kb"] for r in t),
            }
            de = [r["dump_events"] for r in t if "dump_events" in r]
            if de:
                d["dump_events"] = med(de)
            se = [r["script_events"] for r in t if "script_events" in r]
            if se:
                d["script_events"] = med(se)
            m[tool] = d
        aa = by_variant(mr, "plain-again")
        if aa:
            e = med(r["elapsed_s"] for r in aa)
            m["plain-again"] = {
                "elapsed_s": e, "slowdown": e / plain if plain else None,
                "paired_slowdown": med(r["elapsed_s"] / reps[r["rep"]]["elapsed_s"]
                                       for r in aa if r["rep"] in reps),
                "switch_rate": med(r["switch_rate"] for r in aa),
                "cmd_wall_s": med(r["rs_wall_s"] for r in aa)}
        if "threadlens" in m and "perf" in m:
            a, b = m["threadlens"], m["perf"]
            perf_by_rep = {r["rep"]: r for r in by["perf"]}
            pr = [r["elapsed_s"] / perf_by_rep[r["rep"]]["elapsed_s"]
                  for r in by["threadlens"] if r["rep"] in perf_by_rep]
            m["paired_tl_over_perf_min"] = min(pr) if pr else None
            m["paired_tl_over_perf_max"] = max(pr) if pr else None
            m["reps_tl_faster"] = sum(1 for x in pr if x < 1)
            m["reps_paired"] = len(pr)
            m["slowdown_ratio"] = a["slowdown"] / b["slowdown"]
            m["overhead_ratio"] = ((a["slowdown"] - 1) / (b["slowdown"] - 1)
                                   if b["slowdown"] > 1.0005 else None)
            perf_by_rep = {r["rep"]: r for r in by["perf"]}
            m["paired_tl_over_perf"] = med(r["elapsed_s"] / perf_by_rep[r["rep"]]["elapsed_s"]
                                           for r in by["threadlens"] if r["rep"] in perf_by_rep)
            m["bytes_ratio"] = a["bytes"] / b["bytes"] if b["bytes"] else None
        if "threadlens-perf" in m and "perf" in m:
            a, b = m["threadlens-perf"], m["perf"]
            m["perfbackend_slowdown_ratio"] = a["slowdown"] / b["slowdown"]
            m["perfbackend_overhead_ratio"] = ((a["slowdown"] - 1) / (b["slowdown"] - 1)
                                               if b["slowdown"] > 1.0005 else None)
        if "threadlens-nofutex" in m and "perf" in m:
            a, b = m["threadlens-nofutex"], m["perf"]
            m["nofutex_slowdown_ratio"] = a["slowdown"] / b["slowdown"]
            m["nofutex_overhead_ratio"] = ((a["slowdown"] - 1) / (b["slowdown"] - 1)
                                           if b["slowdown"] > 1.0005 else None)
        res[mode] = m
    return res


CMD_NAMES = {"tl_report": "threadlens report", "tl_report_write_json": "threadlens report --json",
             "perf_timehist": "perf sched timehist -s"}


def analysis(rows):
    res = {"trace": {}, "cmds": {}}
    for r in rows:
        if r["bench"] == "analysis_trace":
            res["trace"][r["tool"]] = {k: r.get(k) for k in ("events", "lost", "bytes", "elapsed_s", "switch_rate")}
    names = []
    for r in rows:
        if r["bench"] == "analysis" and r["cmd"] not in names:
            names.append(r["cmd"])
    names.sort(key=lambda n: list(CMD_NAMES).index(n) if n in CMD_NAMES else 99)
    for n in names:
        t = [r for r in rows if r["bench"] == "analysis" and r["cmd"] == n]
        wall = med(r["wall_s"] for r in t)
        ev = t[0]["events"]
        res["cmds"][CMD_NAMES.get(n, n)] = {
            "runs": len(t), "events": ev, "wall_s": wall,
            "walls": [r["wall_s"] for r in t],
            "cpu_s": med(r["user_s"] + r["sys_s"] for r in t),
            "events_per_s": ev / wall if wall else None,
            "maxrss_kb": med(r["maxrss_kb"] for r in t),
            "status": max(r["status"] for r in t),
        }
    c = res["cmds"]
    p = c.get("perf sched timehist -s")
    for n in ("threadlens report", "threadlens report --json"):
        if n in c and p and p["events_per_s"]:
            c[n]["speed_vs_perf"] = c[n]["events_per_s"] / p["events_per_s"]
            # Both traces record the same command: the time to analyse the
            # same run of the workload, whatever each tool calls an event.
            c[n]["same_run_speed_vs_perf"] = p["wall_s"] / c[n]["wall_s"]
    return res


def verdict(ok):
    return "met" if ok else "MISSED"


def targets(ov, an):
    t = []
    for mode, m in ov.items():
        if m.get("slowdown_ratio") is not None:
            oh = m.get("overhead_ratio")
            t.append((f"overhead ({mode}): threadlens (bpf) slowdown at most half of perf's",
                      f"x{m['threadlens']['slowdown']:.3f} vs x{m['perf']['slowdown']:.3f}"
                      f" (overhead ratio {fmt(oh, '.2f')})",
                      oh is not None and oh <= 0.5))
        if m.get("bytes_ratio") is not None:
            t.append((f"size ({mode}): threadlens file <= 1/10 of perf.data",
                      f"{m['bytes_ratio']:.4f} (1/{1 / m['bytes_ratio']:.0f})", m["bytes_ratio"] <= 0.1))
    c = an["cmds"]
    r = c.get("threadlens report")
    if r:
        if "speed_vs_perf" in r:
            t.append(("analysis: report >= 20x perf timehist (events/s)",
                      f"{r['speed_vs_perf']:.1f}x", r["speed_vs_perf"] >= 20))
        t.append(("analysis: report >= 20M events/s", f"{r['events_per_s'] / 1e6:.1f} M/s",
                  r["events_per_s"] >= 20e6))
        t.append(("analysis: report peak RSS < 100 MB", f"{r['maxrss_kb'] / 1024:.1f} MB",
                  r["maxrss_kb"] < 100 * 1024))
        j = c.get("threadlens report --json")
        if j:
            t.append(("analysis: report --json peak RSS < 100 MB", f"{j['maxrss_kb'] / 1024:.1f} MB",
                      j["maxrss_kb"] < 100 * 1024))
    return t


def tables(mt, ov, an, md):
    """The summary as lines: Markdown if md, else aligned plain text."""
    out = []

    def table(head, rows):
        if md:
            out.append("| " + " | ".join(head) + " |")
            out.append("|" + "|".join("---" for _ in head) + "|")
            for r in rows:
                out.append("| " + " | ".join(r) + " |")
        else:
            w = [max(len(str(x)) for x in col) for col in zip(head, *rows)]
            for r in [head] + rows:
                out.append("  ".join(str(x).ljust(w[i]) if i == 0 else str(x).rjust(w[i])
                                     for i, x in enumerate(r)))
        out.append("")

    def title(s):
        out.append(("### " if md else "== ") + s)
        out.append("")

    title("1. Recording overhead (medians of %s repetitions, %s hand-offs per run)"
          % (mt.get("reps", "?"), mt.get("handoffs", "?")))
    rows = []
    for mode, m in ov.items():
        rows.append([f"{mode} plain", fmt(m["plain_elapsed_s"]), "1", "-", f"{m['plain_switch_rate']:.0f}",
                     "-", "-", "-", "-", "-", fmt(m["plain_cmd_wall_s"], ".2f")])
        for tool in TOOLS:
            if tool not in m:
                continue
            d = m[tool]
            rows.append([f"{mode} {SHOW.get(tool, tool)}", fmt(d["elapsed_s"]), f"x{d['slowdown']:.3f}",
                         f"x{d['paired_slowdown']:.3f}", f"{d['switch_rate']:.0f}",
                         f"{d['events']:.0f}", f"{d['lost']:.0f} ({d['lost_pct']:.1f}%)",
                         fmt(d["recorder_cpu_s"]), fmt(d["recorder_cpu_ns_per_event"], ".0f"),
                         fmt(d["pp_added_wall_ns_per_event"], ".0f"), fmt(d["cmd_wall_s"], ".2f")])
        if "plain-again" in m:
            d = m["plain-again"]
            rows.append([f"{mode} plain again (noise)", fmt(d["elapsed_s"]), f"x{d['slowdown']:.3f}",
                         f"x{d['paired_slowdown']:.3f}", f"{d['switch_rate']:.0f}",
                         "-", "-", "-", "-", "-", fmt(d["cmd_wall_s"], ".2f")])
    table(["workload / recorder", "elapsed s", "slowdown", "paired", "switches/s", "events", "lost",
           "rec. CPU s", "rec. ns/ev", "pp +ns/ev", "cmd wall s"], rows)
    rows = []
    for mode, m in ov.items():
        if "slowdown_ratio" in m:
            rows.append([mode, f"{m['slowdown_ratio']:.3f}", fmt(m.get("overhead_ratio"), ".2f"),
                         f"{m['paired_tl_over_perf']:.3f} ({m['paired_tl_over_perf_min']:.3f}-"
                         f"{m['paired_tl_over_perf_max']:.3f}; tl faster in {m['reps_tl_faster']}/{m['reps_paired']})",
                         fmt(m["threadlens"]["pp_slowdown"]) + " / " + fmt(m["perf"]["pp_slowdown"]),
                         fmt(m["threadlens"]["hog_slowdown"]) + " / " + fmt(m["perf"]["hog_slowdown"])])
        if "perfbackend_slowdown_ratio" in m:
            rows.append([mode + " (--backend perf)", f"{m['perfbackend_slowdown_ratio']:.3f}",
                         fmt(m.get("perfbackend_overhead_ratio"), ".2f"), "-",
                         fmt(m["threadlens-perf"]["pp_slowdown"]) + " / " + fmt(m["perf"]["pp_slowdown"]),
                         fmt(m["threadlens-perf"]["hog_slowdown"]) + " / " + fmt(m["perf"]["hog_slowdown"])])
        if "nofutex_slowdown_ratio" in m:
            rows.append([mode + " (--no-futex)", f"{m['nofutex_slowdown_ratio']:.3f}",
                         fmt(m.get("nofutex_overhead_ratio"), ".2f"), "-",
                         fmt(m["threadlens-nofutex"]["pp_slowdown"]) + " / " + fmt(m["perf"]["pp_slowdown"]),
                         fmt(m["threadlens-nofutex"]["hog_slowdown"]) + " / " + fmt(m["perf"]["hog_slowdown"])])
    table(["workload", "slowdown tl/perf", "overhead tl/perf", "paired elapsed tl/perf (range)",
           "ping-pong slowdown tl / perf", "hog slowdown tl / perf"], rows)

    title("2. Trace size (same runs; medians)")
    rows = []
    for mode, m in ov.items():
        for tool in TOOLS:
            if tool in m:
                d = m[tool]
                rows.append([f"{mode} {SHOW.get(tool, tool)}", f"{d['bytes'] / 1e6:.2f} MB", f"{d['events']:.0f}",
                             f"{d['bytes_per_event']:.2f}"])
        if m.get("bytes_ratio"):
            rows.append([f"{mode} threadlens/perf", f"{m['bytes_ratio']:.4f} (1/{1 / m['bytes_ratio']:.0f})", "", ""])
    table(["workload / recorder", "file", "events", "bytes/event"], rows)

    title("3. Analysis speed (medians of %s runs each)" % mt.get("analysis_reps", "?"))
    tr = an["trace"]
    for tool, d in tr.items():
        out.append(f"{'- ' if md else '  '}{tool} trace: {d['events']} events, {d['lost']} lost, "
                   f"{d['bytes'] / 1e6:.1f} MB")
    out.append("")
    rows = []
    for n, d in an["cmds"].items():
        rows.append([n, f"{d['events']}", f"{d['wall_s']:.3f}", f"{d['events_per_s'] / 1e6:.2f} M",
                     fmt(d.get("speed_vs_perf"), ".1f") + ("x" if "speed_vs_perf" in d else ""),
                     f"{d['maxrss_kb'] / 1024:.1f} MB", " ".join(f"{w:.3f}" for w in d["walls"])])
    table(["command", "events", "wall s", "events/s", "vs perf", "peak RSS", "all runs (s)"], rows)
    for n, d in an["cmds"].items():
        if "same_run_speed_vs_perf" in d:
            out.append(f"{'- ' if md else '  '}{n}: {d['same_run_speed_vs_perf']:.2f}x perf's speed on the "
                       f"same recorded run (perf wall / threadlens wall)")
    out.append("")

    title("Targets")
    table(["target", "measured", "verdict"], [[a, b, verdict(c)] for a, b, c in targets(ov, an)])
    return out


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: stats.py OUT_DIR")
    d = sys.argv[1]
    mt = meta(os.path.join(d, "meta.txt"))
    ov = overhead([r for r in parse(os.path.join(d, "overhead.txt"))])
    an = analysis(parse(os.path.join(d, "analysis.txt")))
    head = [f"date {mt.get('date')}; {mt.get('command')}",
            f"machine: {mt.get('cpus')} CPUs, {mt.get('cpu_model')}, {mt.get('mem')}, kernel {mt.get('kernel')}; "
            f"{mt.get('perf')}; {mt.get('threadlens')} ({mt.get('git')})",
            f"load: before {mt.get('busy_before_pct')}% busy, loadavg {mt.get('load_before')} "
            f"(top: {mt.get('top_before')}); after {mt.get('busy_after_pct')}% busy, "
            f"loadavg {mt.get('load_after')} (top: {mt.get('top_after')})"]
    for k in sorted(k for k in mt if k.startswith("calib_")):
        head.append(f"workload {k[6:]}: {mt[k]} (switches/s when calibrated)")
    text = tables(mt, ov, an, md=False)
    print("\n".join(["", "threadlens vs perf: summary"] + ["  " + h for h in head] + [""] + text))
    with open(os.path.join(d, "summary.md"), "w") as f:
        f.write("\n".join(["- " + h for h in head] + [""] + tables(mt, ov, an, md=True)))
    with open(os.path.join(d, "summary.json"), "w") as f:
        json.dump({"meta": mt, "overhead": ov, "analysis": an,
                   "targets": [{"target": a, "measured": b, "met": c} for a, b, c in targets(ov, an)]},
                  f, indent=1)


if __name__ == "__main__":
    main()
