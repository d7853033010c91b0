import torch

x = torch.randn(4, 8, 16, dtype=torch.float32)
print(x.shape)   # batch=4, sequence=8, hidden=16
print(x.dtype)   # float32
print(x.device)  # cpu unless moved to cuda
