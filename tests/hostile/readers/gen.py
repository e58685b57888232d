#!/usr/bin/env python3
"""Inputs of the readers group (tests/hostile/readers/cases.tsv): python3 gen.py GEN_DIR, with
the hone binary in the environment variable HONE (it imports a cache into the database whose
parameters are then nested deeply). Deep JSON, a gzip bomb, numbers out of range, long lists of
values and records, huge T1 value counts, a count beyond 2^64."""
import json
import os
import sqlite3
import subprocess
import sys
import zlib

gen = sys.argv[1]
os.makedirs(gen, exist_ok=True)
DEEP = 100_000


def path(name):
    return os.path.join(gen, name)


def write(name, text):
    with open(path(name), "w", encoding="utf-8") as f:
        f.write(text)


def nested(depth, inner="1"):
    return "[" * depth + inner + "]" * depth


def cache(records, values=(1, 2), extra=""):
    """A Kernel Tuner cache of parameter x; `records` are the texts of the cache's members."""
    return ('{"device_name": "GPU", "kernel_name": "k", "problem_size": [64],\n'
            '"tune_params_keys": ["x"], "tune_params": {"x": [' + ", ".join(map(str, values)) +
            "]}" + extra + ',\n"cache": {\n' + ",\n".join(records) + "}}\n")


def record(x, time="1.0", more=""):
    return f'"{x}": {{"x": {x}, "time": {time}{more}}}'


# ---- nesting: JSON 100,000 levels deep in each reader, and deep parentheses in T1
write("kt_deep_metric.json", cache([record(1, more=', "extra": ' + nested(DEEP)), record(2)]))
write("kt_deep_param.json",
      cache([record(1)], values=(1, nested(DEEP))))
write("t4_deep.json",
      '{"schema_version": "1.0.0", "results": [{"configuration": {"x": ' + nested(DEEP) +
      '}, "times": {}, "invalidity": "correct", "correctness": 1}]}\n')
write("wisdom_deep.json", '{"format": "hone-wisdom", "version": 1, "entries": ' +
      nested(DEEP) + "}\n")


def t1(values, condition="x > 0"):
    return json.dumps({
        "ConfigurationSpace": {"TuningParameters": [{"Name": "x", "Values": values}],
                               "Conditions": [{"Expression": condition}]},
        "KernelSpecification": {"KernelName": "k", "KernelFile": "k.cu"}})


write("t1_deep_json.json", '{"ConfigurationSpace": ' + nested(DEEP) + "}\n")
write("t1_deep_values.json", t1("(" * DEEP + "[1, 2]" + ")" * DEEP))
write("t1_deep_list.json", t1("[" * DEEP + "1" + "]" * DEEP))
write("t1_deep_constraint.json", t1("[1, 2]", "(" * DEEP + "x > 0" + ")" * DEEP))

# ---- numbers out of range, each on a line of its own
write("kt_1e400.json", cache([record(1), record(2, "\n1e400")]))
write("t4_1e400.json",
      '{"schema_version": "1.0.0", "results": [{"configuration": {"x": 1},\n'
      '"times": {"runtimes": [1e400]}, "invalidity": "correct", "correctness": 1}]}\n')
write("t1_1e400.json", '{"ConfigurationSpace": {"TuningParameters": [{"Name": "x",\n'
      '"Values": [1, -1e400]}]}, "KernelSpecification": {"KernelName": "k", "KernelFile": "k.cu"}}\n')

# ---- a gzip bomb: 1.25 GiB of spaces in about 1.3 MB, past the 1 GiB inflate limit
with open(path("bomb.json.gz"), "wb") as f:
    z = zlib.compressobj(9, zlib.DEFLATED, 31)
    f.write(z.compress(b"{"))
    block = b" " * (1 << 24)
    for _ in range(80):
        f.write(z.compress(block))
    f.write(z.compress(b"}"))
    f.write(z.flush())

# ---- many values per parameter, many records
for n in (100_000,):
    write(f"kt_{n}_values.json", cache([record(i, str(1 + i % 7)) for i in range(n)],
                                       values=range(n)))
write("kt_1m_records.json",
      '{"device_name": "GPU", "kernel_name": "k", "problem_size": [64],\n'
      '"tune_params_keys": ["a", "b"], "tune_params": {"a": [' +
      ", ".join(map(str, range(1000))) + '], "b": [' + ", ".join(map(str, range(1000))) +
      ']},\n"cache": {\n' +
      ",\n".join(f'"{a},{b}": {{"a": {a}, "b": {b}, "time": {1 + (a * 7 + b) % 13}}}'
                 for a in range(1000) for b in range(1000)) + "}}\n")

