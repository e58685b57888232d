"""What hone.tune returns: the run's records as Python objects."""
from dataclasses import dataclass, field


@dataclass
class Record:
    """One evaluated configuration. ``time_us`` is the median time of one launch (None when the
    configuration has no timing: see ``status`` and ``message``)."""

    key: str
    params: dict
    status: str
    message: str = ""
    time_us: float = None
    ci_low_us: float = None
    ci_high_us: float = None
    mean_us: float = None
    samples: int = 0
    samples_us: list = field(default_factory=list, repr=False)
    gbps: float = 0.0
    gflops: float = 0.0
    compile_ms: float = 0.0
    compile_cached: bool = False
    compile_log: str = field(default="", repr=False)
    registers: int = -1
    spill_bytes: int = 0
    occupancy: float = 0.0
    sample_mode: str = ""
    timer: str = ""
    grid: tuple = (1, 1, 1)
    block: tuple = (1, 1, 1)
    shared_bytes: int = 0
    metrics: dict = field(default_factory=dict)
    created_at: str = ""

    @property
    def timed(self):
        return self.status in ("ok", "not_converged")


_RANK = {"time": ("time_us", False), "gbps": ("gbps", True), "gflops": ("gflops", True)}


class TuneResult:
    """A tuning run: ``records`` (this run's identity's, resumed ones included), ``best``,
    ``ranked()``, where they are stored (``output``) and how the time went (``time``)."""

    def __init__(self, d):
        self.config = d["config"]
        self.kernel = d["kernel"]
        self.output = d["output"]
        self.identity = d["identity"]
        self.param_names = list(d["param_names"])
        self.records = [Record(**r) for r in d["records"]]
        self.resumed = d["resumed"]
        self.evaluated = d["evaluated"]
        self.compiled = d["compiled"]
        self.cache_hits = d["cache_hits"]
        self.interrupted = d["interrupted"]
        self.remeasure_reason = d["remeasure_reason"]
        self.time = d["time"]
        # Whether the call used the workers hone keeps between calls (hone.session_info).
        self.kept = d.get("kept", {})
        self.device = d["device"]
        self.device_ordinal = d["device_ordinal"]
        self.arch = d["arch"]

    def ranked(self):
        """Timed records, best first, by the config's objective (metrics.objective)."""
        attr, higher = _RANK.get(self.identity.get("objective", "time"), _RANK["time"])
        timed = [r for r in self.records if r.timed]
        return sorted(timed, key=lambda r: getattr(r, attr), reverse=higher)

    @property
    def best(self):
        ranked = self.ranked()
        return ranked[0] if ranked else None

    def to_pandas(self):
        """One row a record: the parameters as columns, then the figures. Needs pandas."""
        try:
            import pandas as pd
        except ImportError as e:
            raise ImportError("TuneResult.to_pandas() needs pandas (pip install pandas)") from e
        rows = []
        for r in self.records:
            row = dict(r.params)
            for k in ("key", "status", "time_us", "ci_low_us", "ci_high_us", "samples", "gbps",
                      "gflops", "registers", "spill_bytes", "occupancy", "compile_ms", "message"):
                row[k] = getattr(r, k)
            rows.append(row)
        columns = self.param_names + ["key", "status", "time_us", "ci_low_us", "ci_high_us",
                                      "samples", "gbps", "gflops", "registers", "spill_bytes",
                                      "occupancy", "compile_ms", "message"]
        return pd.DataFrame(rows, columns=columns)

    def __len__(self):
        return len(self.records)

    def __iter__(self):
        return iter(self.records)

    def __repr__(self):
        b = self.best
        best = f"best {b.key} {b.time_us:.4g} us" if b else "nothing timed"
        return (f"<TuneResult {self.kernel} on {self.device}: {len(self.records)} records "
                f"({self.evaluated} evaluated, {self.resumed} resumed), {best}>")
