import torch

x = torch.arange(12.).reshape(3, 4)
sp = lambda t: t.untyped_storage().data_ptr()
for name, v in {"slice": x[1:, ::2], "transpose": x.transpose(0, 1),
                "expand": x[:1].expand(5, 4), "unfold": x.reshape(-1).unfold(0, 4, 2),
                "diagonal": x.diagonal(), "narrow": x.narrow(1, 1, 2)}.items():
    assert sp(v) == sp(x), name

xt = x.transpose(0, 1)
assert xt.is_contiguous() is False
try:
    xt.view(-1)
    raise AssertionError("view should fail on transposed tensor")
except RuntimeError as e:
    assert "view size is not compatible" in str(e)
r = xt.reshape(-1)
assert sp(r) != sp(x) and r.is_contiguous()
assert sp(x[[0, 2]]) != sp(x) and sp(x.repeat(2, 1)) != sp(x)
assert x.contiguous() is x

e = torch.zeros(1, 1000).expand(1000, 1000)
assert e.stride() == (0, 1) and e.untyped_storage().nbytes() == 4000
try:
    e.add_(1)
    raise AssertionError("in-place on expanded tensor should fail")
except RuntimeError as err:
    assert "single memory location" in str(err)
print("views share storage; reshape after transpose copies; expand has stride 0")
