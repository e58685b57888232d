"""A PyTorch model whose forward pass calls a tuned hone kernel.

The residual connection of a small MLP block (y = x + mlp(x)) is hone's vector_add
(configs/vector_add.yaml), tuned for the block's activation size on this GPU, launched on the
model's tensors without copies on PyTorch's current stream, and registered as a custom op
(torch.library) so that it also runs under torch.compile. The result is checked against the
same model computed by PyTorch alone.

    python examples/python/torch_model.py [--max-evals 40] [--db /tmp/torch_model.db]
"""
import argparse
import pathlib
import time

import torch

import hone

ROOT = pathlib.Path(__file__).resolve().parents[2]
CONFIG = ROOT / "configs" / "vector_add.yaml"

_kernel = None  # set in main(): the tuned handle the op launches


@torch.library.custom_op("hone_example::add", mutates_args=())
def hone_add(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """a + b (float32, contiguous, on one GPU) by hone's tuned vector_add."""
    out = torch.empty_like(a)
    _kernel(a, b, out, sizes={"N": a.numel()})
    return out


@hone_add.register_fake
def _(a, b):
    return torch.empty_like(a)


class Block(torch.nn.Module):
    def __init__(self, width, use_hone):
        super().__init__()
        self.up = torch.nn.Linear(width, 4 * width)
        self.down = torch.nn.Linear(4 * width, width)
        self.use_hone = use_hone

    def forward(self, x):
        h = self.down(torch.nn.functional.gelu(self.up(x)))
        return hone_add(x.contiguous(), h.contiguous()) if self.use_hone else x + h


def main():
    global _kernel
    ap = argparse.ArgumentParser()
    ap.add_argument("--batch", type=int, default=512)
    ap.add_argument("--width", type=int, default=1024)
    ap.add_argument("--max-evals", type=int, default=40)
    ap.add_argument("--db", default="/tmp/hone_torch_model.db")
    args = ap.parse_args()
    if not torch.cuda.is_available():
        print("no CUDA GPU: nothing to run")
        return 0
    n = args.batch * args.width
    t0 = time.perf_counter()
    r = hone.tune(CONFIG, sizes={"N": n}, output=args.db, max_evals=args.max_evals)
    print(f"tuned vector_add at N={n} in {time.perf_counter() - t0:.1f} s: "
          f"{r.evaluated} evaluated, {r.resumed} resumed; best {r.best.key} "
          f"{r.best.time_us:.2f} us")
    _kernel = hone.Kernel(CONFIG, args.db)
    print("selection:", _kernel.selection({"N": n})["description"])

    torch.manual_seed(0)
    model = Block(args.width, use_hone=True).cuda()
    reference = Block(args.width, use_hone=False).cuda()
    reference.load_state_dict(model.state_dict())
    x = torch.randn(args.batch, args.width, device="cuda")
    with torch.no_grad():
        y = model(x)
        y_ref = reference(x)
    torch.testing.assert_close(y, y_ref, rtol=0, atol=0)
    print(f"forward matches PyTorch: max |diff| = {(y - y_ref).abs().max().item()}")
    try:
        compiled = torch.compile(model)
        with torch.no_grad():
            y_compiled = compiled(x)
    except Exception as e:  # noqa: BLE001 (no C compiler or Triton for inductor here)
        print(f"torch.compile not available here ({type(e).__name__}): skipped")
    else:
        # Inductor fuses the PyTorch parts around the op, which rounds differently.
        torch.testing.assert_close(y_compiled, y_ref, rtol=1e-5, atol=1e-6)
        print("torch.compile with the hone op matches too")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
