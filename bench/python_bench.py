"""The Python package's benchmark (bench/python.sh runs it on the GPU machine).

launch: host time per call of hone.Kernel(...)(a, b, c, sizes=...) on torch tensors against a
raw launch of the same configuration of the same kernel through CuPy's RawKernel, 10^4 calls
each, after a warm-up; the kernel is small (N=4096) so that the GPU keeps up with the host.
tune: wall time of hone.tune against the CLI (`hone tune`) on the same config, both with a warm
compile cache, alternating: hone.tune with its own workers per call (keep_session=False, as
the CLI), and with the workers it keeps between calls.
"""
import argparse
import json
import os
import pathlib
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]


def bench_launch(calls, n):
    import cupy as cp
    import torch

    import hone
    config = ROOT / "configs" / "vector_add.yaml"
    k = hone.Kernel(config)
    sel = k.selection({"N": n})
    p = sel["params"]
    a = torch.randn(n, device="cuda")
    b = torch.randn(n, device="cuda")
    c = torch.empty(n, device="cuda")
    sizes = {"N": n}
    k(a, b, c, sizes=sizes)
    torch.cuda.synchronize()
    torch.testing.assert_close(c, a + b, rtol=0, atol=0)

    # The same configuration compiled by CuPy (NVRTC), launched with RawKernel.
    src = (ROOT / "kernels_src" / "vector_add.cu").read_text()

    def define(v):
        return str(int(v)) if isinstance(v, bool) else str(v)
    opts = ["-std=c++17"] + [f"-D{name}={define(v)}" for name, v in p.items()]
    if p.get("MAXREG"):
        opts.append(f"--maxrregcount={p['MAXREG']}")
    if p.get("FAST"):
        opts.append("--use_fast_math")
    name = f"vector_add<{p['VEC']}, {'true' if p['STRIDED'] else 'false'}>"
    mod = cp.RawModule(code=src, options=tuple(opts), name_expressions=[name])
    raw = mod.get_function(name)
    block = p["BLOCK"]
    if p["STRIDED"]:
        dev = cp.cuda.Device()
        grid = dev.attributes["MultiProcessorCount"] * (
            dev.attributes["MaxThreadsPerMultiProcessor"] // block)
    else:
        grid = max(1, -(-n // (block * p["VEC"])))
    ca, cb, cc = cp.asarray(a), cp.asarray(b), cp.asarray(c)
    nn = cp.int64(n)
    c.zero_()
    raw((grid,), (block,), (ca, cb, cc, nn))
    cp.cuda.Device().synchronize()
    torch.testing.assert_close(c, a + b, rtol=0, atol=0)

    def timed(f):
        for _ in range(1000):
            f()
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(calls):
            f()
        t1 = time.perf_counter()
        torch.cuda.synchronize()
        return (t1 - t0) / calls * 1e6

    stream = torch.cuda.current_stream()
    rows = {}
    for rep in range(3):  # alternating, the minimum of each kept
        for label, f in (
                ("cupy RawKernel", lambda: raw((grid,), (block,), (ca, cb, cc, nn))),
                ("hone k(a, b, c, sizes=)", lambda: k(a, b, c, sizes=sizes)),
                ("hone k(a, b, c, n, sizes=)", lambda: k(a, b, c, n, sizes=sizes)),
                ("hone k(..., stream=torch stream)",
                 lambda: k(a, b, c, sizes=sizes, stream=stream))):
            us = timed(f)
            rows[label] = min(us, rows.get(label, us))
    base = rows["cupy RawKernel"]
    print(f"launch overhead, {calls} calls, N={n}, configuration {sel['key']}:")
    for label, us in rows.items():
        extra = "" if label.startswith("cupy") else f"  (+{us - base:.2f} us over RawKernel)"
        print(f"  {label:<36} {us:7.2f} us/call{extra}")
    return {"calls": calls, "n": n, "us_per_call": rows, "overhead_us":
            rows["hone k(a, b, c, sizes=)"] - base}


def bench_tune(cli, config, sizes, max_evals, reps):
    import hone
    db_cli, db_py = "/tmp/hone_bench_cli.db", "/tmp/hone_bench_py.db"
    sets = [f"--set={k}={v}" for k, v in sizes.items()]
    cmd = [cli, "tune", str(config), *sets, "--max-evals", str(max_evals), "--fresh", "-q",
           "-o", db_cli]
    # Warm the compile cache for both.
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    # Python: each call with its own workers, as the CLI (like for like); then with the workers
    # hone.tune keeps between calls (after one call that starts them).
    out = {"cli_s": [], "python_s": [], "python_kept_s": []}
    hone.tune(config, sizes=sizes, max_evals=max_evals, fresh=True, output=db_py)
    for _ in range(reps):
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        out["cli_s"].append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        r = hone.tune(config, sizes=sizes, max_evals=max_evals, fresh=True, output=db_py,
                      keep_session=False)
        out["python_s"].append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        kept = hone.tune(config, sizes=sizes, max_evals=max_evals, fresh=True, output=db_py)
        out["python_kept_s"].append(time.perf_counter() - t0)
        assert kept.kept["gpu_reused"], kept.kept
    cli_best, py_best = min(out["cli_s"]), min(out["python_s"])
    kept_best = min(out["python_kept_s"])
    print(f"tune {config.name} {sizes}, {max_evals} evaluations, {reps} runs each, warm cache:")
    print(f"  CLI    min {cli_best:.2f} s  runs {', '.join(f'{x:.2f}' for x in out['cli_s'])}")
    print(f"  Python min {py_best:.2f} s  runs {', '.join(f'{x:.2f}' for x in out['python_s'])}"
          f"  ({(py_best / cli_best - 1) * 100:+.1f}% against the CLI); best {r.best.key}")
    print(f"  Python, kept workers, min {kept_best:.2f} s  runs "
          f"{', '.join(f'{x:.2f}' for x in out['python_kept_s'])}"
          f"  ({(kept_best / cli_best - 1) * 100:+.1f}% against the CLI)")
    out["ratio"] = py_best / cli_best
    out["kept_ratio"] = kept_best / cli_best
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=10000)
    ap.add_argument("--n", type=int, default=4096)
    ap.add_argument("--cli", default=str(ROOT / ".carry" / "hone"))
    ap.add_argument("--max-evals", type=int, default=120)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--json", default=os.environ.get("OUT", "/tmp") + "/bench_python.json")
    args = ap.parse_args()
    res = {"launch": bench_launch(args.calls, args.n)}
    if os.access(args.cli, os.X_OK):
        res["tune"] = bench_tune(args.cli, ROOT / "configs" / "vector_add.yaml",
                                 {"N": 1 << 22}, args.max_evals, args.reps)
    else:
        print(f"no CLI at {args.cli}: tune comparison skipped")
    with open(args.json, "w") as f:
        json.dump(res, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
