#!/usr/bin/env python3
"""Generates hundreds of hostile inputs of every format hone reads and runs every command that
reads them, checking that each is handled: no crash, no hang, no blow-up, nothing overwritten.

usage: generate.py --hone PATH [--seed N] [--count N] [--families a,b] [--timeout S]
                   [--memory-gib G] [--keep DIR] [--verbose]

Inputs are made from valid files (a Kernel Tuner cache, its .json.gz, a T4 file, KTT output, a
T1 file, a wisdom file, a results database, a config and its kernel, hone's CSV and JSON outputs) by
random mutation (bytes flipped, cut, repeated; values replaced by huge, NaN, negative, deep,
invalid-UTF-8 or control-character ones; keys given twice; lists made huge; types swapped;
SQLite pages damaged, schemas changed, rows filled with hostile values) and by known attack
shapes (gzip bombs, /dev/zero, fifos, folders, symbolic links, devices and the input itself as
the output, thousands of --where terms, odd option values). The same seed gives the same inputs
and the same commands.

Each input is given to the commands of its family (import, import-t1, export, report, replay,
space, show, selection-quality, merge, check, tune --dry-run), each run with a time limit and
an address-space limit, with HONE_MAX_INPUT_MIB=64 so that size limits are reached quickly. A
run passes when:
  - hone exits with 0, 2 or 3 (1 only from check, whose compile failures it is); never a
    signal, never 4 (internal error), never past the time limit;
  - a refusal (2 or 3) prints a message that names the input file (or, for a refused option,
    the option);
  - no input file changed, and no file was left in the input's folder or the working folder
    other than the command's own output on success (no temporary files, no -wal/-journal);
  - an output that is not a regular file, or that is an input, is never replaced;
  - an import that is refused leaves the database it was to add to byte-identical;
  - no raw terminal escape (ESC, CSI) reached standard output or standard error.
Prints a FAIL line per failing run and a table: inputs and runs per family, outcomes (exit 0,
2, 3, failures). Exits 1 when any run failed.
"""
import argparse
import copy
import gzip
import hashlib
import json
import os
import random
import re
import resource
import shutil
import signal
import sqlite3
import stat
import subprocess
import sys
import tempfile
import threading
import time
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run import run_limited, signature  # noqa: E402  (one definition of each)

STDERR_LIMIT = 1 << 20
ENV_LIMIT_MIB = 64  # HONE_MAX_INPUT_MIB during the runs
DEEP = 20_000

# ---------------------------------------------------------------------------------------------
# Valid inputs


def base_cache():
    cache = {
        "device_name": "Test GPU",
        "kernel_name": "vadd",
        "problem_size": [1024],
        "tune_params_keys": ["block_size_x", "vec", "kind"],
        "tune_params": {"block_size_x": [32, 64, 128, 256], "vec": [1, 2, 4],
                        "kind": ["float", "half"]},
        "objective": "time",
        "cache": {},
    }
    i = 0
    for b in cache["tune_params"]["block_size_x"]:
        for v in cache["tune_params"]["vec"]:
            for k in cache["tune_params"]["kind"]:
                i += 1
                key = f"{b},{v},{k}"
                if i % 7 == 3:
                    cache["cache"][key] = {"block_size_x": b, "vec": v, "kind": k,
                                           "time": "CompilationFailedConfig"}
                    continue
                t = 1.0 + b / 100 + v / 10 + (k == "half") * 0.3
                cache["cache"][key] = {"block_size_x": b, "vec": v, "kind": k, "time": t,
                                       "times": [t, t * 1.1, t * 0.9], "compile_time": 10.0 + i,
                                       "GFLOP/s": 100.0 / t}
    return cache


def base_ktt(cache):
    """The base cache's configurations as KTT 2.x's JSON output (hone replay reads it)."""
    results = []
    for rec in cache["cache"].values():
        ok = isinstance(rec["time"], float)
        results.append({
            "KernelName": cache["kernel_name"],
            "Status": "Ok" if ok else "CompilationFailed",
            "TotalDuration": rec["time"] * 1000 if ok else 0.0,
            "TotalOverhead": rec.get("compile_time", 0.0) * 1000,
            "ComputationResults": [{"Duration": rec["time"] * 1000}] if ok else [],
            "Configuration": [{"Name": n, "Value": rec[n],
                               "ValueType": "String" if isinstance(rec[n], str) else "UnsignedInt"}
                              for n in cache["tune_params_keys"]],
        })
    return {"Metadata": {"Device": cache["device_name"], "KttVersion": "2.1.0",
                         "TimeUnit": "Microseconds"}, "Results": results}


T1 = {
    "General": {"BenchmarkName": "small", "OutputFormat": "JSON"},
    "ConfigurationSpace": {
        "TuningParameters": [
            {"Name": "bx", "Type": "int", "Values": "[32 * i for i in range(1, 9)]", "Default": 32},
            {"Name": "vec", "Type": "int", "Values": "[1, 2, 4]", "Default": 1},
        ],
        "Conditions": [{"Parameters": ["bx", "vec"], "Expression": "bx * vec <= 512"}],
    },
    "KernelSpecification": {
        "Language": "CUDA", "KernelName": "vadd", "KernelFile": "vadd.cu",
        "GlobalSizeType": "CUDA", "LocalSize": {"X": "bx", "Y": "1", "Z": "1"},
        "GridDivX": ["bx", "vec"], "ProblemSize": [4096],
        "Arguments": [
            {"Name": "out", "Type": "float", "MemoryType": "Vector", "AccessType": "WriteOnly",
             "FillType": "Constant", "Size": 4096, "FillValue": 0.0, "Output": 1},
            {"Name": "n", "Type": "int32", "MemoryType": "Scalar", "AccessType": "ReadOnly",
             "FillType": "Constant", "FillValue": 4096}],
    },
}

