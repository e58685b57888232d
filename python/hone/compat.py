"""Kernel Tuner's ``tune_kernel`` on hone's engine.

``from hone.compat import tune_kernel`` takes Kernel Tuner's common arguments, writes a hone
search config for them (the arrays become the buffers' initial contents), tunes it with
``hone.tune``, and returns ``(results, env)`` shaped as Kernel Tuner's: one dict per
configuration with the tunable parameters, ``time`` (ms, the mean of the samples), ``times``,
``compile_time`` and the metrics; ``env`` with the device, the problem and the best
configuration. An argument hone cannot honour raises ``hone.InputError`` naming it.
docs/python.md lists what maps to what.
"""
import ast
import inspect
import itertools
import json
import numbers
import os
import sys
import tempfile
import textwrap
import time
from collections import OrderedDict

from .errors import InputError

# numpy dtype names -> hone element types.
_ELEM = {
    "float16": "half", "float32": "float", "float64": "double",
    "int8": "int8", "int16": "int16", "int32": "int32", "int64": "int64",
    "uint8": "uint8", "uint16": "uint16", "uint32": "uint32", "uint64": "uint64",
}

# Kernel Tuner's strategy names -> hone's, and their options -> hone's (None: taken apart).
_STRATEGY = {
    None: "exhaustive", "brute_force": "exhaustive", "random_sample": "random",
    "genetic_algorithm": "genetic", "simulated_annealing": "annealing", "diff_evo": "diff_evo",
    "bayes_opt": "bayes_opt", "greedy_mls": "local_search", "mls": "local_search",
    "greedy_ils": "local_search", "ordered_greedy_mls": "local_search",
}
_STRATEGY_OPTIONS = {
    "genetic": {"popsize": "population"},
    "diff_evo": {"popsize": "population"},
    "bayes_opt": {"popsize": "initial"},
}

_LANGS = {"cuda", "cupy", "nvcuda"}

# Arguments that only change what Kernel Tuner prints or logs: accepted, without effect.
_IGNORED = ("verbose", "log", "seed")


def _unsupported(name, why):
    raise InputError(f"tune_kernel: {name}: {why}")


def _is_array(x):
    return hasattr(x, "dtype") and hasattr(x, "shape") and getattr(x, "ndim", 0) >= 1


def _host_array(x):
    """The array as a C-ordered NumPy array (CuPy and torch arrays are copied to the host)."""
    import numpy as np
    if hasattr(x, "get") and not isinstance(x, np.ndarray):  # CuPy
        x = x.get()
    elif hasattr(x, "detach") and hasattr(x, "cpu"):  # torch
        x = x.detach().cpu().numpy()
    return np.ascontiguousarray(x)


def _host_bytes(x):
    return _host_array(x).tobytes()


def _work_root(arguments):
    """Where a call's temporary folder goes: /dev/shm (memory) when it has room for twice the
    arrays, which the GPU worker reads back from their files; else the system's default."""
    import shutil
    arrays = sum(int(getattr(a, "nbytes", 0) or 0) for a in arguments if _is_array(a))
    need = 2 * arrays + (64 << 20)
    try:
        if os.access("/dev/shm", os.W_OK) and shutil.disk_usage("/dev/shm").free > need:
            return "/dev/shm"
    except OSError:
        pass
    return None


def _check_answer(path, config, arguments, answer, atol, verify, device, cache_dir):
    """The answer (or the verify function) against the best configuration's outputs: one
    launch through hone.Kernel on CuPy copies of the arguments. hone verified every
    configuration against the reference configuration; this checks what they computed against
    what the caller expects. Returns a note for env; raises InputError where they differ."""
    import numpy as np
    try:
        import cupy as cp
    except ImportError:
        return "not checked: CuPy is not installed"
    from . import Kernel
    # The outputs Kernel Tuner hands its check: answer's non-None entries, else every array.
    wanted = [i for i in range(len(arguments)) if f"arg{i}" in config["buffers"] and
              (answer is None or answer[i] is not None)]
    result_host = [None] * len(arguments)
    try:
        k = Kernel(path, config["output"], device=device, cache_dir=cache_dir)
        key = k.selection(dict(config.get("problem", {})))["key"]
        with cp.cuda.Device(device):
            args = []
            for i, a in enumerate(arguments):
                if f"arg{i}" in config["buffers"]:
                    h = _host_array(a)
                    args.append(cp.asarray(h if h.size else np.zeros(1, h.dtype)))
                else:
                    args.append(config["args"][i]["value"])
            k(*args, sizes=dict(config.get("problem", {})))
            cp.cuda.get_current_stream().synchronize()
            for i in wanted:
                shape = _host_array(arguments[i]).shape
                result_host[i] = args[i].get()[:int(np.prod(shape))].reshape(shape)
    except Exception as e:  # noqa: BLE001 (the tuning stands; the note says why)
        return f"not checked: {type(e).__name__}: {e}"
    if verify is not None:
        if not verify(answer, result_host, atol=atol):
            _unsupported("verify", f"the verify function rejects the output of the best "
                                   f"configuration ({key})")
        return f"verify function passed by the best configuration's output ({key})"
    for i in wanted:
        got = result_host[i].reshape(-1)
        expected = _host_array(answer[i]).reshape(-1)
        close = np.isclose(got, expected, atol=atol)
        if not close.all():
            bad = np.flatnonzero(~close)
            _unsupported("answer", f"answer[{i}] differs from the output of the best "
                                   f"configuration ({key}) at {bad.size} of {got.size} "
                                   f"elements, first at index {bad[0]} ({got[bad[0]]!r} "
                                   f"against {expected[bad[0]]!r}); atol {atol}")
    return f"checked against the best configuration's output ({key})"

