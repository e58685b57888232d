#!/usr/bin/env python3
"""Medians of an ncu --csv report of `probe_profiler plain 30` (bench/probes/probe_ncu_lib.sh): the probe
launches probe_vadd 35 times a size (5 to warm, 30 timed) from N = 2^14 (2^PROBE_MIN_EXP where the
environment sets it, as for the probe) up in steps of 4x; prints one line a size with each metric's
median over the 30 timed launches.
  ncu_parse.py REPORT.csv"""
import collections
import csv
import os
import statistics
import sys

LAUNCHES_PER_SIZE, WARM = 35, 5
MIN_EXP = int(os.environ.get("PROBE_MIN_EXP", "14"))

rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 5]
head = rows[0]
id_col, name_col, value_col = head.index("ID"), head.index("Metric Name"), head.index("Metric Value")
by_launch = collections.OrderedDict()
for r in rows[1:]:
    by_launch.setdefault(int(r[id_col]), {})[r[name_col]] = float(r[value_col].replace(",", ""))
ids = list(by_launch)
metrics = list(by_launch[ids[0]]) if ids else []
for k in range(len(ids) // LAUNCHES_PER_SIZE):
    timed = [by_launch[i] for i in ids[k * LAUNCHES_PER_SIZE:(k + 1) * LAUNCHES_PER_SIZE]][WARM:]
    print("ncu N=2^%d " % (MIN_EXP + 2 * k) +
          " ".join("%s=%.4g" % (m, statistics.median(c[m] for c in timed)) for m in metrics))
