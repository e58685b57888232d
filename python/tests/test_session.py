"""The workers hone.tune keeps between calls (hone.close, hone.session_info), hone.compat's
stable sources and sample settings, and HONE_TRACE. The GPU tests skip where there is none."""
import json
import os
import subprocess
import sys
import time

import pytest

import hone
from hone import compat, trace
from conftest import REPO, gpu_available

gpu = pytest.mark.skipif(not gpu_available(), reason="no CUDA GPU here")
FAULTS = REPO / "configs" / "faults.yaml"


def children_of(pid):
    """The hone-worker processes started by process `pid` (workers get --parent PID), not
    counting zombies: those are gone, waiting to be reaped."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
            with open(f"/proc/{entry}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z" and b"--parent" in argv and \
                argv[argv.index(b"--parent") + 1:][:1] == [str(pid).encode()]:
            found.append(int(entry))
    return found


def wait_until_gone(pid, limit_s=10):
    """The workers of `pid` once they have ended (a killed worker is reaped in the background);
    what is left after limit_s otherwise."""
    end = time.monotonic() + limit_s
    while children_of(pid) and time.monotonic() < end:
        time.sleep(0.05)
    return children_of(pid)


# ---- no GPU needed ----------------------------------------------------------------------

def test_session_info_and_close_are_safe_without_workers():
    info = hone.session_info()
    for k in ("gpu_workers", "gpu_workers_started", "gpu_workers_reused", "compile_pool",
              "compile_pools_started", "compile_pools_reused", "compile_workers_started"):
        assert k in info
    hone.close()
    hone.close()  # again: nothing to end
    with hone.session():
        pass
    assert hone.session_info()["gpu_workers"] == []
    assert hone.session_info()["compile_pool"] is False


def test_keep_session_must_be_a_bool(small_config, tmp_path):
    with pytest.raises(hone.InputError, match="keep_session"):
        hone.tune(small_config, output=tmp_path / "k.db", keep_session="yes")


@pytest.mark.skipif(gpu_available(), reason="checks the failure path where there is no GPU")
def test_a_failed_call_keeps_no_workers(small_config, tmp_path):
    before = hone.session_info()
    with pytest.raises(hone.EnvError):
        hone.tune(small_config, output=tmp_path / "f.db")
    after = hone.session_info()
    assert after["gpu_workers"] == [] and after["compile_pool"] is False
    assert after["gpu_workers_started"] == before["gpu_workers_started"]
    assert children_of(os.getpid()) == []


def args_for(size=1000):
    np = pytest.importorskip("numpy")
    a = np.random.randn(size).astype(np.float32)
    return [np.zeros_like(a), a, a.copy(), np.int32(size)]


KERNEL = """
__global__ void vector_add(float *c, float *a, float *b, int n) {
    int i = blockIdx.x * block_size_x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
"""


def test_iterations_are_the_sample_count(tmp_path):
    cfg = compat.build_config("vector_add", KERNEL, 1000, args_for(), {"block_size_x": [128]},
                              iterations=7, workdir=str(tmp_path))
    assert cfg["timing"] == {"min_samples": 7, "max_samples": 7}
    cfg = compat.build_config("vector_add", KERNEL, 1000, args_for(), {"block_size_x": [128]},
                              iterations=32, workdir=str(tmp_path), rel_precision=0.02)
    assert cfg["timing"] == {"min_samples": 32, "max_samples": 200, "rel_precision": 0.02}
    path = tmp_path / "c.yaml"
    path.write_text(json.dumps(cfg))
    hone.load_config(path)  # hone accepts both
    for bad in (0, 1, 2.5, True, "0.01"):
        with pytest.raises(hone.InputError, match="rel_precision"):
            compat.build_config("vector_add", KERNEL, 1000, args_for(),
                                {"block_size_x": [128]}, workdir=str(tmp_path),
                                rel_precision=bad)


def test_generated_sources_have_stable_paths(tmp_path):
    """The compile cache's key covers the source's path: compat's generated sources must not
    live in the call's temporary folder, or a second run compiles everything again."""
    src = tmp_path / "sources"
    paths = []
    for i in range(2):
        work = tmp_path / f"work{i}"
        work.mkdir()
        cfg = compat.build_config("vector_add", KERNEL, 1000, args_for(),
                                  {"block_size_x": [128]}, workdir=str(work),
                                  source_dir=str(src))
        paths.append(cfg["kernel"]["source"])
    assert paths[0] == paths[1] and paths[0].startswith(str(src))
    assert open(paths[0]).read() == KERNEL
    other = compat.build_config("vector_add", KERNEL + "\n// changed\n", 1000, args_for(),
                                {"block_size_x": [128]}, workdir=str(tmp_path),
                                source_dir=str(src))
    assert other["kernel"]["source"] != paths[0]
    # A rewritten copy (loop_unroll_factor) is content-addressed too.
    unrolled = KERNEL.replace("int i", "#pragma unroll loop_unroll_factor_0\n    int i")
    a = compat.build_config("vector_add", unrolled, 1000, args_for(),
                            {"block_size_x": [128], "loop_unroll_factor_0": [0, 2]},
                            workdir=str(tmp_path), source_dir=str(src))
    b = compat.build_config("vector_add", unrolled, 1000, args_for(),
                            {"block_size_x": [128], "loop_unroll_factor_0": [0, 2]},
                            workdir=str(tmp_path / "work0"), source_dir=str(src))
    assert a["kernel"]["source"] == b["kernel"]["source"]
    assert a["kernel"]["source"].endswith("kernel_kt.cu")


TIME = {"wall_s": 1.0, "setup_s": 0.4, "session_start_s": 0.1, "reference_compile_s": 0.05,
        "prepare_s": 0.2, "inputs_s": 0.02, "upload_s": 0.03, "reference_run_s": 0.01,
        "timer_s": 0.0, "clock_s": 0.1, "compile_wait_s": 0.1, "gpu_s": 0.4, "load_s": 0.05,
        "verify_s": 0.05, "warmup_s": 0.1, "samples_s": 0.15, "call_s": 1.1,
        "kept_start_s": 0.05, "python_s": 1.2, "compile_cpu_s": 0.3, "timer": "events"}


def test_trace_phases_add_up_to_the_call():
    kept = {"used": True, "gpu_reused": True}
    rows = trace.phases(TIME, kept, [("compat: before", 0.25), ("tune", None),
                                     ("compat: after", 0.05)])
    names = [n for n, _ in rows]
    assert names[0] == "compat: before" and names[-1] == "compat: after"
    assert any(n.startswith("kept GPU worker") for n in names)
    # The tuner's phases add up to hone.tune's call (python_s), the compat ones around them.
    assert sum(s for _, s in rows) == pytest.approx(1.2 + 0.25 + 0.05)
    assert dict(rows)["GPU: samples"] == pytest.approx(0.15)
    assert dict(rows)["prepare: other (round trip)"] == pytest.approx(0.2 - 0.16)


def test_hone_trace_prints_only_when_set(monkeypatch, capsys):
    class R:
        time, kept, compiled, cache_hits, evaluated = TIME, {}, 3, 5, 8
    monkeypatch.delenv("HONE_TRACE", raising=False)
    trace.emit("x", R())
    assert capsys.readouterr().err == ""
    monkeypatch.setenv("HONE_TRACE", "0")
    trace.emit("x", R())
    assert capsys.readouterr().err == ""
    monkeypatch.setenv("HONE_TRACE", "1")
    trace.emit("tune_kernel vector_add", R())
    err = capsys.readouterr().err
    assert err.startswith("hone trace: tune_kernel vector_add: 1.200 s")
    assert "GPU: samples" in err and "compiled 3, from the compile cache 5" in err
    R.kept = {"used": True, "gpu_reused": True}
    trace.emit("again", R())
    assert capsys.readouterr().err.startswith("hone trace: again: 1.200 s (GPU worker reused)")


# ---- on a GPU ---------------------------------------------------------------------------

@gpu
def test_second_call_reuses_the_workers(small_config, tmp_path, cache_dir):
    hone.close()
    first = hone.tune(small_config, sizes={"N": 65539}, output=tmp_path / "a.db",
                      cache_dir=cache_dir)
    info = hone.session_info()
    assert first.kept["used"] and not first.kept["gpu_reused"]
    assert info["gpu_workers"] == [0] and info["compile_pool"]
    second = hone.tune(small_config, sizes={"N": 65539}, output=tmp_path / "b.db",
                       cache_dir=cache_dir)
    after = hone.session_info()
    assert second.kept["gpu_reused"] and second.kept["pool_reused"]
    assert after["gpu_workers_started"] == info["gpu_workers_started"]
    assert after["gpu_workers_reused"] == info["gpu_workers_reused"] + 1
    # Every binary came from the compile cache: no compile worker was started.
    assert second.compiled == 0 and second.cache_hits > 0
    assert second.kept["compile_workers_started"] == 0
    assert second.evaluated == 8 and all(r.timed for r in second.records)
    # Its own workers, when asked: the kept ones are not touched.
    own = hone.tune(small_config, sizes={"N": 65539}, output=tmp_path / "c.db",
                    cache_dir=cache_dir, keep_session=False)
    assert not own.kept["used"]
    assert hone.session_info()["gpu_workers_started"] == after["gpu_workers_started"]
    hone.close()
    assert hone.session_info()["gpu_workers"] == []
    assert wait_until_gone(os.getpid()) == []


@gpu
def test_a_fault_in_a_later_call_costs_one_configuration(small_config, tmp_path, cache_dir):
    hone.close()
    hone.tune(FAULTS, output=tmp_path / "ok.db", cache_dir=cache_dir, only="MODE=0,BLOCK=256")
    faulted = hone.tune(FAULTS, output=tmp_path / "fault.db", cache_dir=cache_dir,
                        only="MODE=1,BLOCK=256")
    assert faulted.kept["gpu_reused"]
    assert [r.status for r in faulted.records] == ["runtime_fault"]
    # The kept worker was replaced: the next call measures as before.
    after = hone.tune(small_config, sizes={"N": 65539}, output=tmp_path / "after.db",
                      cache_dir=cache_dir)
    assert after.kept["gpu_reused"] and after.evaluated == 8
    assert all(r.timed for r in after.records)
    hone.close()


SCRIPT = """
import os, sys, hone
r = hone.tune(sys.argv[1], sizes={"N": 65539}, output=sys.argv[2], cache_dir=sys.argv[3])
assert r.kept["used"], r.kept
print(os.getpid(), flush=True)
sys.stdin.readline()          # the test looks at the workers, then lets the script end
"""


@gpu
def test_kept_workers_end_with_the_interpreter(small_config, tmp_path, cache_dir):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    p = subprocess.Popen([sys.executable, "-c", SCRIPT, str(small_config),
                          str(tmp_path / "x.db"), str(cache_dir)], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, text=True, env=env)
    try:
        pid = int(p.stdout.readline())
        assert children_of(pid), "the kept workers should be up while the script runs"
        p.stdin.write("\n")
        p.stdin.flush()
        assert p.wait(timeout=60) == 0
    finally:
        if p.poll() is None:
            p.kill()
    assert wait_until_gone(pid) == []
