"""Hand-written golden programs: every worked example of ../shared/seeds plus edge cases.

Each entry is (name, program).  scripts/gen_programs.py runs them under PyTorch and writes
tests/golden/seeds.jsonl (and large.jsonl.gz for reports too big for plain text).
"""

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
]
