import torch

def addr(t, idx):
    return t.storage_offset() + sum(i * s for i, s in zip(idx, t.stride()))

flat = torch.arange(24)
x = flat.view(2, 3, 4)
assert x.stride() == (12, 4, 1)
xt = x.transpose(0, 2)
assert xt.shape == (4, 3, 2) and xt.stride() == (1, 4, 12)
xs = x[1:, 1:, ::2]
assert xs.storage_offset() == 16 and xs.stride() == (12, 4, 2)

g = torch.Generator().manual_seed(3)
for t in (x, xt, xs):
    for _ in range(10):
        idx = tuple(int(torch.randint(0, d, (1,), generator=g)) for d in t.shape)
        assert flat[addr(t, idx)] == t[idx], (t.shape, idx)
        assert t.untyped_storage().data_ptr() == flat.untyped_storage().data_ptr()
print("address formula matches indexing on 3 headers x 10 indices")