def _elem(dtype, what, detail):
    name = getattr(dtype, "name", str(dtype)).replace("torch.", "")
    if name not in _ELEM:
        _unsupported(what, f"{detail}: element type {name} has no hone buffer type (one of "
                           f"{', '.join(_ELEM)})")
    return _ELEM[name]


def _product(names):
    """grid_div entries: names or expressions of parameters, multiplied."""
    return " * ".join(f"({n})" for n in names) if names else "1"


class _Translate(ast.NodeVisitor):
    """A restriction written in Python (a lambda or a function of the parameter dict `p`, or a
    string of parameter names) as an expression of hone's language."""

    OPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//",
           ast.Mod: "%", ast.Pow: "**", ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<",
           ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}
    FUNCS = {"min", "max", "abs", "int", "float"}

    def __init__(self, arg, params):
        self.arg = arg
        self.params = params

    def expr(self, n):
        if isinstance(n, ast.BoolOp):
            op = " and " if isinstance(n.op, ast.And) else " or "
            return "(" + op.join(self.expr(v) for v in n.values) + ")"
        if isinstance(n, ast.UnaryOp):
            if isinstance(n.op, ast.Not):
                return f"(not {self.expr(n.operand)})"
            if isinstance(n.op, ast.USub):
                return f"(-{self.expr(n.operand)})"
            if isinstance(n.op, ast.UAdd):
                return self.expr(n.operand)
        if isinstance(n, ast.BinOp) and type(n.op) in self.OPS:
            return f"({self.expr(n.left)} {self.OPS[type(n.op)]} {self.expr(n.right)})"
        if isinstance(n, ast.Compare) and all(type(o) in self.OPS for o in n.ops):
            parts = [self.expr(n.left)]
            for op, right in zip(n.ops, n.comparators):
                parts += [self.OPS[type(op)], self.expr(right)]
            return "(" + " ".join(parts) + ")"
        if isinstance(n, ast.IfExp):
            return f"({self.expr(n.test)} ? {self.expr(n.body)} : {self.expr(n.orelse)})"
        if isinstance(n, ast.Constant) and isinstance(n.value, (bool, int, float, str)):
            if isinstance(n.value, bool):
                return "true" if n.value else "false"
            if isinstance(n.value, str):
                return json.dumps(n.value)
            return repr(n.value)
        if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and \
                n.value.id == self.arg and isinstance(n.slice, ast.Constant) and \
                n.slice.value in self.params:
            return n.slice.value
        if isinstance(n, ast.Name) and self.arg is None and n.id in self.params:
            return n.id
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and \
                n.func.id in self.FUNCS and not n.keywords:
            return f"{n.func.id}({', '.join(self.expr(a) for a in n.args)})"
        raise ValueError(ast.dump(n)[:80])


def _callable_expr(f, params):
    """A lambda p: ... or def f(p): return ... as hone expression text, or None."""
    try:
        src = textwrap.dedent(inspect.getsource(f))
    except (OSError, TypeError):
        return None
    try:
        tree = ast.parse(src)
    except SyntaxError:
        try:  # a lambda inside a longer statement: the line alone may not parse
            tree = ast.parse(src.strip().rstrip(",").split("=", 1)[-1].strip().strip("[]"))
        except SyntaxError:
            return None
    nargs = f.__code__.co_argcount
    bodies = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Lambda) and len(node.args.args) == nargs:
            bodies.append((node.args.args[0].arg if nargs else None, node.body))
        elif isinstance(node, (ast.FunctionDef,)) and node.name == f.__name__ and \
                len(node.body) == 1 and isinstance(node.body[0], ast.Return):
            bodies.append((node.args.args[0].arg if node.args.args else None,
                           node.body[0].value))
    if len(bodies) != 1 or nargs != 1:
        return None
    arg, body = bodies[0]
    try:
        return _Translate(arg, params).expr(body)
    except ValueError:
        return None


