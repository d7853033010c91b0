import torch

x = torch.tensor([[0., 1., 2.], [3., 4., 5.]], requires_grad=True)
t = x.T
c = t.contiguous()
alias = x.detach()
assert t.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
assert c.untyped_storage().data_ptr() != x.untyped_storage().data_ptr()
assert alias.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
assert not alias.requires_grad
for name, value in [("x", x), ("t", t), ("c", c)]:
    print(name, value.shape, value.stride(), value.storage_offset(),
          value.requires_grad, type(value.grad_fn).__name__)
loss = c.square().sum()
loss.backward()
assert torch.allclose(x.grad, 2 * x.detach())
print(loss.item(), x.grad)