# ---- four parameters of 999,999 values in a 1 KB T1 file
write("t1_huge.json", json.dumps({
    "ConfigurationSpace": {"TuningParameters": [
        {"Name": n, "Values": "[i for i in range(1, 1000000)]"} for n in ("a", "b", "c", "d")]},
    "KernelSpecification": {"KernelName": "k", "KernelFile": "k.cu"}}))

# ---- a config, its kernel, and a space of 9^21 valid configurations (beyond 2^64)
write("k.cu", 'extern "C" __global__ void k(float* a, int n) {\n'
      "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) a[i] = 1;\n}\n")
write("config.yaml", "kernel: {source: k.cu, name: k}\nproblem: {N: 1024}\n"
      "params: {B: [32, 64]}\nbuffers: {a: {type: float, count: N, role: out}}\n"
      "args: [a, {value: N, type: int32}]\nlaunch: {grid: [\"ceil_div(N, B)\"], block: B}\n")
params = ", ".join(f"p{i}: [1, 2, 3, 4, 5, 6, 7, 8, 9]" for i in range(21))
write("count21.yaml", "kernel: {source: k.cu, name: k}\nproblem: {N: 1024}\n"
      f"params: {{{params}}}\nbuffers: {{a: {{type: float, count: N, role: out}}}}\n"
      "args: [a, {value: N, type: int32}]\nlaunch: {grid: [4], block: 256}\n"
      "constraints: [\"p0 + p1 > 0\"]\n")

# ---- a small space for replay at its limits
write("small.json", cache([record(i, str(1 + (i * 7) % 16)) for i in range(16)], values=range(16)))

# ---- a results database whose stored parameters are nested 100,000 deep
hone = os.environ.get("HONE")
if hone:
    db = path("deep_params.db")
    if os.path.exists(db):
        os.remove(db)
    write("two.json", cache([record(1), record(2, "2.0")]))
    subprocess.run([hone, "import", path("two.json"), "-o", db], check=True,
                   stdout=subprocess.DEVNULL)
    con = sqlite3.connect(db)
    con.execute("UPDATE results SET params = ? WHERE key LIKE '%x=1%'",
                ('{"x": ' + nested(DEEP) + "}",))
    con.commit()
    con.execute("PRAGMA journal_mode=DELETE")
    con.close()
    # Parameters that are valid JSON of another shape.
    db = path("null_params.db")
    if os.path.exists(db):
        os.remove(db)
    subprocess.run([hone, "import", path("two.json"), "-o", db], check=True,
                   stdout=subprocess.DEVNULL)
    con = sqlite3.connect(db)
    con.execute("UPDATE results SET params = 'null' WHERE key LIKE '%x=1%'")
    con.commit()
    con.execute("PRAGMA journal_mode=DELETE")
    con.close()

# ---- the cache read as a stream: member order, repeated keys, values where records go
HEADER = ('"device_name": "GPU", "kernel_name": "k", "tune_params_keys": ["x"], '
          '"tune_params": {"x": [1, 2]}')
write("kt_cache_first.json", '{"cache": {' + record(1) + ", " + record(2) + "}, " + HEADER + "}\n")
write("kt_duplicate_key.json", "{" + HEADER + ', "cache": {' + record(1) + ", " +
      record(1, time="2.0") + "}}\n")
write("kt_two_caches.json", "{" + HEADER + ', "cache": {}, "cache": {' + record(1) + "}}\n")
write("kt_cache_array.json", "{" + HEADER + ', "cache": [1, 2]}\n')
write("kt_record_scalar.json", "{" + HEADER + ', "cache": {"1": 5}}\n')
write("kt_top_array.json", "[{" + HEADER + ', "cache": {}}]\n')
write("kt_truncated_record.json", "{" + HEADER + ', "cache": {' + record(1) + ', "2": {"x": 2, "ti')
# A run that stopped leaves its cache open: each record and its comma, no closing braces.
write("kt_open.json", "{" + HEADER + ', "cache": {\n' + record(1) + ",\n" + record(2) + ",\n")
write("kt_trailing.json", "{" + HEADER + ', "cache": {' + record(1) + "}} trailing\n")
write("kt_nan_time.json", "{" + HEADER + ', "cache": {' + record(1, time="NaN") + "}}\n")
