import os

import pytest

try:
    import torch
except ImportError:  # pragma: no cover - the test environment pins torch
    torch = None


def cuda_available() -> bool:
    return torch is not None and torch.cuda.is_available()


@pytest.fixture
def cuda():
    """Skips without a GPU; fails instead under STRIDEKIT_REQUIRE_GPU=1 (gpu-check)."""
    if not cuda_available():
        if os.environ.get("STRIDEKIT_REQUIRE_GPU") == "1":
            pytest.fail("STRIDEKIT_REQUIRE_GPU=1 but torch sees no CUDA device")
        pytest.skip("no CUDA device")
    return torch.device("cuda:0")
