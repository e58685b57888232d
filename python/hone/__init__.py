"""hone from Python: tune CUDA kernels (``hone.tune``) and launch the tuned kernels on PyTorch,
CuPy, JAX or Numba arrays without copies (``hone.Kernel``). See docs/python.md."""
import atexit
import contextlib
import os
import sys
import time

from .errors import EnvError, InputError
from .results import Record, TuneResult
from . import _hone
from . import trace as _tracing

_hone._set_error_types(InputError, EnvError)

Kernel = _hone.Kernel
Kernel.__doc__ = """Kernel(config, tuned=None, *, device=0, cache_dir=None, use_cache=True)

A tuned kernel for an application: opens a search config and its tuned results (a wisdom file
or a results database; None: every launch uses the spec's default configuration).

``k(*args, sizes={"N": n}, stream=None)`` launches the configuration tuned best for this GPU
and these sizes. Buffer arguments are device arrays (torch, CuPy, JAX, Numba: DLPack or
__cuda_array_interface__), checked against the spec (device memory, element type,
C-contiguity, at least the spec's count); scalars are ints or floats, or left out (then each is
the value of its expression at the sizes). The launch goes to ``stream`` (an int handle, a
torch.cuda.Stream, a cupy Stream, or any object with __cuda_stream__), else to the framework's
current stream, on the arrays' device; it never synchronises.

``k.selection(sizes, arch=None)``: which configuration a launch at these sizes uses and why
(on the current GPU, or on a nominal device of ``arch`` such as "sm_90", no GPU needed)."""

__version__ = _hone.version()
__all__ = ["tune", "Kernel", "TuneResult", "Record", "InputError", "EnvError", "load_config",
           "close", "session", "session_info"]


def close():
    """Ends the GPU worker and compile workers that hone.tune keeps between calls (their CUDA
    context and the last call's buffers with them); the next call starts new ones. Called at
    interpreter exit; calling it again does nothing."""
    _hone.close_sessions()


atexit.register(close)


@contextlib.contextmanager
def session():
    """``with hone.session(): ...``: the calls inside share the kept workers, which end when the
    block does (hone.close)."""
    try:
        yield
    finally:
        close()


def session_info():
    """The workers hone.tune keeps: ``gpu_workers`` (the ordinals of the kept GPU workers),
    ``compile_pool`` (whether compile workers are kept), and how many were started and reused
    in this process (``gpu_workers_started``, ``gpu_workers_reused``,
    ``compile_pools_started``, ``compile_pools_reused``, ``compile_workers_started``)."""
    return _hone.session_info()


def load_config(config, sizes=None):
    """Loads and checks a search config (InputError with file:line:column when it is not
    valid); returns what it declares: kernel, problem sizes, params, buffers, args."""
    return _hone.load_config(os.fspath(config), _sizes(sizes))


def _sizes(sizes):
    if sizes is None:
        return {}
    if not isinstance(sizes, dict):
        raise InputError(f"sizes: expected a dict of problem sizes, such as {{'N': 4096}}, "
                         f"not {type(sizes).__name__}")
    out = {}
    for name, v in sizes.items():
        if not isinstance(name, str):
            raise InputError(f"sizes: problem size names are strings, not {name!r}")
        if isinstance(v, bool) or not hasattr(v, "__index__"):
            raise InputError(f"sizes[{name!r}]: expected an int, not {type(v).__name__}")
        out[name] = v.__index__()
    return out


def _print_progress(state):
    best = state["best"]
    text = f"{state['done']}/{state['total']}"
    if state["failures"]:
        text += f", {state['failures']} failed"
    if best is not None and best["time_us"] is not None:
        text += f", best {best['time_us']:.4g} us {best['key']}"
    end = "\n" if state["done"] == state["total"] else ""
    print(f"\r{text}\x1b[K" if sys.stderr.isatty() else text, end=end if sys.stderr.isatty()
          else "\n", file=sys.stderr, flush=True)


def tune(config, sizes=None, *, device=0, output=None, fresh=False, retry_failed=False,
         jobs=0, cache_dir=None, no_cache=False, only=None, max_evals=None, time_limit=None,
         l2_flush=None, timer=None, in_process=False, progress=None, on_result=None,
         keep_session=True, _text=None, _trace=True):
    """Tunes a search config on a GPU, as ``hone tune`` does, and returns a TuneResult.

    ``sizes`` overrides problem sizes (``--set``). The options are the CLI's: ``device``,
    ``output`` (results database), ``fresh``, ``retry_failed``, ``jobs``, ``cache_dir``,
    ``no_cache``, ``only`` (one configuration, by key), ``max_evals``, ``time_limit``
    (seconds), ``l2_flush`` (True/False), ``timer`` (auto, profiler, cupti, events),
    ``in_process``. ``progress``: a callable taking a dict (done, total, failures, best,
    elapsed_s, eta_s, ...) after each configuration, or True to print a progress line.
    ``on_result``: a callable taking each new record as a dict. ``keep_session`` (default
    True): the GPU worker and the compile workers stay up for the next call on the main thread
    (hone.close ends them); False: this call starts and ends its own.

    Ctrl-C (KeyboardInterrupt) or an exception in a callback stops the run cleanly: what was
    measured is stored, and running the same call again resumes. Errors: InputError (the config,
    an option), EnvError (no GPU, no driver)."""
    if progress is True:
        progress = _print_progress
    elif progress is False:
        progress = None
    for name, cb in (("progress", progress), ("on_result", on_result)):
        if cb is not None and not callable(cb):
            raise InputError(f"{name}: expected a callable (or None), not {type(cb).__name__}")
    if isinstance(l2_flush, bool):
        l2_flush = "on" if l2_flush else "off"
    if on_result is not None:
        user_result = on_result
        on_result = lambda d: user_result(Record(**d))  # noqa: E731
    if not isinstance(keep_session, bool):
        raise InputError(f"keep_session: expected True or False, not "
                         f"{type(keep_session).__name__}")
    t0 = time.perf_counter()
    d = _hone.tune(
        os.fspath(config), _text, _sizes(sizes), _int("device", device), bool(in_process),
        bool(fresh), bool(retry_failed), _int("jobs", jobs),
        "" if cache_dir is None else os.fspath(cache_dir), bool(no_cache),
        "" if output is None else os.fspath(output), "" if only is None else str(only),
        -1 if max_evals is None else _int("max_evals", max_evals),
        -1.0 if time_limit is None else float(time_limit), l2_flush or "", timer or "",
        keep_session, progress, on_result)
    r = TuneResult(d)
    r.time["python_s"] = time.perf_counter() - t0
    if _trace:
        _tracing.emit(f"hone.tune {os.fspath(config)}", r)
    return r


def _int(name, v):
    if isinstance(v, bool) or not hasattr(v, "__index__"):
        raise InputError(f"{name}: expected an int, not {type(v).__name__}")
    return v.__index__()
