"""The package without a GPU: import, configs, errors, argument checks before any launch."""
import os

import pytest

import hone
from conftest import DATA, REPO


def test_import_and_version():
    assert hone.__version__
    assert issubclass(hone.InputError, ValueError)
    assert issubclass(hone.EnvError, RuntimeError)


def test_worker_installed_beside_the_module():
    pkg = os.path.dirname(hone.__file__)
    worker = os.path.join(pkg, "hone-worker")
    assert os.access(worker, os.X_OK), f"{worker} is not executable"


def test_load_config(small_config):
    info = hone.load_config(small_config)
    assert info["kernel"] == "vector_add<{VEC}, {STRIDED}>"
    assert info["problem"] == {"N": 1048579}
    assert info["params"] == {"BLOCK": [128, 256], "STRIDED": [False, True], "VEC": [1, 4]}
    assert [a["name"] for a in info["args"]] == ["a", "b", "c", "N"]
    assert hone.load_config(small_config, sizes={"N": 64})["problem"] == {"N": 64}


def test_bad_config_is_input_error_with_position(tmp_path):
    bad = tmp_path / "bad.yaml"
    text = (DATA / "vector_add_small.yaml").read_text().replace("BLOCK: [128, 256]",
                                                                 "BLOCK: {pow2: [32, oops]}")
    text = text.replace("../../../kernels_src", str(REPO / "kernels_src"))
    bad.write_text(text)
    with pytest.raises(hone.InputError) as e:
        hone.load_config(bad)
    assert e.value.file == str(bad)
    assert e.value.line == 9
    assert e.value.column > 0
    assert str(e.value).startswith(f"{bad}:9:")
    assert e.value.position == f"{bad}:9:{e.value.column}"


def test_missing_config_and_unknown_size(small_config, tmp_path):
    with pytest.raises(hone.InputError):
        hone.load_config(tmp_path / "none.yaml")
    with pytest.raises(hone.InputError, match="M"):
        hone.load_config(small_config, sizes={"M": 3})
    with pytest.raises(hone.InputError, match="expected an int"):
        hone.load_config(small_config, sizes={"N": "big"})
    with pytest.raises(hone.InputError, match="dict"):
        hone.load_config(small_config, sizes=[("N", 3)])


def test_tune_option_errors(small_config):
    with pytest.raises(hone.InputError, match="timer"):
        hone.tune(small_config, timer="stopwatch")
    with pytest.raises(hone.InputError, match="l2_flush"):
        hone.tune(small_config, l2_flush="sometimes")
    with pytest.raises(hone.InputError, match="device"):
        hone.tune(small_config, device=-1)
    with pytest.raises(hone.InputError, match="progress"):
        hone.tune(small_config, progress="yes")
    with pytest.raises(hone.InputError, match="max_evals"):
        hone.tune(small_config, max_evals=1.5)
    with pytest.raises(TypeError):
        hone.tune(small_config, no_such_option=1)


def test_kernel_opens_without_gpu(small_config):
    k = hone.Kernel(small_config)
    assert k.name == "vector_add<{VEC}, {STRIDED}>"
    assert k.problem_sizes == ["N"]
    assert k.arg_names == ["a", "b", "c", "N"]
    assert k.tuned_entries == 0
    sel = k.selection({"N": 4096}, arch="sm_90")
    assert sel["tier"] == "fallback"
    assert sel["params"] == {"BLOCK": 256, "STRIDED": False, "VEC": 1}
    assert "BLOCK=256" in sel["key"]
    with pytest.raises(hone.InputError, match="arch"):
        k.selection({"N": 4096}, arch="sm_1")


def test_kernel_takes_path_likes(small_config, tmp_path):
    # config, tuned and cache_dir as pathlib paths (the GPU tests pass them so).
    k = hone.Kernel(small_config, None, cache_dir=tmp_path / "cache")
    assert k.tuned_entries == 0
    k = hone.Kernel(str(small_config), cache_dir=str(tmp_path / "cache"))
    assert k.name == "vector_add<{VEC}, {STRIDED}>"


def test_kernel_bad_tuned_file(small_config, tmp_path):
    with pytest.raises(hone.InputError):
        hone.Kernel(small_config, tmp_path / "missing.json")
    bad = tmp_path / "w.json"
    bad.write_text("{not json")
    with pytest.raises(hone.InputError) as e:
        hone.Kernel(small_config, bad)
    assert e.value.file == str(bad)


def test_launch_argument_errors_before_the_gpu(small_config):
    k = hone.Kernel(small_config)
    with pytest.raises(hone.InputError, match="does not give the problem size 'N'"):
        k(1, 2, 3)
    with pytest.raises(hone.InputError, match="not a problem size"):
        k(1, 2, 3, sizes={"N": 8, "M": 2})
    with pytest.raises(hone.InputError, match="must be an int"):
        k(1, 2, 3, sizes={"N": 8.5})
    with pytest.raises(hone.InputError, match="argument"):
        k(1, 2, sizes={"N": 8})  # neither every argument nor the buffers
    with pytest.raises(hone.InputError, match=r"argument 1 \(a\): expected a device array"):
        k([1.0], [2.0], [3.0], sizes={"N": 1})


def test_launch_refuses_host_arrays(small_config):
    np = pytest.importorskip("numpy")
    k = hone.Kernel(small_config)
    a = np.zeros(8, dtype=np.float32)
    with pytest.raises(hone.InputError, match="host memory .* where device memory is needed"):
        k(a, a, a, sizes={"N": 8})