CONFIG = """kernel:
  source: vadd.cu
  name: vadd
problem:
  N: 1024
params:
  BLOCK: [32, 64]
  VEC: [1, 2]
constraints:
  - "BLOCK * VEC <= 128"
buffers:
  a: {type: float, count: N, role: out}
args: [a, {value: N, type: int32}]
launch:
  block: [BLOCK]
  grid: ["ceil_div(N, BLOCK * VEC)"]
search:
  strategy: random
  max_evals: 3
"""

KERNEL = """extern "C" __global__ void vadd(float* a, int n) {
    int i = (blockIdx.x * blockDim.x + threadIdx.x) * VEC;
    for (int v = 0; v < VEC; ++v)
        if (i + v < n) a[i + v] = 1.0f;
}
"""

# ---------------------------------------------------------------------------------------------
# Mutations


class Pairs(list):
    """A JSON object as a list of (key, value) pairs: keys may repeat."""


def dump(v):
    """JSON text of v; Pairs keep repeated keys; floats NaN/inf are written as Python does."""
    if isinstance(v, Pairs):
        return "{" + ", ".join(json.dumps(k) + ": " + dump(x) for k, x in v) + "}"
    if isinstance(v, dict):
        return "{" + ", ".join(json.dumps(k) + ": " + dump(x) for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(dump(x) for x in v) + "]"
    if isinstance(v, RawJson):
        return v.text
    return json.dumps(v)


class RawJson:
    def __init__(self, text):
        self.text = text


def nested(rng, depth):
    if rng.random() < 0.5:
        return RawJson("[" * depth + "1" + "]" * depth)
    return RawJson('{"a": ' * depth + "1" + "}" * depth)


def hostile_value(rng):
    choice = rng.randrange(24)
    return [
        lambda: RawJson("1e400"), lambda: RawJson("-1e999"), lambda: RawJson("NaN"),
        lambda: RawJson("Infinity"), lambda: RawJson("-0"), lambda: 2 ** 63,
        lambda: -(2 ** 63) - 1, lambda: RawJson("9" * rng.choice((20, 400, 5000))),
        lambda: -1, lambda: 0, lambda: None, lambda: True, lambda: "",
        lambda: "\x1b[31mred\x1b]0;title\x07\x9b2J", lambda: "a\x00b",
        lambda: RawJson('"\\ud800"'), lambda: RawJson('"\xff\xfe"'),
        lambda: "x" * rng.choice((1000, 100_000, 2_000_000)),
        lambda: nested(rng, rng.choice((100, 600, DEEP))), lambda: [],
        lambda: {}, lambda: list(range(rng.choice((1000, 100_000)))),
        lambda: "=cmd|' /C calc'!A0", lambda: 1e-320,
    ][choice]()


def paths_of(v, prefix=()):
    """Every path (tuple of keys and indexes) in a JSON value."""
    out = [prefix]
    if isinstance(v, dict):
        for k, x in v.items():
            out += paths_of(x, prefix + (k,))
    elif isinstance(v, list):
        for i, x in enumerate(v):
            out += paths_of(x, prefix + (i,))
    return out


def get(v, path):
    for p in path:
        v = v[p]
    return v


def mutate_json(rng, doc, n=None):
    """A structural mutation of a JSON document (a dict/list tree); returns the new text."""
    doc = copy.deepcopy(doc)
    for _ in range(n or rng.choice((1, 1, 1, 2, 3))):
        paths = [p for p in paths_of(doc) if p]
        if not paths:
            break
        path = rng.choice(paths)
        parent, last = get(doc, path[:-1]), path[-1]
        kind = rng.randrange(8)
        if kind <= 2:
            parent[last] = hostile_value(rng)
        elif kind == 3 and isinstance(parent, dict):  # a key given twice
            pairs = Pairs(parent.items())
            pairs.append((last, hostile_value(rng) if rng.random() < 0.5 else parent[last]))
            rng.shuffle(pairs)
            grand = get(doc, path[:-2]) if len(path) > 1 else None
            if grand is None:
                return dump(pairs)
            grand[path[-2]] = pairs
            break
        elif kind == 4:  # removed
            if isinstance(parent, dict):
                del parent[last]
            else:
                parent.pop(last)
        elif kind == 5:  # type swapped
            x = parent[last]
            parent[last] = ([x] if not isinstance(x, list) else {"0": x}) if rng.random() < 0.5 \
                else dump(x)  # a value as a string: the text of its JSON
        elif kind == 6 and isinstance(parent, list):  # a list made huge
            parent.extend([parent[last]] * rng.choice((1000, 100_000)))
        else:  # an extra member
            if isinstance(parent, dict):
                parent[rng.choice(("extra", "cache", "results", "\x1b[2J", "", "time"))] = \
                    hostile_value(rng)
            else:
                parent.insert(last, hostile_value(rng))
    return dump(doc)


def mutate_bytes(rng, data):
    """A byte-level mutation: flips, cuts, repeats, inserted bytes, encodings."""
    data = bytearray(data)
    kind = rng.randrange(12)
    n = len(data)
    if n == 0:
        return bytes(rng.randbytes(16))
    i = rng.randrange(n)
    if kind == 0:
        for _ in range(rng.choice((1, 4, 32))):
            data[rng.randrange(n)] = rng.randrange(256)
    elif kind == 1:
        del data[i:]
    elif kind == 2:
        j = min(n, i + rng.randrange(1, 64))
        del data[i:j]
    elif kind == 3:
        j = min(n, i + rng.randrange(1, 256))
        data[i:i] = data[i:j] * rng.choice((2, 50, 5000))
    elif kind == 4:
        data[i:i] = rng.choice((b"\x00", b"\xff\xfe", b"\xc3(", b"\x1b[2J", b"\r", b"\t",
                                b"\xef\xbb\xbf", b"\xed\xa0\x80", b"\\", b'"', b"\n" * 1000))
    elif kind == 5:
        data = bytearray(b"\xef\xbb\xbf") + data
    elif kind == 6:
        data = data.replace(b"\n", b"\r\n")
    elif kind == 7:
        data += rng.choice((b" trailing", b"\x00", b"{}", b"]]]]", b"\n---\n" + bytes(data)))
    elif kind == 8:
        data[i:i] = b"[" * DEEP
    elif kind == 9:
        data = bytearray(data.decode("utf-8", "replace").encode("utf-16"))
    elif kind == 10:
        j = rng.randrange(n)
        data[i], data[j] = data[j], data[i]
    else:
        data[i:i] = bytes(rng.randbytes(rng.choice((1, 16, 4096))))
    return bytes(data)


def gzip_bytes(data, level=6):
    z = zlib.compressobj(level, zlib.DEFLATED, 31)
    return z.compress(data) + z.flush()


def gzip_bomb(inflated_mib):
    z = zlib.compressobj(9, zlib.DEFLATED, 31)
    out = [z.compress(b'{"cache": {"')]
    block = b"a" * (1 << 20)
    for _ in range(inflated_mib):
        out.append(z.compress(block))
    out.append(z.flush())
    return b"".join(out)


# ---------------------------------------------------------------------------------------------
# Cases: an input (files in its own folder) and the commands that read it


class Case:
    def __init__(self, family, name, files, commands, subject):
        self.family = family
        self.name = name
        self.files = files  # name -> bytes, or ("fifo", bytes|None), ("symlink", target), ...
        self.commands = commands  # lists of args; {in}/{db}/{out}/... substituted
        self.subject = subject  # the file name a refusal must name


def db_variants(rng, base_db_bytes, tmp):
    """A damaged, rewritten or hostile copy of the results database: (label, bytes)."""
    path = os.path.join(tmp, "mut.db")
    with open(path, "wb") as f:
        f.write(base_db_bytes)
    kind = rng.randrange(10)
    label = ""
    if kind <= 2:  # damaged pages
        data = bytearray(base_db_bytes)
        page = 4096
        pages = max(1, len(data) // page)
        p = rng.randrange(pages)
        how = rng.randrange(4)
        if how == 0:
            for _ in range(rng.choice((1, 8, 64))):
                data[p * page + rng.randrange(page)] = rng.randrange(256)
            label = f"bytes_page{p}"
        elif how == 1:
            data[p * page:(p + 1) * page] = b"\x00" * page
            label = f"zero_page{p}"
        elif how == 2:
            data = data[:rng.randrange(1, len(data))]
            label = "truncated"
        else:
            off = rng.randrange(16, 100)
            data[off] = rng.randrange(256)
            label = f"header{off}"
        return label, bytes(data)
    con = sqlite3.connect(path)
    con.execute("PRAGMA journal_mode=DELETE")
    try:
        if kind == 3:
            stmt = rng.choice((
                "DROP TABLE results", "DROP TABLE runs", "DROP TABLE meta",
                "ALTER TABLE results RENAME TO r2", "ALTER TABLE results DROP COLUMN samples",
                "ALTER TABLE runs DROP COLUMN origin", "ALTER TABLE results ADD COLUMN extra TEXT",
                "DELETE FROM meta", "UPDATE meta SET value = '999'",
                "UPDATE meta SET value = 'x\x1b[2J'", "PRAGMA user_version = 77",
                "PRAGMA application_id = 12345", "DELETE FROM runs",
                "CREATE TABLE results2 AS SELECT * FROM results"))
            label = "schema_" + re.sub(r"\W+", "_", stmt.lower())[:40]
            con.execute(stmt)
        elif kind <= 7:  # a hostile value in a row
            cols = [r[1] for r in con.execute("PRAGMA table_info(results)")]
            col = rng.choice(cols + ["params"] * 8 + ["samples", "metrics", "steps", "key",
                                                      "status"] * 2)
            table = "results"
            if rng.random() < 0.2:
                table = "runs"
                col = rng.choice([r[1] for r in con.execute("PRAGMA table_info(runs)")])
            value = rng.choice((
                None, "", "{", "[", "null", "nan", "1e400", '{"x": 1e400}', -1, 2 ** 63 - 1,
                -(2 ** 63), 1e308, float("inf"), float("-inf"), b"\xff\xfe\x00",
                "x\x1b[2J\x9b", "[" * DEEP + "]" * DEEP, '{"block_size_x": ' + "[" * DEEP + "]" *
                DEEP + "}", "y" * 5_000_000, '{"block_size_x": "\\u0000"}',
                '{"block_size_x": 32, "block_size_x": 64}', json.dumps(list(range(200_000))),
                '{"a": {"b": {"c": [1, 2, {"d": null}]}}}', "ok", "compile_error", "bogus",
                "0", 3.5))
            where = rng.choice(("", " WHERE rowid = (SELECT min(rowid) FROM " + table + ")"))
            label = f"row_{table}_{col}"
            con.execute(f'UPDATE {table} SET "{col}" = ?{where}', (value,))
        elif kind == 8:  # many rows, many distinct values
            n = rng.choice((2000, 20000))
            label = f"rows{n}"
            row = con.execute("SELECT * FROM results WHERE status = 'ok' LIMIT 1").fetchone()
            cols = [r[1] for r in con.execute("PRAGMA table_info(results)")]
            ki, pi = cols.index("key"), cols.index("params")
            rows = []
            for i in range(n):
                r = list(row)
                r[ki] = f"block_size_x={1000 + i},vec=1,kind=float"
                r[pi] = json.dumps({"block_size_x": 1000 + i, "vec": 1, "kind": "float"})
                rows.append(r)
            con.executemany(f"INSERT INTO results VALUES ({', '.join('?' * len(cols))})", rows)
        else:  # a second run, same or another kernel, hostile names
            label = "second_run"
            cols = [r[1] for r in con.execute("PRAGMA table_info(runs)")]
            row = list(con.execute("SELECT * FROM runs LIMIT 1").fetchone())
            row[cols.index("run_id")] = 2
            row[cols.index("identity")] = rng.choice(("x" * 32, "", "\x1b[2J", row[1]))
            row[cols.index("kernel_name")] = rng.choice(("other", "\x1b]0;t\x07", "", "vadd"))
            con.execute(f"INSERT OR REPLACE INTO runs VALUES ({', '.join('?' * len(cols))})",
                        row)
        con.commit()
    except sqlite3.Error as e:
        label += "_sqlerr"
        del e
    con.close()
    with open(path, "rb") as f:
        data = f.read()
    os.remove(path)
    return label, data


IMPORT = [["import", "{in}", "-o", "{db}"]]
REPLAY = [["replay", "{in}", "--seeds", "2", "--max-evals", "40", "--strategy", "random"]]
DB_READERS = [
    ["show", "{in}"], ["show", "{in}", "--json", "--all"], ["show", "{in}", "--where",
                                                             "block_size_x>=64,status=ok"],
    ["export", "{in}", "--format", "csv", "-o", "{out}.csv"],
    ["export", "{in}", "--format", "t4", "-o", "{out}.json"],
    ["export", "{in}", "--format", "kt-cache", "-o", "{out}.json.gz"],
    ["export", "{in}", "--format", "csv"],
    ["export", "{in}", "--wisdom", "{out}.wisdom.json"],
    ["report", "{in}", "-o", "{out}.html"],
    ["replay", "{in}", "--seeds", "2", "--max-evals", "30"],
    ["selection-quality", "{config}", "{in}"],
    ["merge", "{in}", "{good_db}", "-o", "{out}.db"],
]


def make_cases(rng, base, count, families):
    """About `count` cases over the families, each from a fresh mutation or attack shape."""
    cache_doc = base["cache_doc"]
    cache_text = json.dumps(cache_doc, indent=1).encode()
    t4_doc = json.loads(base["t4"])
    wisdom_doc = json.loads(base["wisdom"])
    makers = {}

    def kt_json(i):
        if rng.random() < 0.6:
            data = mutate_json(rng, cache_doc).encode("utf-8", "surrogatepass")
        else:
            data = mutate_bytes(rng, cache_text)
        cmds = IMPORT + REPLAY + ([["import", "{in}", "--format", "kt-cache", "-o", "{db}"]]
                                  if rng.random() < 0.3 else [])
        return Case("kt_cache", f"kt{i}", {"cache.json": data}, cmds, "cache.json")
    makers["kt_cache"] = kt_json

    def kt_gz(i):
        kind = rng.randrange(5)
        if kind == 0:
            data = gzip_bomb(rng.choice((80, 200)))
        elif kind == 1:
            data = mutate_bytes(rng, gzip_bytes(cache_text))
        elif kind == 2:
            data = gzip_bytes(cache_text)
            data = data[:rng.randrange(len(data))]
        elif kind == 3:  # concatenated members, a second one hostile
            data = gzip_bytes(cache_text) + gzip_bytes(mutate_bytes(rng, cache_text))
        else:
            data = gzip_bytes(mutate_json(rng, cache_doc).encode("utf-8", "surrogatepass"))
        return Case("kt_cache_gz", f"gz{i}", {"cache.json.gz": data}, IMPORT + REPLAY,
                    "cache.json.gz")
    makers["kt_cache_gz"] = kt_gz

    def t4(i):
        if rng.random() < 0.6:
            data = mutate_json(rng, t4_doc).encode("utf-8", "surrogatepass")
        else:
            data = mutate_bytes(rng, base["t4"].encode())
        cmds = IMPORT + [["import", "{in}", "--format", "t4", "-o", "{db}"]]
        return Case("t4", f"t4_{i}", {"t4.json": data}, cmds, "t4.json")
    makers["t4"] = t4

    ktt_doc = base_ktt(cache_doc)
    ktt_text = json.dumps(ktt_doc, indent=1).encode()

    def ktt(i):
        kind = rng.randrange(4)
        if kind < 2:
            data = mutate_json(rng, ktt_doc).encode("utf-8", "surrogatepass")
        elif kind == 2:
            data = mutate_bytes(rng, ktt_text)
        else:
            data = gzip_bytes(mutate_json(rng, ktt_doc).encode("utf-8", "surrogatepass"))
        name = "ktt.json.gz" if kind == 3 else "ktt.json"
        return Case("ktt", f"ktt{i}", {name: data}, REPLAY, name)
    makers["ktt"] = ktt

    def t1(i):
        doc = copy.deepcopy(T1)
        if rng.random() < 0.3:  # hostile Values or constraint text
            p = doc["ConfigurationSpace"]["TuningParameters"][rng.randrange(2)]
            target = rng.choice(("Values", "Expression"))
            text = rng.choice((
                "[i for i in range(1, 10**9)]", "[" * 300 + "1" + "]" * 300, "(" * 5000 + "1",
                "list(range(0, 1000000, 1))", "[2**i for i in range(0, 4000)]", "[1e400]",
                "[1, 2] * 1000000", "__import__('os').system('touch /tmp/pwned')",
                "[x for x in range(5) if x]", "[1,,2]", "[" + ", ".join(["1"] * 200000) + "]",
                "bx % 0 == 0", "bx ** bx ** bx > 1", "not not not " * 300 + "True",
                "bx < vec < bx < vec" * 100, "\x1b[2J", "[1, 'a\x00b']", "[-1, 0, 2**64]"))
            if target == "Values":
                p["Values"] = text
            else:
                doc["ConfigurationSpace"]["Conditions"] = [{"Parameters": ["bx"],
                                                            "Expression": text}]
            data = json.dumps(doc).encode("utf-8", "surrogatepass")
        elif rng.random() < 0.6:
            data = mutate_json(rng, doc).encode("utf-8", "surrogatepass")
        else:
            data = mutate_bytes(rng, json.dumps(doc, indent=1).encode())
        cmds = [["import-t1", "{in}", "-o", "{out}.yaml"]]
        return Case("t1", f"t1_{i}", {"t1.json": data}, cmds, "t1.json")
    makers["t1"] = t1

    def wisdom(i):
        if rng.random() < 0.6:
            data = mutate_json(rng, wisdom_doc).encode("utf-8", "surrogatepass")
        else:
            data = mutate_bytes(rng, base["wisdom"].encode())
        cmds = [["selection-quality", "{config}", "{in}"],
                ["selection-quality", "{config}", "{in}", "--json"],
                ["export", "{good_db}", "--wisdom", "{in}", "--merge"]]
        return Case("wisdom", f"wisdom{i}", {"wisdom.json": data}, cmds, "wisdom.json")
    makers["wisdom"] = wisdom

    def database(i):
        label, data = db_variants(rng, base["db"], base["tmp"])
        cmds = rng.sample(DB_READERS, 5)
        return Case("database", f"db{i}_{label}", {"r.db": data}, cmds, "r.db")
    makers["database"] = database

    def config(i):
        text = CONFIG
        kernel = KERNEL.encode()
        kind = rng.randrange(6)
        if kind == 0:
            data = mutate_bytes(rng, text.encode())
        elif kind == 1:  # a value or line replaced by an attack shape
            lines = text.splitlines()
            j = rng.randrange(len(lines))
            key = lines[j].split(":")[0]
            shape = rng.choice((
                "[" * 600 + "]" * 600, "&a [*a]", "!!python/object/apply:os.system ['id']",
                "\"" + "(" * 5000 + "1" + ")" * 5000 + "\"", "1e400", "nan", "-1",
                "[" + ", ".join(map(str, range(100_000))) + "]", "\"\\e[2J\"", "~", "{}",
                "\"BLOCK / 0\"", "99999999999999999999999", "\"x\" " * 1000))
            lines[j] = (key + ": " if ":" in lines[j] else "") + shape
            data = "\n".join(lines).encode()
        elif kind == 2:  # a billion laughs
            laughs = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
            for k in range(1, 10):
                laughs.append(f"a{k}: &a{k} [" + ", ".join([f"*a{k - 1}"] * 10) + "]")
            data = (text + "\n".join(laughs) + "\n").encode()
        elif kind == 3:  # kernel source: a device, a fifo, a folder, a link to itself, binary
            src = rng.choice(("/dev/zero", "/dev/urandom", "fifo", "folder", "loop.cu",
                              "missing.cu", "bin.cu", "../../../../etc/passwd", "huge.cu"))
            data = text.replace("source: vadd.cu", f"source: {src}").encode()
        elif kind == 4:  # many parameters or values
            n = rng.choice((30, 64))
            params = "".join(f"  P{k}: [1, 2, 3]\n" for k in range(n))
            data = text.replace("params:\n", "params:\n" + params).encode()
        else:
            data = text.replace('"BLOCK * VEC <= 128"', rng.choice((
                '"' + " and ".join(["BLOCK > 0"] * 5000) + '"', '"BLOCK ** 99999 > 0"',
                '"BLOCK % 0 == 0"', '"' + "-" * 100000 + 'BLOCK > 0"',
                '"unknown_fn(BLOCK)"', '"max_threads_per_block >= BLOCK"'))).encode()
        files = {"config.yaml": data, "vadd.cu": kernel, "fifo": ("fifo", None),
                 "folder": ("dir",), "loop.cu": ("symlink", "loop.cu"),
                 "bin.cu": bytes(range(256)) * 16, "huge.cu": ("sparse", 80 << 20)}
        cmds = [["space", "{in}", "--arch", "sm_90"], ["space", "{in}", "--json", "--arch",
                                                        "sm_90"]]
        if rng.random() < 0.25:
            cmds.append(["check", "{in}", "--arch", "sm_90", "--sample", "1", "-j", "1"])
        if rng.random() < 0.08:
            cmds.append(["tune", "{in}", "--dry-run", "--arch", "sm_90", "-j", "1"])
        return Case("config", f"config{i}", files, cmds, "config.yaml")
    makers["config"] = config

    def fed_back(i):
        """hone's own outputs (CSV, show --json, report HTML, export JSON) given to readers."""
        name, data = rng.choice((("out.csv", base["csv"]), ("show.json", base["show_json"]),
                                 ("t4.json", base["t4"].encode()),
                                 ("report.html", base["html"]),
                                 ("space.json", base["space_json"])))
        if rng.random() < 0.5:
            data = mutate_bytes(rng, data)
        cmds = rng.sample(IMPORT + REPLAY + [["import-t1", "{in}", "-o", "{out}.yaml"],
                                             ["space", "{in}"], ["show", "{in}"],
                                             ["selection-quality", "{config}", "{in}"]], 3)
        return Case("fed_back", f"fed{i}_{name}", {name: data}, cmds, name)
    makers["fed_back"] = fed_back

    def special(i):
        """Nodes that are not files, and outputs that must not be replaced."""
        kind = rng.randrange(10)
        good = base["cache_text"]
        if kind == 0:  # a fifo with a writer: the file's bytes, or an endless stream
            endless = rng.random() < 0.4
            files = {"in.json": ("fifo", None if endless else good)}
            cmd = rng.choice((IMPORT[0], REPLAY[0], ["space", "{in}"],
                              ["import-t1", "{in}", "-o", "{out}.yaml"]))
            return Case("special", f"special{i}_fifo", files, [cmd], "in.json")
        if kind == 1:  # endless devices and folders as input
            dev = rng.choice(("/dev/zero", "/dev/urandom", "/dev/null", "/proc/self/maps"))
            files = {"in.json": ("symlink", dev)} if rng.random() < 0.5 else {}
            arg = "{in}" if files else dev
            cmd = rng.choice((["import", arg, "-o", "{db}"], ["replay", arg],
                              ["space", arg], ["import-t1", arg, "-o", "{out}.yaml"],
                              ["show", arg], ["report", arg, "-o", "{out}.html"],
                              ["export", arg, "--format", "csv"],
                              ["selection-quality", "{config}", arg],
                              ["merge", arg, "{good_db}", "-o", "{out}.db"]))
            return Case("special", f"special{i}_dev", files, [cmd],
                        "in.json" if files else dev)
        if kind == 2:  # output onto devices, fifos, folders, links, the input
            target = rng.choice(("devnull", "fifo", "folder", "{in}", "inlink", "inhard",
                                 "dangling", "/dev/null", "nodir/out"))
            files = {"r.db": base["db"], "devnull": ("symlink", "/dev/null"),
                     "fifo": ("fifo_nowriter",), "folder": ("dir",),
                     "inlink": ("symlink", "r.db"), "inhard": ("hardlink", "r.db"),
                     "dangling": ("symlink", "nowhere/x")}
            o = target if target.startswith(("/", "{")) else "{dir}/" + target
            cmd = rng.choice((["export", "{in}", "--format", "csv", "-o", o],
                              ["export", "{in}", "--format", "t4", "-o", o],
                              ["export", "{in}", "--wisdom", o],
                              ["report", "{in}", "-o", o],
                              ["merge", "{in}", "{good_db}", "-o", o],
                              ["import", "{good_cache}", "-o", o]))
            return Case("special", f"special{i}_out_{target.strip('{}/')}", files, [cmd],
                        "r.db")
        if kind == 3:  # many --where terms
            n = rng.choice((1, 100, 256, 257, 5000))
            term = rng.choice(("block_size_x=32", "status=ok", "median_us<1e400", "x>=y",
                               "block_size_x>=", "=", "\x1b[2J=1", "kind!=half"))
            where = ",".join([term] * n)
            return Case("special", f"special{i}_where{n}", {"r.db": base["db"]},
                        [["show", "{in}", "--where", where]], "--where")
        # odd option values
        opt, cmd = rng.choice((
            ("--top", ["show", "{in}", "--top", "{v}"]),
            ("--run", ["show", "{in}", "--run", "{v}"]),
            ("--run", ["export", "{in}", "--format", "csv", "--run", "{v}"]),
            ("--top", ["report", "{in}", "-o", "{out}.html", "--top", "{v}"]),
            ("--top", ["export", "{in}", "--wisdom", "{out}.w.json", "--top", "{v}"]),
            ("--format", ["export", "{in}", "--format", "{v}"]),
            ("--seeds", ["replay", "{in}", "--seeds", "{v}", "--max-evals", "10"]),
            ("--max-evals", ["replay", "{in}", "--seeds", "1", "--max-evals", "{v}"]),
            ("--window", ["replay", "{in}", "--seeds", "1", "--max-evals", "10", "--window",
                          "{v}"]),
            ("--seed", ["replay", "{in}", "--seeds", "1", "--max-evals", "10", "--seed", "{v}"]),
            ("--option", ["replay", "{in}", "--seeds", "1", "--max-evals", "10", "--strategy",
                          "annealing", "-O", "walkers={v}"]),
            ("--strategy", ["replay", "{in}", "--seeds", "1", "--max-evals", "10",
                            "--strategy", "{v}"]),
            ("--identity", ["replay", "{in}", "--seeds", "1", "--identity", "{v}"]),
        ))
        value = rng.choice(("-1", "0", "1e20", "nan", "inf", "99999999999999999999", "", " ",
                            "0x10", "1.5", "+3", "--", "-", "\x1b[2J", "a" * 10000, "١٢",
                            "2147483648", "18446744073709551616", "1,2"))
        cmd = [c.replace("{v}", value) for c in cmd]
        files = {"r.db": base["db"]}
        return Case("special", f"special{i}_opt{opt}", files, [cmd], opt)
    makers["special"] = special

    weights = {"kt_cache": 8, "kt_cache_gz": 3, "t4": 5, "ktt": 3, "t1": 6, "wisdom": 4,
               "database": 9, "config": 5, "fed_back": 3, "special": 6}
    names = [f for f in weights if not families or f in families]
    cases = []
    # Every family at least once, then by weight.
    for f in names:
        cases.append(makers[f](len(cases)))
    while len(cases) < count:
        f = rng.choices(names, [weights[n] for n in names])[0]
        cases.append(makers[f](len(cases)))
    return cases


# ---------------------------------------------------------------------------------------------
# Running


def tree(folder):
    """Signatures of everything in a folder (not following links, not descending)."""
    return {name: signature(os.path.join(folder, name)) for name in os.listdir(folder)}


def lay_out(case, folder):
    """Writes the case's files into its folder; returns the fifo writers to start."""
    fifos = []
    for name, content in case.files.items():
        p = os.path.join(folder, name)
        if isinstance(content, bytes):
            with open(p, "wb") as f:
                f.write(content)
        elif content[0] in ("fifo", "fifo_nowriter"):
            os.mkfifo(p)
            if content[0] == "fifo":
                fifos.append((p, content[1]))
        elif content[0] == "dir":
            os.mkdir(p)
        elif content[0] == "symlink":
            os.symlink(content[1], p)
        elif content[0] == "hardlink":
            os.link(os.path.join(folder, content[1]), p)
        elif content[0] == "sparse":
            with open(p, "wb") as f:
                f.truncate(content[1])
    return fifos


def feed_fifo(path, data, stop):
    """Writes data (or an endless stream of spaces) into a fifo until the reader goes."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
    except OSError:
        fd = None
    deadline = time.monotonic() + 5
    while fd is None and not stop.is_set() and time.monotonic() < deadline:
        try:
            fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
        except OSError:
            time.sleep(0.01)
    if fd is None:
        return
    os.set_blocking(fd, True)
    try:
        if data is not None:
            os.write(fd, data)
        else:
            block = b" " * (1 << 16)
            while not stop.is_set():
                os.write(fd, block)
    except OSError:
        pass
    finally:
        os.close(fd)


ESC = (b"\x1b", "\u009b".encode())


def run_command(hone, case, folder, work, args, base, timeout, memory_gib):
    """Runs one command of a case; returns (exit code or None, list of problems)."""
    inp = os.path.join(folder, next(iter(case.files))) if case.files else ""
    db = os.path.join(work, "target.db")
    shutil.copyfile(base["good_db_path"], db)
    out = os.path.join(work, "out")
    subst = {"{in}": inp, "{db}": db, "{out}": out, "{dir}": folder,
             "{config}": base["config_path"], "{good_db}": base["good_db_path"],
             "{good_cache}": base["good_cache_path"]}
    argv = []
    for a in args:
        for k, v in subst.items():
            a = a.replace(k, v)
        argv.append(a)
    outputs = set()
    for i, a in enumerate(argv):
        if i > 0 and argv[i - 1] in ("-o", "--output", "--wisdom"):
            outputs.add(a)
    is_import = argv[0] == "import"
    before_folder = tree(folder)
    before_work = tree(work)
    before_outside = {p: signature(p) for p in outputs if not p.startswith(work)}
    fifos = [(p, d) for p, d in lay_out_fifos(case, folder)]
    stop = threading.Event()
    writers = [threading.Thread(target=feed_fifo, args=(p, d, stop), daemon=True)
               for p, d in fifos]
    for w in writers:
        w.start()
    env = dict(os.environ, HONE_CACHE_DIR=os.path.join(base["tmp"], "compile-cache"),
               NO_COLOR="1", HONE_MAX_INPUT_MIB=str(ENV_LIMIT_MIB))
    stdout_path, stderr_path = os.path.join(base["tmp"], "stdout"), os.path.join(base["tmp"],
                                                                                "stderr")
    rc, seconds, problems = run_limited([hone] + argv, work, env, stdout_path, stderr_path,
                                        timeout, memory_gib)
    stop.set()
    for w in writers:
        w.join(timeout=2)
    with open(stderr_path, "rb") as f:
        stderr = f.read(STDERR_LIMIT)
    with open(stdout_path, "rb") as f:
        stdout = f.read(STDERR_LIMIT)
    text = stderr.decode("utf-8", "replace")
    allowed = (0, 1, 2, 3) if argv[0] == "check" else (0, 2, 3)
    if rc is not None:
        if rc < 0:
            problems.append(f"killed by signal {-rc} ({signal.Signals(-rc).name})")
        elif rc not in allowed:
            problems.append(f"exit code {rc}")
        if rc in (2, 3):
            if not text.strip():
                problems.append("refused without a message")
            elif not names_input(case, text, outputs, argv):
                problems.append(f"the message does not name {case.subject!r}")
    for label, data in (("stdout", stdout), ("stderr", stderr)):
        if any(e in data for e in ESC):
            problems.append(f"a raw escape sequence reached {label}")
    # Inputs unchanged; nothing left behind.
    after_folder = tree(folder)
    for name, sig in before_folder.items():
        p = os.path.join(folder, name)
        if after_folder.get(name) != sig and not (rc == 0 and p in outputs):
            problems.append(f"{name} in the input folder was {'removed' if name not in after_folder else 'changed'}")
    for name in after_folder:
        p = os.path.join(folder, name)
        if name not in before_folder and not (rc == 0 and p in outputs):
            problems.append(f"{name} was left in the input folder")
    after_work = tree(work)
    for name in after_work:
        p = os.path.join(work, name)
        if name not in before_work and not (rc == 0 and p in outputs):
            problems.append(f"{name} was left in the working folder")
    if is_import and rc != 0 and after_work.get("target.db") != before_work.get("target.db"):
        problems.append("a refused import changed the database")
    for p, sig in before_outside.items():
        if sig is not None and sig[0] == "node" and signature(p) != sig:
            problems.append(f"the output {p}, not a regular file, was replaced")
    for p in outputs:
        if p.startswith(folder) and os.path.basename(p) in ("devnull", "fifo", "folder",
                                                           "inlink", "inhard"):
            if after_folder.get(os.path.basename(p)) != before_folder.get(os.path.basename(p)):
                problems.append(f"the output {os.path.basename(p)} was replaced")
    # The next command of the case starts from the same files.
    for name in list(after_work):
        p = os.path.join(work, name)
        if os.path.isdir(p) and not os.path.islink(p):
            shutil.rmtree(p)
        else:
            os.remove(p)
    for name in after_folder:
        if name not in before_folder:
            p = os.path.join(folder, name)
            if os.path.isdir(p) and not os.path.islink(p):
                shutil.rmtree(p, ignore_errors=True)
            else:
                os.remove(p)
    return rc, problems, seconds, argv, text


def names_input(case, text, outputs, argv):
    """Whether a refusal's message names what was refused: the input file (or an output given
    with it), an option of the command line whose value it refuses (error: --where:1:5: ...),
    or for a case about an option's value, an option."""
    if case.subject in text or any(os.path.basename(o) in text for o in outputs):
        return True
    option = re.search(r"error: (--[a-z-]+)", text)
    if option and option.group(1) in argv:
        return True
    return case.subject.startswith("-") and re.search(r"--?[a-zA-Z]|option", text) is not None


def lay_out_fifos(case, folder):
    return [(os.path.join(folder, n), c[1]) for n, c in case.files.items()
            if not isinstance(c, bytes) and c[0] == "fifo"]


def build_base(hone, tmp):
    """The valid files everything is made from, and the hone outputs fed back."""
    base = {"tmp": tmp}
    d = os.path.join(tmp, "base")
    os.mkdir(d)

    def p(name):
        return os.path.join(d, name)

    def hone_out(*args):
        return subprocess.run([hone, *args], check=True, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, cwd=d).stdout

    doc = base_cache()
    base["cache_doc"] = doc
    base["cache_text"] = json.dumps(doc).encode()
    with open(p("good_cache.json"), "wb") as f:
        f.write(base["cache_text"])
    hone_out("import", p("good_cache.json"), "-o", p("good.db"))
    con = sqlite3.connect(p("good.db"))
    con.execute("PRAGMA journal_mode=DELETE")
    con.close()
    with open(p("good.db"), "rb") as f:
        base["db"] = f.read()
    base["good_db_path"] = p("good.db")
    base["good_cache_path"] = p("good_cache.json")
    hone_out("export", p("good.db"), "--format", "t4", "-o", p("t4.json"))
    with open(p("t4.json"), encoding="utf-8") as f:
        base["t4"] = f.read()
    hone_out("export", p("good.db"), "--wisdom", p("w.json"))
    with open(p("w.json"), encoding="utf-8") as f:
        base["wisdom"] = f.read()
    base["csv"] = hone_out("export", p("good.db"), "--format", "csv")
    base["show_json"] = hone_out("show", p("good.db"), "--json")
    hone_out("report", p("good.db"), "-o", p("good.html"))
    with open(p("good.html"), "rb") as f:
        base["html"] = f.read()
    with open(p("base_config.yaml"), "w", encoding="utf-8") as f:
        f.write(CONFIG)
    with open(p("vadd.cu"), "w", encoding="utf-8") as f:
        f.write(KERNEL)
    base["config_path"] = p("base_config.yaml")
    base["space_json"] = hone_out("space", p("base_config.yaml"), "--json", "--arch", "sm_90")
    return base


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hone", required=True, help="the hone binary")
    ap.add_argument("--seed", type=int, default=1, help="seed of the inputs (default 1)")
    ap.add_argument("--count", type=int, default=450, help="inputs to make (default 450)")
    ap.add_argument("--families", default="", help="comma-separated families (default all)")
    ap.add_argument("--timeout", type=float, default=60, help="seconds per run (default 60)")
    ap.add_argument("--memory-gib", type=float, default=3,
                    help="address-space limit per run in GiB (default 3)")
    ap.add_argument("--keep", help="keep the inputs of failing runs in this folder")
    ap.add_argument("--verbose", action="store_true", help="print every run")
    a = ap.parse_args()
    hone = os.path.abspath(a.hone)
    rng = random.Random(a.seed)
    tmp = tempfile.mkdtemp(prefix="hone-generate-")
    families = [f for f in a.families.split(",") if f]
    table = {}
    failed = 0
    started = time.monotonic()
    try:
        base = build_base(hone, tmp)
        cases = make_cases(rng, base, a.count, families)
        for n, case in enumerate(cases):
            folder = os.path.join(tmp, "in", case.name)
            work = os.path.join(tmp, "work", case.name)
            os.makedirs(folder)
            os.makedirs(work)
            lay_out(case, folder)
            row = table.setdefault(case.family, {"inputs": 0, "runs": 0, 0: 0, 1: 0, 2: 0, 3: 0,
                                                 "fail": 0, "seconds": 0.0})
            row["inputs"] += 1
            case_failed = False
            for args in case.commands:
                rc, problems, seconds, argv, text = run_command(
                    hone, case, folder, work, args, base, a.timeout, a.memory_gib)
                row["runs"] += 1
                row["seconds"] += seconds
                if problems:
                    row["fail"] += 1
                    failed += 1
                    case_failed = True
                    shown = " ".join(x if len(x) < 80 else x[:60] + "..." for x in argv)
                    print(f"FAIL {case.name}: hone {shown}\n     {'; '.join(problems)}"
                          + ("\n     stderr: " + " | ".join(
                              line[:200] for line in text.strip().splitlines()[:3])
                             if text.strip() else ""), flush=True)
                elif rc in row:
                    row[rc] += 1
                if a.verbose:
                    print(f"  {case.name}: exit {rc} ({seconds:.2f} s) {argv[0]}", flush=True)
            if case_failed and a.keep:
                dest = os.path.join(a.keep, case.name)
                shutil.rmtree(dest, ignore_errors=True)
                # Fifos are made again by the case; copytree cannot copy them.
                shutil.copytree(folder, dest, symlinks=True, ignore=lambda d, names: [
                    n for n in names if stat.S_ISFIFO(os.lstat(os.path.join(d, n)).st_mode)])
            shutil.rmtree(folder, ignore_errors=True)
            shutil.rmtree(work, ignore_errors=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"\nseed {a.seed}: {sum(r['inputs'] for r in table.values())} inputs, "
          f"{sum(r['runs'] for r in table.values())} runs in {time.monotonic() - started:.0f} s")
    print(f"{'family':<12} {'inputs':>6} {'runs':>5} {'exit 0':>6} {'exit 1':>6} {'exit 2':>6} "
          f"{'exit 3':>6} {'failed':>6} {'seconds':>8}")
    for fam, r in table.items():
        print(f"{fam:<12} {r['inputs']:>6} {r['runs']:>5} {r[0]:>6} {r[1]:>6} {r[2]:>6} "
              f"{r[3]:>6} {r['fail']:>6} {r['seconds']:>8.1f}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
