"""hone's tuned SGEMM on CuPy arrays: C = A @ B, checked against cupy.matmul.

Tunes configs/sgemm.yaml for the sizes with a small budget (a database that resumes), then
launches the best configuration on CuPy arrays without copies, on CuPy's current stream.

    python examples/python/cupy_example.py [--size 1024] [--max-evals 30]
"""
import argparse
import pathlib

import cupy as cp

import hone

ROOT = pathlib.Path(__file__).resolve().parents[2]
CONFIG = ROOT / "configs" / "sgemm.yaml"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=1024)
    ap.add_argument("--max-evals", type=int, default=30)
    ap.add_argument("--db", default="/tmp/hone_cupy_example.db")
    args = ap.parse_args()
    m = n = k = args.size
    sizes = {"M": m, "N": n, "K": k}
    r = hone.tune(CONFIG, sizes=sizes, output=args.db, max_evals=args.max_evals)
    print(f"tuned sgemm at {m}x{n}x{k}: best {r.best.key}, {r.best.time_us:.1f} us, "
          f"{r.best.gflops:.0f} GFLOP/s")
    kern = hone.Kernel(CONFIG, args.db)
    a = cp.random.uniform(-1, 1, (m, k), dtype=cp.float32)
    b = cp.random.uniform(-1, 1, (k, n), dtype=cp.float32)
    c = cp.zeros((m, n), dtype=cp.float32)
    stream = cp.cuda.Stream(non_blocking=True)
    with stream:  # CuPy's current stream: hone launches there
        kern(a, b, c, n, k, 1.0, 0.0, sizes=sizes)  # C = 1 * A @ B + 0 * C
        expected = a @ b
    stream.synchronize()
    err = float(cp.abs(c - expected).max())
    print(f"max |hone - cupy.matmul| = {err:.2e}")
    assert err < 1e-2 * k ** 0.5, err
    print("ok")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
