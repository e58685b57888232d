"""Tune and launch on a GPU, through torch and CuPy; skipped where there is none."""
import threading

import pytest

import hone
from conftest import gpu_available

pytestmark = pytest.mark.skipif(not gpu_available(), reason="no CUDA GPU here")


def test_tune_small_space(small_config, tmp_path, cache_dir):
    seen = []
    results = []
    r = hone.tune(small_config, sizes={"N": 65539}, output=tmp_path / "t.db", cache_dir=cache_dir,
                  progress=seen.append, on_result=results.append)
    assert r.evaluated == 8 and r.resumed == 0
    assert len(r.records) == 8
    # A tiny kernel may reach max_samples before its median's interval is within target:
    # not_converged, timed and ranked as ok is.
    assert all(x.timed for x in r.records), [(x.key, x.status, x.message) for x in r.records]
    assert r.best is not None and r.best.time_us > 0
    assert seen and seen[-1]["done"] == seen[-1]["total"] == 8
    assert len(results) == 8 and isinstance(results[0], hone.Record)
    assert (tmp_path / "t.db").exists()
    # Resumes: nothing left to measure.
    again = hone.tune(small_config, sizes={"N": 65539}, output=tmp_path / "t.db",
                      cache_dir=cache_dir)
    assert again.evaluated == 0 and again.resumed == 8
    assert again.best.key == r.best.key


def test_exception_in_callback_stops_and_keeps_results(small_config, tmp_path, cache_dir):
    calls = []

    def progress(state):
        calls.append(state["done"])
        if state["done"] >= 2:
            raise KeyboardInterrupt  # as Ctrl-C raises it in a callback

    with pytest.raises(KeyboardInterrupt):
        hone.tune(small_config, sizes={"N": 65539}, output=tmp_path / "i.db",
                  cache_dir=cache_dir, progress=progress)
    # A budget of 2 evaluations in all: the stored ones use it up, nothing more is measured.
    stored = hone.tune(small_config, sizes={"N": 65539}, output=tmp_path / "i.db",
                       cache_dir=cache_dir, max_evals=2)
    assert stored.evaluated == 0 and len(stored.records) >= 2


def test_tune_bad_device_is_env_error(small_config, tmp_path):
    with pytest.raises(hone.EnvError):
        hone.tune(small_config, sizes={"N": 1024}, device=99, output=tmp_path / "d.db")


def torch_cuda():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch has no CUDA device")
    return torch


def test_torch_launch_matches_reference(small_config, cache_dir):
    torch = torch_cuda()
    k = hone.Kernel(small_config, cache_dir=cache_dir)
    n = 100003
    a = torch.randn(n, device="cuda")
    b = torch.randn(n, device="cuda")
    c = torch.empty(n, device="cuda")
    k(a, b, c, sizes={"N": n})
    torch.testing.assert_close(c, a + b, rtol=0, atol=0)
    c.zero_()
    k(a, b, c, n, sizes={"N": n})  # the scalar given
    torch.testing.assert_close(c, a + b, rtol=0, atol=0)
    sel = k.selection({"N": n})
    assert sel["tier"] == "fallback" and sel["key"]


def test_torch_launch_on_a_side_stream(small_config, cache_dir):
    torch = torch_cuda()
    k = hone.Kernel(small_config, cache_dir=cache_dir)
    n = 1 << 20
    a = torch.randn(n, device="cuda")
    b = torch.randn(n, device="cuda")
    c = torch.zeros(n, device="cuda")
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        k(a, b, c, sizes={"N": n})  # the current stream is s
    s.synchronize()
    torch.testing.assert_close(c, a + b, rtol=0, atol=0)
    c.zero_()  # on the current stream: s waits for it
    s.wait_stream(torch.cuda.current_stream())
    k(a, b, c, sizes={"N": n}, stream=s)  # given explicitly
    s.synchronize()
    torch.testing.assert_close(c, a + b, rtol=0, atol=0)


