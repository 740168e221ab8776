# buildid_keep.py - the cost of record --sample keeping the sampled files by build ID
# (bench/RESULTS.md section 23): a 0.3 s program, 15 recordings each with
# --no-buildid-cache, with the copies there already (warm), and into an empty
# HOME (cold).  Run from a folder holding ./prog (any short program), as root.
import subprocess, time, os, shutil, statistics
TL = os.environ.get("TL", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build", "threadlens"))
def run(args, home, fresh):
    if fresh: shutil.rmtree(home, ignore_errors=True)
    env = dict(os.environ, HOME=home)
    t = time.perf_counter()
    subprocess.run([TL, "record", "--sample"] + args + ["-o", "/tmp/hf.tl", "--", "./prog"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - t
res = {"no-cache": [], "warm": [], "cold": []}
run([], "/tmp/hk", True)
for i in range(15):
    res["no-cache"].append(run(["--no-buildid-cache"], "/tmp/hk", False))
    res["warm"].append(run([], "/tmp/hk", False))
    res["cold"].append(run([], "/tmp/hk", True))
for k, v in res.items():
    v.sort(); print("%-9s median %.1f ms  range %.1f-%.1f" % (k, 1000*statistics.median(v), 1000*v[0], 1000*v[-1]))
