"""Golden programs for the matrix and layer ops (issue 21, item 2): hand-written cases of every
matmul broadcasting case, mm/bmm/mv/dot/addmm, F.linear and nn.Linear (weights set under
torch.no_grad so that values are PyTorch's), relu/gelu/silu/softmax/log_softmax, dropout in
evaluation, constant pad, tile, torch.save/torch.load through io.BytesIO; and random programs
chaining them with autograd (requires_grad leaves, backward, the gradients bound to names).

Values of exp/erf/tanh-based ops (softmax, log_softmax, gelu, silu) are computed by PyTorch
with vectorised float32 code: those cases carry "tolerance" (absolute 1e-4 plus 1e-5 of the tensor's largest magnitude),
which tests/golden.rs applies to tensor values (as do chained products, whose float32
sums pass 2**24 and depend on the summation order); they print no values of those ops.

    python scripts/gen_ops_programs.py --out tests/golden   # writes tests/golden/ops.jsonl.gz
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from torch_golden import explain  # noqa: E402

HEAD = "import torch\nimport torch.nn.functional as F\n"
TOL = {"rtol": 1e-5, "atol": 1e-4}

SEEDS: list[tuple[str, str, bool]] = [
    ("op_seed001_affine_autograd",
     "X = torch.tensor([[1., 2., 0.], [0., 1., -1.]], requires_grad=True)\n"
     "W = torch.tensor([[1., 0.], [2., 1.], [0., 3.]], requires_grad=True)\n"
     "b = torch.tensor([10., 20.], requires_grad=True)\n"
     "Y = X @ W + b\nY.sum().backward()\n"
     "gX, gW, gb = X.grad.clone(), W.grad.clone(), b.grad.clone()\nprint(type(Y.grad_fn).__name__, Y.tolist())\n", False),
    ("op_seed001_linear_module",
     "import torch.nn as nn\nlin = nn.Linear(3, 2)\nwith torch.no_grad():\n"
     "    lin.weight.copy_(torch.tensor([[1., 0., -1.], [2., 1., 0.]]))\n"
     "    lin.bias.copy_(torch.tensor([0.5, -0.5]))\n"
     "features = torch.tensor([[1.0, 0.0, -1.0]])\nlogits = lin(features)\n"
     "print(logits.shape, logits.requires_grad, type(logits.grad_fn).__name__, logits.tolist())\n"
     "logits.sum().backward()\ngw, gb = lin.weight.grad.clone(), lin.bias.grad.clone()\n"
     "with torch.no_grad():\n    plain = lin(features)\nprint(plain.requires_grad, plain.grad_fn)\n", False),
    ("op_seed001_attention_heads",
     "x = torch.arange(24, dtype=torch.float32).view(1, 4, 6)\n"
     "heads = x.view(1, 4, 2, 3).transpose(1, 2)\n"
     "scores = heads @ heads.transpose(-2, -1)\n"
     "weights = torch.softmax(scores / 100, dim=-1)\nctx = weights @ heads\n"
     "merged = ctx.transpose(1, 2).reshape(1, 4, 6)\n"
     "print(heads.shape, heads.stride(), scores.shape, ctx.is_contiguous(), merged.shape)\n", True),
    ("op_linear_no_bias_and_3d",
     "import torch.nn as nn\nlin = nn.Linear(4, 3, bias=False)\nprint(lin.bias, lin)\n"
     "with torch.no_grad():\n    lin.weight.copy_(torch.arange(12.).view(3, 4) - 5)\n"
     "x = torch.arange(24.).view(2, 3, 4)\ny = lin(x)\nz = F.linear(x.transpose(0, 1), lin.weight)\n"
     "print(y.shape, y.stride(), z.shape, z.stride())\n", False),
    ("op_linear_functional_bias_cases",
     "w = torch.tensor([[1., 2.], [0., -1.], [3., 1.]], requires_grad=True)\n"
     "b = torch.tensor([1., 2., 3.], requires_grad=True)\n"
     "x1 = torch.tensor([1., 2.])\ny1 = F.linear(x1, w, b)\n"
     "x3 = torch.ones(2, 2, 2)\ny3 = F.linear(x3, w, b)\n"
     "xt = torch.ones(2, 3, 2).transpose(0, 1)\nyt = F.linear(xt, w, b)\n"
     "print(type(y1.grad_fn).__name__, type(y3.grad_fn).__name__, type(yt.grad_fn).__name__)\n"
     "(y1.sum() + y3.sum() + yt.sum()).backward()\ngw, gb = w.grad.clone(), b.grad.clone()\n", False),
    ("op_matmul_errors",
     "for a, b in [((2, 3), (4, 5)), ((3,), (4,)), ((2, 3), (4,)), ((3,), (4, 5)), ((5, 2, 3), (4,))]:\n"
     "    try:\n        torch.ones(a) @ torch.ones(b)\n    except RuntimeError as e:\n        print(str(e))\n"
     "try:\n    torch.ones(2, 3) @ torch.ones(3, 4, dtype=torch.float64)\nexcept RuntimeError as e:\n    print(str(e))\n"
     "try:\n    torch.ones(3) @ torch.ones(3, dtype=torch.float64)\nexcept RuntimeError as e:\n    print(str(e))\n"
     "x = torch.ones(()) @ torch.ones(3)\n", False),
    ("op_mm_bmm_mv_dot_addmm",
     "a = torch.arange(6.).view(2, 3)\nb = torch.arange(12.).view(3, 4)\n"
     "m = torch.mm(a, b)\nm2 = a.mm(b)\nbb = torch.bmm(torch.ones(2, 2, 3), torch.ones(2, 3, 4))\n"
     "v = torch.mv(a, torch.tensor([1., 0., -1.]))\nd = torch.dot(torch.tensor([1., 2.]), torch.tensor([3., 4.]))\n"
     "ad = torch.addmm(torch.tensor([1., 2., 3., 4.]), a, b, beta=2, alpha=3)\n"
     "ai = torch.arange(6).view(2, 3) @ torch.arange(6).view(3, 2)\n"
     "ah = torch.ones(2, 3, dtype=torch.float16) @ torch.ones(3, 2, dtype=torch.float16)\n", False),
    ("op_mm_errors",
     "for f in [lambda: torch.mm(torch.ones(3), torch.ones(3, 4)), lambda: torch.bmm(torch.ones(2, 3, 4), torch.ones(3, 4, 5)),\n"
     "          lambda: torch.bmm(torch.ones(2, 3, 4), torch.ones(2, 4)), lambda: torch.addmm(torch.ones(4), torch.ones(2, 3), torch.ones(3, 3))]:\n"
     "    try:\n        f()\n    except RuntimeError as e:\n        print(str(e))\n"
     "z = torch.ones(2, 3, dtype=torch.bool) @ torch.ones(3, 4, dtype=torch.bool)\n", False),
    ("op_activations_values",
     "x = torch.tensor([[-2., -0.5, 0.], [0.5, 1., 3.]], requires_grad=True)\n"
     "r = torch.relu(x)\nr2 = F.relu(x)\nr3 = x.relu()\ng = F.gelu(x)\ngt = F.gelu(x, approximate='tanh')\n"
     "s = F.silu(x)\nsm = torch.softmax(x, dim=1)\nlsm = F.log_softmax(x, dim=0)\nsm64 = F.softmax(x, dim=-1, dtype=torch.float64)\n"
     "print([type(t.grad_fn).__name__ for t in (r, g, gt, s, sm, lsm, sm64)])\n"
     "(r.sum() + g.sum() + gt.sum() + s.sum() + (sm * torch.arange(3.)).sum() + (lsm * x.detach()).sum()).backward()\n"
     "gx = x.grad.clone()\n", True),
    ("op_activations_layouts",
     "x = torch.arange(24.).view(2, 3, 4).transpose(0, 2) - 10\n"
     "r = torch.relu(x)\ng = F.gelu(x)\ns = F.silu(x)\nsm = torch.softmax(x, dim=0)\n"
     "print(r.stride(), g.stride(), s.stride(), sm.stride())\n"
     "i = torch.relu(torch.tensor([-1, 2, -3]))\n", True),
    ("op_activation_errors",
     "for f in [lambda: torch.relu(torch.tensor([True])), lambda: F.gelu(torch.tensor([1, 2])), lambda: torch.softmax(torch.tensor([1, 2]), dim=0),\n"
     "          lambda: F.gelu(torch.ones(2), approximate='fast'), lambda: F.dropout(torch.ones(2), p=1.5)]:\n"
     "    try:\n        f()\n    except (RuntimeError, ValueError) as e:\n        print(type(e).__name__, str(e))\n", False),
    ("op_dropout_eval_is_identity",
     "import torch.nn as nn\nx = torch.ones(2, 3)\ny = F.dropout(x, p=0.3, training=False)\n"
     "d = nn.Dropout(0.25)\nd.eval()\nz = d(x)\nprint(y is x, z is x, d.training, d)\n", False),
    ("op_pad_constant",
     "x = torch.arange(6.).view(2, 3)\np1 = F.pad(x, (1, 2))\np2 = F.pad(x, (0, 1, 2, 0), value=-1.)\n"
     "p3 = F.pad(x, (-1, 1))\npi = F.pad(torch.arange(4).view(2, 2), (1, 1, 1, 1), 'constant', 7)\n"
     "w = torch.ones(2, 2, requires_grad=True)\nq = F.pad(w, (1, 1)) * torch.arange(4.)\nq.sum().backward()\n"
     "gw = w.grad.clone()\nprint(p1.stride(), type(q.grad_fn).__name__)\n", False),
    ("op_tile_and_linear_chain",
     "w = torch.tensor([[1., -1.], [2., 0.]], requires_grad=True)\nx = torch.tensor([[1., 2.]]).tile(3, 1)\n"
     "h = torch.relu(x @ w.t() - 2)\nh.sum().backward()\ngw = w.grad.clone()\n", False),
    ("op_save_load_bytesio",
     "import io\nbase = torch.arange(100, dtype=torch.float32)\nhead = base[:10]\nbuf = io.BytesIO()\n"
     "torch.save(head, buf)\nbuf.seek(0)\nloaded = torch.load(buf)\n"
     "print(loaded.shape, loaded.untyped_storage().nbytes(), loaded.tolist()[:3])\n"
     "buf2 = io.BytesIO()\ntorch.save([base[:5], base[5:10]], buf2)\nbuf2.seek(0)\npair = torch.load(buf2)\n"
     "a, b = pair\nprint(a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr(), b.storage_offset())\n", False),
    ("op_matmul_grad_layouts",
     "a = torch.arange(6.).view(3, 2).t().requires_grad_()\nb = torch.arange(12.).view(3, 4).requires_grad_()\n"
     "c = a @ b\nc.sum().backward()\nga = a.grad.clone() if a.grad is not None else None\ngb = b.grad.clone() if b.grad is not None else None\nprint(ga.stride(), gb.stride())\n", False),
]

# issue 21 item 4: float16/bfloat16/float32 arange and 16-bit arithmetic at large magnitudes
# (PyTorch's vectorised arange rounds each vector's first value), and output strides of size-1
# dims as TensorIterator computes them
ITEM4: list[tuple[str, str, bool]] = [
    ("i4_arange_bf16_large",
     "a = torch.arange(0, 70000, 999, dtype=torch.bfloat16)\nb = torch.arange(0, 3000, 7.7, dtype=torch.bfloat16)\n"
     "c = torch.arange(3, 20000, 17.3, dtype=torch.bfloat16)\nd = torch.arange(250, 270, dtype=torch.bfloat16)\n", False),
    ("i4_arange_f16_large",
     "a = torch.arange(0, 70000, 999, dtype=torch.float16)\nb = torch.arange(0.1, 100, 0.37, dtype=torch.float16)\n"
     "c = torch.arange(1, 1e6, 1234.5, dtype=torch.float16)\n", False),
    ("i4_arange_f32_fractional_step",
     "a = torch.arange(0, 3000, 7.7)\nb = torch.arange(-5000, 5000, 333.3)\nc = torch.arange(3, 20000, 17.3)\n", False),
    ("i4_bf16_arithmetic_large",
     "a = torch.arange(250, 300, dtype=torch.bfloat16)\nb = a + 1\nc = a * 3\nd = a / 3\ne = a + 0.5\nf = a * a\n"
     "g = torch.tensor([300., 301., 1000., 65504.], dtype=torch.float16)\nh = g + 1\nk = g * 2\n", False),
    ("i4_size1_output_strides",
     "x = torch.ones(3, 1, 4)[:, :, ::2]\ny = x + 1\nz = x * torch.ones(1, 1, 2)\n"
     "p = torch.ones(1, 3).t()\nq = p + 1\nw = torch.ones(2, 1, 3).transpose(0, 1) * 2\n"
     "u = torch.ones(4, 1, 1, 3).permute(2, 0, 3, 1)\nv = u + torch.ones(3, 1)\n"
     "r = torch.arange(6.).view(2, 1, 3).transpose(0, 2)\ns = r + r\n", False),
]

# issue 21 item 2: layer_norm (F.layer_norm, torch.layer_norm), values, layouts, errors and the
# NativeLayerNormBackward0 node (saves input, weight, bias, mean as result1, rstd as result2)
LAYER_NORM: list[tuple[str, str, bool]] = [
    ("ln_values_affine",
     "x = torch.tensor([[1., 2., 4.], [-3., 0., 3.]], requires_grad=True)\n"
     "w = torch.tensor([1., 2., -1.], requires_grad=True)\nb = torch.tensor([0.5, 0., 1.], requires_grad=True)\n"
     "y = F.layer_norm(x, (3,), w, b)\nprint(type(y.grad_fn).__name__, y.stride())\n"
     "(y * torch.tensor([1., -2., 3.])).sum().backward()\ngx = x.grad.clone()\ngw = w.grad.clone()\ngb = b.grad.clone()\n", True),
    ("ln_layouts_and_stats",
     "x = torch.arange(24.).view(2, 3, 4).transpose(0, 2).requires_grad_()\n"
     "y = F.layer_norm(x, (3, 2), eps=1e-3)\nz = torch.layer_norm(x, [2])\n"
     "print(y.stride(), z.stride())\n"
     "y.sum().backward()\ngx = x.grad.clone()\nprint(gx.stride())\n", True),
    ("ln_weight_only_f64",
     "x = torch.tensor([[0.5, 1.5], [2., -2.], [3., 3.]], dtype=torch.float64, requires_grad=True)\n"
     "w = torch.tensor([2., 0.5], dtype=torch.float64, requires_grad=True)\n"
     "y = F.layer_norm(x, [2], weight=w, eps=1e-6)\n(y * y).sum().backward()\ngx = x.grad.clone()\ngw = w.grad.clone()\n", True),
    ("ln_no_grad",
     "x = torch.arange(12.).view(3, 4) * 0.5\ny = F.layer_norm(x, (4,))\nz = F.layer_norm(x, (3, 4), torch.ones(3, 4), torch.zeros(3, 4))\n", True),
    ("ln_module",
     "import torch.nn as nn\nln = nn.LayerNorm(4)\nln2 = nn.LayerNorm((2, 3), eps=1e-3, elementwise_affine=False)\n"
     "ln3 = nn.LayerNorm([3], bias=False, dtype=torch.float64)\n"
     "print(ln, ln2, ln3, ln.weight.shape, ln.bias.requires_grad, ln2.weight, ln3.bias, len(list(ln.parameters())))\n"
     "x = torch.arange(8.).view(2, 4).t().contiguous().view(2, 4).requires_grad_()\ny = ln(x)\nz = ln2(torch.arange(24.).view(4, 2, 3))\n"
     "v = ln3(torch.tensor([[1., 5., 2.]], dtype=torch.float64))\n"
     "(y * y).sum().backward()\ngw = ln.weight.grad.clone()\ngb = ln.bias.grad.clone()\ngx = x.grad.clone()\n", True),
    ("ln_errors",
     "x = torch.ones(4, 3, 2)\n"
     "for f in [lambda: F.layer_norm(x, (5,)), lambda: F.layer_norm(x, (2,), torch.ones(3)), lambda: F.layer_norm(x, (2,), None, torch.ones(3)),\n"
     "          lambda: F.layer_norm(x, (3, 3)), lambda: F.layer_norm(torch.arange(6).view(2, 3), (3,))]:\n"
     "    try:\n        f()\n    except (RuntimeError, NotImplementedError) as e:\n        print(type(e).__name__, str(e))\n", False),
]

# every matmul case of torch.matmul, with each operand requiring grad or not
MATMUL_SHAPES = [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)), ((5, 2, 3), (3,)),
                 ((5, 2, 3), (3, 4)), ((3,), (5, 3, 4)), ((2, 3), (5, 3, 4)), ((5, 2, 3), (5, 3, 4)),
                 ((1, 2, 3), (5, 3, 4)), ((5, 2, 3), (1, 3, 4)), ((6, 1, 2, 3), (5, 3, 4)), ((2, 1, 2, 3), (3, 1)),
                 ((4, 3), (2, 3, 2)), ((2, 3, 0), (0, 2)), ((2, 0, 3), (3, 2))]


def matmul_seeds() -> list[tuple[str, str, bool]]:
    out = []
    for i, (sa, sb) in enumerate(MATMUL_SHAPES):
        for rg in ((True, False), (False, True), (True, True), (False, False)):
            na, nb = 1, 1
            for d in sa:
                na *= d
            for d in sb:
                nb *= d
            prog = (f"a = (torch.arange({na}.) % 5 - 2).reshape({sa}).requires_grad_({rg[0]})\n"
                    f"b = (torch.arange({nb}.) % 3 - 1).reshape({sb}).requires_grad_({rg[1]})\n"
                    "c = a @ b\nprint(c.shape, c.stride(), type(c.grad_fn).__name__)\n")
            if rg[0] or rg[1]:
                prog += "c.sum().backward()\nga = a.grad.clone() if a.grad is not None else None\ngb = b.grad.clone() if b.grad is not None else None\n"
            out.append((f"op_matmul_case_{i}_{int(rg[0])}{int(rg[1])}", prog, False))
    # non-contiguous operands
    out.append(("op_matmul_noncontiguous_fold",
                "a = torch.arange(24.).view(4, 3, 2).transpose(0, 1)\nb = torch.arange(6.).view(2, 3)\n"
                "c = a @ b\nd = a.transpose(1, 2) @ torch.ones(3)\nprint(c.stride(), d.stride())\n", False))
    return out


def rand_values(rng: random.Random, n: int) -> str:
    return "[" + ", ".join(f"{rng.randint(-3, 3)}." for _ in range(n)) + "]"


def random_program(rng: random.Random) -> tuple[str, bool]:
    """One random chain: leaves with small integer values, matrix ops and layers, backward."""
    lines = []
    inexact = False
    b_ = rng.randint(1, 3)
    n, k, m = rng.randint(1, 4), rng.randint(1, 4), rng.randint(1, 4)
    rg_x, rg_w = rng.random() < 0.6, rng.random() < 0.7
    lead = [b_] if rng.random() < 0.5 else []
    xs = lead + [n, k]
    numel = 1
    for d in xs:
        numel *= d
    lines.append(f"x = torch.tensor({rand_values(rng, numel)}).view({tuple(xs)}).requires_grad_({rg_x})")
    lines.append(f"w = torch.tensor({rand_values(rng, m * k)}).view({m}, {k}).requires_grad_({rg_w})")
    lines.append(f"bias = torch.tensor({rand_values(rng, m)}, requires_grad={rng.random() < 0.5})")
    first = rng.choice(["linear", "linear_nobias", "matmul_t", "module", "addmm"] if not lead else
                       ["linear", "linear_nobias", "matmul_t", "module", "bmm"])
    if first == "linear":
        lines.append("h = F.linear(x, w, bias)")
    elif first == "linear_nobias":
        lines.append("h = F.linear(x, w)")
    elif first == "matmul_t":
        lines.append("h = x @ w.t() + bias" if rng.random() < 0.5 else "h = torch.matmul(x, w.transpose(0, 1))")
    elif first == "addmm":
        lines.append(f"h = torch.addmm(bias, x, w.t(), beta={rng.choice([1, 2, 0])}, alpha={rng.choice([1, -1, 2])})")
    elif first == "bmm":
        lines.append(f"h = torch.bmm(x, w.t().expand({b_}, {k}, {m}))")
    else:
        lines.append(f"lin = torch.nn.Linear({k}, {m}, bias={rng.random() < 0.7})")
        lines.append("with torch.no_grad():\n    lin.weight.copy_(w)\n    if lin.bias is not None:\n        lin.bias.copy_(bias)")
        lines.append("h = lin(x)")
    steps = rng.randint(1, 3)
    for i in range(steps):
        op = rng.choice(["relu", "pad", "tile", "dropout", "matmul", "scale", "softmax", "gelu", "silu",
                         "log_softmax", "transpose_matmul"])
        if op == "relu":
            lines.append(rng.choice(["h = torch.relu(h)", "h = F.relu(h)", "h = h.relu()"]))
        elif op == "pad":
            lines.append(f"h = F.pad(h, ({rng.randint(0, 2)}, {rng.randint(-1, 2)}), value={rng.randint(-2, 2)}.)")
        elif op == "tile":
            lines.append(f"h = h.tile({rng.randint(1, 2)}, 1)")
        elif op == "dropout":
            lines.append("h = F.dropout(h, p=0.5, training=False)")
        elif op == "matmul":
            inexact = True  # products of products pass 2**24: float32 sums depend on order
            lines.append("h = h @ h.transpose(-1, -2)")
        elif op == "transpose_matmul":
            inexact = True
            lines.append("h = h.transpose(-1, -2) @ h")
        elif op == "scale":
            lines.append(f"h = h * {rng.randint(-2, 2)} + 1")
        elif op in ("softmax", "log_softmax"):
            inexact = True
            fn = rng.choice(["torch", "F"])
            lines.append(f"h = {fn}.{op}(h, dim={rng.choice([-1, 0])})")
        else:
            inexact = True
            if op == "gelu" and rng.random() < 0.5:
                lines.append("h = F.gelu(h, approximate='tanh')")
            else:
                lines.append(f"h = F.{op}(h)")
        if rng.random() < 0.3:
            lines.append(f"keep{i} = h")
    lines.append("print(h.shape, h.stride(), h.requires_grad, type(h.grad_fn).__name__)")
    if rg_x or rg_w or "requires_grad=True" in lines[2]:
        if rng.random() < 0.5:
            lines.append("h.sum().backward()")
        else:
            lines.append("(h * (torch.arange(h.numel(), dtype=h.dtype).view(h.shape) % 3)).sum().backward()")
        for v in ("x", "w", "bias"):
            lines.append(f"g{v} = {v}.grad.clone() if {v}.grad is not None else None")
    if rng.random() < 0.2:
        lines.append("w2 = w.detach()\nw2.add_(1)" if rg_w else "pass")
    return "\n".join(lines) + "\n", inexact


def ops_cases(count: int) -> list[tuple[str, str, bool]]:
    cases = [(n, HEAD + p, t) for n, p, t in SEEDS + ITEM4 + LAYER_NORM + matmul_seeds()]
    for seed in range(1, count + 1):
        prog, inexact = random_program(random.Random(seed))
        cases.append((f"random_ops_{seed}", HEAD + prog, inexact))
    return cases


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="tests/golden")
    ap.add_argument("--count", type=int, default=2000)
    args = ap.parse_args()
    import torch
    torch.manual_seed(0)
    lines = []
    for name, program, inexact in ops_cases(args.count):
        record = {"name": name, "program": program, "expected": explain(program)}
        if inexact:
            record["tolerance"] = TOL
        lines.append(json.dumps(record, separators=(",", ":")) + "\n")
    # gzip with mtime=0: about 11 MB of text, byte-for-byte reproducible
    with open(os.path.join(args.out, "ops.jsonl.gz"), "wb") as raw:
        with gzip.GzipFile(filename="ops.jsonl", mode="wb", fileobj=raw, mtime=0) as gz:
            gz.write("".join(lines).encode())
    return 0


if __name__ == "__main__":
    sys.exit(main())
