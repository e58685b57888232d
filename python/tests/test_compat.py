"""hone.compat.tune_kernel: Kernel Tuner's arguments as a hone config (no GPU needed), and the
refusals naming the argument."""
import json

import pytest

np = pytest.importorskip("numpy")

import hone
from hone import compat

KERNEL = """
__global__ void vector_add(float *c, float *a, float *b, int n) {
    int i = blockIdx.x * block_size_x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
"""


def vector_add_args(size=10000):
    a = np.random.randn(size).astype(np.float32)
    b = np.random.randn(size).astype(np.float32)
    c = np.zeros_like(b)
    return [c, a, b, np.int32(size)], a, b


def build(tmp_path, **kw):
    args, a, b = vector_add_args()
    base = dict(kernel_name="vector_add", kernel_source=KERNEL, problem_size=10000,
                arguments=args, tune_params={"block_size_x": [128, 192, 256]},
                workdir=str(tmp_path))
    base.update(kw)
    cfg = compat.build_config(**base)
    path = tmp_path / "c.yaml"
    path.write_text(json.dumps(cfg, indent=2))
    return cfg, path, a, b


def test_vector_add_config(tmp_path):
    cfg, path, a, b = build(tmp_path)
    assert cfg["kernel"]["name"] == "vector_add"
    assert "-Dblock_size_y=1" in cfg["kernel"]["options"]
    assert "-Dkernel_tuner=1" in cfg["kernel"]["options"]
    assert cfg["problem"] == {"problem_size_x": 10000}
    assert cfg["launch"]["grid"] == ["ceil_div(problem_size_x, (block_size_x))", "1", "1"]
    assert cfg["launch"]["block"] == ["block_size_x", "1", "1"]
    assert list(cfg["buffers"]) == ["arg0", "arg1", "arg2"]
    assert cfg["buffers"]["arg1"]["type"] == "float"
    assert cfg["buffers"]["arg1"]["count"] == 10000
    data = np.fromfile(cfg["buffers"]["arg1"]["init"]["file"], dtype=np.float32)
    assert np.array_equal(data, a)
    assert cfg["args"][3] == {"value": 10000, "type": "int32"}
    assert cfg["search"] == {"strategy": "exhaustive"}
    assert cfg["timing"]["min_samples"] == 7
    info = hone.load_config(path)  # hone accepts it
    assert info["params"] == {"block_size_x": [128, 192, 256]}
    assert [x["name"] for x in info["args"]] == ["arg0", "arg1", "arg2", "10000"]


def test_grid_divisors_and_2d_problem(tmp_path):
    args, _, _ = vector_add_args()
    cfg, path, _, _ = build(tmp_path, problem_size=(64, 32),
                            tune_params={"block_size_x": [16, 32], "block_size_y": [1, 2],
                                         "tile_size_x": [1, 2]},
                            grid_div_x=["block_size_x", "tile_size_x"], grid_div_y=[])
    assert cfg["launch"]["grid"] == [
        "ceil_div(problem_size_x, (block_size_x) * (tile_size_x))", "problem_size_y", "1"]
    assert cfg["launch"]["block"] == ["block_size_x", "block_size_y", "1"]
    hone.load_config(path)


def test_problem_size_from_a_parameter(tmp_path):
    cfg, path, _, _ = build(tmp_path, problem_size="num_blocks",
                            tune_params={"block_size_x": [32, 64], "num_blocks": [4, 8]},
                            grid_div_x=[])
    assert cfg["launch"]["grid"][0] == "(num_blocks)"
    assert "problem" not in cfg
    hone.load_config(path)


def test_restrictions(tmp_path):
    tp = {"block_size_x": [32, 64, 128], "block_size_y": [1, 2, 4]}
    cfg, path, _, _ = build(tmp_path, tune_params=tp, restrictions=[
        "block_size_x * block_size_y <= 256",
        lambda p: p["block_size_x"] * p["block_size_y"] >= 64,
    ])
    assert cfg["constraints"][0] == "block_size_x * block_size_y <= 256"
    assert cfg["constraints"][1] == "((block_size_x * block_size_y) >= 64)"
    hone.load_config(path)

    def restrict(p):
        return p["block_size_y"] in (1, 4)  # `in` is not in hone's language: enumerated
    cfg, path, _, _ = build(tmp_path, tune_params=tp, restrictions=restrict)
    e = cfg["constraints"][0]
    assert "block_size_y == 2" in e and e.startswith("not (")
    hone.load_config(path)

    def as_function(p):
        return p["block_size_x"] // 32 > p["block_size_y"] if p["block_size_x"] > 32 else True
    cfg, _, _, _ = build(tmp_path, tune_params=tp, restrictions=[as_function])
    assert cfg["constraints"] == [
        "((block_size_x > 32) ? ((block_size_x // 32) > block_size_y) : true)"]


