"""Hand-written golden programs: every worked example of ../shared/seeds plus edge cases.

Each entry is (name, program).  scripts/gen_programs.py runs them under PyTorch and writes
tests/golden/seeds.jsonl (and large.jsonl.gz for reports too big for plain text).
"""

import os as _os

_FENCES = _os.path.join(_os.path.dirname(_os.path.abspath(__file__)), "..", "tests", "data", "explain_fences")


def _fence(name: str) -> str:
    """A fence of seed document 003, copied into tests/data/explain_fences/ (unchanged)."""
    with open(_os.path.join(_FENCES, name), encoding="utf-8") as f:
        return f.read()


SEEDS: list[tuple[str, str]] = [
    # ---- TV-209 (seed 000) ----------------------------------------------------------------
    # Base 4x3 FP32 strides (3, 1); transpose (1, 3); view index (2, 1) is element 5 / byte 20;
    # contiguous copy (4, 1): 48 + 48 = 96 unique bytes, 3 x 48 = 144 logical bytes.
    ("tv209_base_transpose_copy",
     "base = torch.arange(12, dtype=torch.float32).view(4, 3)\n"
     "t = base.t()\n"
     "c = t.contiguous()\n"),
    # All-view case: 48 raw bytes for three 12-element tensors.
    ("tv209_all_views",
     "base = torch.arange(12, dtype=torch.float32).view(4, 3)\n"
     "t = base.t()\n"
     "f = base.view(12)\n"),
    # The row view (3,), stride (1,), offset 3 keeps the whole 48-byte storage after `del`.
    ("tv209_row_view_retains_storage",
     "base = torch.arange(12, dtype=torch.float32).view(4, 3)\n"
     "row = base[1]\n"
     "del base\n"),
    ("tv209_row_view_contiguous_is_self",
     "base = torch.arange(12, dtype=torch.float32).view(4, 3)\n"
     "row = base[1]\n"
     "same = row.contiguous()\n"
     "del base\n"),
    # Collapsing the transpose's dims with view fails (1 != 3 * 4); the report is the state
    # before the failing statement.
    ("tv209_view_error_after_transpose",
     "base = torch.arange(12, dtype=torch.float32).view(4, 3)\n"
     "t = base.t()\n"
     "flat = t.view(-1)\n"
     "never = torch.zeros(3)\n"),
    ("tv209_reshape_copies_after_transpose",
     "base = torch.arange(12, dtype=torch.float32).view(4, 3)\n"
     "t = base.t()\n"
     "flat = t.reshape(-1)\n"
     "flat2 = base.reshape(-1)\n"),
    # ---- seed 001 -------------------------------------------------------------------------
    ("s001_independent_2x3x4", "x = torch.zeros(2, 3, 4, dtype=torch.float32)\n"),
    ("s001_expand_row_1x3_to_2x3",
     "row = torch.tensor([[1.0, 2.0, 3.0]])\n"
     "e = row.expand(2, 3)\n"),
    # base[1:3] of a 4x3: shape (2, 3), strides (3, 1), offset 3; (1, 2) -> element 8.
    ("s001_slice_offset_3",
     "base = torch.arange(12.).view(4, 3)\n"
     "s = base[1:3]\n"),
    # x.T[0, 1] = 30 changes x[1, 0].
    ("s001_T_write_through",
     "x = torch.tensor([[0., 1., 2.], [3., 4., 5.]])\n"
     "t = x.T\n"
     "x.T[0, 1] = 30\n"),
    ("s001_detach_shares",
     "x = torch.tensor([[0., 1., 2.], [3., 4., 5.]])\n"
     "t = x.T\n"
     "c = t.contiguous()\n"
     "alias = c.detach()\n"
     "alias.add_(1)\n"),
    ("s001_detach_clone_independent",
     "x = torch.arange(6.).view(2, 3)\n"
     "d = x.detach().clone()\n"
     "d.zero_()\n"),
    # ---- seed 002 -------------------------------------------------------------------------
    ("s002_view_write_through",
     "x = torch.arange(6)\n"
     "v = x.view(2, 3)\n"
     "v[0, 0] = 99\n"
     "t = v.t()\n"
     "r = t.reshape(6)\n"
     "c = t.contiguous().view(6)\n"),
    ("s002_view_error_chain", "y = torch.arange(6).view(2, 3).t().view(6)\n"),
    ("s002_permute_hwc",
     "img = torch.zeros(3, 4, 5)\n"
     "hwc = img.permute(1, 2, 0)\n"),
    ("s002_try_it_yourself",
     "x = torch.arange(24).view(2, 3, 4)\n"
     "p = x.permute(2, 0, 1)\n"
     "r = p.reshape(24)\n"
     "v = p.view(24)\n"),
    # ---- seed 003 -------------------------------------------------------------------------
    ("s003_row_offset_4",
     "x = torch.arange(12, dtype=torch.float32).reshape(3, 4)\n"
     "r = x[1]\n"),
    ("s003_strides_2x3x4",
     "flat = torch.arange(24)\n"
     "x = flat.view(2, 3, 4)\n"
     "xt = x.transpose(0, 2)\n"
     "xs = x[1:, 1:, ::2]\n"),
    # Size-1 relaxation: (2, 1, 3) transposed to (1, 2, 3) has strides (3, 3, 1), contiguous.
    ("s003_size1_relaxation",
     "x = torch.zeros(2, 1, 3)\n"
     "y = x.transpose(0, 1)\n"),
    ("s003_diagonal_stride_5",
     "x = torch.arange(12.).view(3, 4)\n"
     "d = x.diagonal()\n"),
    ("s003_T_and_mT_3d",
     "x = torch.arange(24.).view(2, 3, 4)\n"
     "m = x.mT\n"
     "t = x.T\n"),
    ("s003_expand_stride0_add_error",
     "e = torch.zeros(1, 10).expand(1000, 10)\n"
     "e.add_(1)\n"),
    ("s003_view_error_transpose_3x4",
     "x = torch.arange(12.).reshape(3, 4)\n"
     "y = x.t()\n"
     "z = y.view(-1)\n"),
    ("s003_reshape_view_vs_copy",
     "x = torch.arange(6.).reshape(2, 3)\n"
     "r = x.reshape(-1)\n"
     "r[0] = 100\n"
     "x2 = torch.arange(6.).reshape(2, 3).t()\n"
     "r2 = x2.reshape(-1)\n"
     "r2[0] = 100\n"),
    ("s003_flatten_copy_after_t",
     "x = torch.arange(6.).reshape(2, 3)\n"
     "f = x.t().flatten()\n"
     "g = x.flatten()\n"),
    # unfold over 10 elements: (4, 4), strides (2, 1): 16 logical, 10 stored.
    ("s003_unfold_10_elements",
     "a = torch.arange(10.)\n"
     "u = a.unfold(0, 4, 2)\n"),
    ("s003_unfold_int",
     "a = torch.arange(10)\n"
     "u = a.unfold(0, 4, 2)\n"
     "w = a.as_strided((4, 4), (2, 1))\n"),
    ("s003_unfold_twice_patches",
     "img = torch.arange(16.).view(1, 1, 4, 4)\n"
     "p = img.unfold(2, 2, 2).unfold(3, 2, 2)\n"),
    # as_strided beyond the storage: "... requiring a storage size of 52 are out of bounds for
    # storage of size 40".
    ("s003_as_strided_out_of_bounds",
     "a = torch.arange(10.)\n"
     "w = a.as_strided((4, 4), (3, 1))\n"),
    # Overlapping as_strided + mul_: PyTorch does not refuse (stridekit does: accepted).
    ("s003_as_strided_overlap_mul",
     "a = torch.arange(10.)\n"
     "w = a.as_strided((4, 4), (2, 1))\n"
     "w.mul_(2)\n"),
    # copy_ broadcasts and converts: zeros(2, 3, float64).copy_(int32 [1, 2, 3]).
    ("s003_copy_broadcast_dtype",
     "z = torch.zeros(2, 3, dtype=torch.float64)\n"
     "src = torch.tensor([1, 2, 3], dtype=torch.int32)\n"
     "z.copy_(src)\n"),
    ("s003_detach_zero_zeroes_base",
     "x = torch.arange(4.)\n"
     "d = x.detach()\n"
     "d.zero_()\n"),
    ("s003_inplace_on_view_writes_base",
     "x = torch.zeros(2, 3)\n"
     "x[0].add_(1)\n"),
    # Version counter: 0, then 1 for both after x[0].add_(1), then 2 after x.mul_(2).
    ("s003_version_0",
     "x = torch.zeros(2, 3)\n"
     "v = x[0]\n"),
    ("s003_version_1",
     "x = torch.zeros(2, 3)\n"
     "v = x[0]\n"
     "v.add_(1)\n"),
    ("s003_version_2",
     "x = torch.zeros(2, 3)\n"
     "v = x[0]\n"
     "v.add_(1)\n"
     "x.mul_(2)\n"),
    ("s003_clone_and_detach",
     "w = torch.ones(3)\n"
     "c = w.clone()\n"
     "d = w.detach()\n"),
    # channels_last (2, 3, 4, 5): strides (60, 1, 15, 3) against (60, 20, 5, 1).
    ("s003_channels_last_60_1_15_3",
     "x = torch.arange(120, dtype=torch.float32).reshape(2, 3, 4, 5)\n"
     "cl = x.to(memory_format=torch.channels_last)\n"
     "c2 = cl.clone()\n"
     "back = cl.contiguous()\n"),
    ("s003_address_formula_fence",
     "flat = torch.arange(24)\n"
     "x = flat.view(2, 3, 4)\n"
     "xt = x.transpose(0, 2)\n"
     "xs = x[1:, 1:, ::2]\n"),
    ("s003_views_share_storage_fence",
     "x = torch.arange(12.).reshape(3, 4)\n"
     "s = x[1:, ::2]\n"
     "tr = x.transpose(0, 1)\n"
     "ex = x[:1].expand(5, 4)\n"
     "un = x.reshape(-1).unfold(0, 4, 2)\n"
     "dg = x.diagonal()\n"
     "nw = x.narrow(1, 1, 2)\n"
     "same = x.contiguous()\n"),
    # ---- seed 004 -------------------------------------------------------------------------
    ("s004_points",
     "points = torch.tensor([[4.0, 1.0], [5.0, 3.0], [2.0, 1.0]])\n"
     "second_point = points[1]\n"
     "second_point[0] = 10.0\n"
     "pt = points.t()\n"
     "pc = pt.contiguous()\n"),
    ("s004_points_clone",
     "points = torch.tensor([[4.0, 1.0], [5.0, 3.0], [2.0, 1.0]])\n"
     "p1 = points[1].clone()\n"
     "p1[0] = 10.0\n"),
    ("s004_bikes_view",
     "bikes = torch.zeros(48, 17)\n"
     "daily = bikes.view(-1, 24, 17)\n"
     "del bikes\n"),
    # ---- edge cases -----------------------------------------------------------------------
    ("edge_rank0",
     "s = torch.arange(1.).view(())\n"
     "u = s.unsqueeze(0)\n"
     "e = s.expand(2, 3)\n"
     "f = s.flatten()\n"
     "s.add_(1)\n"),
    ("edge_rank0_index_error",
     "s = torch.ones(1).view(())\n"
     "y = s[0]\n"),
    ("edge_rank0_select_error",
     "s = torch.ones(1).view(())\n"
     "y = s.select(0, 0)\n"),
    ("edge_rank0_slice_error",
     "s = torch.ones(1).view(())\n"
     "y = s[:]\n"),
    ("edge_size0_dims",
     "x = torch.zeros(0, 3)\n"
     "y = torch.zeros(3, 0)\n"
     "t = y.t()\n"
     "z = torch.zeros(2, 0, 3, 4)\n"
     "zc = z.contiguous(memory_format=torch.channels_last)\n"
     "e = torch.tensor([])\n"
     "e2 = torch.tensor([[], []])\n"),
    ("edge_size0_slices",
     "x = torch.arange(6.).view(2, 3)\n"
     "a = x[5:]\n"
     "b = x[:, 5:]\n"
     "c = x[:, 2:1]\n"
     "d = x[0:0, 1:]\n"
     "e = x.narrow(0, 2, 0)\n"
     "f = x.diagonal(5)\n"),
    ("edge_size0_view_ambiguous",
     "x = torch.zeros(0, 3)\n"
     "y = x.view(-1, 0)\n"),
    ("edge_size0_as_strided_offset_beyond",
     "x = torch.arange(10.)\n"
     "y = x.as_strided((0,), (1,), 50)\n"),
    ("edge_channels_last_c1",
     "x = torch.arange(6.).view(2, 1, 3, 1)\n"
     "cl = x.contiguous(memory_format=torch.channels_last)\n"
     "cc = x.clone(memory_format=torch.channels_last)\n"),
    ("edge_channels_last_n111",
     "x = torch.arange(6.).view(6, 1, 1, 1)\n"
     "cl = x.contiguous(memory_format=torch.channels_last)\n"
     "y = torch.arange(6.).view(1, 6, 1, 1)\n"
     "yl = y.contiguous(memory_format=torch.channels_last)\n"
     "yc = yl.clone()\n"),
    ("edge_channels_last_hw1",
     "x = torch.arange(6.).view(2, 3, 1, 1).contiguous(memory_format=torch.channels_last)\n"
     "c = x.clone()\n"
     "d = x.contiguous()\n"),
    ("edge_channels_last_3d",
     "x = torch.arange(48.).view(2, 3, 2, 2, 2)\n"
     "cl = x.contiguous(memory_format=torch.channels_last_3d)\n"
     "y = torch.zeros(2, 1, 3, 1, 1)\n"
     "yc = y.contiguous(memory_format=torch.channels_last_3d)\n"
     "yk = y.clone(memory_format=torch.channels_last_3d)\n"),
    ("edge_channels_last_wrong_rank",
     "x = torch.zeros(2, 3)\n"
     "y = x.contiguous(memory_format=torch.channels_last)\n"),
    ("edge_channels_last_slice_clone",
     "x = torch.arange(120.).view(2, 3, 4, 5).to(memory_format=torch.channels_last)\n"
     "s = x[:, :2]\n"
     "c = s.clone()\n"
     "h = x.to(torch.float16)\n"),
    ("edge_to_memory_format_alias_rules",
     "x = torch.arange(24.).view(2, 3, 2, 2)\n"
     "same = x.to(memory_format=torch.contiguous_format)\n"
     "keep = x.to(memory_format=torch.preserve_format)\n"
     "cl = x.to(memory_format=torch.channels_last)\n"
     "cl2 = cl.to(memory_format=torch.channels_last)\n"
     "back = cl.to(memory_format=torch.contiguous_format)\n"
     "d = cl.to(torch.float64)\n"
     "same_dt = x.to(torch.float32)\n"
     "same_kw = x.to(dtype=torch.float)\n"),
    ("edge_to_dtype_and_memory_format",
     "x = torch.zeros(2, 3, 2, 2)\n"
     "y = x.to(torch.float64, memory_format=torch.channels_last)\n"
     "z = x.to(dtype=torch.float16, memory_format=torch.channels_last)\n"),
    ("edge_permuted_copies",
     "x = torch.arange(24.).view(2, 3, 2, 2).permute(0, 2, 3, 1)\n"
     "a = x.to(torch.float64)\n"
     "b = x.contiguous()\n"
     "c = x.to(memory_format=torch.channels_last)\n"
     "d = x.clone()\n"),
    ("edge_clone_preserve_nondense",
     "x = torch.arange(12.).view(3, 4)[:, 1:3].t()\n"
     "c = x.clone()\n"
     "y = torch.arange(12.).view(3, 4).t()[:, 1:3]\n"
     "d = y.clone()\n"
     "z = torch.arange(6.).view(2, 3)[:, ::2]\n"
     "e = z.clone()\n"),
    ("edge_stride0_write_refusals",
     "x = torch.zeros(1, 3).expand(2, 3)\n"
     "x[0] = 1\n"
     "x.fill_(2)\n"
     "x.zero_()\n"
     "x[...] = 1\n"),
    ("edge_stride0_setitem_column",
     "x = torch.zeros(1, 3).expand(2, 3)\n"
     "x[:, 0] = 1\n"),
    ("edge_stride0_copy_into",
     "x = torch.zeros(1, 3).expand(2, 3)\n"
     "x.copy_(torch.ones(3))\n"),
    ("edge_stride0_size1_ok",
     "x = torch.zeros(1, 3).expand(1, 3)\n"
     "x.add_(1)\n"),
    ("edge_stride0_source_ok",
     "x = torch.arange(6.)\n"
     "x[1:].copy_(x[0:1])\n"),
    ("edge_overlap_partial_setitem",
     "x = torch.arange(6.)\n"
     "x[1:4] = x[0:3]\n"),
    ("edge_overlap_disjoint_ok",
     "x = torch.arange(6.)\n"
     "x[0:3] = x[3:6]\n"),
    ("edge_overlap_full_same_ok",
     "x = torch.arange(6.)\n"
     "x.copy_(x.view(2, 3).view(6))\n"
     "x[2:4] = x[2:4]\n"
     "x.copy_(x)\n"),
    ("edge_overlap_transpose_self_copy",
     "x = torch.arange(9.).view(3, 3)\n"
     "x.copy_(x.t())\n"),
    ("edge_overlap_same_range_other_strides",
     "a = torch.arange(6.)\n"
     "b = a.view(1, 6)\n"
     "c = a.view(6, 1).t()\n"
     "b.copy_(c)\n"),
    ("edge_overlap_strided_not_caught",
     "a = torch.arange(10.)\n"
     "a[0:4].copy_(a[0:8:2])\n"),
    ("edge_overlap_unfold_inplace",
     "a = torch.arange(10.)\n"
     "u = a.unfold(0, 4, 2)\n"
     "u.add_(1)\n"),
    ("edge_copy_broadcast_errors",
     "a = torch.arange(6.)\n"
     "a.copy_(torch.zeros(1, 6))\n"),
    ("edge_copy_shape_error",
     "z = torch.zeros(2, 3)\n"
     "z.copy_(torch.zeros(3, 3))\n"),
    ("edge_setitem_leading_ones",
     "t = torch.arange(6.)\n"
     "t[0:2] = torch.zeros(1, 2)\n"
     "t[2:4] = torch.ones(1, 1, 2)\n"),
    ("edge_setitem_bad_shape",
     "t = torch.arange(6.)\n"
     "t[0:2] = torch.zeros(2, 2)\n"),
    ("edge_setitem_conversions",
     "x = torch.arange(6)\n"
     "x[2:4] = torch.tensor([7.5, 8.5])\n"
     "y = torch.arange(6.)\n"
     "y[2:4] = True\n"
     "b = torch.ones(6, dtype=torch.bool)\n"
     "b[2:4] = 0.5\n"
     "b[0] = 0\n"
     "i = torch.zeros(2, 6, dtype=torch.int32)\n"
     "i[1] = y\n"),
    ("edge_int_wrapping",
     "a = torch.arange(3, dtype=torch.int8)\n"
     "a.add_(126)\n"
     "u = torch.arange(3, dtype=torch.uint8)\n"
     "u.add_(-1)\n"
     "v = torch.ones(4, dtype=torch.uint8)\n"
     "v.mul_(-1)\n"
     "w = torch.ones(2, dtype=torch.int8)\n"
     "w.mul_(300)\n"
     "f = torch.ones(3, dtype=torch.uint8)\n"
     "f.fill_(-1)\n"
     "g = torch.full((2,), -1, dtype=torch.uint8)\n"
     "h = torch.arange(250, 260, dtype=torch.uint8)\n"
     "k = torch.arange(-3, 3, 2, dtype=torch.uint8)\n"),
    ("edge_fill_overflow_error",
     "a = torch.zeros(3, dtype=torch.int8)\n"
     "a.fill_(300)\n"),
    ("edge_tensor_overflow_error", "a = torch.tensor([300, -1], dtype=torch.uint8)\n"),
    ("edge_float_to_int_conversions",
     "x = torch.tensor([1.5, -2.5, 100.7, 0.0])\n"
     "u = x.to(torch.uint8)\n"
     "i = x.to(torch.int8)\n"
     "b = x.to(torch.bool)\n"
     "t = torch.tensor([2.7, -1.5], dtype=torch.int32)\n"
     "f = torch.full((2,), 2.5, dtype=torch.int32)\n"),
    ("edge_half_rounding_and_inf",
     "h = torch.ones(3, dtype=torch.float16)\n"
     "h.add_(0.1)\n"
     "b = torch.ones(3, dtype=torch.bfloat16)\n"
     "b.add_(0.1)\n"
     "x = torch.tensor([1.5, -2.5, 300.7, 1e10])\n"
     "xh = x.to(torch.float16)\n"
     "xb = x.to(torch.bfloat16)\n"
     "q = torch.tensor([0.1, 0.2, 1e-8], dtype=torch.float16)\n"),
    ("edge_nonfinite_values",
     "h = torch.ones(3, dtype=torch.float16)\n"
     "h.mul_(100000)\n"
     "n = torch.ones(2, dtype=torch.float16)\n"
     "n.add_(100000, alpha=0)\n"
     "m = h.mul_(-1)\n"),
    ("edge_half_alpha_overflow_error",
     "h = torch.ones(3, dtype=torch.float16)\n"
     "h.add_(1, alpha=100000)\n"),
    ("edge_add_alpha",
     "x = torch.ones(3, dtype=torch.int32)\n"
     "x.add_(2, alpha=3)\n"
     "y = torch.ones(3)\n"
     "y.add_(2, alpha=1.5)\n"
     "b = torch.zeros(3, dtype=torch.bool)\n"
     "b.add_(True, alpha=2)\n"
     "c = torch.zeros(2, dtype=torch.int64)\n"
     "c.add_(True)\n"
     "c.mul_(True)\n"),
    ("edge_int_float_alpha_error",
     "x = torch.ones(3, dtype=torch.int32)\n"
     "x.add_(2, alpha=1.5)\n"),
    ("edge_bool_alpha_error",
     "x = torch.ones(3)\n"
     "x.add_(1, alpha=True)\n"),
    ("edge_dtype_errors_int_add_float",
     "x = torch.arange(3)\n"
     "x.add_(1.5)\n"),
    ("edge_dtype_errors_bool_add",
     "x = torch.tensor([True, False])\n"
     "x.add_(1)\n"),
    ("edge_dtype_errors_arange_bool", "x = torch.arange(5, dtype=torch.bool)\n"),
    ("edge_bool_ops",
     "b = torch.tensor([True, False, True])\n"
     "b.add_(True)\n"
     "c = torch.tensor([True, False])\n"
     "c.mul_(True)\n"
     "d = torch.tensor([True, False])\n"
     "d.fill_(2)\n"
     "e = torch.full((2, 2), True)\n"),
    ("edge_tensor_inference",
     "a = torch.tensor([1, 2.5, True])\n"
     "b = torch.tensor([1, True])\n"
     "c = torch.tensor([[1.5, 2], [True, 3]])\n"
     "d = torch.tensor([[1, 2], [3, 4]], dtype=torch.bool)\n"
     "e = torch.full((2, 3), 7)\n"
     "f = torch.full((2, 3), 7.)\n"),
    ("edge_ragged_tensor_error", "a = torch.tensor([[1, 2], [3]])\n"),
    ("edge_arange_forms",
     "a = torch.arange(5)\n"
     "b = torch.arange(5.)\n"
     "c = torch.arange(1, 10, 2)\n"
     "d = torch.arange(0, 1, 0.25)\n"
     "e = torch.arange(10, 0, -3)\n"
     "f = torch.arange(0.5, 3)\n"
     "g = torch.arange(1, 4, dtype=torch.float16)\n"
     "h = torch.arange(5, 5)\n"
     "i = torch.arange(6, dtype=torch.bfloat16)\n"),
    ("edge_arange_step_zero", "a = torch.arange(0, 5, 0)\n"),
    ("edge_arange_wrong_sign", "a = torch.arange(0, 5, -1)\n"),
    ("edge_negative_size_error", "a = torch.zeros(-1, 3)\n"),
    ("edge_negative_size_empty_error", "a = torch.empty(2, -1)\n"),
    ("edge_empty_filled",
     "a = torch.empty(2, 3)\n"
     "a.fill_(7)\n"
     "b = torch.empty(4, dtype=torch.int16)\n"
     "b.zero_()\n"
     "c = torch.empty((2, 2))\n"
     "c.copy_(torch.tensor([1.0, 2.0]))\n"),
    ("edge_view_errors_infer_twice",
     "x = torch.zeros(2, 3)\n"
     "y = x.view(-1, -1)\n"),
    ("edge_view_errors_bad_numel",
     "x = torch.zeros(2, 3)\n"
     "y = x.view(4, -1)\n"),
    ("edge_view_errors_negative",
     "x = torch.zeros(2, 3)\n"
     "y = x.view(-2, 3)\n"),
    ("edge_view_forms",
     "x = torch.arange(24.).view(2, 3, 4)\n"
     "a = x.view(-1, 4)\n"
     "b = x.view((4, -1))\n"
     "c = x.view([4, 6])\n"
     "d = x.reshape((6, 4))\n"
     "e = x.flatten(1)\n"
     "f = x.flatten(-2, -1)\n"
     "g = x[0, 0, 0].view(())\n"
     "h = x.view(2, 3, 4, 1)\n"
     "k = x.view(24, 1)\n"),
    ("edge_view_size1_strides",
     "x = torch.arange(6.).view(2, 3)\n"
     "a = x.view(2, 3, -1)\n"
     "b = x.view(6, -1)\n"
     "c = x.t().view(3, 1, 2)\n"
     "d = x[:, :1].view(2)\n"),
    ("edge_expand_forms",
     "x = torch.zeros(2, 3)\n"
     "a = x.expand(-1, 3)\n"
     "b = x.expand(2, -1, 3)\n"
     "c = x.expand_as(torch.zeros(4, 2, 3))\n"
     "d = x[:, :1].expand(2, 5)\n"),
    ("edge_expand_errors_size",
     "x = torch.zeros(2, 3)\n"
     "y = x.expand(3, 3)\n"),
    ("edge_expand_errors_rank",
     "x = torch.zeros(2, 3)\n"
     "y = x.expand(3)\n"),
    ("edge_expand_errors_negative",
     "x = torch.zeros(2, 3)\n"
     "y = x.expand(2, -2)\n"),
    ("edge_indexing",
     "x = torch.arange(6.).view(2, 3)\n"
     "a = x[:, -10:10:2]\n"
     "b = x[-1, -2:]\n"
     "c = x[None, ..., None, 1]\n"
     "d = x[..., None]\n"
     "e = x[...]\n"
     "f = x[:]\n"
     "g = x[1, 2]\n"),
    ("edge_index_errors_oob",
     "x = torch.zeros(2, 3)\n"
     "y = x[2]\n"),
    ("edge_index_errors_too_many",
     "x = torch.zeros(2, 3)\n"
     "y = x[0, 0, 0]\n"),
    ("edge_index_errors_neg_step",
     "x = torch.zeros(2, 3)\n"
     "y = x[:, ::-1]\n"),
    ("edge_index_errors_zero_step",
     "x = torch.zeros(2, 3)\n"
     "y = x[:, ::0]\n"),
    ("edge_select_narrow",
     "x = torch.arange(24.).view(2, 3, 4)\n"
     "a = x.narrow(2, -2, 2)\n"
     "b = x.select(-1, -1)\n"
     "c = x.narrow(0, 2, 0)\n"
     "d = x.narrow(-1, 0, 4)\n"),
    ("edge_select_error",
     "x = torch.zeros(2, 3)\n"
     "y = x.select(1, 3)\n"),
    ("edge_narrow_exceeds_error",
     "x = torch.zeros(2, 3)\n"
     "y = x.narrow(1, 2, 2)\n"),
    ("edge_narrow_start_error",
     "x = torch.zeros(2, 3)\n"
     "y = x.narrow(1, 4, 0)\n"),
    ("edge_narrow_length_error",
     "x = torch.zeros(2, 3)\n"
     "y = x.narrow(1, 1, -1)\n"),
    ("edge_permute_movedim",
     "x = torch.arange(24.).view(2, 3, 4)\n"
     "a = x.movedim(0, 2)\n"
     "b = x.movedim((0, 1), (2, 0))\n"
     "c = x.movedim(-1, 0)\n"
     "d = x.transpose(0, 0)\n"
     "e = x.permute(-1, 0, 1)\n"
     "f = x.permute((2, 0, 1))\n"
     "g = x.permute([2, 0, 1])\n"),
    ("edge_permute_duplicate_error",
     "x = torch.zeros(2, 3)\n"
     "y = x.permute(0, 0)\n"),
    ("edge_permute_length_error",
     "x = torch.zeros(2, 3)\n"
     "y = x.permute(0)\n"),
    ("edge_movedim_repeated_error",
     "x = torch.zeros(2, 3)\n"
     "y = x.movedim((0, 1), (0, 0))\n"),
    ("edge_movedim_count_error",
     "x = torch.zeros(2, 3)\n"
     "y = x.movedim((0, 1), (0,))\n"),
    ("edge_transpose_dim_error",
     "x = torch.zeros(2, 3)\n"
     "y = x.transpose(0, 2)\n"),
    ("edge_t_3d_error",
     "x = torch.zeros(2, 3, 4)\n"
     "y = x.t()\n"),
    ("edge_mT_1d_error",
     "x = torch.zeros(4)\n"
     "y = x.mT\n"),
    ("edge_T_t_low_rank",
     "x = torch.arange(4.)\n"
     "a = x.T\n"
     "b = x.t()\n"
     "s = x[0]\n"
     "c = s.T\n"
     "d = s.t()\n"),
    ("edge_diagonal",
     "x = torch.arange(12.).view(3, 4)\n"
     "a = x.diagonal(-1)\n"
     "b = x.diagonal(2, 1, 0)\n"
     "c = x.diagonal(-5)\n"
     "y = torch.arange(24.).view(2, 3, 4)\n"
     "d = y.diagonal(1, 0, 2)\n"
     "e = y.diagonal(0, -1, 0)\n"
     "f = y.diagonal(offset=1, dim1=2, dim2=1)\n"),
    ("edge_diagonal_same_dims_error",
     "x = torch.zeros(2, 3)\n"
     "y = x.diagonal(0, 0, 0)\n"),
    ("edge_squeeze_unsqueeze",
     "x = torch.arange(6.).view(1, 2, 1, 3)\n"
     "a = x.squeeze()\n"
     "b = x.squeeze(0)\n"
     "c = x.squeeze((0, 2))\n"
     "d = x.squeeze(1)\n"
     "e = x.squeeze(())\n"
     "f = x.unsqueeze(-1)\n"
     "g = x.unsqueeze(2)\n"),
    ("edge_squeeze_duplicate_error",
     "x = torch.zeros(2, 1, 3)\n"
     "y = x.squeeze((1, 1))\n"),
    ("edge_unsqueeze_error",
     "x = torch.zeros(2, 3)\n"
     "y = x.unsqueeze(3)\n"),
    ("edge_unfold_forms",
     "x = torch.arange(6.).view(2, 3)\n"
     "a = x.unfold(1, 2, 1)\n"
     "b = x.unfold(0, 1, 5)\n"
     "c = x.unfold(1, 0, 1)\n"
     "d = x.unfold(-1, 3, 3)\n"
     "s = torch.ones(1).view(())\n"
     "e = s.unfold(0, 1, 1)\n"),
    ("edge_unfold_size_error",
     "x = torch.zeros(2, 3)\n"
     "y = x.unfold(1, 4, 1)\n"),
    ("edge_unfold_step_error",
     "x = torch.zeros(2, 3)\n"
     "y = x.unfold(1, 2, 0)\n"),
    ("edge_as_strided_forms",
     "x = torch.arange(10.)\n"
     "a = x.as_strided((3, 3), (3, 1), 1)\n"
     "b = x.as_strided((3, 3), (0, 0))\n"
     "c = x.as_strided((), (), 9)\n"
     "d = x.as_strided(size=(2, 2), stride=(1, 2), storage_offset=4)\n"),
    ("edge_as_strided_offset_view_error",
     "x = torch.arange(10.)[2:]\n"
     "y = x.as_strided((3, 3), (3, 1))\n"),
    ("edge_as_strided_negative_offset",
     "x = torch.arange(10.)\n"
     "y = x.as_strided((4,), (1,), -1)\n"),
    ("edge_as_strided_negative_stride",
     "x = torch.arange(10.)\n"
     "y = x.as_strided((4, 4), (3, -1))\n"),
    ("edge_flatten_forms",
     "x = torch.arange(6.).view(2, 3)\n"
     "a = x.flatten()\n"
     "b = x.t().flatten()\n"
     "c = x[0].flatten()\n"
     "d = x[0, 0].flatten()\n"
     "e = x.flatten(0, 0)\n"),
    ("edge_flatten_order_error",
     "x = torch.zeros(2, 3)\n"
     "y = x.flatten(1, 0)\n"),
    ("edge_del_and_rebind_order",
     "a = torch.zeros(2)\n"
     "b = torch.ones(3)\n"
     "c = a.view(2, 1)\n"
     "a = torch.arange(4)\n"
     "del b\n"
     "b = c.t()\n"
     "del c\n"),
    ("edge_inplace_result_binding",
     "x = torch.arange(6.).view(2, 3)\n"
     "y = x.add_(1)\n"
     "z = y.mul_(2)\n"),
    ("edge_versions_through_views_and_copies",
     "x = torch.zeros(4)\n"
     "v = x[1:]\n"
     "x[0] = 1\n"
     "v.mul_(3)\n"
     "c = x.clone()\n"
     "d = x.detach()\n"
     "x.copy_(x)\n"
     "c.fill_(5)\n"),
    ("edge_failing_statement_stops",
     "x = torch.arange(6.)\n"
     "x.add_(1)\n"
     "y = x.view(4, 2)\n"
     "x.add_(100)\n"
     "z = torch.ones(2)\n"),
    ("edge_comments_and_blank_lines",
     "# a comment\n"
     "x = torch.arange(6.)  # trailing comment\n"
     "\n"
     "y = x.view(2, 3)\n"),
    ("edge_all_dtype_spellings",
     "a = torch.zeros(2, dtype=torch.float32)\n"
     "b = torch.zeros(2, dtype=torch.float)\n"
     "c = torch.zeros(2, dtype=torch.float16)\n"
     "d = torch.zeros(2, dtype=torch.half)\n"
     "e = torch.zeros(2, dtype=torch.bfloat16)\n"
     "f = torch.zeros(2, dtype=torch.float64)\n"
     "g = torch.zeros(2, dtype=torch.double)\n"
     "h = torch.zeros(2, dtype=torch.int8)\n"
     "i = torch.zeros(2, dtype=torch.uint8)\n"
     "j = torch.zeros(2, dtype=torch.int16)\n"
     "k = torch.zeros(2, dtype=torch.int32)\n"
     "l = torch.zeros(2, dtype=torch.int)\n"
     "m = torch.zeros(2, dtype=torch.int64)\n"
     "n = torch.zeros(2, dtype=torch.long)\n"
     "o = torch.zeros(2, dtype=torch.bool)\n"),
    # ---- index_select (row gather, embedding lookups) ---------------------------------------
    ("index_select_rows",
     "x = torch.arange(12.).view(4, 3)\n"
     "i = torch.tensor([3, 0, 3])\n"
     "y = x.index_select(0, i)\n"
     "z = torch.index_select(x, 0, i.to(torch.int32))\n"),
    ("index_select_other_dims",
     "x = torch.arange(24, dtype=torch.float16).view(2, 3, 4)\n"
     "a = x.index_select(1, torch.tensor([2, 0]))\n"
     "b = x.index_select(-1, torch.tensor(3))\n"
     "c = x.permute(2, 0, 1).index_select(0, torch.tensor([1, 1, 0]))\n"
     "d = x.index_select(2, torch.tensor([], dtype=torch.long))\n"),
    ("index_select_strided_rows_and_scalars",
     "x = torch.arange(20, dtype=torch.int32).view(4, 5)\n"
     "r = x[:, ::2].index_select(0, torch.tensor([1, 3]))\n"
     "s = torch.tensor(7.5).index_select(0, torch.tensor([0]))\n"
     "e = x.expand(2, 4, 5).index_select(0, torch.tensor([1]))\n"),
    ("index_select_out_of_range_error",
     "x = torch.arange(6.).view(2, 3)\n"
     "y = x.index_select(0, torch.tensor([2]))\n"),
    ("index_select_negative_index_error",
     "x = torch.arange(6.).view(2, 3)\n"
     "y = x.index_select(0, torch.tensor([-1]))\n"),
    ("index_select_float_index_error",
     "x = torch.arange(6.).view(2, 3)\n"
     "y = x.index_select(0, torch.tensor([0.0]))\n"),
    ("index_select_matrix_index_error",
     "x = torch.arange(6.).view(2, 3)\n"
     "y = x.index_select(1, torch.tensor([[0]]))\n"),
    ("index_select_dim_error",
     "x = torch.arange(6.).view(2, 3)\n"
     "y = x.index_select(2, torch.tensor([0]))\n"),
    ("index_select_scalar_two_values_error",
     "x = torch.tensor(5)\n"
     "y = x.index_select(0, torch.tensor([0, 0]))\n"),
    ("index_select_empty_axis_error",
     "x = torch.zeros(0, 3)\n"
     "y = x.index_select(0, torch.tensor([0]))\n"),
    # ---- devices: on the CPU, device="cpu" and .to("cpu") / .cpu() are the same tensor ----
    ("device_cpu_constructors_and_moves",
     "x = torch.zeros(2, 3, device='cpu')\n"
     "y = x.to('cpu')\n"
     "z = x.cpu()\n"
     "w = x.to('cpu', torch.float16)\n"
     "v = torch.arange(4, device='cpu').to(device='cpu', dtype=torch.int8)\n"
     "f = torch.full((2,), 7, device='cpu')\n"
     "t = torch.tensor([1.5, 2.5], device='cpu')\n"),
    ("device_string_error",
     "x = torch.zeros(2, device='gpu')\n"),
    # ---- large reports (go to large.jsonl.gz) ---------------------------------------------
    # expand(1000, 1000): 1,000,000 logical elements, still 4000 bytes of storage.
    ("tv_expand_1000x1000_keeps_4000_bytes", "e = torch.zeros(1, 1000).expand(1000, 1000)\n"),
    ("tv_expand_1000x1000_add_error",
     "e = torch.zeros(1, 1000).expand(1000, 1000)\n"
     "e.add_(1)\n"),
    # ---- issue 10: accounting over time, out-of-memory ---------------------------------------
    # steps / peak: TV-209's three tensors peak at 96 unique bytes when the copy exists; after
    # `del` only the row view is left and it still holds the 48-byte storage.
    ("i10_steps_peak_tv209",
     "base = torch.arange(12, dtype=torch.float32).view(4, 3)\n"
     "t = base.t()\n"
     "c = t.contiguous()\n"
     "row = base[1]\n"
     "del base, t, c\n"),
    # The 16 MB training state: parameter, gradient and two Adam moments of one million
    # float32 values (the values are too many for a golden file, so 1000 x 1 KB rows stand in:
    # 4 x 4000 bytes, peak when all four coexist).
    ("i10_training_state_four_arrays",
     "p = torch.zeros(1000)\n"
     "g = torch.zeros(1000)\n"
     "m = torch.zeros(1000)\n"
     "v = torch.zeros(1000)\n"
     "del g\n"),
    # A storage that cannot be allocated is PyTorch's out-of-memory error, not an abort; what
    # ran before it stays in the report.
    ("i10_oom_zeros_2_40",
     "x = torch.ones(3)\n"
     "y = torch.zeros(2**40)\n"
     "z = torch.ones(2)\n"),
    ("i10_oom_arange_float", "a = torch.arange(142949672962.)\n"),
    ("i10_oom_full_int8", "a = torch.full((2**60,), 1, dtype=torch.int8)\n"),
    ("i10_size_overflow_empty", "a = torch.empty(2**62)\n"),
    ("i10_size_overflow_2d", "a = torch.zeros(2**32, 2**32)\n"),
    # ---- issue 10: the seeds' snippets, arithmetic, the fences' Python, constructors ------
    ('i10_fence3_write_through_version',
     'import torch\n\nx = torch.zeros(2, 3)\nv = x[0]\nv0 = x._version\nv.add_(1)\nassert torch.equal(x[0], torch.ones(3)) and torch.equal(x[1], torch.zeros(3))\nassert x._version == v0 + 1 and v._version == x._version\n\nsp = lambda t: t.untyped_storage().data_ptr()\nprint("write-through, shared version counter, and autograd check behave as described")\n'),
    ('i10_fence4_channels_last_propagation',
     'import torch\n\nN, C, H, W = 2, 3, 4, 5\nx = torch.arange(N * C * H * W, dtype=torch.float32).reshape(N, C, H, W)\ncl = x.to(memory_format=torch.channels_last)\nassert cl.shape == x.shape\nassert cl.stride() == (H * W * C, 1, W * C, C) == (60, 1, 15, 3)\nassert not cl.is_contiguous() and cl.is_contiguous(memory_format=torch.channels_last)\ntorch.testing.assert_close(cl, x)\nassert (cl + 1).stride() == cl.stride() and torch.empty_like(cl).stride() == cl.stride()\nprint("channels_last strides", cl.stride())\n'),
    ('i10_fence5_unfold_windows',
     'import torch\n\na = torch.arange(10)\nu = a.unfold(0, 4, 2)\nexpected = torch.tensor([[0, 1, 2, 3], [2, 3, 4, 5], [4, 5, 6, 7], [6, 7, 8, 9]])\nassert torch.equal(u, expected)\nassert u.shape == ((10 - 4) // 2 + 1, 4) and u.stride() == (2, 1)\nassert u.untyped_storage().data_ptr() == a.untyped_storage().data_ptr()\nassert torch.equal(a.as_strided((4, 4), (2, 1)), u)\nprint("unfold windows", tuple(u.shape), "stride", u.stride())\n'),
    ('i10_seed003_base_is_root',
     'x = torch.arange(12, dtype=torch.float32).reshape(3, 4)\nr = x[1]\nassert r.storage_offset() == 4\nassert r.data_ptr() - x.data_ptr() == 16\nassert r.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()\nassert (r._base is x) is False\nassert r._base is x._base\nprint(r._base is x, r._base is x._base, x.contiguous() is x)\ny = x.t()\nf = y.flatten()\nassert f._base is None\n'),
    ('i10_seed003_reshape_view_or_copy',
     'x = torch.arange(6.).reshape(2, 3)\nr = x.reshape(-1); r[0] = 100\nassert x[0, 0] == 100\ny = torch.arange(6.).reshape(2, 3).t()\nq = y.reshape(-1); q[0] = 100\nassert y[0, 0] == 0\nassert x.contiguous() is x\n'),
    ('i10_seed003_copy_broadcast_empty_like',
     'd = torch.zeros(2, 3, dtype=torch.float64).copy_(torch.tensor([1, 2, 3], dtype=torch.int32))\nx = torch.arange(6.).view(2, 3).t()\ne = torch.empty_like(x).copy_(x)\nassert e.stride() == x.stride() and torch.equal(e, x)\nz = x.detach().zero_()\nprint(x, z._version)\n'),
    ('i10_seed004_points_second_point',
     'points = torch.tensor([[4.0, 1.0], [5.0, 3.0], [2.0, 1.0]])\nsecond_point = points[1]\nassert second_point.size() == (2,) and second_point.storage_offset() == 2 and second_point.stride() == (1,)\nsecond_point[0] = 10.0\nassert points[1, 0] == 10.0\nc = points[1].clone()\nc[0] = 99.0\nassert points[1, 0] == 10.0\nt = points.t()\nassert t.stride() == (1, 2)\nassert t.contiguous().stride() == (3, 1)\nprint(points, t.contiguous())\n'),
    ('i10_seed001_bias_broadcast',
     'scores = torch.tensor([[1, 2, 3], [4, 5, 6]])\nbias = torch.tensor([10, 20, 30])\ny = scores + bias\nassert y.tolist() == [[11, 22, 33], [14, 25, 36]]\ncol = torch.tensor([[100], [200]])\nz = scores + col\nprint(y, z)\nbad = scores + torch.tensor([1, 2])\n'),
    ('i10_seed001_pred_minus_labels',
     'pred = torch.tensor([[0.8], [0.2]])\nlabels = torch.tensor([1., 0.])\nd = pred - labels\nassert d.shape == (2, 2)\npairwise = pred.squeeze(1) - labels\nprint(d.shape, pairwise.shape)\n'),
    ('i10_seed001_expand_vs_arithmetic',
     'row = torch.tensor([[1.0, 2.0, 3.0]])\ne = row.expand(2, 3)\ns = e + 0\nassert e.untyped_storage().nbytes() == 12 and s.untyped_storage().nbytes() == 24\nprint(e.stride(), s.stride())\n'),
    ('i10_seed001_gt_vs_gt_',
     'a = torch.tensor([5, 10, 15, 20])\nalias = a[1:]\nm = a > 10\nassert m.dtype == torch.bool\na.gt_(10)\nassert a.dtype == torch.int64 and a.tolist() == [0, 0, 1, 1]\nprint(m, a, alias, alias._version)\n'),
    ('i10_seed001_shape_dtype_device',
     'x = torch.zeros(4, 8, 16, dtype=torch.float32)\nprint(x.shape)\nprint(x.dtype)\nprint(x.device)\nassert x.numel() * x.element_size() == 2048\n'),
    ('i10_seed001_detach_alias_shares',
     "x = torch.tensor([[0., 1., 2.], [3., 4., 5.]])\nt = x.T\nc = t.contiguous()\nalias = x.detach()\nassert t.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()\nassert c.untyped_storage().data_ptr() != x.untyped_storage().data_ptr()\nassert alias.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()\nassert not alias.requires_grad\nprint('x', x.shape, x.stride(), x.storage_offset())\nloss = c.square()\n"),
    ('i10_seed002_bikes_view',
     'bikes = torch.zeros(17520, 17)\nb = bikes.view(-1, 24, bikes.shape[1])\nassert b.shape == (730, 24, 17) and b.stride() == (408, 17, 1)\ndel bikes\n'),
    ('i10_promotion_table',
     'i8 = torch.arange(3, dtype=torch.int8)\na = i8 + 1000\nb = torch.arange(3) + 2.5\nc = torch.tensor([True, False]) + 3\nd = torch.arange(3, dtype=torch.float16) + torch.tensor(1.5, dtype=torch.float64)\ne = torch.arange(3, dtype=torch.uint8) + torch.arange(3, dtype=torch.int8)\nf = i8 + torch.tensor(1.5, dtype=torch.float64)\ng = torch.arange(4) / 2\nh = torch.tensor([True]) / torch.tensor([True])\nk = torch.arange(3, dtype=torch.bfloat16) * torch.arange(3, dtype=torch.float16)\nprint(a.dtype, b.dtype, c.dtype, d.dtype, e.dtype, f.dtype, g.dtype, h.dtype, k.dtype)\n'),
    ('i10_floor_div_remainder',
     'a = torch.tensor([-7, -1, 0, 5, 7])\nq = a // 2\nr = a % 2\nq2 = a // -2\nr2 = a % -3\nf = torch.tensor([-7.5, -1.0, 0.0, 5.5]) // 2\nfr = torch.tensor([-7.5, -1.0, 0.0, 5.5]) % 2\nz = torch.tensor([1.0, -1.0, 0.0]) // 0\nzr = torch.tensor([1.0, -1.0]) % 0\nbad = a // 0\n'),
    ('i10_int_remainder_by_zero',
     'a = torch.arange(3)\nb = a % 0\n'),
    ('i10_pow_forms',
     'x = torch.arange(4)\na = x ** 2\nb = 2 ** x\nc = x.float() ** 0.5\nd = torch.tensor([2, 3]) ** torch.tensor([-1, 2])\ne = torch.tensor([True, False]) ** 2\nf = x.pow(3)\nbad = x ** -1\n'),
    ('i10_unary_ops',
     'x = torch.tensor([-2.0, -0.5, 0.0, 4.0])\na = -x\nb = x.abs()\nc = torch.abs(x)\nd = x.neg()\ne = torch.tensor([1.0, 4.0, 9.0]).sqrt()\nf = x.square()\ng = torch.arange(3).sqrt()\nh = torch.arange(3, dtype=torch.uint8).neg()\ni = torch.tensor([0.0, 1.0]).exp()\nbad = -torch.tensor([True])\n'),
    ('i10_bool_errors',
     'a = torch.tensor([True, False]) + torch.tensor([True, True])\nm = torch.tensor([True, False]) * torch.tensor([True, True])\nbad = torch.tensor([True]) - torch.tensor([True])\n'),
    ('i10_bool_abs_not_implemented',
     'b = torch.tensor([True]).abs()\n'),
    ('i10_add_sub_alpha',
     'a = torch.add(torch.ones(2), torch.ones(2), alpha=2)\nb = torch.ones(2, dtype=torch.int64).add(torch.ones(2), alpha=3)\nc = torch.sub(torch.arange(3), 1, alpha=2)\nd = torch.arange(3).sub(torch.arange(3), alpha=-1)\nbad = torch.arange(3).add(torch.arange(3), alpha=0.5)\n'),
    ('i10_broadcast_error_message',
     'a = torch.ones(2, 3)\nb = torch.ones(2)\nc = a + b\n'),
    ('i10_broadcast_three_way',
     'a = torch.arange(4.).view(4, 1)\nb = torch.arange(3.).view(1, 3)\nc = torch.arange(2.).view(2, 1, 1)\nd = a * b + c\nassert d.shape == (2, 4, 3)\n'),
    ('i10_layout_channels_last_results',
     'x = torch.arange(24.).view(1, 2, 3, 4).contiguous(memory_format=torch.channels_last)\na = x + 1\nb = x * x\nc = x.abs()\nd = x > 5\ne = x + torch.ones(4)\nf = torch.ones(1, 2, 3, 4) + x\ng = x + torch.ones(1, 2, 3, 4)\nprint(a.stride(), d.stride(), e.stride(), f.stride(), g.stride())\n'),
    ('i10_layout_permuted_and_sliced',
     'x = torch.arange(24.).view(2, 3, 4).permute(2, 0, 1)\na = x + 1\nb = x + torch.ones(4, 2, 3)\nc = torch.ones(4, 2, 3) + x\nd = x[:, :, ::2] * 2\ne = torch.arange(6.).view(2, 3).t()[::2] + 1\nf = torch.arange(6.).view(2, 3).t() + torch.arange(2.)\ng = torch.ones(3, 1).expand(3, 4) + 0\nprint(a.stride(), b.stride(), c.stride(), d.stride(), e.stride(), f.stride(), g.stride())\n'),
    ('i10_comparisons_and_where',
     'a = torch.arange(6).view(2, 3)\nm = a > 2\nn = a <= 2\ne = a == torch.tensor([0, 4, 2])\nne = 3 != a\nw = torch.where(m, a, -1)\nw2 = torch.where(m, a, 2.5)\nw3 = torch.where(a > 3, a.float(), torch.zeros(1))\nk = (a > 1) & (a < 5)\no = (a < 1) | (a > 4)\nx = (a > 1) ^ (a > 3)\ninv = ~m\nbits = torch.tensor([12, 10]) & torch.tensor([10, 6])\nnot_int = ~torch.tensor([0, 5], dtype=torch.int8)\nbad = torch.where(a, a, a)\n'),
    ('i10_clamp',
     "a = torch.arange(-3, 4)\nb = a.clamp(-1, 2)\nc = a.clamp(min=0)\nd = torch.clamp(a, max=1)\ne = a.clamp(0.5)\nf = torch.tensor([float('nan'), -5.0, 5.0]).clamp(-1, 1)\ng = a.clip(0, 1)\na.clamp_(-2, 2)\nbad = a.clamp()\n"),
    ('i10_inplace_tensor_operands',
     'x = torch.zeros(2, 3)\nv = x[0]\nv.add_(torch.tensor([1., 2., 3.]))\nx.mul_(torch.tensor([[2.], [3.]]))\nx.sub_(torch.ones(3), alpha=0.5)\nx.div_(2)\nh = torch.ones(3, dtype=torch.float16)\nh.add_(torch.tensor([0.1, 0.2, 0.3]))\nc = torch.arange(6).view(2, 3)\nc.gt_(2)\nf = torch.arange(4.)\nf.lt_(torch.tensor(2))\nprint(x._version, v._version, c, f)\n'),
    ('i10_inplace_self_not_broadcast',
     'x = torch.ones(3)\nx.add_(torch.ones(2, 3))\n'),
    ('i10_inplace_result_type',
     'x = torch.arange(3)\nx.add_(torch.ones(3))\n'),
    ('i10_inplace_bool_self',
     'x = torch.tensor([True, False])\nx.add_(1)\n'),
    ('i10_masked_fill',
     'x = torch.arange(6.).view(2, 3)\nm = x > 2\nx.masked_fill_(m, -1.0)\ny = torch.arange(6).view(2, 3).masked_fill(torch.tensor([True, False, True]), 7)\nz = torch.ones(3, dtype=torch.int8)\nz.masked_fill_(torch.tensor([True, False, True]), 100)\nprint(x, y, z, x._version)\nbad = x.masked_fill_(torch.ones(3), 0)\n'),
    ('i10_masked_fill_overflow',
     'z = torch.ones(3, dtype=torch.int8)\nz.masked_fill_(torch.tensor([True, False, True]), 1000)\n'),
    ('i10_equal',
     "a = torch.arange(3)\nb = torch.arange(3.)\nprint(torch.equal(a, b), torch.equal(a, torch.arange(4)), a.equal(a), torch.equal(torch.tensor([float('nan')]), torch.tensor([float('nan')])))\n"),
    ('i10_python_unpacking_ok',
     'N, C, H, W = 2, 3, 4, 5\nx = torch.zeros(N, C, H, W)\nn, c, h, w = x.shape\n(a, b), k = x.shape[:2], len(x.shape)\nt = x.stride()[::-1]\ns = x.shape[1:]\nc2, d2 = x.clone(), x.detach()\nr0, r1 = torch.arange(4).view(2, 2)\nprint(n, c, h, w, a, b, k, t, s, x.shape[-1], len(x), c2.shape == x.shape)\nassert s == (3, 4, 5) and s != [3, 4, 5]\n'),
    ('i10_python_unpack_error',
     'a, b = 1, 2, 3\n'),
    ('i10_python_unpack_too_few',
     'a, b, c = torch.zeros(2).shape + (1,)\n'),
    ('i10_python_comparisons',
     "x = torch.arange(6.).view(2, 3)\nprint(1 < 2 < 3, 3 > 2 > 2, x.shape == (2, 3) == torch.Size([2, 3]), (1, 2) < (1, 3), x.dtype == torch.float32, x.dtype is torch.float32, x.dtype != torch.int64)\nprint(None is None, x is not None, x._base is None, 1 == 1.0, True == 1, 'a' == 'a', (1, 2) == [1, 2], 2 in (1, 2), 5 not in x.shape)\nprint(1 and 2, 0 and 2, 0 or 3, not 0, not x.is_contiguous(), x.is_contiguous() and x.t().is_contiguous())\n"),
    ('i10_python_print_formats',
     "print(1.5, 1e16, 1e-05, 0.1 + 0.2, 123456789.0, -0.0, 2 ** 62, 7 // 2, 7 / 2, True, None, (1,), (), [1, 'a'], 'text')\nprint(torch.float16, torch.int8, torch.channels_last, torch.zeros(2, 3).shape, torch.zeros(0).shape)\nprint('a', 'b', sep='-', end='!\\n')\nprint()\n"),
    ('i10_python_print_tensors',
     "print(torch.arange(6.).view(2, 3))\nprint(torch.arange(5))\nprint(torch.tensor([True, False]))\nprint(torch.tensor(3.5), torch.tensor(2), torch.tensor([], dtype=torch.int32), torch.zeros(0, 3))\nprint(torch.tensor([0.1, 2.25, -3.0]), torch.tensor([1e-5, 1.0]), torch.tensor([1e9, 1.0]))\nprint(torch.arange(4, dtype=torch.float16), torch.arange(3, dtype=torch.uint8), torch.tensor([1.5, float('inf'), float('nan')]))\nprint(torch.arange(24).view(2, 3, 4))\nprint(torch.arange(40.))\nprint(torch.arange(2000).view(2, 1000))\n"),
    ('i10_python_truthiness',
     't = torch.tensor([5, 6])\nassert t[0] == 5\nassert t[1] > t[0]\nassert not torch.zeros(1)\nassert t\n'),
    ('i10_assert_message',
     "x = torch.zeros(3)\nassert x.shape == (3,), 'shape'\nassert x.shape[0] == 3 and x.dtype is torch.float32, 'dtype'\n"),
    ('i10_assert_fails_with_message',
     "x = torch.zeros(3)\nassert x.shape == (2,), ('unexpected', x.shape)\ny = torch.ones(1)\n"),
    ('i10_assert_fails_plain',
     'x = torch.zeros(3)\nassert x.stride() == (2,)\n'),
    ('i10_builtins',
     'x = torch.arange(6).view(2, 3)\nprint(len(x), len(x.shape), int(x[1, 2]), float(x[0, 1]), bool(x[0, 0]), abs(-3), abs(x - 3), str(x.dtype), min(3, 1, 2), max(x.shape), tuple(x.shape), list(x.stride()), int(2.9), int(-2.9), x[1, 2].item(), x.tolist())\n'),
    ('i10_len_0d',
     'n = len(torch.tensor(1))\n'),
    ('i10_item_many',
     'v = torch.arange(3).item()\n'),
    ('i10_data_ptr_offsets',
     'x = torch.arange(12, dtype=torch.float32).reshape(3, 4)\nr = x[1]\nc = x[:, 1]\nassert r.data_ptr() - x.data_ptr() == 16\nassert c.data_ptr() - x.data_ptr() == 4\nassert x[2, 3].data_ptr() - x.data_ptr() == 44\nassert r.untyped_storage().nbytes() == 48 and r.untyped_storage().size() == 48\nassert torch.empty(0).data_ptr() == 0\ny = x.clone()\nassert y.data_ptr() != x.data_ptr()\n'),
    ('i10_version_counter',
     'x = torch.zeros(2, 3)\nv = x[0]\nprint(x._version, v._version)\nv.add_(1)\nx[1] = 2\nx.mul_(torch.ones(3))\nprint(x._version, v._version)\nc = x.clone()\nprint(c._version)\n'),
    ('i10_like_constructors',
     'x = torch.arange(24.).view(2, 3, 4)\np = x.permute(2, 0, 1)\ncl = torch.arange(24.).view(1, 2, 3, 4).contiguous(memory_format=torch.channels_last)\na = torch.empty_like(p).fill_(2)\nb = torch.zeros_like(p, memory_format=torch.contiguous_format)\nc = torch.ones_like(cl)\nd = torch.full_like(cl, 7, dtype=torch.int32)\ne = torch.zeros_like(x[:, :, ::2])\nf = torch.ones_like(torch.ones(3, 1).expand(3, 4))\ng = torch.empty_like(cl, memory_format=torch.contiguous_format).fill_(1)\nh = torch.zeros_like(x, dtype=torch.float16)\nprint(a.stride(), b.stride(), c.stride(), d.stride(), e.stride(), f.stride(), g.stride())\n'),
    ('i10_new_constructors',
     'x = torch.arange(6, dtype=torch.int16).view(2, 3).t()\na = x.new_zeros(2, 2)\nb = x.new_ones((3,))\nc = x.new_full((2,), 5)\nd = x.new_empty(4).fill_(1)\ne = x.new_zeros(2, dtype=torch.float64)\n'),
    ('i10_empty_strided_linspace_eye',
     'a = torch.empty_strided((2, 3), (1, 2)).fill_(1)\nb = torch.empty_strided((2, 2), (4, 1), dtype=torch.int32).zero_()\nl = torch.linspace(0, 1, 5)\nl2 = torch.linspace(-2, 2, 9, dtype=torch.float64)\nl3 = torch.linspace(0, 10, 6, dtype=torch.int64)\nl4 = torch.linspace(3, 3, 1)\nl5 = torch.linspace(0, 1, 0)\ne = torch.eye(3)\ne2 = torch.eye(2, 4, dtype=torch.int8)\nprint(a.stride(), a.untyped_storage().nbytes(), b.untyped_storage().nbytes())\n'),
    ('i10_training_state_zeros_like_16mb',
     'p = torch.zeros(1_000_000)\ng = torch.zeros_like(p)\nm = torch.zeros_like(p)\nv = torch.zeros_like(p)\ntotal = p.untyped_storage().nbytes() + g.untyped_storage().nbytes() + m.untyped_storage().nbytes() + v.untyped_storage().nbytes()\nassert total == 16_000_000\nprint(total, total / 2**30)\n'),
    # ---- issue 10: copies (advanced indexing, repeat, cat, flip, roll, reductions) ------
    ('i10_fence2_copies_by_storage',
     "x = torch.arange(12.).reshape(3, 4)\nsp = lambda t: t.untyped_storage().data_ptr()\nxt = x.transpose(0, 1)\nassert xt.is_contiguous() is False\nr = xt.reshape(-1)\nassert sp(r) != sp(x) and r.is_contiguous()\nassert sp(x[[0, 2]]) != sp(x) and sp(x.repeat(2, 1)) != sp(x)\nassert x.contiguous() is x\ne = torch.zeros(1, 1000).expand(1000, 1000)\nassert e.stride() == (0, 1) and e.untyped_storage().nbytes() == 4000\nsel = x[[0, 2]]\nrep = x.repeat(2, 1)\nprint('views share storage; reshape after transpose copies; expand has stride 0')\n"),
    ('i10_advanced_index_read',
     'x = torch.arange(24.).view(2, 3, 4)\np = x.permute(2, 0, 1)\na = x[[0, 1]]\nb = p[[0, 1]]\nc = x[:, [0, 2]]\nd = x[[0, 1], :, [1, 2]]\ne = x.transpose(0, 2)[[0, 1]]\nf = x[x > 5]\ng = x[0, [1, 2]]\nh = x[[0, 1], 0, [1, 2]]\nk = p[:, :, [0, 1]]\nm = x[[[0], [1]], [[0, 1, 2]]]\nn = x[torch.tensor([1, -1])]\no = x[..., [3, 0]]\nq = x[:, torch.tensor([True, False, True])]\nr = x[None, [0]]\nprint(a.stride(), b.stride(), c.stride(), d.stride(), e.stride(), k.stride(), o.stride(), q.stride())\n'),
    ('i10_advanced_index_errors',
     'x = torch.arange(6).view(2, 3)\na = x[[1, 0]]\nb = x[[5]]\n'),
    ('i10_advanced_index_float',
     'x = torch.arange(6).view(2, 3)\nb = x[torch.tensor([0.])]\n'),
    ('i10_advanced_index_broadcast_error',
     'x = torch.arange(6).view(2, 3)\nb = x[[0, 1], [0, 1, 2]]\n'),
    ('i10_advanced_index_write',
     'x = torch.zeros(3, 4)\nv = x[1]\nx[[0, 2]] = 5\nx[x == 0] = torch.tensor(-1.)\nx[:, [1, 3]] = torch.tensor([7., 8.])\nm = torch.arange(6).view(2, 3)\nm[[0, 1], [1, 2]] = torch.tensor(9)\nm.index_put_((torch.tensor([0]), torch.tensor([0])), torch.tensor([100]))\nprint(x, v, x._version, m)\nm[[0, 1], [1, 2]] = torch.tensor([1, 2, 3])\n'),
    ('i10_index_put_dtype',
     'x = torch.zeros(3)\nx[[0, 2]] = torch.tensor([1, 2])\n'),
    ('i10_repeat_tile',
     'x = torch.arange(6).view(2, 3)\na = x.repeat(2, 1)\nb = x.repeat(1, 2, 2)\nc = x.t().repeat(2, 1)\nd = x.tile((2,))\ne = x.tile(2, 1, 1)\nf = torch.tensor(5).repeat(3)\ng = x.repeat(0, 1)\nassert a.untyped_storage().nbytes() == 96\nbad = x.repeat(2)\n'),
    ('i10_cat_stack',
     'a = torch.arange(6.).view(2, 3)\nb = torch.ones(1, 3, dtype=torch.int64)\nc = torch.cat([a, b])\nd = torch.cat((a, a), dim=1)\ne = torch.cat([a.t(), a.t()], 0)\nf = torch.stack([a, a])\ng = torch.stack([a, a], dim=-1)\nh = torch.cat([torch.tensor([]), a.flatten()])\ncl = torch.zeros(1, 2, 2, 2).contiguous(memory_format=torch.channels_last)\nk = torch.cat([cl, cl], 1)\nm = torch.cat([cl, torch.zeros(1, 2, 2, 2)], 1)\nprint(e.stride(), k.stride(), m.stride())\nbad = torch.cat([a, torch.ones(2, 2, 4)], 2)\n'),
    ('i10_cat_errors',
     'a = torch.ones(2, 3)\nb = torch.cat([a, torch.ones(2)])\n'),
    ('i10_stack_error',
     'a = torch.ones(2, 3)\nb = torch.stack([a, torch.ones(3)])\n'),
    ('i10_flip_roll',
     'x = torch.arange(24.).view(2, 3, 4)\np = x.permute(2, 0, 1)\na = x.flip(0)\nb = p.flip(0)\nc = x.flip(0, 2)\nd = torch.flip(x, [1])\ne = x.roll(1, 0)\nf = p.roll(1, 0)\ng = x.roll(-1)\nh = x.roll((1, 2), (1, 2))\nk = torch.roll(x, 5)\nprint(a.stride(), b.stride(), e.stride(), f.stride(), g.stride())\nbad = x.flip(0, 0)\n'),
    ('i10_reductions',
     "x = torch.arange(24.).view(2, 3, 4)\np = x.permute(2, 0, 1)\na = x.sum()\nb = x.sum(0)\nc = x.sum((0, 2), keepdim=True)\nd = p.sum(1)\ne = x.mean(-1)\nf = x.prod(1)\ng = x.amax(1)\nh = x.amin((0, 1))\ni = torch.arange(6).view(2, 3).sum(1)\nj = torch.tensor([True, False, True]).sum()\nk = torch.arange(6, dtype=torch.int8).view(2, 3).sum(0, dtype=torch.int8)\nm = torch.arange(6).view(2, 3).mean(1, dtype=torch.float64)\nn = torch.sum(x, dim=1, keepdim=True)\no = torch.zeros(0, 3).sum(0)\nq = torch.zeros(2, 0).prod(1)\nr = torch.tensor([1.0, float('nan')]).amax()\ns = torch.arange(4, dtype=torch.float16).mean()\nt = torch.arange(5).prod()\nprint(a.shape, a.item(), b.stride(), c.shape, d.stride(), x.sum().item(), i.tolist())\nbad = torch.arange(3).mean()\n"),
    ('i10_reduction_errors',
     'x = torch.zeros(0, 3)\na = x.amax(1)\nb = x.amax(0)\n'),
    ('i10_reduction_dup_dim',
     'x = torch.zeros(2, 3)\na = x.sum((0, 0))\n'),
    ('i10_item_tolist',
     'x = torch.arange(6.).view(2, 3)\na = x[1, 2].item()\nb = x.tolist()\nc = torch.tensor(True).item()\nd = torch.tensor(7).tolist()\nprint(a, b, c, d, x.sum().item(), x.t().tolist())\n'),
    ('i10_T_contiguous_chain',
     'x = torch.arange(6.).view(2, 3)\ny = x.T.contiguous()\nz = x.T.contiguous().view(-1)\nw = (x.T + 0).contiguous()\nassert y.stride() == (2, 1) and w.stride() == (2, 1)\n'),
    # ---- issue 10: overlapping writes PyTorch lets through (run in its order, warned) ----
    ('i10_overlap_as_strided_window_mul',
     'a = torch.arange(10.)\nw = a.as_strided((4, 4), (2, 1))\nw.mul_(2)\nprint(a)\n'),
    ('i10_overlap_unfold_add_tensor',
     'a = torch.arange(10.)\nu = a.unfold(0, 4, 2)\nu.add_(torch.ones(4))\nv = a.unfold(0, 3, 1)\nv.copy_(torch.tensor([1., 2., 3.]))\n'),
    ('i10_overlap_interleaved_copy',
     'c = torch.arange(6.)\nc.as_strided((3, 2), (1, 1)).copy_(torch.arange(6.).view(3, 2))\nd = torch.arange(8.)\nd.as_strided((3, 3), (2, 1)).copy_(d.as_strided((3, 3), (1, 2)))\n'),
    ('i10_overlap_refused_like_pytorch',
     'e = torch.zeros(3).expand(2, 3)\ne.add_(1)\n'),
    ('i10_overlap_partial_dense_refused',
     'a = torch.arange(6.)\na[1:4] = a[0:3]\n'),
    # ---- issue 10: edge cases found by probing (0-d copies, overflow, recursion) -------
    ('i10_zero_dim_copies',
     'x = torch.tensor(5)\na = x.flip(0)\nb = x.roll(1)\nc = x.sum(0)\nd = x.amax(0)\ne = x.repeat(2, 3)\nf = torch.ones(3)[torch.tensor(True)]\ng = torch.ones(3)[torch.tensor(False)]\nh = torch.arange(6)[[]]\nk = torch.arange(3)[[True, False, True]]\nbad = x.roll(1, 0)\n'),
    ('i10_repeat_overflow',
     'x = torch.ones(2)\ny = x.repeat(10**10, 10**10)\n'),
    ('i10_lambda_recursion',
     'f = lambda: f()\nx = torch.ones(1)\ny = f()\n'),
    # ---- issue 10: seed 004's storage() indexing ------------------------------------------
    ('i10_seed004_points_storage',
     'points = torch.tensor([[4.0, 1.0], [5.0, 3.0], [2.0, 1.0]])\ns = points.storage()\nassert list(s) == [4.0, 1.0, 5.0, 3.0, 2.0, 1.0] and len(s) == 6\npoints.storage()[0] = 2.0\nassert points[0, 0] == 2.0\nsecond_point = points[1]\nprint(second_point.storage()[0], second_point.storage().size(), points._version, s.tolist())\nbad = s[10]\n'),
    # ---- issue 10: any/all, max/min, maximum/minimum, logical ops, trunc division -------
    ('i10_any_all_max_min_logical',
     "x = torch.tensor([[1., 0.], [3., float('nan')]])\na = torch.tensor([1, 0, 2]).any()\nb = torch.tensor([1, 0, 2]).all()\nc = x.any(0)\nd = x.all(1)\ne = torch.zeros(0).all()\nf = torch.tensor([1, 0], dtype=torch.uint8).any()\ng = torch.maximum(torch.tensor([1., float('nan')]), torch.tensor([2., 0.]))\nh = torch.minimum(torch.tensor([1, 5]), torch.tensor([2., 0.]))\nk = torch.logical_not(torch.tensor([0., 2.]))\nm = torch.logical_and(torch.tensor([1, 0]), torch.tensor([1., 1.]))\nn = torch.tensor([5, -5]).div(2, rounding_mode='trunc')\no = torch.tensor([5., -5.]).div(2, rounding_mode='trunc')\np = x.max()\nq = torch.tensor([3, 1]).min()\nassert (x == x).any() and not (x != x).all()\nprint(x.is_floating_point(), x.nelement())\nbad = torch.maximum(torch.tensor([1]), 2)\n"),
    # ---- issue 10: max/min with a dim (values and indices), index_put_(accumulate=True) ----
    ('i10_max_dim_named_tuple',
     "x = torch.tensor([[1., 3., 3.], [float('nan'), 2., 5.]])\nr = x.max(dim=1)\nv = r.values\ni = r.indices\nk = x.max(1, keepdim=True)\nkv, ki = k\nm = torch.max(x, 0)\nn = torch.min(x, 1)\nfirst = x.max(1)[0]\nlast = x.min(0)[-1]\nassert len(r) == 2 and r[1] is not None\nprint(r)\nprint(torch.min(x, dim=0, keepdim=True).indices, n.values)\n"),
    ('i10_max_dim_layouts_and_dtypes',
     "y = torch.arange(24.).view(2, 3, 4).permute(2, 0, 1)\na, ai = y.max(1)\nb, bi = y.min(-1, keepdim=True)\ncl = torch.arange(120).view(2, 3, 4, 5).contiguous(memory_format=torch.channels_last)\nc = cl.max(1)\ncv = c.values\nd = torch.tensor([[True, False], [False, False]]).max(1).values\ne = torch.tensor([[3, -1, 3]], dtype=torch.int8).min(1).indices\nh = torch.tensor([[1, 2], [3, 4]], dtype=torch.float16).max(0).values\nz = torch.tensor(5.).max(0)\nzv = z.values\nw = torch.max(torch.tensor([1., 4.]), torch.tensor([3., 2.]))\nw2 = torch.tensor([1, 4]).min(torch.tensor([3, 2]))\nprint(z, ai.dtype)\n"),
    ('i10_max_dim_nan_first',
     "a = torch.tensor([[float('nan'), float('nan'), 1.], [1., float('nan'), float('nan')], [2., 2., 1.]])\nmx = a.max(1)\nmn = a.min(1)\nprint(mx.indices, mn.indices)\n"),
    ('i10_max_dim_empty_error',
     "e = torch.zeros(0, 3)\nok = e.max(1)\nokv = ok.values\nbad = e.max(0)\n"),
    ('i10_max_dim_out_of_range',
     "x = torch.tensor([1., 2.])\nbad = x.max(2)\n"),
    ('i10_min_dim_zero_d_out_of_range',
     "x = torch.tensor(3)\nr = x.min(-1)\nbad = x.min(1)\n"),
    ('i10_index_put_accumulate',
     "z = torch.zeros(5)\nz.index_put_((torch.tensor([0, 2, 0, 4]),), torch.tensor([1., 2., 3., 4.]), accumulate=True)\nq = torch.zeros(3, 4, dtype=torch.int32)\nq.index_put_((torch.tensor([0, 0, 2]),), torch.tensor(7, dtype=torch.int32), accumulate=True)\nm = torch.zeros(2, 3)\nm.index_put_((torch.tensor([1, 1]), torch.tensor([2, 2])), torch.tensor([1., 5.]), accumulate=True)\nn = torch.zeros(3)\nn.index_put_((torch.tensor([-1, -1]),), torch.tensor([1., 5.]), True)\nmask = torch.zeros(2, 3)\nmask.index_put_((torch.tensor([True, False]),), torch.tensor(1.), accumulate=True)\nu = torch.zeros(3, dtype=torch.uint8)\nu.index_put_((torch.tensor([0, 0]),), torch.tensor([200, 100], dtype=torch.uint8), accumulate=True)\nb = torch.zeros(3, dtype=torch.bool)\nb.index_put_((torch.tensor([0, 0]),), torch.tensor([True, True]), accumulate=True)\nh = torch.zeros(2, dtype=torch.float16)\nh.index_put_((torch.tensor([0, 0, 0]),), torch.tensor([0.1, 0.1, 0.1], dtype=torch.float16), accumulate=True)\nr = torch.zeros(3)\ns = r.index_put((torch.tensor([1, 1]),), torch.tensor(2.), accumulate=True)\nt = r.index_put_((torch.tensor([1]),), torch.tensor(2.), False)\nassert t is r and r._version == 1\nprint(z, q, m, n, h[0].item())\n"),
    ('i10_index_put_accumulate_views',
     "x = torch.zeros(4, 6)\nv = x[:, ::2]\nv.index_put_((torch.tensor([3, 0, 3]),), torch.tensor([[1., 2., 3.]]), accumulate=True)\ncl = torch.zeros(1, 3, 2, 2).contiguous(memory_format=torch.channels_last)\ncl.index_put_((torch.tensor([0]), torch.tensor([1, 1])), torch.tensor(1.5), accumulate=True)\nprint(x._version, v._version, x.sum())\n"),
    ('i10_index_put_accumulate_dtype_error',
     "z = torch.zeros(3, dtype=torch.int32)\nz.index_put_((torch.tensor([0]),), torch.tensor([1.]), accumulate=True)\n"),
    ('i10_index_put_accumulate_shape_error',
     "z = torch.zeros(3)\nz.index_put_((torch.tensor([0, 1]),), torch.tensor([1., 2., 3.]), accumulate=True)\n"),
    ('i10_index_put_accumulate_out_of_range',
     "z = torch.zeros(3)\nz.index_put_((torch.tensor([5]),), torch.tensor(1.), accumulate=True)\n"),
    # ---- issue 10 (helper "lang"): blocks, functions, exceptions -------------------------
    # The seed document 003's fences 1 and 2, whole and unchanged (tests/data/explain_fences/,
    # copied from ../shared/seeds/003_fe5dcb5181ab085b.txt lines 121-140 and 144-172).
    ("i10_fence1_address_formula_whole", _fence("fence1.py")),
    ("i10_fence2_views_copies_whole", _fence("fence2.py")),
    ("blk_readme_example_peak_in_loop",
     "def rows(t, k=1):\n    return t[k:]\n\nx = torch.zeros(1000)\nfor i in range(3):\n    tmp = x.clone()\n    v = rows(tmp, k=i)\ndel tmp, v\ntry:\n    x.view(3, 7)\nexcept RuntimeError as e:\n    print(\"caught:\", str(e))\n"),
    ("blk_for_steps_per_iteration",
     "x = torch.zeros(4)\nfor i in range(3):\n    y = x[i:]\n    y.add_(1)\nprint(x.tolist(), x._version)\n"),
    ("blk_for_over_tensor_and_size",
     "m = torch.arange(6.).view(2, 3)\nfor row in m:\n    row.mul_(2)\nfor i, s in enumerate(m.shape):\n    print(i, s)\nfor t in (m, m.t()):\n    print(t.stride(), t.is_contiguous())\n"),
    ("blk_nested_break_continue_else",
     "x = torch.arange(10)\nfound = []\nfor i in range(4):\n    if i == 1:\n        continue\n    for j in range(4):\n        if j > i:\n            break\n        found.append if False else None\n    else:\n        print('inner done', i)\nprint(found)\n"),
    ("blk_while_and_if_elif",
     "x = torch.ones(2, 2)\nn = 0\nwhile n < 5:\n    n = n + 1\n    if n % 3 == 0:\n        x.mul_(3)\n    elif n % 2 == 0:\n        x.add_(1)\n    else:\n        pass\nelse:\n    print('while else', n)\nprint(x.tolist())\n"),
    ("blk_def_defaults_recursion",
     "def addr(t, idx):\n    return t.storage_offset() + sum(i * s for i, s in zip(idx, t.stride()))\n\ndef fact(n, acc=1):\n    if n <= 1:\n        return acc\n    return fact(n - 1, acc * n)\n\nx = torch.arange(24).view(2, 3, 4)[1:, :, ::2]\nprint(addr(x, (0, 1, 1)), fact(6), fact(3, acc=2))\nv = x[0]\n"),
    ("blk_def_returns_view",
     "def rows(t, k=1):\n    r = t[k:]\n    return r.t()\n\nbase = torch.arange(12.).view(4, 3)\nv = rows(base)\nw = rows(base, k=2)\nv.zero_()\nprint(base.sum().item(), v._base is base)\n"),
    ("blk_try_except_classes",
     "x = torch.arange(6.).view(2, 3)\nfor stmt in range(5):\n    try:\n        if stmt == 0:\n            x.t().view(-1)\n        elif stmt == 1:\n            x.transpose(0, 5)\n        elif stmt == 2:\n            x[:, ::-1]\n        elif stmt == 3:\n            x[7]\n        else:\n            y = x + 1\n    except IndexError as e:\n        print('IndexError', str(e))\n    except ValueError as e:\n        print('ValueError', str(e))\n    except RuntimeError as e:\n        print('RuntimeError', 'view size is not compatible' in str(e))\n    else:\n        print('no error', y.shape)\n    finally:\n        print('finally', stmt)\n"),
    ("blk_try_raise_reraise",
     "x = torch.zeros(2)\ntry:\n    try:\n        x.view(3)\n    except RuntimeError:\n        print('inner')\n        raise\nexcept Exception as err:\n    print('outer', 'view' in str(err))\ntry:\n    raise ValueError('custom ' + str(x.numel()))\nexcept (TypeError, ValueError) as e:\n    print(repr(e), str(e))\n"),
    ("blk_uncaught_in_loop_line_col",
     "x = torch.arange(6)\nfor i in range(4):\n    y = x[i:]\n    z = y.view(2, 3)\n"),
    ("blk_uncaught_in_function_line_col",
     "def f(t):\n    a = t.t()\n    return a.view(-1)\n\nx = torch.arange(6.).view(2, 3)\nok = f(x[:1])\nbad = f(x)\n"),
    ("blk_uncaught_in_lambda_call",
     "x = torch.arange(6.).view(2, 3)\nflat = lambda t: t.view(-1)\nfor t in (x, x.t()):\n    f = flat(t)\n"),
    ("blk_raise_assertion",
     "x = torch.zeros(3)\ntry:\n    x.view(2)\n    raise AssertionError('view should fail')\nexcept RuntimeError as e:\n    assert 'invalid' in str(e)\nraise AssertionError('stop here ' + str(x.shape))\n"),
    ("blk_except_not_matching",
     "x = torch.zeros(3)\ntry:\n    x[5]\nexcept ValueError:\n    print('never')\n"),
    ("blk_dict_comprehensions",
     "x = torch.arange(12.).reshape(3, 4)\nviews = {'t': x.t(),\n         'row': x[1],\n         'col': x[:, 1]}\nfor name, v in views.items():\n    print(name, v.shape, v.stride(), v.storage_offset())\nstrides = [v.stride() for v in views.values() if v.dim() == 2]\nkeys = sorted(views.keys())\nsq = {k: len(k) for k in keys}\nprint(strides, keys, sq, list(range(2, 9, 3)), all(v.untyped_storage().data_ptr() == x.untyped_storage().data_ptr() for v in views.values()))\nrow = views['row']\n"),
    ("blk_long_loop_steps_omitted",
     "x = torch.zeros(3, dtype=torch.int64)\nfor i in range(130):\n    x.add_(1)\nbig = torch.zeros(1000)\nfor i in range(120):\n    t = big[i:]\nprint(x.tolist(), x._version)\n"),
    ("blk_generator_randint_indices",
     "g = torch.Generator().manual_seed(3)\nx = torch.arange(24).view(2, 3, 4)\nfor _ in range(5):\n    idx = tuple(int(torch.randint(0, d, (1,), generator=g)) for d in x.shape)\n    assert x[idx] == x.view(-1)[idx[0] * 12 + idx[1] * 4 + idx[2]], idx\nprint('ok')\n"),
    # ---- issue 21 (helper "autograd"): autograd over the ops explain has -----------------
    # Fence 3 of seed 003 whole (tests/data/explain_fences/fence3.py), and seed 001's
    # section 23.6 program (tests/data/explain_fences/seed001_transpose_grad.py, copied from
    # ../shared/seeds/001_ce4fc3c4ac04211f.txt), both unchanged.
    ("ag_fence3_whole", _fence("fence3.py")),
    ("ag_seed001_transpose_copy_detach_grad", _fence("seed001_transpose_grad.py")),
    ("ag_mul_add_broadcast_grads",
     "a = torch.tensor([[1., 2., 3.], [4., 5., 6.]], requires_grad=True)\nb = torch.tensor([10., 20., 30.], requires_grad=True)\ny = a * b + b\nl = y.sum()\nl.backward()\nprint(a.grad.tolist(), b.grad.tolist(), a.is_leaf, y.is_leaf, y.requires_grad, type(y.grad_fn).__name__, l.grad_fn.name())\n"),
    ("ag_sub_div_alpha_grads",
     "a = torch.tensor([1., 2., 4.], requires_grad=True)\nb = torch.tensor([2., 4., 8.], requires_grad=True)\ny = torch.sub(a, b, alpha=2) / b\ny.sum().backward()\nprint(a.grad.tolist(), b.grad.tolist(), y.grad_fn.name())\n"),
    ("ag_scalar_ops_save_wrapped_numbers",
     "w = torch.ones(3, requires_grad=True)\ny = w * 2\nz = 3 * y - 1\nq = z / 4\nr = 2 - q\n"),
    ("ag_exp_sqrt_pow_square_mean",
     "x = torch.tensor([1., 4., 9.], requires_grad=True)\ne = x.exp()\ns = x.sqrt()\np = x ** 3\nq = x.square()\nm = (s + p + q).mean()\nm.backward()\nprint(x.grad.tolist(), e.grad_fn.name(), s.grad_fn.name(), p.grad_fn.name(), q.grad_fn.name(), m.grad_fn.name())\n"),
    ("ag_exp_saves_output_graph_only",
     "w = torch.ones(4, requires_grad=True)\ny = w.exp()\nz = y.sum()\ndel y\n"),
    ("ag_sum_dims_keepdim",
     "x = torch.arange(24.).view(2, 3, 4).requires_grad_()\ny = x.sum(1)\nz = x.sum((0, 2), keepdim=True)\nm = x.mean(-1)\n(y.sum() + z.sum() * 2 + m.sum()).backward()\nprint(x.grad.tolist(), y.grad_fn.name(), m.grad_fn.name())\n"),
    ("ag_views_grads",
     "x = torch.arange(12.).view(3, 4).requires_grad_()\nt = x.t()\nr = x[1]\nsl = x[:, 1:3]\nu = x.unsqueeze(0)\ne = x[0:1].expand(3, 4)\nf = x.unfold(1, 2, 1)\np = x.permute(1, 0)\nd = x.diagonal()\nfor v in (t, r, sl, u, e, f, p, d):\n    print(type(v.grad_fn).__name__, v.shape, v.stride())\nl = t.sum() + (r * 2).sum() + (sl * 3).sum() + u.sum() + e.sum() + f.sum() + p.sum() + d.sum()\nl.backward()\nprint(x.grad.tolist())\n"),
    ("ag_reshape_copy_clone_to",
     "x = torch.arange(6.).view(2, 3).requires_grad_()\nr = x.t().reshape(6)\nv = x.reshape(3, 2)\nc = x.clone()\nd = x.to(torch.float64)\nk = x.t().contiguous()\nfor y in (r, v, c, d, k):\n    print(type(y.grad_fn).__name__, y.dtype, y.stride())\n(r * torch.arange(6.)).sum().backward()\nprint(x.grad.tolist())\n(d * 2).sum().backward()\nprint(x.grad.tolist(), x.grad.dtype)\n"),
    ("ag_backward_with_gradient",
     "x = torch.tensor([1., 2., 3.], requires_grad=True)\ny = x * x\ny.backward(torch.tensor([1., 0.5, 2.]))\nprint(x.grad.tolist())\n"),
    ("ag_retain_graph_accumulates",
     "x = torch.tensor([1., 2.], requires_grad=True)\ny = (x * x).sum()\ny.backward(retain_graph=True)\ny.backward()\nprint(x.grad.tolist())\ny.backward()\n"),
    ("ag_retain_grad_non_leaf",
     "x = torch.tensor([1., 2.], requires_grad=True)\ny = x * 3\ny.retain_grad()\nz = (y * y).sum()\nz.backward()\nprint(y.grad.tolist(), x.grad.tolist())\n"),
    ("ag_no_grad_block_update",
     "w = torch.tensor([1., 2., 3.], requires_grad=True)\nloss = (w * w).sum()\nloss.backward()\nwith torch.no_grad():\n    w.sub_(w.grad * 0.1)\n    v = w * 2\nprint(w.tolist(), w.requires_grad, v.requires_grad, torch.is_grad_enabled())\n"),
    ("ag_detach_shares_storage",
     "w = torch.ones(3, requires_grad=True)\nd = w.detach()\nd.add_(1)\nprint(w.tolist(), d.requires_grad, w._version, d._version)\n"),
    ("ag_version_error_saved_output",
     "x = torch.ones(3, requires_grad=True)\ne = x.exp()\ne.add_(1)\ne.sum().backward()\n"),
    ("ag_version_error_saved_leaf_no_grad",
     "x = torch.ones(3, requires_grad=True)\nq = x * x\nwith torch.no_grad():\n    x.mul_(2)\nq.sum().backward()\n"),
    ("ag_version_error_catch",
     "w = torch.ones(2, 3, requires_grad=True)\ny = w * 2\nz = y * y\ny.add_(1)\ntry:\n    z.sum().backward()\nexcept RuntimeError as err:\n    print(str(err))\n"),
    ("ag_inplace_on_leaf_error",
     "x = torch.ones(3, requires_grad=True)\nx.add_(1)\n"),
    ("ag_inplace_on_view_of_leaf_error",
     "x = torch.ones(3, requires_grad=True)\nx[0].mul_(2)\n"),
    ("ag_backward_twice_error",
     "x = torch.ones(3, requires_grad=True)\ny = (x * x).sum()\ny.backward()\ny.backward()\n"),
    ("ag_backward_non_scalar_error",
     "x = torch.ones(3, requires_grad=True)\n(x * 2).backward()\n"),
    ("ag_backward_no_grad_error",
     "x = torch.ones(3)\nx.sum().backward()\n"),
    ("ag_integer_requires_grad_errors",
     "for src in range(2):\n    try:\n        if src == 0:\n            torch.zeros(3, dtype=torch.long, requires_grad=True)\n        else:\n            torch.zeros(3, dtype=torch.long).requires_grad_()\n    except RuntimeError as e:\n        print(str(e))\n"),
    ("ag_requires_grad_non_leaf_error",
     "x = torch.ones(3, requires_grad=True)\ny = x * 2\ny.requires_grad_(False)\n"),
    ("ag_retain_grad_error",
     "x = torch.ones(3)\nx.retain_grad()\n"),
    ("ag_inplace_add_on_non_leaf",
     "x = torch.tensor([1., 2.], requires_grad=True)\ny = x * 1\ny.add_(x)\ny.mul_(3)\ny.sum().backward()\nprint(x.grad.tolist(), y.grad_fn.name(), y._version)\n"),
    ("ag_print_grad_fn_suffix",
     "x = torch.tensor([1., 2.], requires_grad=True)\nprint(x)\nprint(x * 2)\nprint(x.sum())\n"),
    ("blk_conditional_expression_and_del_in_loop",
     "keep = torch.ones(2)\nfor i in range(3):\n    tmp = torch.zeros(4) if i % 2 == 0 else torch.zeros(8)\n    del tmp\nlast = keep if keep.numel() > 1 else None\n"),
]
