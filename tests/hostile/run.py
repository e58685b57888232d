#!/usr/bin/env python3
"""Runs hone on a corpus of hostile inputs and checks that each is handled as expected.

usage: run.py --hone PATH [--timeout S] [--memory-gib G] GROUP_DIR...

A group directory holds cases.tsv: one case a line, tab-separated
    name <TAB> expected exit code <TAB> expected message substring <TAB> hone arguments
Lines starting with # and blank lines are skipped. The arguments are split on spaces; in each
argument {case} becomes the group directory, {gen} a folder of generated inputs and {work} a
fresh scratch folder of the case (also its working directory). An argument of the form >PATH
is not passed to hone: it sends hone's standard output to PATH (e.g. >/dev/full); otherwise
standard output goes to a file in {work}. An empty message substring checks no message.
When the group has gen.py, it is run first as `python3 gen.py GEN` in the group directory, with
the hone binary in the environment variable HONE.

A case passes when all of these hold:
  - hone exits with the expected code (a signal, or exit code 4 "internal error", never passes);
  - the message substring is in its standard error;
  - it finishes within the time limit and runs under the memory limit (RLIMIT_AS);
  - every file named by the arguments under {case}, {gen} or {work} that existed before is
    unchanged after (content, or for a node that is not a regular file its type and inode),
    except the output (-o, --output, --wisdom) of a case expected to succeed (exit 0); the
    output of a case expected to be refused (exit 2), absent before, is still absent;
  - neither output holds a raw escape character (ESC or C1 CSI): terminal control sequences
    from input files must be shown escaped.
Prints one line per case and a summary line "N passed, N failed"; exits 1 when any failed.
"""
import argparse
import hashlib
import os
import resource
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time

OUTPUT_OPTIONS = ("-o", "--output", "--wisdom")
STDERR_LIMIT = 1 << 20  # bytes of stderr read for the message check


def read_cases(path):
    cases = []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            fields = line.split("\t")
            if len(fields) != 4:
                raise SystemExit(f"{path}:{number}: expected 4 tab-separated fields, got {len(fields)}")
            name, code, message, args = fields
            try:
                code = int(code)
            except ValueError:
                raise SystemExit(f"{path}:{number}: expected exit code is not a number: {code!r}")
            cases.append((name, code, message, args.split(" ") if args else []))
    return cases


def signature(path):
    """What must not change about a file: its bytes, or for another node its type and inode."""
    try:
        link = os.lstat(path)
    except FileNotFoundError:
        return None
    try:
        st = os.stat(path)
    except OSError:  # a dangling symbolic link, or a loop of them
        return ("link", link.st_ino)
    if not stat.S_ISREG(st.st_mode):
        return ("node", stat.S_IFMT(link.st_mode), link.st_ino, stat.S_IFMT(st.st_mode), st.st_ino)
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return ("file", stat.S_IFMT(link.st_mode), link.st_ino, digest.hexdigest())


def watched_paths(args, roots, expected):
    """Paths the arguments name under the case, gen or work folders, outputs of successes aside."""
    out = []
    for i, a in enumerate(args):
        is_output = i > 0 and args[i - 1] in OUTPUT_OPTIONS
        if (expected == 0 and is_output) or a.startswith(">"):
            continue
        value = a.split("=", 1)[1] if a.startswith("--") and "=" in a else a
        if not any(value == r or value.startswith(r + os.sep) for r in roots):
            continue
        # Refused input (exit 2) writes nothing: an output that was absent stays absent.
        if os.path.lexists(value) or (is_output and expected == 2):
            out.append(value)
    return out


def limit_memory(gib):
    def apply():
        os.setsid()
        if gib > 0:
            limit = int(gib * (1 << 30))
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    return apply


def run_limited(command, cwd, env, stdout_path, stderr_path, timeout, memory_gib):
    """Runs `command` in a session of its own under the address-space limit, its output in the
    two files; (exit code or None when killed at the timeout, seconds, problems)."""
    problems = []
    start = time.monotonic()
    with open(stdout_path, "wb") as out, open(stderr_path, "wb") as err:
        proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                cwd=cwd, env=env, preexec_fn=limit_memory(memory_gib))
        try:
            rc = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            rc = None
            problems.append(f"still running after {timeout} s (killed)")
    return rc, time.monotonic() - start, problems