def test_torch_errors(small_config, cache_dir):
    torch = torch_cuda()
    k = hone.Kernel(small_config, cache_dir=cache_dir)
    n = 4096
    a = torch.randn(n, device="cuda")
    with pytest.raises(hone.InputError, match=r"argument 2 \(b\): element type torch.float64"):
        k(a, a.double(), a, sizes={"N": n})
    with pytest.raises(hone.InputError, match="not C-contiguous"):
        k(a, torch.randn(2 * n, device="cuda")[::2], a, sizes={"N": n})
    with pytest.raises(hone.InputError, match=r"4096 elements; the spec's count N is 8192"):
        k(a, a, a, sizes={"N": 2 * n})
    with pytest.raises(hone.InputError, match="host memory"):
        k(a, a, a.cpu(), sizes={"N": n})
    with pytest.raises(hone.InputError, match="expected a float scalar|does not fit|int64"):
        k(a, a, a, "x", sizes={"N": n})
    with pytest.raises(hone.InputError, match="stream"):
        k(a, a, a, sizes={"N": n}, stream="fast")
    if torch.cuda.device_count() > 1:
        b = torch.randn(n, device="cuda:1")
        with pytest.raises(hone.InputError, match="one device"):
            k(a, b, a, sizes={"N": n})


def test_torch_second_device(small_config, cache_dir):
    torch = torch_cuda()
    if torch.cuda.device_count() < 2:
        pytest.skip("one GPU")
    k = hone.Kernel(small_config, cache_dir=cache_dir)
    n = 65536
    a = torch.randn(n, device="cuda:1")
    b = torch.randn(n, device="cuda:1")
    c = torch.empty(n, device="cuda:1")
    k(a, b, c, sizes={"N": n})  # the current device is 0: hone launches on 1
    torch.testing.assert_close(c, a + b, rtol=0, atol=0)


def test_cupy_launch_and_errors(small_config, cache_dir):
    cp = pytest.importorskip("cupy")
    k = hone.Kernel(small_config, cache_dir=cache_dir)
    n = 77777
    a = cp.random.standard_normal(n, dtype=cp.float32)
    b = cp.random.standard_normal(n, dtype=cp.float32)
    c = cp.empty(n, dtype=cp.float32)
    k(a, b, c, sizes={"N": n})
    assert cp.array_equal(c, a + b)
    s = cp.cuda.Stream(non_blocking=True)
    c.fill(0)
    cp.cuda.get_current_stream().synchronize()
    with s:
        k(a, b, c, sizes={"N": n})  # CuPy's current stream
    s.synchronize()
    assert cp.array_equal(c, a + b)
    with pytest.raises(hone.InputError, match="element type"):
        k(a, b, c.astype(cp.float64), sizes={"N": n})
    with pytest.raises(hone.InputError, match="not C-contiguous"):
        k(a, cp.zeros(2 * n, dtype=cp.float32)[::2], c, sizes={"N": n})
    with pytest.raises(hone.InputError, match="elements"):
        k(a[:10], b, c, sizes={"N": n})


def test_tuned_kernel_from_python_tune(small_config, tmp_path, cache_dir):
    torch = torch_cuda()
    n = 65539
    db = tmp_path / "k.db"
    r = hone.tune(small_config, sizes={"N": n}, output=db, cache_dir=cache_dir)
    k = hone.Kernel(small_config, db, cache_dir=cache_dir)
    sel = k.selection({"N": n})
    assert sel["tier"] == "exact"
    assert sel["key"] == r.best.key
    a = torch.randn(n, device="cuda")
    b = torch.randn(n, device="cuda")
    c = torch.empty(n, device="cuda")
    k(a, b, c, sizes={"N": n})
    torch.testing.assert_close(c, a + b, rtol=0, atol=0)


def test_launch_from_threads(small_config, cache_dir):
    torch = torch_cuda()
    k = hone.Kernel(small_config, cache_dir=cache_dir)
    n = 1 << 16
    a = torch.randn(n, device="cuda")
    b = torch.randn(n, device="cuda")
    outs = [torch.empty(n, device="cuda") for _ in range(4)]
    errors = []

    def work(c):
        try:
            torch.cuda.set_device(0)
            for _ in range(50):
                k(a, b, c, sizes={"N": n})
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=work, args=(c,)) for c in outs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    torch.cuda.synchronize()
    assert not errors
    for c in outs:
        torch.testing.assert_close(c, a + b, rtol=0, atol=0)


