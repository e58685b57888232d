#!/usr/bin/env python3
"""Inputs of the writers group (tests/hostile/writers/cases.tsv): python3 gen.py GEN_DIR, with
the hone binary in the environment variable HONE (it imports the caches into databases)."""
import copy
import gzip
import json
import os
import sqlite3
import subprocess
import sys

gen = sys.argv[1]
hone = os.environ["HONE"]
os.makedirs(gen, exist_ok=True)


def path(name):
    return os.path.join(gen, name)


def write(name, text):
    with open(path(name), "w", encoding="utf-8") as f:
        f.write(text)


def hone_ok(*args):
    subprocess.run([hone, *args], check=True, stdout=subprocess.DEVNULL)


# A small Kernel Tuner cache, its database, and names for the same file.
cache = {
    "device_name": "Test GPU",
    "kernel_name": "vadd",
    "problem_size": [1024],
    "tune_params_keys": ["block_size_x", "vec"],
    "tune_params": {"block_size_x": [32, 64, 128], "vec": [1, 2]},
    "objective": "time",
    "cache": {},
}
for b in (32, 64, 128):
    for v in (1, 2):
        t = 1.0 + b / 100 + v / 10
        cache["cache"][f"{b},{v}"] = {"block_size_x": b, "vec": v, "time": t,
                                      "times": [t, t * 1.1, t * 0.9], "compile_time": 10.0}
write("cache.json", json.dumps(cache))
hone_ok("import", path("cache.json"), "-o", path("r.db"))
os.link(path("r.db"), path("r_hard.db"))
os.symlink("r.db", path("r_sym.db"))

# Nodes that are not regular files. The devices are reached through links in GEN: were a
# writer to put a file in their place, it would replace the link, not the device.
os.symlink("/dev/null", path("devnull"))
os.symlink("/dev/full", path("devfull"))
os.symlink("/dev/zero", path("devzero"))
os.mkfifo(path("fifo"))
os.symlink("nowhere/x", path("dangling"))  # a link to a folder that does not exist
os.mkdir(path("folder"))

# Files that are not hone databases.
write("empty.db", "")
write("notdb.db", "run,kernel\n1,vadd\n")
foreign = sqlite3.connect(path("foreign.db"))
foreign.execute("CREATE TABLE t (x)")
foreign.commit()
foreign.close()

# Names with terminal control sequences, and a cell a spreadsheet would run as a formula.
esc = copy.deepcopy(cache)
esc["kernel_name"] = "vadd\x1b[31mRED\x1b]0;title\x07\r\x9b2J"
esc["device_name"] = "GPU\x1b[2J"
esc["tune_params_keys"] = ["block_size_x", "mode"]
esc["tune_params"] = {"block_size_x": [32, 64], "mode": ["=cmd|' /C calc'!A0", "\x1b[5mblink"]}
esc["cache"] = {}
for b in (32, 64):
    for i, m in enumerate(esc["tune_params"]["mode"]):
        esc["cache"][f"{b},{m}"] = {"block_size_x": b, "mode": m, "time": 1.0 + b / 100 + i,
                                    "times": [1.0, 1.1]}
write("esc_cache.json", json.dumps(esc))
hone_ok("import", path("esc_cache.json"), "-o", path("esc.db"))
bad = copy.deepcopy(cache)
bad["cache"]["32,1"]["block_size_x"] = "\x1b[2J32"  # a value the header does not list
write("esc_bad.json", json.dumps(bad))

# Raw times that are not times.
for name, change in (("neg_times", {"times": [-1.0, 1.0]}), ("neg_time", {"time": -5.0}),
                     ("str_times", {"times": "fast"}), ("str_in_times", {"times": [1.0, "x"]}),
                     ("nan_times", {"times": [1.0, None]})):
    c = copy.deepcopy(cache)
    c["cache"]["64,2"].update(change)
    write(name + ".json", json.dumps(c))
subprocess.run([hone, "export", path("r.db"), "--format", "t4", "-o", path("t4.json")], check=True,
               stderr=subprocess.DEVNULL)
with open(path("t4.json"), encoding="utf-8") as f:
    t4 = json.load(f)
t4["results"][0]["times"]["runtimes"] = [-0.5, 1.0]
write("t4_neg.json", json.dumps(t4))

# Configs: a plain one, gzip-compressed, binary, and one whose kernel source is a device.
config = """kernel:
  source: vadd.cu
  name: vadd
problem:
  N: 1024
params:
  BLOCK: [32, 64, 128]
buffers:
  a: {type: float, count: N, role: out}
args: [a, {value: N, type: int32}]
launch:
  block: [BLOCK]
  grid: ["ceil_div(N, BLOCK)"]
"""
write("config.yaml", config)
with gzip.open(path("config.yaml.gz"), "wt") as f:
    f.write(config)
with open(path("binary.yaml"), "wb") as f:
    f.write(b"kernel:\x00\x01\x02" * 10)
# A config whose kernel name holds escape sequences (as a careless or hostile T1 file gives it).
write("esc_config.yaml", config.replace("name: vadd", 'name: "vadd\\e[2J\\e]0;title\\a"'))
write("config_devsrc.yaml", config.replace("source: vadd.cu", "source: /dev/zero"))

# A T1 tuning-input file, and one whose constraint does not load.
t1 = {
    "General": {"BenchmarkName": "small", "OutputFormat": "JSON"},
    "ConfigurationSpace": {
        "TuningParameters": [{"Name": "bx", "Type": "int", "Values": "[32, 64]", "Default": 32}],
        "Conditions": [],
    },
    "KernelSpecification": {
        "Language": "CUDA", "KernelName": "k", "KernelFile": "k.cu", "GlobalSizeType": "CUDA",
        "LocalSize": {"X": "bx", "Y": "1", "Z": "1"}, "GridDivX": ["bx"], "ProblemSize": [4096],
        "Arguments": [{"Name": "out", "Type": "float", "MemoryType": "Vector",
                       "AccessType": "WriteOnly", "FillType": "Constant", "Size": 4096,
                       "FillValue": 0.0, "Output": 1}],
    },
}
write("t1.json", json.dumps(t1))
t1_bad = copy.deepcopy(t1)
t1_bad["ConfigurationSpace"]["TuningParameters"][0]["Values"] = "[32, 'x' +]"
write("t1_bad.json", json.dumps(t1_bad))
