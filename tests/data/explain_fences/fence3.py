import torch

x = torch.zeros(2, 3)
v = x[0]
v0 = x._version
v.add_(1)
assert torch.equal(x[0], torch.ones(3)) and torch.equal(x[1], torch.zeros(3))
assert x._version == v0 + 1 and v._version == x._version

sp = lambda t: t.untyped_storage().data_ptr()
w = torch.ones(3, requires_grad=True)
c, d = w.clone(), w.detach()
assert sp(c) != sp(w) and c.grad_fn is not None
assert sp(d) == sp(w) and d.requires_grad is False

y = w * 2
z = y * y
y.add_(1)
try:
    z.sum().backward()
    raise AssertionError("backward should detect the in-place change")
except RuntimeError as err:
    assert "modified by an inplace operation" in str(err)
print("write-through, shared version counter, and autograd check behave as described")
