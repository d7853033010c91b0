# TV-209 (seed 000): a contiguous 4 x 3 float32 base holding 0..11, its transpose view,
# and an independent contiguous materialisation of the transpose.
base = torch.arange(12, dtype=torch.float32).view(4, 3)
t = base.T
c = t.contiguous()
# Three tensors of 12 elements: 144 logical bytes, but only 96 bytes of distinct storage.