def run_case(hone, case_dir, gen_dir, work, case, timeout, memory_gib):
    name, expected, message, raw_args = case
    subst = lambda a: a.replace("{case}", case_dir).replace("{gen}", gen_dir).replace("{work}", work)
    args, stdout_path = [], os.path.join(work, ".stdout")
    for a in raw_args:
        a = subst(a)
        if a.startswith(">"):
            stdout_path = a[1:]
        else:
            args.append(a)
    roots = [os.path.abspath(case_dir), os.path.abspath(gen_dir), os.path.abspath(work)]
    watched = {p: signature(p) for p in watched_paths(args, roots, expected)}
    stderr_path = os.path.join(work, ".stderr")
    env = dict(os.environ, HONE_CACHE_DIR=os.path.join(work, ".cache"), NO_COLOR="1")
    rc, seconds, problems = run_limited([hone] + args, work, env, stdout_path, stderr_path,
                                        timeout, memory_gib)
    with open(stderr_path, "rb") as f:
        stderr = f.read(STDERR_LIMIT)
    stdout = b""
    if os.path.isfile(stdout_path) and stdout_path.startswith(work):
        with open(stdout_path, "rb") as f:
            stdout = f.read(STDERR_LIMIT)
    if rc is not None:
        if rc < 0:
            problems.append(f"killed by signal {-rc} ({signal.Signals(-rc).name})")
        elif rc == 4:
            problems.append("exit code 4 (internal error)")
        if rc != expected:
            problems.append(f"exit code {rc}, expected {expected}")
    text = stderr.decode("utf-8", "replace")
    if message and message not in text:
        problems.append(f"message {message!r} not in stderr")
    for label, data in (("stdout", stdout), ("stderr", stderr)):
        if b"\x1b" in data or "\u009b".encode() in data:
            problems.append(f"a raw escape sequence reached {label}")
    for path, before in watched.items():
        if signature(path) != before:
            problems.append(f"{path} was modified")
    if problems:
        first = text.strip().splitlines()[:3]
        detail = "; ".join(problems)
        return False, f"FAIL {name} ({seconds:.1f} s): {detail}" + (
            "\n       stderr: " + " | ".join(line[:200] for line in first) if first else "")
    return True, f"ok   {name} ({seconds:.1f} s)"


def run_group(hone, group, timeout, memory_gib):
    group = os.path.abspath(group)
    cases = read_cases(os.path.join(group, "cases.tsv"))
    scratch = tempfile.mkdtemp(prefix="hone-hostile-")
    passed = failed = 0
    try:
        gen = os.path.join(scratch, "gen")
        os.mkdir(gen)
        if os.path.exists(os.path.join(group, "gen.py")):
            subprocess.run([sys.executable, "gen.py", gen], cwd=group, check=True,
                           env=dict(os.environ, HONE=hone))
        for i, case in enumerate(cases):
            work = os.path.join(scratch, f"work{i}")
            os.mkdir(work)
            ok, line = run_case(hone, group, gen, work, case, timeout, memory_gib)
            print(line, flush=True)
            passed += ok
            failed += not ok
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return passed, failed


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--hone", required=True, help="the hone binary")
    p.add_argument("--timeout", type=float, default=60, help="seconds per case (default 60)")
    p.add_argument("--memory-gib", type=float, default=4,
                   help="address-space limit per case in GiB (default 4; 0 = none, for sanitizers)")
    p.add_argument("groups", nargs="+", help="group directories (each with cases.tsv)")
    a = p.parse_args()
    hone = os.path.abspath(a.hone)
    passed = failed = 0
    for g in a.groups:
        print(f"== {g}", flush=True)
        gp, gf = run_group(hone, g, a.timeout, a.memory_gib)
        passed += gp
        failed += gf
    print(f"{passed} passed, {failed} failed", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
