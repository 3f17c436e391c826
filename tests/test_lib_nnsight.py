"""nnsight 0.8.1 under the drop-in runner, compared line by line with real torch: NNsight wrapping a small
nn.Module and a GPT-2 built from a config (reading, saving and editing module inputs/outputs inside
``model.trace``, an invoke, ``with loss.backward():`` gradients, skip, cache, a session, a persistent edit,
training through traces, operation-level ``.source`` access in a user's and in torch's
modules' forwards). nnsight replaces ``Tensor.backward`` with a function that finds its caller's ``with``
block through ``sys._getframe``: it needs the ``__torch_function__`` protocol to leave a library's functions
as they are (``test_torch_function.py::test_functions_a_library_puts_on_tensor_are_called_as_they_are_like_torch``)."""
from conftest import lib_program_vs_torch


def test_nnsight_interventions_like_torch():
    _, ours = lib_program_vs_torch("lib_nnsight.py", "nnsight", timeout=600, rtol=1e-4)
    assert len(ours) == 15, ours
    assert ours[1] == "read (4, 8) 4.0709 6.348 3.8478 True", ours[1]
    assert ours[5] == "grad (4, 8) -0.8374 1.5662 1.016", ours[5]
    assert ours[9] == "persistent edit 0.4033 3.8478", ours[9]
    assert ours[10] == "train [1.5492, 1.1483, 0.9485, 0.8233] 0.4955", ours[10]
    # .source names the calls in torch's own modules' forwards (F_silu_0, F_max_pool2d_0, F_softmax_0)
    assert ours[14] == "module source (2, 2, 4, 4) 6.8782 16.0 (2, 8) 2.0", ours[14]
