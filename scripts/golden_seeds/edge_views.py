"""Edge cases of views and indexing (view, expand, select, narrow, permute, diagonal, squeeze,
unfold, as_strided, flatten, names and versions, index_select), devices on the CPU, and the
reports too large for plain text (large.jsonl.gz).
"""

SEEDS: list[tuple[str, str]] = [
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
]
