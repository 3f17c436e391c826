"""torch.device accepts every device type torch's parser knows (a device object of an absent backend can be
made, printed, compared and hashed; libraries build them to probe, e.g. torch.serialization's validators)."""
import warnings

import pytest
import torch

import torchlike
from conftest import raises_like_torch

TORCH_TYPES = ["cpu", "cuda", "ipu", "xpu", "opengl", "opencl", "ideep", "hip", "ve", "fpga", "maia", "xla", "lazy",
               "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone"]


@pytest.mark.parametrize("name", TORCH_TYPES + ["hpu:1", "xpu:0", "privateuseone:3"])
def test_device_of_every_torch_device_type_like_torch(name):
    ours, theirs = torchlike.device(name), torch.device(name)
    assert (repr(ours), str(ours), ours.type, ours.index) == (repr(theirs), str(theirs), theirs.type, theirs.index)
    assert ours == torchlike.device(name) and hash(ours) == hash(torchlike.device(name))


def test_mkldnn_device_warns_like_torch():
    for m in (torch, torchlike):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            assert m.device("mkldnn").type == "mkldnn"
        assert [str(x.message) for x in w if "mkldnn" in str(x.message)], m.__name__
        assert str(w[-1].message).startswith("'mkldnn' is no longer used as device type. So torch.device('mkldnn') "
                                             "will be deprecated and removed in the future.")


@pytest.mark.parametrize("name", ["foo", "CPU", "cuda:x", "hpu:1:2", "float32", "cuda1", "cpu:-1", "cuda:-2", "",
                                  "cuda:", "cuda:00", "cuda:01", "cpu ", " cpu", "cuda:2147483648"])
def test_unknown_device_types_raise_like_torch(name):
    """c10's parser: a name of letters and '_', then ':' and an index without sign or leading zero; a string it
    cannot read is "Invalid device string" (``x.to('float32')``: a dtype's name where a device was meant), one it
    reads with an unknown name is "Expected one of ..." """
    raises_like_torch(lambda m: m.device(name))


@pytest.mark.parametrize("args", [("cuda:0", None), ("cuda:0", 0), ("cuda", -1), ("cuda", "0"), ("cuda", True),
                                  ("cuda", 1.0)])
def test_device_index_argument_errors_like_torch(args):
    raises_like_torch(lambda m: m.device(*args))


def test_device_strings_and_indices_parsed_like_torch():
    for args in [("cuda:127",), ("cpu:0",), ("my_dev_is_not",), ("cuda", None), ("cpu", 1), ("meta:0",)]:
        try:
            want = repr(torch.device(*args))
        except RuntimeError as e:
            want = str(e)
        try:
            got = repr(torchlike.device(*args))
        except RuntimeError as e:
            got = str(e)
        assert got == want, args


INT_DEVICE_CALLS = {
    "device(0)": lambda m: m.device(0), "device(-1)": lambda m: m.device(-1),
    "tensor(device=0)": lambda m: m.tensor([1], device=0), "zeros(device=0)": lambda m: m.zeros(1, device=0),
    "x.cuda(0)": lambda m: m.ones(1).cuda(0), "x.cuda()": lambda m: m.ones(1).cuda(),
    "x.cuda('cuda:0')": lambda m: m.ones(1).cuda("cuda:0"), "x.to(0)": lambda m: m.ones(1).to(0),
    "Linear.cuda(0)": lambda m: m.nn.Linear(1, 1).cuda(0), "Linear.cuda()": lambda m: m.nn.Linear(1, 1).cuda(),
    "new_ones(device=0)": lambda m: m.ones(1).new_ones(1, device=0),
}


@pytest.mark.skipif(torchlike.cuda.is_available(), reason="torch here is CPU-only: an int device is a GPU here")
@pytest.mark.parametrize("call", list(INT_DEVICE_CALLS))
def test_int_device_without_an_accelerator_raises_like_torch(call):
    """An int device is an index of the current accelerator: without one torch raises "Cannot access
    accelerator device when none is available." (RuntimeError) where a 'cuda' device gives its AssertionError
    (torch.device(0), device=0, x.cuda(0), module.cuda(0) said "Torch not compiled with CUDA enabled" here)."""
    raises_like_torch(INT_DEVICE_CALLS[call])


def test_cpu_with_an_index_places_tensors_on_cpu_like_torch():
    # d3rlpy's device="cpu:0": what is made or moved there is on 'cpu', so it mixes with every other CPU tensor
    def facts(T):
        x = T.ones(2)
        made = [T.ones(2, device="cpu:0"), T.zeros(1, device=T.device("cpu", 0)), T.arange(3, device="cpu:0"),
                T.empty(2, device="cpu:0"), x.new_zeros(2, device="cpu:0"), T.zeros_like(x, device="cpu:0"),
                T.tensor([1.0], device="cpu:0"), T.as_tensor([1.0], device="cpu:0"), x.to("cpu:0"), x.cpu()]
        lin = T.nn.Linear(2, 2).to("cpu:0")
        out = lin(T.ones(1, 2))  # a cpu:0 module on a cpu input
        T.set_default_device("cpu:0")
        try:
            default = (repr(T.get_default_device()), str(T.ones(1).device))
        finally:
            T.set_default_device(None)
        return ([str(t.device) for t in made], str(lin.weight.device), str(out.device), str(made[0] + x),
                str(T.Generator(device="cpu:0").device), default, x.device == T.device("cpu:0"))
    assert facts(torchlike) == facts(torch)


def test_to_cpu_with_an_index_copies_like_torch():
    # torch's parser keeps 'cpu:0', which is not the tensor's 'cpu': to() copies, and the copy is on 'cpu'
    def facts(T):
        x = T.ones(3)
        out = []
        for d in ("cpu:0", T.device("cpu", 0), "cpu"):
            y = x.to(d)
            out.append((y is x, str(y.device)))
        y = x.to("cpu:0", T.float32)
        y[0] = 5.0
        return out, x.tolist(), str(T._C._nn._parse_to("cpu:0")[0]), str(T._C._nn._parse_to("cpu")[0])
    assert facts(torchlike) == facts(torch)
