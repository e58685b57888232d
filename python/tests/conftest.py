import pathlib

import pytest

HERE = pathlib.Path(__file__).resolve().parent
DATA = HERE / "data"
REPO = HERE.parent.parent


def gpu_available():
    """A usable CUDA GPU: through torch or CuPy when installed, else the driver itself."""
    try:
        import torch
        return torch.cuda.is_available()
    except ImportError:
        pass
    try:
        import cupy
        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:
        pass
    import ctypes
    try:
        lib = ctypes.CDLL("libcuda.so.1")
        n = ctypes.c_int(0)
        return lib.cuInit(0) == 0 and lib.cuDeviceGetCount(ctypes.byref(n)) == 0 and n.value > 0
    except OSError:
        return False


@pytest.fixture
def small_config():
    return DATA / "vector_add_small.yaml"


@pytest.fixture
def cache_dir(tmp_path):
    d = tmp_path / "cache"
    d.mkdir()
    return d
