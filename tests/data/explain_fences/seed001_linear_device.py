import torch
import torch.nn as nn

# The same code runs on a GPU when CUDA is available and on CPU otherwise.
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Linear(3, 2).to(device)
features = torch.tensor([[1.0, 0.0, -1.0]], device=device)

logits = model(features)
assert logits.device == features.device == next(model.parameters()).device
print(device, logits.shape)