def test_kernel_source_file_and_strategy(tmp_path):
    src = tmp_path / "va.cu"
    src.write_text(KERNEL)
    cfg, path, _, _ = build(tmp_path, kernel_source=str(src), strategy="random_sample",
                            strategy_options={"fraction": 0.5}, iterations=32)
    assert cfg["kernel"]["source"] == str(src)
    assert cfg["search"] == {"strategy": "random", "max_evals": 2}
    assert cfg["timing"]["min_samples"] == 32
    cfg, _, _, _ = build(tmp_path, strategy="genetic_algorithm",
                         strategy_options={"max_fevals": 20, "popsize": 8})
    assert cfg["search"] == {"strategy": "genetic", "max_evals": 20, "population": 8}


def test_smem_args_are_the_launch_shared_bytes(tmp_path):
    cfg, path, _, _ = build(tmp_path, smem_args={"size": 1024})
    assert cfg["launch"]["shared_bytes"] == 1024
    cfg, path, _, _ = build(tmp_path, smem_args={"size": np.int32(512)})
    assert cfg["launch"]["shared_bytes"] == 512
    cfg, path, _, _ = build(tmp_path, smem_args={"size": lambda p: p["block_size_x"] * 4})
    assert cfg["launch"]["shared_bytes"] == "(block_size_x * 4)"
    hone.load_config(path)  # hone accepts it
    cfg, _, _, _ = build(tmp_path)
    assert "shared_bytes" not in cfg["launch"]


@pytest.mark.parametrize("kw,name", [
    ({"answer": [np.zeros(4), None, None, None]}, "answer"),
    ({"verify": "allclose"}, "verify"),
    ({"cmem_args": {"d_filter": np.zeros(4)}}, "cmem_args"),  # the source declares none
    ({"cmem_args": {"d_filter": np.zeros(4, dtype=np.float16)}}, "cmem_args"),
    ({"cmem_args": {"d_filter": np.zeros(20000, dtype=np.float32)}}, "cmem_args"),
    ({"smem_args": {"size": -4}}, "smem_args"),
    ({"smem_args": {"bytes": 4}}, "smem_args"),
    ({"smem_args": {"size": [4]}}, "smem_args"),
    ({"lang": "OpenCL"}, "lang"),
    ({"compiler": "nvcc"}, "compiler"),
    ({"strategy": "pso"}, "strategy"),
    ({"strategy_options": {"maxiter": 3}}, "strategy_options"),
    ({"observers": [object()]}, "observers"),
    ({"texmem_args": {"tex": {"array": np.zeros(4)}}}, "texmem_args"),
    ({"objective": "GFLOP/s"}, "objective"),
    ({"problem_size": lambda p: p}, "problem_size"),
    ({"grid_div_x": lambda p: 1}, "grid_div_x"),
    ({"tune_params": {"block_size_x": []}}, "tune_params"),
    ({"arguments": [[1, 2, 3]]}, "arguments"),
    ({"arguments": [np.zeros(4, dtype=np.complex64)]}, "arguments"),
    ({"iterations": 0}, "iterations"),
])
def test_refusals_name_the_argument(kw, name):
    args, _, _ = vector_add_args(16)
    base = dict(kernel_name="vector_add", kernel_source=KERNEL, problem_size=16,
                arguments=args, tune_params={"block_size_x": [32]})
    base.update(kw)
    with pytest.raises(hone.InputError, match=f"tune_kernel: {name}:"):
        compat.tune_kernel(**base)


def test_texmem_args_refusal_says_why():
    args, _, _ = vector_add_args(16)
    with pytest.raises(hone.InputError, match="texture references .* CUDA 12 removed"):
        compat.tune_kernel("vector_add", KERNEL, 16, args, {"block_size_x": [32]},
                           texmem_args={"tex": {"array": np.zeros(4)}})


def test_untranslatable_restriction_over_a_huge_space_is_refused(tmp_path):
    tp = {f"p{i}": list(range(10)) for i in range(7)}  # 10^7 configurations
    with pytest.raises(hone.InputError, match="restrictions"):
        build(tmp_path, tune_params=tp, restrictions=lambda p: sum(p.values()) in (3, 4))


