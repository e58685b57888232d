#!/usr/bin/env python3
"""hone's search space engine against Kernel Tuner's Searchspace, on the same spaces, on this machine.

For each space: the number of valid configurations from both tools (they must agree exactly), the
time each takes to build the space (median of --runs runs; Kernel Tuner's Searchspace(...) call in a
fresh Python process, hone's `hone space --json` time_s, which is the search_space construction), and
hone's memory (bytes held per valid configuration, peak RSS). CPU only: no GPU is used.

Spaces: the T1 files of the benchmark hub (../shared/spaces/*.T1.json, imported with `hone import-t1`;
Kernel Tuner gets the same parameters and Conditions), and the YAML configs in bench/spaces/ (their
params and constraints go to Kernel Tuner as tune_params and restrictions).

Needs kernel_tuner and PyYAML in the Python that runs Kernel Tuner (--python):
  python3 -m venv /tmp/kt-venv && /tmp/kt-venv/bin/pip install kernel_tuner pyyaml
  /tmp/kt-venv/bin/python bench/space_vs_kt.py --hone build/hone
  /tmp/kt-venv/bin/python bench/space_vs_kt.py --kt-counts     # Kernel Tuner's counts of the T1 files
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# Runs in a fresh interpreter: Kernel Tuner's import is not timed, its Searchspace(...) is.
KT_CHILD = r"""
import json, resource, sys, time
from kernel_tuner.searchspace import Searchspace
spec = json.load(sys.stdin)
t0, c0 = time.perf_counter(), time.process_time()
ss = Searchspace(spec["tune_params"], spec["restrictions"], 1024, block_size_names=spec["block_size_names"])
t, c = time.perf_counter() - t0, time.process_time() - c0
print(json.dumps({"time_s": t, "cpu_s": c, "valid": ss.size, "peak_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))
"""


def t1_space(path):
    """Kernel Tuner's input from a T1 file: what BAT hands it (Values evaluated, Conditions as written)."""
    with open(path) as f:
        t1 = json.load(f)
    params = {}
    for p in t1["ConfigurationSpace"]["TuningParameters"]:
        values = p["Values"]
        params[p["Name"]] = eval(values, {"__builtins__": {"range": range, "list": list}}) if isinstance(values, str) else values
    restrictions = [c["Expression"] for c in t1["ConfigurationSpace"].get("Conditions", [])]
    local = t1["KernelSpecification"].get("LocalSize", {})
    block_names = [v for v in local.values() if isinstance(v, str) and not v.isdigit()]
    return params, restrictions, block_names


def yaml_space(path):
    with open(path) as f:
        cfg = yaml.safe_load(f)
    params = {k: list(v) for k, v in cfg["params"].items()}
    return params, [str(c) for c in cfg.get("constraints", [])], []


def run_kt(python, params, restrictions, block_names):
    spec = json.dumps({"tune_params": params, "restrictions": restrictions, "block_size_names": block_names or ["block_size_x"]})
    out = subprocess.run([python, "-c", KT_CHILD], input=spec, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def run_hone(hone, config):
    out = subprocess.run([hone, "space", config, "--json"], capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"hone space {config} failed ({out.returncode}):\n{out.stderr}")
    return json.loads(out.stdout)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hone", default=os.path.join(ROOT, "build", "hone"))
    ap.add_argument("--python", default=sys.executable, help="the Python with kernel_tuner (default: this one)")
    ap.add_argument("--spaces", default=None, help="folder of the T1 files (default: ../shared/spaces beside the checkout)")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--only", default="", help="run the spaces whose name contains this")
    ap.add_argument("--kt-counts", action="store_true", help="print Kernel Tuner's counts of the T1 files and stop")
    ap.add_argument("--json", default="", help="also write the results here")
    a = ap.parse_args()

    shared = a.spaces
    if shared is None:
        for cand in (os.path.join(ROOT, "..", "shared", "spaces"), os.path.join(ROOT, "..", "..", "shared", "spaces")):
            if os.path.isdir(cand):
                shared = cand
                break
    spaces = []
    if shared:
        for name in sorted(os.listdir(shared)):
            if name.endswith(".T1.json"):
                spaces.append((name[: -len(".T1.json")], "t1", os.path.join(shared, name)))
    for name in sorted(os.listdir(os.path.join(HERE, "spaces"))):
        if name.endswith(".yaml"):
            spaces.append((name[: -len(".yaml")], "yaml", os.path.join(HERE, "spaces", name)))
    spaces = [s for s in spaces if a.only in s[0]]
    import kernel_tuner  # noqa: F401  (fail early, and name the version)

    kt_version = subprocess.run([a.python, "-c", "import kernel_tuner; print(kernel_tuner.__version__)"],
                                capture_output=True, text=True, check=True).stdout.strip()
    if a.kt_counts:
        for name, kind, path in spaces:
            if kind == "t1":
                print(name, run_kt(a.python, *t1_space(path))["valid"])
        return

    tmp = tempfile.mkdtemp(prefix="hone-space-bench-")
    rows = []
    for name, kind, path in spaces:
        if kind == "t1":
            config = os.path.join(tmp, name + ".yaml")
            subprocess.run([a.hone, "import-t1", path, "-o", config], check=True, capture_output=True)
            params, restrictions, block_names = t1_space(path)
        else:
            config = path
            params, restrictions, block_names = yaml_space(path)
        hone_runs = [run_hone(a.hone, config) for _ in range(a.runs)]
        kt_runs = [run_kt(a.python, params, restrictions, block_names) for _ in range(a.runs)]
        h = hone_runs[-1]
        row = {
            "space": name,
            "params": h["parameters"],
            "constraints": h["constraints"],
            "cartesian": h["cartesian"],
            "valid_hone": h["valid"],
            "valid_exact": h["valid_exact"],
            "valid_kt": kt_runs[-1]["valid"],
            "hone_s": statistics.median(r["time_s"] for r in hone_runs),
            "kt_s": statistics.median(r["time_s"] for r in kt_runs),
            "hone_cpu_s": statistics.median(r["cpu_s"] for r in hone_runs),
            "kt_cpu_s": statistics.median(r["cpu_s"] for r in kt_runs),
            "hone_bytes_per_config": h["bytes_per_config"],
            "hone_peak_rss_mib": h["peak_rss_bytes"] / 2**20,
            "kt_peak_rss_mib": statistics.median(r["peak_rss_bytes"] for r in kt_runs) / 2**20,
        }
        row["agree"] = row["valid_hone"] == row["valid_kt"]
        row["speedup"] = row["kt_s"] / max(row["hone_s"], 1e-9)
        row["speedup_cpu"] = row["kt_cpu_s"] / max(row["hone_cpu_s"], 1e-9)
        rows.append(row)
        print(f"{name}: hone {row['valid_hone']} in {row['hone_s']:.4f} s, Kernel Tuner {row['valid_kt']} in "
              f"{row['kt_s']:.3f} s", file=sys.stderr)

    print(f"hone space vs Kernel Tuner {kt_version} Searchspace (median of {a.runs} runs each, this machine, "
          f"{os.cpu_count()} cores; CPU time of the construction, wall time beside it: on a shared machine "
          f"wall time also measures the neighbours)\n")
    print("| space | params | constraints | cartesian | valid (hone) | valid (KT) | same | hone CPU s | KT CPU s "
          "| speed-up (CPU) | hone wall s | KT wall s | speed-up (wall) | hone B/config | hone peak RSS MiB "
          "| KT peak RSS MiB |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['space']} | {r['params']} | {r['constraints']} | {r['cartesian']:,} | {r['valid_hone']:,} | "
              f"{r['valid_kt']:,} | {'yes' if r['agree'] else 'NO'} | {r['hone_cpu_s']:.4f} | {r['kt_cpu_s']:.3f} | "
              f"{r['speedup_cpu']:.0f}x | {r['hone_s']:.4f} | {r['kt_s']:.3f} | {r['speedup']:.0f}x | "
              f"{r['hone_bytes_per_config']:.1f} | {r['hone_peak_rss_mib']:.1f} | {r['kt_peak_rss_mib']:.0f} |")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"kernel_tuner": kt_version, "runs": a.runs, "rows": rows}, f, indent=2)
    if not all(r["agree"] for r in rows):
        sys.exit(1)


if __name__ == "__main__":
    main()