def _enumerated_expr(f, tune_params, limit=2000):
    """A restriction that cannot be translated, evaluated in Python over every configuration:
    the configurations it keeps (or those it drops, whichever are fewer) as an expression."""
    names = list(tune_params)
    total = 1
    for v in tune_params.values():
        total *= len(v)
    if total > 1_000_000:
        return None
    keep, drop = [], []
    for values in itertools.product(*tune_params.values()):
        p = dict(zip(names, values))
        (keep if f(p) else drop).append(values)
    if not drop:
        return "true"

    def conj(values):
        return "(" + " and ".join(f"{n} == {json.dumps(v) if isinstance(v, str) else repr(v)}"
                                  for n, v in zip(names, values)) + ")"
    if len(keep) <= len(drop) and len(keep) <= limit:
        return " or ".join(conj(v) for v in keep) if keep else "false"
    if len(drop) <= limit:
        return "not (" + " or ".join(conj(v) for v in drop) + ")"
    return None


def _shared_bytes(smem_args, params):
    """Kernel Tuner's smem_args ({"size": bytes, or a function of the parameter dict}) as
    launch.shared_bytes: the dynamic shared memory of each launch."""
    if smem_args is None:
        return None
    if not isinstance(smem_args, dict) or set(smem_args) != {"size"}:
        _unsupported("smem_args", 'expected {"size": bytes or a function of the parameters}')
    size = smem_args["size"]
    if isinstance(size, bool):
        _unsupported("smem_args", "size: expected a number of bytes")
    if isinstance(size, numbers.Integral):
        if int(size) < 0:
            _unsupported("smem_args", "size: expected 0 or more bytes")
        return int(size)
    if isinstance(size, str):
        return size
    if callable(size):
        e = _callable_expr(size, set(params))
        if e is None:
            _unsupported("smem_args", f"size: {getattr(size, '__name__', size)!r} is not "
                                      "translatable to hone's expression language")
        return e
    _unsupported("smem_args", f"size: expected bytes or a function, not {type(size).__name__}")


def _restrictions(restrictions, tune_params):
    if restrictions is None:
        return []
    if callable(restrictions) or isinstance(restrictions, str):
        restrictions = [restrictions]
    out = []
    for r in restrictions:
        if isinstance(r, str):
            out.append(r)
        elif callable(r):
            e = _callable_expr(r, set(tune_params))
            if e is None:
                e = _enumerated_expr(r, tune_params)
            if e is None:
                _unsupported("restrictions", f"{getattr(r, '__name__', r)!r} is neither "
                                             "translatable to hone's expression language nor "
                                             "small enough to evaluate per configuration")
            out.append(e)
        else:
            _unsupported("restrictions", f"expected strings or callables, not {type(r).__name__}")
    return out


