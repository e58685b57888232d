#!/usr/bin/env python3
"""`hone import` of a Kernel Tuner cache of 200,000 records (8.5 MB; one parameter of 200,000
values, the densest a cache gets) under an address-space limit of 6 times the file plus
160 MiB (hone's libraries and heap at start, about 130 MiB of address space). docs/limits.md
states at most 4 times the input plus a constant in resident memory; address space is a
looser but robust ceiling. Before the cache was read as a stream, this import needed 1.4 KiB a
record (280 MiB). usage: import_memory.py HONE WORK_DIR"""
import os
import resource
import subprocess
import sys

hone, work = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)
cache = os.path.join(work, "cache_200k.json")
db = os.path.join(work, "cache_200k.db")
n = 200_000
with open(cache, "w") as f:
    f.write('{"device_name": "GPU", "kernel_name": "k", "problem_size": [64],\n'
            '"tune_params_keys": ["x"], "tune_params": {"x": [')
    f.write(", ".join(map(str, range(n))))
    f.write(']},\n"cache": {\n')
    f.write(",\n".join(f'"{i}": {{"x": {i}, "time": {1 + i % 7}}}' for i in range(n)))
    f.write("}}\n")
if os.path.exists(db):
    os.remove(db)
limit = 6 * os.path.getsize(cache) + (160 << 20)


def cap():
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


proc = subprocess.run([hone, "import", cache, "-o", db], capture_output=True, text=True,
                      preexec_fn=cap, timeout=600)
if proc.returncode != 0 or f"imported {cache}: {n} configurations" not in proc.stdout:
    sys.exit(f"import under an address-space limit of {limit >> 20} MiB: exit "
             f"{proc.returncode}\nstdout: {proc.stdout}\nstderr: {proc.stderr}")
print(f"imported {n} records ({os.path.getsize(cache)} bytes) under {limit >> 20} MiB")