def test_launch_refuses_host_torch_tensors(small_config):
    torch = pytest.importorskip("torch")
    k = hone.Kernel(small_config)
    a = torch.zeros(8)
    with pytest.raises(hone.InputError, match=r"argument 1 \(a\): host memory \(torch.Tensor on cpu\)"):
        k(a, a, a, sizes={"N": 8})


def test_result_objects_and_pandas():
    d = {"config": "c.yaml", "kernel": "k", "output": "c.db",
         "identity": {"objective": "time"}, "param_names": ["B"],
         "records": [
             {"key": "B=1", "params": {"B": 1}, "status": "ok", "time_us": 3.0},
             {"key": "B=2", "params": {"B": 2}, "status": "ok", "time_us": 2.0},
             {"key": "B=3", "params": {"B": 3}, "status": "wrong_result", "message": "differs"}],
         "resumed": 0, "evaluated": 3, "compiled": 3, "cache_hits": 0, "interrupted": False,
         "remeasure_reason": "", "time": {}, "device": "GPU", "device_ordinal": 0, "arch": "sm_90"}
    r = hone.TuneResult(d)
    assert r.best.key == "B=2"
    assert [x.key for x in r.ranked()] == ["B=2", "B=1"]
    pytest.importorskip("pandas")
    df = r.to_pandas()
    assert list(df["B"]) == [1, 2, 3]
    assert list(df["status"]) == ["ok", "ok", "wrong_result"]


class FakeDeviceArray:
    """An object that claims device memory through __cuda_array_interface__."""

    def __init__(self, n, typestr="<f4", strides=None):
        self.__cuda_array_interface__ = {"data": (0x10000, False), "shape": (n,),
                                         "typestr": typestr, "strides": strides, "version": 3}


def test_cuda_array_interface_without_a_driver_is_env_error(small_config):
    from conftest import gpu_available
    if gpu_available():
        pytest.skip("a GPU is here")
    k = hone.Kernel(small_config)
    a = FakeDeviceArray(8)
    with pytest.raises(hone.EnvError):
        k(a, a, a, sizes={"N": 8})


def test_tune_without_gpu_is_env_error(small_config, tmp_path):
    from conftest import gpu_available
    if gpu_available():
        pytest.skip("a GPU is here")
    with pytest.raises(hone.EnvError):
        hone.tune(small_config, sizes={"N": 1024}, output=tmp_path / "x.db")


class _FakeDtype:
    def __init__(self, name):
        self.name = name

    def __str__(self):
        return f"torch.{self.name}"


class _FakeDevice:
    def __init__(self, text):
        self.text = text

    def __str__(self):
        return self.text


def fake_torch():
    """A stand-in `torch` module (where torch is not installed): the tensor checks of hone.Kernel
    read a tensor through these accessors before anything reaches the driver."""
    import types
    m = types.ModuleType("torch")

    class Tensor:
        def __init__(self, n, dtype, cuda=True, contiguous=True):
            self.n, self.dtype, self.is_cuda, self._contiguous = n, dtype, cuda, contiguous
            self.device = _FakeDevice("cuda:0" if cuda else "cpu")

        def data_ptr(self):
            return 0x7f0000000000

        def get_device(self):
            return 0 if self.is_cuda else -1

        def is_contiguous(self):
            return self._contiguous

        def numel(self):
            return self.n

    m.Tensor = Tensor
    for name in ("float16", "float32", "float64", "int32", "int64"):
        setattr(m, name, _FakeDtype(name))
    m._C = types.SimpleNamespace()  # no _cuda_getCurrentRawStream: no stream is read
    return m


def test_launch_checks_torch_tensors_before_the_driver(small_config, monkeypatch):
    import importlib.util
    if importlib.util.find_spec("torch") is not None:
        pytest.skip("torch is installed: hone keeps the first torch module it sees")
    torch = fake_torch()
    monkeypatch.setitem(__import__("sys").modules, "torch", torch)
    k = hone.Kernel(small_config)
    host = torch.Tensor(8, torch.float32, cuda=False)
    with pytest.raises(hone.InputError,
                       match=r"argument 1 \(a\): host memory \(torch.Tensor on cpu\) where device"):
        k(host, host, host, sizes={"N": 8})
    a = torch.Tensor(8, torch.float32)
    with pytest.raises(hone.InputError, match=r"argument 2 \(b\): element type torch.float64; "
                                              r"the spec's buffer 'b' holds float"):
        k(a, torch.Tensor(8, torch.float64), a, sizes={"N": 8})
    with pytest.raises(hone.InputError, match=r"argument 3 \(c\): not C-contiguous"):
        k(a, a, torch.Tensor(8, torch.float32, contiguous=False), sizes={"N": 8})
    with pytest.raises(hone.InputError, match=r"argument 1 \(a\): 8 elements; the spec's count N "
                                              r"is 16 at N=16"):
        k(a, a, a, sizes={"N": 16})


@pytest.mark.parametrize("iface", [
    {"shape": (8,), "typestr": "<f4", "version": 3},                       # no data
    {"data": (0x10000, False), "shape": 8, "typestr": "<f4", "version": 3},  # shape not a tuple
    {"data": (0x10000, False), "shape": (8,), "typestr": 4, "version": 3},   # typestr not a str
    "not a dict",
])
def test_malformed_cuda_array_interface_is_input_error(small_config, iface):
    class Bad:
        pass
    a = Bad()
    a.__cuda_array_interface__ = iface
    k = hone.Kernel(small_config)
    with pytest.raises(hone.InputError,
                       match=r"argument 1 \(a\): a malformed __cuda_array_interface__"):
        k(a, a, a, sizes={"N": 8})