def _write_source(folder, name, text, content_addressed):
    """Writes a generated source. Content-addressed (folder/<digest of the text>/name, written
    once): its path is the same for the same text in every call and process, so that the
    compile cache, whose key covers the source's path, finds its binaries again."""
    if content_addressed:
        import hashlib
        folder = os.path.join(folder, hashlib.sha256(text.encode()).hexdigest()[:24])
        path = os.path.join(folder, name)
        if os.path.isfile(path):
            return path
        os.makedirs(folder, exist_ok=True)
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "w") as f:
            f.write(text)
        os.replace(tmp, path)
        return path
    path = os.path.join(folder, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def _source(kernel_source, workdir, source_dir=None):
    if isinstance(kernel_source, (list, tuple)):
        if not kernel_source:
            _unsupported("kernel_source", "an empty list")
        main, headers = kernel_source[0], kernel_source[1:]
    else:
        main, headers = kernel_source, []
    include_dirs = []
    for h in headers:
        if not isinstance(h, (str, os.PathLike)) or not os.path.isfile(h):
            _unsupported("kernel_source", f"{h!r} is not a file")
        include_dirs.append(os.path.dirname(os.path.abspath(h)))
    if callable(main):
        _unsupported("kernel_source", "a code generator function (give the source text or file)")
    if isinstance(main, os.PathLike) or (isinstance(main, str) and "\n" not in main and
                                         os.path.isfile(main)):
        path = os.path.abspath(main)
        include_dirs.insert(0, os.path.dirname(path))
        return path, include_dirs
    if not isinstance(main, str):
        _unsupported("kernel_source", f"expected source text or a file, not {type(main).__name__}")
    if "\n" not in main and main.endswith((".cu", ".cuh", ".h", ".hpp")):
        _unsupported("kernel_source", f"no file {main!r}")
    path = _write_source(source_dir or workdir, "kernel.cu", main, source_dir is not None)
    return path, [os.getcwd()] + include_dirs


_CONSTANT_TYPES = {"float32": float, "float64": float, "int8": int, "int16": int, "int32": int,
                   "int64": int, "uint8": int, "uint16": int, "uint32": int, "uint64": int}


def _rewrite_source(source_path, cmem_args, params, workdir, source_dir=None):
    """The source as Kernel Tuner compiles it, where that differs from the file with its macros:
    cmem_args become initialisers, and a loop_unroll_factor parameter's pragma is left out
    where its value is 0. Returns the path of a rewritten copy, or the file's own path."""
    import re
    unroll = [n for n in params if "loop_unroll_factor" in n]
    if not cmem_args and not unroll:
        return source_path
    with open(source_path) as f:
        text = f.read()
    if cmem_args:
        text = _with_constants(text, cmem_args)
    for name in unroll:
        # Kernel Tuner deletes `#pragma unroll NAME` for the value 0 (the compiler's own
        # choice); the macro guards it instead, so one source serves every value.
        text = re.sub(r"^([ \t]*)#pragma[ \t]+unroll[ \t]+" + re.escape(name) + r"\b(.*)$",
                      lambda m: f"#if {name} != 0\n{m.group(0)}\n#endif", text, flags=re.M)
    return _write_source(source_dir or workdir, "kernel_kt.cu", text, source_dir is not None)


def _with_constants(text, cmem_args):
    """Kernel Tuner's cmem_args (copied into __constant__ symbols before each launch) as
    initialisers of those symbols' declarations: the same contents from the module's load on,
    which is all a tuning run reads."""
    import re
    import numpy as np
    if not isinstance(cmem_args, dict):
        _unsupported("cmem_args", "expected a dict of symbol name -> array")
    for name, value in cmem_args.items():
        arr = np.asarray(value.get() if hasattr(value, "get") and
                         not isinstance(value, np.ndarray) else value)
        kind = _CONSTANT_TYPES.get(arr.dtype.name)
        if kind is None:
            _unsupported("cmem_args", f"{name!r}: element type {arr.dtype.name} (one of "
                                      f"{', '.join(_CONSTANT_TYPES)})")
        if arr.nbytes > 65536:
            _unsupported("cmem_args", f"{name!r}: {arr.nbytes} bytes; constant memory holds "
                                      "64 KiB")
        flat = arr.ravel()
        if kind is float and not np.all(np.isfinite(flat)):
            _unsupported("cmem_args", f"{name!r}: holds a NaN or infinity")
        decl = re.compile(r"(__constant__\s[^;{}=]*?\b" + re.escape(str(name)) +
                          r"\s*(?:\[[^\];]*\]\s*)*);")
        found = decl.findall(text)
        if len(found) != 1:
            _unsupported("cmem_args", f"{name!r}: the kernel source must declare it once as "
                                      f"`__constant__ T {name}[...];` (no initialiser); found "
                                      f"{len(found)} such declarations")
        values = ", ".join(repr(float(v)) if kind is float else str(int(v)) for v in flat)
        text = decl.sub(lambda m: m.group(1) + " = {" + values + "};", text)
    return text


def _holds(restriction, p):
    """Kernel Tuner's restriction on one configuration, evaluated in Python (False where it
    cannot be evaluated)."""
    try:
        if isinstance(restriction, str):
            return bool(eval(restriction, {"__builtins__": {}, "min": min, "max": max,
                                           "abs": abs, "int": int, "float": float}, dict(p)))
        return bool(restriction(p))
    except Exception:  # noqa: BLE001 (a restriction of another form: not this candidate)
        return False


def _reference_config(params, restrictions, block_names):
    """The first configuration, in Kernel Tuner's order, that its restrictions keep and whose
    block fits 1024 threads: the reference that the others' outputs are compared with."""
    if restrictions is None:
        restrictions = []
    elif callable(restrictions) or isinstance(restrictions, str):
        restrictions = [restrictions]
    for values in itertools.product(*params.values()):
        p = dict(zip(params, values))
        threads = 1
        for n in block_names:
            v = p.get(n, 1)
            threads *= v if isinstance(v, int) and not isinstance(v, bool) else 1
        if threads <= 1024 and all(_holds(r, p) for r in restrictions):
            return p
    return None


def _verify_section(answer, atol, arguments, buffers, params, restrictions, block_names):
    """Kernel Tuner's answer as hone's verify section: the buffers that answer gives
    (its non-None entries) are compared, for every configuration, with a reference
    configuration's on the GPU, within atol and np.allclose's default rtol."""
    if answer is None:
        return None
    if not isinstance(answer, (list, tuple)) or len(answer) != len(arguments):
        _unsupported("answer", "expected a list as long as arguments, with None for the "
                               "arguments that are not compared")
    outputs = []
    for i, (x, a) in enumerate(zip(answer, arguments)):
        if x is None:
            continue
        name = f"arg{i}"
        if name not in buffers:
            _unsupported("answer", f"answer[{i}]: arguments[{i}] is not an array")
        size = int(x.size) if not callable(getattr(x, "size", None)) else int(x.numel())
        want = int(_host_array(a).size)
        if not _is_array(x) or size != want:
            _unsupported("answer", f"answer[{i}]: expected an array of {want} elements, as "
                                   f"arguments[{i}]")
        outputs.append(name)
    if not outputs:
        return None
    if isinstance(atol, bool) or not isinstance(atol, (int, float)) or atol < 0:
        _unsupported("atol", "expected a number >= 0")
    ref = _reference_config(params, restrictions, block_names)
    if ref is None:
        _unsupported("answer", "no configuration of tune_params passes the restrictions with at "
                               "most 1024 threads a block, to serve as the reference")
    return {"outputs": outputs, "atol": float(atol), "rtol": 1e-5, "reference": ref}


def build_config(kernel_name, kernel_source, problem_size, arguments, tune_params,
                 grid_div_x=None, grid_div_y=None, grid_div_z=None, restrictions=None,
                 iterations=7, block_size_names=None, strategy=None, strategy_options=None,
                 compiler_options=None, defines=None, workdir=None, answer=None, atol=1e-6,
                 cmem_args=None, rel_precision=None, source_dir=None, smem_args=None):
    """The hone search config (a dict, written as JSON, which is YAML) for Kernel Tuner's
    arguments; array arguments are written into `workdir` as the buffers' init files, and the
    sources compat writes (a source given as text, a rewritten copy) into `workdir`, or with
    `source_dir` into content-addressed folders under it (stable paths: compile cache hits)."""
    if not isinstance(kernel_name, str) or not kernel_name:
        _unsupported("kernel_name", "expected the kernel's name")
    if not isinstance(tune_params, dict) or not tune_params:
        _unsupported("tune_params", "expected a dict of parameter name -> list of values")
    params = OrderedDict()
    for name, values in tune_params.items():
        vals = list(values) if not isinstance(values, str) else None
        if not vals:
            _unsupported("tune_params", f"{name!r}: expected a non-empty list of values")
        out = []
        for v in vals:
            if hasattr(v, "item") and not isinstance(v, (bool, int, float, str)):
                v = v.item()  # numpy scalars
            if not isinstance(v, (bool, int, float, str)):
                _unsupported("tune_params", f"{name!r}: value {v!r} is not an int, float, bool "
                                            "or str")
            out.append(v)
        params[name] = out
    names = list(block_size_names or ["block_size_x", "block_size_y", "block_size_z"])
    if len(names) > 3 or not all(isinstance(n, str) for n in names):
        _unsupported("block_size_names", "expected up to three parameter names")
    names += ["block_size_x", "block_size_y", "block_size_z"][len(names):]
    options = ["-Dkernel_tuner=1"]
    # Kernel Tuner defines every block size name, 1 where it is not a tunable parameter.
    for n in names:
        if n not in params:
            options.append(f"-D{n}=1")
    if compiler_options:
        if isinstance(compiler_options, str) or not all(isinstance(o, str)
                                                        for o in compiler_options):
            _unsupported("compiler_options", "expected a list of strings")
        options += list(compiler_options)
    if defines:
        for k, v in defines.items():
            if callable(v):
                _unsupported("defines", f"{k!r}: a value computed per configuration")
            options.append(f"-D{k}={v}")

    # Problem sizes: integers become the config's problem sizes; names or expressions of
    # parameters are used as they are.
    if isinstance(problem_size, (int, str)) or hasattr(problem_size, "item") or \
            callable(problem_size):
        problem_size = (problem_size,)
    try:
        dims = list(problem_size)
    except TypeError:
        _unsupported("problem_size", f"expected an int, a tuple of up to 3, or parameter names, "
                                     f"not {type(problem_size).__name__}")
    if not 1 <= len(dims) <= 3:
        _unsupported("problem_size", "expected 1 to 3 dimensions")
    problem = OrderedDict()
    dim_exprs = []
    for i, d in enumerate(dims):
        if hasattr(d, "item") and not isinstance(d, (int, str)):
            d = d.item()
        if callable(d):
            _unsupported("problem_size", "a function of the parameters (give an expression "
                                         "string of parameter names)")
        if isinstance(d, bool) or not isinstance(d, (int, str)):
            _unsupported("problem_size", f"dimension {i}: {d!r} is not an int or a string")
        if isinstance(d, int):
            name = "problem_size_" + "xyz"[i]
            problem[name] = d
            dim_exprs.append(name)
        else:
            dim_exprs.append(f"({d})")
    divs = []
    for i, g in enumerate((grid_div_x, grid_div_y, grid_div_z)):
        if g is None:
            g = [names[i]] if names[i] in params else []
        elif callable(g):
            _unsupported(f"grid_div_{'xyz'[i]}", "a function (give a list of parameter names "
                                                 "or expressions)")
        elif isinstance(g, str):
            g = [g]
        divs.append(list(g))
    grid = []
    for i in range(3):
        size = dim_exprs[i] if i < len(dim_exprs) else "1"
        grid.append(f"ceil_div({size}, {_product(divs[i])})" if divs[i] else size)
    block = [n if n in params else "1" for n in names]

    if not isinstance(arguments, (list, tuple)):
        _unsupported("arguments", "expected a list of arrays and scalars")
    buffers = OrderedDict()
    args = []
    for i, a in enumerate(arguments):
        if _is_array(a):
            name = f"arg{i}"
            t = _elem(a.dtype, "arguments", f"arguments[{i}]")
            path = os.path.join(workdir, f"{name}.bin")
            host = _host_array(a)
            # An empty array (a kernel never reads it) is one zero element: hone's buffers
            # are never empty. An array whose every bit is 0 (an output made with zeros_like)
            # is hone's zeros init: nothing to write, read back and upload.
            count = max(1, int(host.size))
            if host.size == 0 or not host.reshape(-1).view("uint8").any():
                init = "zeros"
            else:
                with open(path, "wb") as f:
                    host.tofile(f)  # no copy of the array
                init = {"file": path}
            buffers[name] = {"type": t, "count": count, "role": "inout", "init": init}
            args.append(name)
        elif hasattr(a, "dtype") and hasattr(a, "item"):  # a numpy scalar
            v = a.item()
            args.append({"value": json.dumps(v) if isinstance(v, str) else v,
                         "type": _elem(a.dtype, "arguments", f"arguments[{i}]")})
        elif isinstance(a, bool) or not isinstance(a, (int, float)):
            _unsupported("arguments", f"arguments[{i}]: expected a NumPy/CuPy array or a NumPy "
                                      f"scalar, not {type(a).__name__}")
        else:
            # Kernel Tuner asks for NumPy scalars; a Python int is taken as int32, a float as
            # float32, as NumPy would convert them for a C kernel of those types.
            args.append({"value": a, "type": "int32" if isinstance(a, int) else "float"})

    hone_strategy = _STRATEGY.get(strategy) if (strategy is None or isinstance(strategy, str)) \
        else None
    if hone_strategy is None:
        _unsupported("strategy", f"{strategy!r} has no counterpart in hone (supported: "
                                 f"{', '.join(sorted(k for k in _STRATEGY if k))})")
    search = {"strategy": hone_strategy}
    total = 1
    for v in params.values():
        total *= len(v)
    for k, v in (strategy_options or {}).items():
        if k == "max_fevals":
            search["max_evals"] = int(v)
        elif k == "time_limit":
            search["time_limit_s"] = float(v)
        elif k == "fraction" and hone_strategy == "random":
            search["max_evals"] = max(1, int(round(float(v) * total)))
        elif k in _STRATEGY_OPTIONS.get(hone_strategy, {}):
            search[_STRATEGY_OPTIONS[hone_strategy][k]] = v
        else:
            _unsupported("strategy_options", f"{k!r} has no counterpart in hone's "
                                              f"{hone_strategy} strategy")

    if isinstance(iterations, bool) or not isinstance(iterations, int) or iterations < 1:
        _unsupported("iterations", "expected a positive int")
    if rel_precision is not None and (isinstance(rel_precision, bool) or
                                      not isinstance(rel_precision, (int, float)) or
                                      not 0 < rel_precision < 1):
        _unsupported("rel_precision", "expected a fraction between 0 and 1, such as 0.01 (or "
                                      "None: exactly `iterations` samples)")
    source_path, include_dirs = _source(kernel_source, workdir, source_dir)
    source_path = _rewrite_source(source_path, cmem_args, params, workdir, source_dir)
    config = OrderedDict()
    config["kernel"] = {"source": source_path, "name": kernel_name, "options": options,
                        "include_dirs": include_dirs}
    if problem:
        config["problem"] = problem
    config["params"] = params
    constraints = _restrictions(restrictions, params)
    if constraints:
        config["constraints"] = constraints
    config["buffers"] = buffers
    config["args"] = args
    config["launch"] = {"grid": grid, "block": block}
    shared = _shared_bytes(smem_args, params)
    if shared is not None:
        config["launch"]["shared_bytes"] = shared
    verify = _verify_section(answer, atol, arguments, buffers, params, restrictions, names)
    if verify:
        config["verify"] = verify
    # Kernel Tuner times each configuration `iterations` times and reports their mean: so does
    # hone here. With rel_precision, hone samples until the median's 95% interval is within it
    # (at least `iterations` samples, at most 200 or one second).
    if rel_precision is None:
        config["timing"] = {"min_samples": iterations, "max_samples": iterations}
    else:
        config["timing"] = {"min_samples": iterations, "max_samples": max(200, iterations),
                            "rel_precision": float(rel_precision)}
    config["search"] = search
    config["output"] = os.path.join(workdir, "results.db")
    return config


class _ErrorConfig(str):
    """Kernel Tuner's ErrorConfig where kernel_tuner is not installed: a str named after its
    class."""

    def __new__(cls):
        return super().__new__(cls, cls.__name__)


_FALLBACK_ERRORS = {n: type(n, (_ErrorConfig,), {}) for n in
                    ("CompilationFailedConfig", "RuntimeFailedConfig", "InvalidConfig")}


def _status_text(status):
    if status in ("compile_error", "compile_timeout"):
        return "CompilationFailedConfig"
    if status == "device_limits":
        return "InvalidConfig"
    return "RuntimeFailedConfig"


def _error_config(status):
    """A failed configuration's marker as Kernel Tuner 1.4 writes it (result["__error__"]):
    an instance of kernel_tuner.util's class where Kernel Tuner is installed, so that its
    helpers (get_best_config, store_output_file) read hone's results."""
    name = _status_text(status)
    try:
        from kernel_tuner import util
        return getattr(util, name)()
    except (ImportError, AttributeError):
        return _FALLBACK_ERRORS[name]()


def _plain(x):
    """NumPy scalars (and tuples or lists of them) as Python values: env is JSON-serialisable,
    as Kernel Tuner's is."""
    if isinstance(x, (list, tuple)):
        return type(x)(_plain(v) for v in x)
    return x.item() if hasattr(x, "item") and not isinstance(x, (int, float, str)) else x


def _metric(name, f, result):
    """One of Kernel Tuner's metrics of a result: a function of the result dict, or a string
    expression over its keys (parameters, time and earlier metrics)."""
    try:
        if isinstance(f, str):
            return eval(f, {"__builtins__": {}, "min": min, "max": max, "abs": abs},
                        dict(result))
        return f(result)
    except ZeroDivisionError:
        return float("nan")
    except (NameError, SyntaxError, TypeError) as e:
        _unsupported("metrics", f"{name!r}: {e}")


def tune_kernel(kernel_name, kernel_source, problem_size, arguments, tune_params,
                grid_div_x=None, grid_div_y=None, grid_div_z=None, restrictions=None,
                answer=None, atol=1e-6, verify=None, verbose=False, lang=None, device=0,
                platform=0, smem_args=None, cmem_args=None, texmem_args=None, compiler=None,
                compiler_options=None, defines=None, log=None, iterations=7,
                block_size_names=None, quiet=False, strategy=None, strategy_options=None,
                cache=None, metrics=None, simulation_mode=None, parallel=None, observers=None,
                objective=None, objective_higher_is_better=None, objectives=None, seed=None,
                rel_precision=None, **hone_options):
    """Kernel Tuner's tune_kernel on hone. ``rel_precision`` (hone's, not Kernel Tuner's):
    sample each configuration until its median is known to this fraction, rather than exactly
    ``iterations`` times. Extra keyword arguments go to hone.tune (jobs, cache_dir, timer,
    keep_session, ...)."""
    from . import tune

    if verify is not None and not callable(verify):
        _unsupported("verify", "expected a function (answer, result_host, atol=None) -> bool")
    if texmem_args:
        # Kernel Tuner binds them to texture references (texture<T, N> name;), which CUDA 12
        # removed: no current toolkit compiles such a kernel.
        _unsupported("texmem_args", "not supported by hone: it binds texture references "
                     "(texture<T, N> name;), which CUDA 12 removed from the language; pass the "
                     "array as an argument and read it with a cudaTextureObject_t or __ldg")
    for name, v in (("observers", observers), ("objectives", objectives),
                    ("simulation_mode", simulation_mode), ("parallel", parallel)):
        if v:
            _unsupported(name, "not supported by hone")
    if lang is not None and str(lang).lower() not in _LANGS:
        _unsupported("lang", f"{lang!r}: hone runs CUDA (lang CUDA, cupy or nvcuda)")
    if compiler not in (None, "nvrtc"):
        _unsupported("compiler", f"{compiler!r}: hone compiles with NVRTC")
    if platform not in (0, None):
        _unsupported("platform", "OpenCL platforms are not supported")
    if isinstance(device, bool) or not isinstance(device, int):
        _unsupported("device", "expected a GPU ordinal")
    if metrics is not None and (not isinstance(metrics, dict) or
                                not all(callable(f) or isinstance(f, str)
                                        for f in metrics.values())):
        _unsupported("metrics", "expected a dict of name -> function of the result, or an "
                                "expression string of its keys")
    objective = objective or "time"
    if objective != "time" and objective not in (metrics or {}):
        _unsupported("objective", f"{objective!r} is neither 'time' nor one of the metrics")
    higher = bool(objective_higher_is_better) if objective != "time" else False

    from . import _hone
    from . import trace
    start = time.perf_counter()
    phases = []  # the Python side's, for HONE_TRACE (hone.trace)
    # Generated sources live beside the compile cache, under stable paths (_write_source).
    cache_root = hone_options.get("cache_dir")
    if not cache_root:
        try:
            cache_root = _hone.default_cache_dir()
        except Exception:  # noqa: BLE001 (no HOME: hone.tune says so if it needs the cache)
            cache_root = tempfile.gettempdir()
    source_dir = os.path.join(os.fspath(cache_root), "compat-sources")
    root = _work_root(arguments)
    with tempfile.TemporaryDirectory(prefix="hone-compat-", dir=root) as workdir:
        config = build_config(kernel_name, kernel_source, problem_size, arguments, tune_params,
                              grid_div_x, grid_div_y, grid_div_z, restrictions, iterations,
                              block_size_names, strategy, strategy_options, compiler_options,
                              defines, workdir, None if verify else answer, atol, cmem_args,
                              rel_precision, source_dir, smem_args)
        if cache is not None:
            c = os.fspath(cache)
            config["output"] = os.path.abspath(c if c.endswith(".db") else c + ".db")
        path = os.path.join(workdir, f"{kernel_name.split('<')[0]}.yaml")
        with open(path, "w") as f:
            json.dump(config, f, indent=2)
        phases.append(("compat: config, sources and arrays written", time.perf_counter() - start))
        phases.append(("tune", None))
        t = time.perf_counter()
        r = tune(path, device=device, _trace=False, **hone_options)
        phases.append(("compat: hone.tune's Python wrapper",
                       time.perf_counter() - t - r.time.get("python_s", 0.0)))
        answer_note = None
        t = time.perf_counter()
        if config.get("verify") or verify is not None:
            answer_note = _check_answer(path, config, arguments, answer, atol, verify, device,
                                        hone_options.get("cache_dir"))
        phases.append(("compat: answer check (hone.Kernel on CuPy)", time.perf_counter() - t))
        t = time.perf_counter()
    phases.append(("compat: temporary folder removed", time.perf_counter() - t))
    t = time.perf_counter()

    results = []
    names = list(config["params"])
    for rec in r.records:
        d = OrderedDict((n, rec.params.get(n)) for n in names)
        if rec.timed:
            times = [t / 1000.0 for t in rec.samples_us] or [rec.time_us / 1000.0]
            d["time"] = sum(times) / len(times)
            d["times"] = times
        else:
            # Kernel Tuner 1.4 marks it in "__error__"; earlier versions put it in "time".
            d["time"] = d["__error__"] = _error_config(rec.status)
            d["error"] = rec.message
        d["compile_time"] = rec.compile_ms
        d["verification_time"] = 0
        d["benchmark_time"] = sum(rec.samples_us) / 1000.0
        d["strategy_time"] = 0
        d["framework_time"] = 0
        d["timestamp"] = rec.created_at
        for name, f in (metrics or {}).items():
            if rec.timed:
                d[name] = _metric(name, f, d)
        results.append(d)
    timed = [d for d in results if not isinstance(d["time"], str)]
    best = None
    if timed:
        best = (max if higher else min)(timed, key=lambda d: d[objective])
    phases.append(("compat: results as Kernel Tuner's", time.perf_counter() - t))
    elapsed = time.perf_counter() - start
    env = OrderedDict()
    env["device_name"] = r.device
    env["compute_capability"] = r.arch.replace("sm_", "")
    env["kernel_name"] = kernel_name
    env["problem_size"] = _plain(problem_size)
    env["tune_params"] = {k: list(v) for k, v in config["params"].items()}
    env["restrictions"] = config.get("constraints", [])
    env["iterations"] = iterations
    env["strategy"] = config["search"]["strategy"]
    env["objective"] = objective
    env["objective_higher_is_better"] = higher
    env["best_config"] = best
    env["total_time_s"] = elapsed
    env["hone_version"] = r.identity.get("tool_version")
    env["hone_output"] = r.output if cache is not None else None
    env["hone_answer"] = answer_note
    env["hone_evaluated"] = r.evaluated
    env["hone_resumed"] = r.resumed
    env["hone_compiled"] = r.compiled
    env["hone_cache_hits"] = r.cache_hits
    env["hone_kept"] = dict(r.kept)
    env["hone_gpu_busy_s"] = r.time.get("gpu_busy_s")  # the kernels' own time, warm-up included
    env["hone_phases"] = trace.phases(r.time, r.kept, phases)
    trace.emit(f"tune_kernel {kernel_name}", r, phases)
    if not quiet and best is not None:
        shown = ", ".join(f"{n}={best[n]}" for n in names)
        print(f"best performing configuration:\n{shown}, {objective}={best[objective]}",
              file=sys.stdout)
    return results, env