def test_compat_tune_kernel_vector_add():
    np = pytest.importorskip("numpy")
    from hone.compat import tune_kernel
    kernel_string = """
    __global__ void vector_add(float *c, float *a, float *b, int n) {
        int i = blockIdx.x * block_size_x + threadIdx.x;
        if (i < n) c[i] = a[i] + b[i];
    }
    """
    size = 1000003
    a = np.random.randn(size).astype(np.float32)
    b = np.random.randn(size).astype(np.float32)
    c = np.zeros_like(b)
    tune_params = {"block_size_x": [128 + 64 * i for i in range(15)]}
    results, env = tune_kernel("vector_add", kernel_string, size, [c, a, b, np.int32(size)],
                               tune_params, restrictions=[lambda p: p["block_size_x"] <= 512],
                               quiet=True)
    assert len(results) == 7
    assert all(isinstance(r["time"], float) and r["time"] > 0 for r in results), results
    assert env["best_config"]["time"] == min(r["time"] for r in results)
    assert env["device_name"]
    assert all(len(r["times"]) >= 7 for r in results)


def test_compat_smem_args_size_the_dynamic_shared_memory():
    np = pytest.importorskip("numpy")
    pytest.importorskip("cupy")
    from hone.compat import tune_kernel
    kernel_string = """
    __global__ void twice(float *out, const float *in, int n) {
        extern __shared__ float tile[];
        int i = blockIdx.x * block_size_x + threadIdx.x;
        tile[threadIdx.x] = i < n ? in[i] : 0.0f;
        __syncthreads();
        if (i < n) out[i] = 2.0f * tile[threadIdx.x];
    }
    """
    size = 100003
    x = np.random.randn(size).astype(np.float32)
    out = np.zeros_like(x)
    tune_params = {"block_size_x": [128, 256, 512]}
    results, env = tune_kernel("twice", kernel_string, size, [out, x, np.int32(size)],
                               tune_params, smem_args={"size": lambda p: p["block_size_x"] * 4},
                               answer=[2 * x, None, None], quiet=True)
    assert len(results) == 3
    assert all(isinstance(r["time"], float) and r["time"] > 0 for r in results), results


def test_compat_answer_and_cmem_args():
    np = pytest.importorskip("numpy")
    pytest.importorskip("cupy")
    from hone.compat import tune_kernel
    # A kernel of C++ linkage that reads a __constant__ array given through cmem_args.
    kernel_string = """
    __constant__ float scale[4];
    __global__ void scaled_add(float *c, const float *a, const float *b, int n) {
        int i = blockIdx.x * block_size_x + threadIdx.x;
        if (i < n) c[i] = a[i] * scale[i % 4] + b[i];
    }
    """
    size = 100003
    a = np.random.randn(size).astype(np.float32)
    b = np.random.randn(size).astype(np.float32)
    c = np.zeros_like(b)
    scale = np.array([0.5, 2, -1, 3], dtype=np.float32)
    expected = a * np.tile(scale, size // 4 + 1)[:size] + b
    tp = {"block_size_x": [64, 128, 256]}
    results, env = tune_kernel("scaled_add", kernel_string, size, [c, a, b, np.int32(size)], tp,
                               answer=[expected, None, None, None], atol=1e-5,
                               cmem_args={"scale": scale}, quiet=True)
    assert all(isinstance(r["time"], float) for r in results), results
    assert env["hone_answer"].startswith("checked"), env["hone_answer"]
    with pytest.raises(hone.InputError, match=r"tune_kernel: answer: answer\[0\] differs"):
        tune_kernel("scaled_add", kernel_string, size, [c, a, b, np.int32(size)], tp,
                    answer=[expected + 1, None, None, None], cmem_args={"scale": scale},
                    quiet=True)
    # A verify function instead of the comparison with answer: run on the best configuration's
    # outputs (the other configurations are not compared with a reference then).
    seen = []

    def check(answer, result_host, atol=None):
        seen.append([None if r is None else r.shape for r in result_host])
        return np.allclose(result_host[0], answer[0], atol=1e-5)

    _, env = tune_kernel("scaled_add", kernel_string, size, [c, a, b, np.int32(size)], tp,
                         answer=[expected, None, None, None], verify=check,
                         cmem_args={"scale": scale}, quiet=True)
    assert env["hone_answer"].startswith("verify function passed"), env["hone_answer"]
    assert seen == [[(size,), None, None, None]]
    with pytest.raises(hone.InputError, match="tune_kernel: verify: the verify function rejects"):
        tune_kernel("scaled_add", kernel_string, size, [c, a, b, np.int32(size)], tp,
                    answer=[expected, None, None, None], verify=lambda *x, **k: False,
                    cmem_args={"scale": scale}, quiet=True)
