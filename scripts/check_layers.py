#!/usr/bin/env python3
"""Checks that libhone's includes follow its layers: every `#include "..."` in src/ and
include/hone/ goes from a layer to itself or to a layer below it (LAYERS, lowest first).
A public header (include/hone/X.hpp) belongs to the layer that implements it (PUBLIC), and
includes only other public headers: the machinery's headers under src/ are not installed.

Usage: scripts/check_layers.py [REPO_ROOT]
Prints each include outside the order as FILE:LINE: LAYER -> LAYER ("INCLUDE") and exits 1;
exits 0, silent, when every include follows the order. The same order is written down in
CMakeLists.txt (HONE_LAYERS) and docs/architecture.md.
"""
import os
import re
import sys

# Lowest first: a layer may include its own headers and those of the layers before it.
LAYERS = ["common", "process", "expr", "search", "spec", "space", "compile", "driver", "verify",
          "measure", "record", "worker", "store", "report", "formats", "tune", "runtime", "dist",
          # programs on top of the library
          "cli", "worker_main"]

# include/hone/X.hpp -> the layer it belongs to; hone.hpp includes the whole API.
PUBLIC = {
    "error": "common", "value": "common", "elem_type": "common", "status": "common",
    "summary": "common", "shard": "common", "expr": "expr", "spec": "spec", "config": "space",
    "compile_result": "compile", "device_attrs": "driver", "device_info": "driver",
    "job_result": "driver", "record": "record", "final_word": "record", "store": "store",
    "tuner": "tune", "kernel": "runtime", "wisdom": "runtime", "hone": "runtime",
}

# Edges tolerated while code is still to be moved, as (including file, included header); a new
# upward edge is an error. Empty: every include follows the order.
KNOWN = set()

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def layer_of_header(path):
    """Layer of an included path such as "spec/loader.hpp" or "hone/spec.hpp"; None if none."""
    parts = path.split("/")
    if len(parts) == 2 and parts[0] == "hone":
        return PUBLIC.get(parts[1].removesuffix(".hpp"))
    if len(parts) >= 2 and parts[0] in LAYERS:
        return parts[0]
    return None


def layer_of_file(rel):
    parts = rel.split("/")
    if parts[0] == "include":
        return PUBLIC.get(os.path.basename(rel).removesuffix(".hpp"))
    if parts[0] == "src" and len(parts) >= 3:
        return parts[1]
    return None


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                           os.path.join(os.path.dirname(__file__), ".."))
    rank = {name: i for i, name in enumerate(LAYERS)}
    errors = []
    for top in ("src", os.path.join("include", "hone")):
        for folder, _, files in os.walk(os.path.join(root, top)):
            for name in sorted(files):
                if not name.endswith((".hpp", ".cpp", ".cu", ".inc")):
                    continue
                rel = os.path.relpath(os.path.join(folder, name), root).replace(os.sep, "/")
                src = layer_of_file(rel)
                if src is None:
                    errors.append(f"{rel}:1: in no layer: add its folder to LAYERS")
                    continue
                if src not in rank:
                    errors.append(f"{rel}:1: layer '{src}' is not in LAYERS")
                    continue
                with open(os.path.join(folder, name), encoding="utf-8", errors="replace") as f:
                    for line_no, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        if not m:
                            continue
                        if rel.startswith("include/") and not m.group(1).startswith("hone/"):
                            errors.append(f"{rel}:{line_no}: a public header includes "
                                          f"\"{m.group(1)}\", which is not installed: public "
                                          f"headers include only hone/ and the standard library")
                            continue
                        dst = layer_of_header(m.group(1))
                        if dst is None:
                            if m.group(1).startswith("hone/"):
                                errors.append(f"{rel}:{line_no}: \"{m.group(1)}\" is a public "
                                              f"header in no layer: add it to PUBLIC")
                            continue  # generated files, local headers of tests
                        if rank[dst] > rank[src] and (rel, m.group(1)) not in KNOWN:
                            errors.append(f"{rel}:{line_no}: {src} -> {dst} (\"{m.group(1)}\"): "
                                          f"{src} may include only {', '.join(LAYERS[:rank[src] + 1])}")
    for e in errors:
        print(e)
    if errors:
        print(f"{len(errors)} include(s) outside the layer order (scripts/check_layers.py)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
