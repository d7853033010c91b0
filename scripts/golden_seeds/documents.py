"""The worked examples of the seed documents: TV-209 (seed 000) and seeds 001 to 004.
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
]
