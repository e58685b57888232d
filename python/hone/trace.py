"""Where one ``hone.tune`` or ``hone.compat.tune_kernel`` call spent its time, printed on stderr
when the environment variable HONE_TRACE is set (to anything but 0 or empty).

The phases come from the tuner's own time split (``TuneResult.time``) and from the Python side
of the call (writing the config and the arrays, checking the answer, converting the results).
``phases()`` returns them as data for benchmarks (bench/kt_examples.py)."""
import os
import sys


def enabled():
    return os.environ.get("HONE_TRACE", "") not in ("", "0")


def phases(time, kept=None, python=None):
    """The phases of one call as an ordered list of (name, seconds), from a TuneResult's
    ``time`` and ``kept`` dicts and the Python side's own phases (``python``: a list of
    (name, seconds) measured before and after hone.tune; "tune" marks where hone.tune goes).
    The tuner's phases add up to its wall time; the binding's is the rest of hone.tune's call."""
    t = dict(time or {})
    kept = kept or {}
    g = lambda k: float(t.get(k) or 0.0)  # noqa: E731
    tuner = []
    if kept.get("used") or g("kept_start_s"):
        # One name whether started or reused, so that calls line up (report() says which).
        tuner.append(("kept GPU worker: process and CUDA context started (0 when reused)",
                      g("kept_start_s")))
    tuner.append(("GPU session start in the tuner", g("session_start_s")))
    setup_rest = g("setup_s") - g("session_start_s") - g("reference_compile_s") - g("prepare_s")
    tuner.append(("space, results store, strategy", setup_rest))
    tuner.append(("compile of the verify reference", g("reference_compile_s")))
    prep = [("prepare: input images", g("inputs_s")), ("prepare: allocate and upload",
                                                       g("upload_s")),
            ("prepare: reference run", g("reference_run_s")),
            ("prepare: timer set-up", g("timer_s")), ("prepare: GPU clock warm-up", g("clock_s"))]
    tuner += prep
    tuner.append(("prepare: other (round trip)", g("prepare_s") - sum(s for _, s in prep)))
    tuner.append(("waiting for compiles", g("compile_wait_s")))
    steps = [("GPU: module loads", g("load_s")), ("GPU: first launch and verification",
                                                  g("verify_s")),
             ("GPU: warm-up", g("warmup_s")), ("GPU: samples", g("samples_s"))]
    tuner += steps
    tuner.append(("GPU: hand-over, results stored meanwhile",
                  g("gpu_s") - sum(s for _, s in steps)))
    tuner.append(("other (strategy, store, progress)",
                  g("wall_s") - g("setup_s") - g("compile_wait_s") - g("gpu_s")))
    if "python_s" in t:
        tuner.append(("hone.tune's binding: spec load, records to Python",
                      g("python_s") - g("kept_start_s") - g("wall_s")))
    out = []
    for name, s in python or [("tune", None)]:
        if name == "tune":
            out += tuner
        else:
            out.append((name, s))
    return out


def report(title, result, python=None, extra=""):
    """The phases of one call as text: a line for each, the total, and compile counts."""
    time = getattr(result, "time", {}) or {}
    kept = getattr(result, "kept", {}) or {}
    rows = phases(time, kept, python)
    total = sum(s for _, s in rows)
    if kept.get("used"):
        worker = "GPU worker reused" if kept.get("gpu_reused") else "GPU worker started"
        extra = worker + (f"; {extra}" if extra else "")
    lines = [f"hone trace: {title}: {total:.3f} s"
             + (f" ({extra})" if extra else "")]
    width = max(len(n) for n, _ in rows)
    for name, s in rows:
        lines.append(f"  {name:<{width}}  {s:7.3f} s")
    lines.append(
        f"  compiled {getattr(result, 'compiled', 0)}, from the compile cache "
        f"{getattr(result, 'cache_hits', 0)}; "
        f"compile CPU {float(time.get('compile_cpu_s') or 0):.3f} s;"
        f" compile workers started {kept.get('compile_workers_started', '-')}; "
        f"evaluated {getattr(result, 'evaluated', 0)}; samples timed by {time.get('timer') or '-'}")
    return "\n".join(lines)


def emit(title, result, python=None, extra=""):
    if enabled():
        print(report(title, result, python, extra), file=sys.stderr, flush=True)
