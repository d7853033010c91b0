"""Edge cases of layouts: 0-d and size-0 tensors, channels_last, memory formats, stride-0
writes, overlapping copies and indexed assignment.
"""

SEEDS: list[tuple[str, str]] = [
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
]