def test_answer_becomes_a_verify_section(tmp_path):
    args, a, b = vector_add_args()
    tp = {"block_size_x": [2048, 64, 128], "unroll": [1, 2]}
    cfg, path, _, _ = build(tmp_path, arguments=args, tune_params=tp,
                            restrictions=["unroll == 2"], answer=[a + b, None, None, None],
                            atol=1e-4)
    # The reference: the first configuration the restrictions keep with a block of at most
    # 1024 threads.
    assert cfg["verify"] == {"outputs": ["arg0"], "atol": 1e-4, "rtol": 1e-5,
                             "reference": {"block_size_x": 64, "unroll": 2}}
    hone.load_config(path)
    cfg, _, _, _ = build(tmp_path, answer=[None, None, None, None])
    assert "verify" not in cfg
    with pytest.raises(hone.InputError, match=r"tune_kernel: answer: answer\[3\]: arguments\[3\] "
                                              r"is not an array"):
        build(tmp_path, answer=[None, None, None, np.int32(3)])
    with pytest.raises(hone.InputError, match="tune_kernel: answer: expected a list"):
        build(tmp_path, answer=[a])
    with pytest.raises(hone.InputError, match="tune_kernel: answer: no configuration"):
        build(tmp_path, tune_params={"block_size_x": [2048]}, answer=[a + b, None, None, None])
    with pytest.raises(hone.InputError, match="tune_kernel: atol:"):
        build(tmp_path, answer=[a + b, None, None, None], atol="tight")


def test_metrics_as_functions_and_strings():
    d = {"block_size_x": 128, "time": 2.0}
    assert compat._metric("GFLOP/s", lambda p: 4 / p["time"], d) == 2.0
    assert compat._metric("GB/s", "(8*4/1e9) / (time/1000) * block_size_x / 128", d) == \
        pytest.approx(8 * 4 / 1e9 / 2e-3)
    assert compat._metric("x", "1 / (time - 2)", d) != compat._metric("x", "1 / (time - 2)", d)
    with pytest.raises(hone.InputError, match="tune_kernel: metrics: 'bad': name 'nope'"):
        compat._metric("bad", "nope * 2", d)


def test_cmem_args_become_initialisers(tmp_path):
    src = "__constant__ float d_filter[2*3]; // the weights\n" \
          "__constant__ int d_n;\n" + KERNEL
    w = np.array([0.1, -2.5, 3e-8, 1, 2, 3], dtype=np.float32)
    cfg, path, _, _ = build(tmp_path, kernel_source=src,
                            cmem_args={"d_filter": w, "d_n": np.int32(7)})
    text = open(cfg["kernel"]["source"]).read()
    line = text.splitlines()[0]
    assert line.startswith("__constant__ float d_filter[2*3] = {") and line.endswith("// the weights")
    values = [float(v) for v in line.split("{")[1].split("}")[0].split(",")]
    assert np.array_equal(np.array(values, dtype=np.float32), w)  # exact, as float32
    assert "__constant__ int d_n = {7};" in text
    hone.load_config(path)
    with pytest.raises(hone.InputError, match=r"tune_kernel: cmem_args: 'd_x': the kernel source "
                                              r"must declare it once"):
        build(tmp_path, kernel_source=src, cmem_args={"d_x": w})
    with pytest.raises(hone.InputError, match="NaN"):
        build(tmp_path, kernel_source=src, cmem_args={"d_filter": np.full(6, np.nan)})


def fake_gpu(monkeypatch, compute):
    """A stand-in cupy and hone.Kernel: the launch runs `compute` on the host copies, so that
    compat's check of answer and verify runs without a GPU."""
    import contextlib
    import sys
    import types

    class Arr:
        def __init__(self, x):
            self.x = np.array(x)

        def get(self):
            return self.x.copy()

    cp = types.ModuleType("cupy")
    cp.asarray = Arr
    cp.cuda = types.SimpleNamespace(
        Device=lambda d: contextlib.nullcontext(),
        get_current_stream=lambda: types.SimpleNamespace(synchronize=lambda: None))
    monkeypatch.setitem(sys.modules, "cupy", cp)

    class Kernel:
        def __init__(self, path, tuned, device=0, cache_dir=None):
            self.path = path

        def selection(self, sizes):
            return {"key": "block_size_x=128"}

        def __call__(self, *args, sizes):
            compute(*[a.x if isinstance(a, Arr) else a for a in args])

    monkeypatch.setattr(hone, "Kernel", Kernel)
    monkeypatch.setattr(hone, "tune", lambda path, **kw: None)


