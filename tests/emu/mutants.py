#!/usr/bin/env python3
"""Shows that the host emulator catches the bugs it is meant to: applies one deliberate bug at a
time to a copy of kernels_src/sgemm_large.cu (a missing barrier, a cp.async wait too short, a
split-K counter never reset, ...), runs the emulator on a configuration that exercises it, and
expects a failure. Exit 0 when every mutant is caught.

Usage: tests/emu/mutants.py [-j 2] [--cxx g++]
"""
import argparse
import concurrent.futures
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
KERNEL = os.path.join(HERE, "..", "..", "kernels_src", "sgemm_large.cu")

ASYNC3 = "BM=128,BN=128,BK=16,WM=64,WN=32,TM=8,TN=8,ASYNC=1,STAGES=3,A_T=0,PAD=4,SPLITK=1,GROUP_M=4"
ASYNC1 = "BM=64,BN=128,BK=16,WM=32,WN=64,TM=8,TN=8,ASYNC=1,STAGES=1,A_T=0,PAD=0,SPLITK=1,GROUP_M=4"
REG2_AT = "BM=128,BN=64,BK=8,WM=32,WN=32,TM=4,TN=8,ASYNC=0,STAGES=2,A_T=1,PAD=0,SPLITK=1,GROUP_M=1"
REG1 = "BM=64,BN=128,BK=16,WM=32,WN=64,TM=8,TN=8,ASYNC=0,STAGES=1,A_T=0,PAD=4,SPLITK=1,GROUP_M=4"
SPLIT = "BM=64,BN=64,BK=8,WM=32,WN=32,TM=4,TN=8,ASYNC=1,STAGES=2,A_T=0,PAD=4,SPLITK=2,GROUP_M=8"
UNEVEN = "BM=32,BN=128,BK=8,WM=16,WN=64,TM=4,TN=8,ASYNC=0,STAGES=1,A_T=0,PAD=0,SPLITK=1,GROUP_M=1"

# name: (text in the kernel, replacement, configuration that runs it)
MUTANTS = {
    "no barrier after the cp.async wait": (
        "            // the copy below overwrites.\n            __syncthreads();",
        "            // the copy below overwrites.\n", ASYNC3),
    "cp.async wait one group short": ("cp_async_wait<STAGES - 2>();", "cp_async_wait<STAGES - 1>();", ASYNC3),
    "prologue copies into the wrong stage": (
        "if (s < tiles) copy_tiles_async(next, smem + s * STAGE_SIZE, tid);",
        "if (s < tiles) copy_tiles_async(next, smem + (s + 1) % STAGES * STAGE_SIZE, tid);", ASYNC3),
    "no barrier in the 2-stage register pipeline": (
        "            if (more) store_tiles(r, smem + ((t + 1) % 2) * STAGE_SIZE, tid);\n"
        "            __syncthreads();",
        "            if (more) store_tiles(r, smem + ((t + 1) % 2) * STAGE_SIZE, tid);\n", REG2_AT),
    "no barrier before the next 1-stage load": (
        "            __syncthreads();  // everyone done reading before the next tiles overwrite them\n"
        "            p.a += BK;",
        "            p.a += BK;", REG1),
    "no barrier after the 1-stage cp.async": (
        "            cp_async_wait<0>();\n            __syncthreads();  // everyone's copies landed",
        "            cp_async_wait<0>();", ASYNC1),
    "transposed store off by one": (
        "stage[(k + 3) * AS_LD + row] = r.a[it].w;", "stage[(k + 3) * AS_LD + row + 1] = r.a[it].w;",
        REG2_AT),
    "tile guard off by one": (
        "return VECS % THREADS == 0 || it * THREADS + tid < VECS;",
        "return VECS % THREADS == 0 || it * THREADS + tid <= VECS;", UNEVEN),
    "GROUP_M mapping not a bijection": ("tn = in_group / rows;", "tn = in_group % tiles_n;", ASYNC3),
    "split-K counter never reset": ("if (threadIdx.x == 0) flags[blockIdx.x] = 0;", "", SPLIT),
    "split-K: the first slice, not the last, finishes": (
        "if (arrived_before != SPLITK - 1) return;", "if (arrived_before != 0) return;", SPLIT),
}


def run_mutant(cxx, name, old, new, key, work):
    src = open(KERNEL).read()
    if src.count(old) != 1:
        return name, None, "the mutation no longer applies: update tests/emu/mutants.py"
    path = os.path.join(work, str(abs(hash(name))) + ".cu")
    with open(path, "w") as f:
        f.write(src.replace(old, new))
    exe = path + ".exe"
    build = subprocess.run([cxx, "-std=c++20", "-O1", "-fsanitize=address,undefined",
                            "-fno-sanitize-recover=all", *["-D" + kv for kv in key.split(",")],
                            f'-DSGEMM_LARGE_SOURCE="{path}"', os.path.join(HERE, "sgemm_large_emu.cpp"),
                            "-o", exe], capture_output=True, text=True)
    if build.returncode != 0:
        return name, None, "host compile failed:\n" + build.stderr[-2000:]
    run = subprocess.run([exe], capture_output=True, text=True, env=dict(os.environ, ASAN_OPTIONS="detect_leaks=0"))
    lines = [ln for ln in (run.stdout + run.stderr).splitlines() if "swapcontext" not in ln and ln.strip()]
    return name, run.returncode != 0, (lines[0] if lines else "")[:160]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--cxx", default=os.environ.get("CXX", "g++"))
    a = ap.parse_args()
    missed = 0
    with tempfile.TemporaryDirectory() as work, concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        futures = [pool.submit(run_mutant, a.cxx, name, *m, work) for name, m in MUTANTS.items()]
        for fut in concurrent.futures.as_completed(futures):
            name, caught, what = fut.result()
            missed += caught is not True
            print(f"{'caught' if caught else 'MISSED' if caught is False else 'ERROR '}  {name}: {what}")
    print(f"{len(MUTANTS) - missed} of {len(MUTANTS)} mutants caught")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
