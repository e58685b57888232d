#!/usr/bin/env python3
"""Checks a random sample of configs/sgemm_large.yaml's configurations two ways, with no GPU:
NVRTC compiles each one (`hone check --sample`), and the host emulator (tests/emu) runs each
one under AddressSanitizer and UndefinedBehaviorSanitizer and compares C with a double-precision
product (sgemm_large_emu.cpp says what it checks).

Usage: tests/emu/run_sample.py [--hone build/hone] [--config configs/sgemm_large.yaml]
                               [--sample 100] [--seed 1] [-j 2] [--keys FILE] [--cxx g++]
  --keys FILE  one configuration key a line (BM=..,BN=..,...) instead of a hone check sample
Exit 0 when every configuration compiles and computes the right C; 1 otherwise.
"""
import argparse
import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def emulate(cxx, key, workdir):
    """Compiles the emulator for one key and runs it: (ok, seconds, output)."""
    t0 = time.time()
    defines = ["-D" + kv for kv in key.split(",")]
    exe = os.path.join(workdir, "emu_" + str(abs(hash(key))))
    build = subprocess.run([cxx, "-std=c++20", "-O1", "-fsanitize=address,undefined",
                            "-fno-sanitize-recover=all", *defines,
                            os.path.join(HERE, "sgemm_large_emu.cpp"), "-o", exe],
                           capture_output=True, text=True)
    if build.returncode != 0:
        return False, time.time() - t0, "host compile failed:\n" + build.stderr[-3000:]
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0", UBSAN_OPTIONS="print_stacktrace=1")
    run = subprocess.run([exe], capture_output=True, text=True, env=env)
    os.unlink(exe)
    # ASan warns once that it cannot follow swapcontext by itself; the emulator tells it.
    out = "\n".join(line for line in (run.stdout + run.stderr).splitlines()
                    if "ASan doesn't fully support makecontext/swapcontext" not in line)
    return run.returncode == 0, time.time() - t0, out.strip()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hone", default=os.path.join(ROOT, "build", "hone"))
    ap.add_argument("--config", default=os.path.join(ROOT, "configs", "sgemm_large.yaml"))
    ap.add_argument("--sample", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--keys", help="file of configuration keys (skips hone check)")
    ap.add_argument("--cxx", default=os.environ.get("CXX", "g++"))
    a = ap.parse_args()

    if a.keys:
        with open(a.keys) as f:
            keys = [line.strip() for line in f if line.strip() and not line.startswith("#")]
    else:
        t0 = time.time()
        check = subprocess.run([a.hone, "check", a.config, "--arch", "sm_90", "--sample", str(a.sample),
                                "--seed", str(a.seed), "--json", "-j", str(a.jobs)],
                               capture_output=True, text=True)
        if check.returncode not in (0, 1) or not check.stdout.strip():
            print(f"hone check failed (rc {check.returncode}):\n{check.stderr}", file=sys.stderr)
            return 1
        res = json.loads(check.stdout)
        keys = [r["key"] for r in res["results"]]
        nvrtc_failed = [r for r in res["results"] if not r["ok"]]
        print(f"hone check: {res['total']} configurations, {res['valid']} valid; NVRTC compiled "
              f"{res['compiled']}, {res['failed']} failed, {time.time() - t0:.0f} s")
        for r in nvrtc_failed:
            print(f"NVRTC FAIL {r['key']}\n{r['log'][-2000:]}")
        if nvrtc_failed:
            return 1

    failures = 0
    t0 = time.time()
    with tempfile.TemporaryDirectory() as work, \
            concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as pool:
        futures = {pool.submit(emulate, a.cxx, key, work): key for key in keys}
        for i, fut in enumerate(concurrent.futures.as_completed(futures), 1):
            key = futures[fut]
            ok, secs, out = fut.result()
            failures += not ok
            last = out.splitlines()[-1] if out else ""
            print(f"[{i}/{len(keys)}] {'ok  ' if ok else 'FAIL'} {secs:5.1f} s  {key}  {last if ok else ''}")
            if not ok:
                print(out[-4000:])
            sys.stdout.flush()
    print(f"emulated {len(keys)} configurations in {time.time() - t0:.0f} s: {len(keys) - failures} ok, "
          f"{failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