def test_answer_and_verify_checked_on_the_best_configuration(tmp_path, monkeypatch):
    args, a, b = vector_add_args(1000)

    def add(c, x, y, n):
        c[:n] = x[:n] + y[:n]

    fake_gpu(monkeypatch, add)
    cfg, path, _, _ = build(tmp_path, arguments=args, problem_size=1000,
                            answer=[a + b, None, None, None])
    note = compat._check_answer(str(path), cfg, args, [a + b, None, None, None], 1e-6, None, 0,
                                None)
    assert note == "checked against the best configuration's output (block_size_x=128)"
    with pytest.raises(hone.InputError, match=r"tune_kernel: answer: answer\[0\] differs from "
                                              r"the output of the best configuration "
                                              r"\(block_size_x=128\) at 1000 of 1000 elements"):
        compat._check_answer(str(path), cfg, args, [a + b + 1, None, None, None], 1e-6, None,
                             0, None)
    seen = []

    def verify(answer, result_host, atol=None):
        seen.append((answer, [None if r is None else r.shape for r in result_host], atol))
        return True
    note = compat._check_answer(str(path), cfg, args, None, 1e-3, verify, 0, None)
    assert note.startswith("verify function passed")
    # Without answer, Kernel Tuner hands every array argument to verify.
    assert seen == [(None, [(1000,), (1000,), (1000,), None], 1e-3)]
    with pytest.raises(hone.InputError, match="tune_kernel: verify: the verify function rejects"):
        compat._check_answer(str(path), cfg, args, None, 1e-3, lambda *x, **k: False, 0, None)
    # A launch that fails leaves the tuning standing, with a note.
    fake_gpu(monkeypatch, lambda *x: 1 / 0)
    note = compat._check_answer(str(path), cfg, args, [a + b, None, None, None], 1e-6, None, 0,
                                None)
    assert note.startswith("not checked: ZeroDivisionError")


def test_an_empty_array_is_a_one_element_buffer(tmp_path):
    args, a, b = vector_add_args()
    args[1] = np.zeros(0, dtype=np.float32)
    cfg, path, _, _ = build(tmp_path, arguments=args)
    assert cfg["buffers"]["arg1"]["count"] == 1
    assert cfg["buffers"]["arg1"]["init"] == "zeros"
    hone.load_config(path)


def test_an_all_zero_array_is_zeros_without_a_file(tmp_path):
    args, a, b = vector_add_args()
    cfg, path, _, _ = build(tmp_path, arguments=args)
    assert cfg["buffers"]["arg0"]["init"] == "zeros"  # c = zeros_like(b)
    assert not (tmp_path / "arg0.bin").exists()
    # Negative zero is not all zero bits: its file keeps it.
    args[0] = np.full(10000, -0.0, dtype=np.float32)
    cfg, path, _, _ = build(tmp_path, arguments=args)
    data = np.fromfile(cfg["buffers"]["arg0"]["init"]["file"], dtype=np.float32)
    assert np.signbit(data).all()
    hone.load_config(path)


def test_failed_configurations_marked_as_kernel_tuner_does(monkeypatch):
    import sys
    e = compat._error_config("compile_error")
    # str() names the class, as Kernel Tuner's ErrorConfig does.
    assert str(e) == "CompilationFailedConfig" and isinstance(e, str)
    assert str(compat._error_config("device_limits")) == "InvalidConfig"
    assert str(compat._error_config("wrong_result")) == "RuntimeFailedConfig"
    try:
        from kernel_tuner import util
    except ImportError:
        util = None
    if util is not None:
        assert isinstance(e, util.CompilationFailedConfig)
    monkeypatch.setitem(sys.modules, "kernel_tuner", None)  # not installed
    e = compat._error_config("runtime_fault")
    assert e == "RuntimeFailedConfig" and type(e).__name__ == "RuntimeFailedConfig"
    assert json.dumps({"time": e}) == '{"time": "RuntimeFailedConfig"}'


def test_a_loop_unroll_factor_of_0_leaves_the_pragma_out(tmp_path):
    src = KERNEL.replace("int i = ", "    #pragma unroll loop_unroll_factor_0\n"
                                     "    for (int k = 0; k < 4; k++) {}\n    int i = ")
    cfg, path, _, _ = build(tmp_path, kernel_source=src,
                            tune_params={"block_size_x": [128], "loop_unroll_factor_0": [0, 4]})
    text = open(cfg["kernel"]["source"]).read()
    assert "#if loop_unroll_factor_0 != 0\n        #pragma unroll loop_unroll_factor_0\n#endif\n" \
        "    for (int k" in text
    hone.load_config(path)
    cfg, _, _, _ = build(tmp_path)  # nothing to rewrite: the source as given
    assert cfg["kernel"]["source"].endswith("kernel.cu")
