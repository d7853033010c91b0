"""A CPU torch.Tensor is imported without torch's Python-level DLPack protocol calls
(python/src/torch_fast.rs): same results, and everything the protocol refuses or must
handle itself (gradients, subclasses, __torch_function__ modes) still goes through it."""

import pytest
import torch
from torch.overrides import TorchFunctionMode

import stridekit


@pytest.fixture
def protocol_calls(monkeypatch):
    """Counts calls of torch.Tensor.__dlpack__ / __dlpack_device__ (still answering them)."""
    calls = []
    dlpack, device = torch.Tensor.__dlpack__, torch.Tensor.__dlpack_device__

    def counted_dlpack(self, *args, **kwargs):
        calls.append("__dlpack__")
        return dlpack(self, *args, **kwargs)

    def counted_device(self):
        calls.append("__dlpack_device__")
        return device(self)

    monkeypatch.setattr(torch.Tensor, "__dlpack__", counted_dlpack)
    monkeypatch.setattr(torch.Tensor, "__dlpack_device__", counted_device)
    return calls


def test_cpu_tensors_skip_the_protocol_and_copy_exactly(protocol_calls):
    src = torch.arange(24.0).view(2, 3, 4).permute(2, 0, 1)
    dst = torch.empty(4, 2, 3)
    stridekit.copy_(dst, src)
    assert torch.equal(dst, src)
    c = torch.from_dlpack(stridekit.contiguous(src[1:3]))
    assert torch.equal(c, src[1:3].contiguous())
    assert protocol_calls == []


def test_a_view_destination_is_written_in_place(protocol_calls):
    base = torch.zeros(4, 4)
    stridekit.copy_(base[1:3, ::2], torch.ones(2, 2))
    assert base.sum().item() == 4.0 and base[1, 0].item() == 1.0 and base[1, 1].item() == 0.0
    assert protocol_calls == []


def test_a_tensor_that_requires_grad_gets_torchs_own_refusal(protocol_calls):
    with pytest.raises(BufferError, match="require gradient"):
        stridekit.copy_(torch.empty(3), torch.ones(3, requires_grad=True))
    assert "__dlpack__" in protocol_calls


def test_subclasses_and_function_modes_take_the_protocol(protocol_calls):
    class Sub(torch.Tensor):
        pass

    src = torch.arange(6.0).as_subclass(Sub)
    dst = torch.empty(6)
    stridekit.copy_(dst, src)
    assert torch.equal(dst, torch.arange(6.0))
    assert protocol_calls.count("__dlpack__") >= 1  # (torch_function re-enters it)

    class Passing(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))

    protocol_calls.clear()
    with Passing():
        stridekit.copy_(dst, torch.ones(6))
    assert torch.equal(dst, torch.ones(6))
    assert protocol_calls.count("__dlpack__") >= 2  # dst and src
