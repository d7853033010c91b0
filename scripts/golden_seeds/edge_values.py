"""Edge cases of values and dtypes: integer wrapping, conversions, half rounding, non-finite
values, `alpha`, dtype errors, tensor inference, arange and filled empties.
"""

SEEDS: list[tuple[str, str]] = [
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
]
