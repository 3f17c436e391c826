"""nn.Module is split over files by subject (module.py, _module_hooks.py, _module_state.py,
_module_convert.py) but users see torch's one class: its path, its methods, the names torch's
torch.nn.modules.module holds, and the pickle paths of the objects a module's state can hold."""
import pickle
import re
from pathlib import Path

import torch

import torchlike
import torchlike.nn.modules.module as tl_module


def test_module_is_one_class_at_torchs_path():
    assert torchlike.nn.Module is tl_module.Module
    assert (tl_module.Module.__module__, tl_module.Module.__qualname__) == ("torchlike.nn.modules.module", "Module")


def test_every_torch_module_method_is_there():
    # T_destination is a typing.TypeVar torch keeps on the class, not a method
    missing = {n for n in dir(torch.nn.Module) if not n.startswith("__")} - set(dir(torchlike.nn.Module))
    assert missing <= {"T_destination", "_maybe_warn_non_full_backward_hook", "_slow_forward"}, missing


def test_module_class_shape_is_torchs():
    # the files are parts copied into the class, not bases: torch's MRO, and torch's methods in vars(Module)
    # (lazy-importer's ``class Net(nn.Module)`` printed ``__mro__`` [Net, Module, _ModuleHooks] under the runner)
    names = lambda cls: [c.__name__ for c in cls.__mro__]  # noqa: E731
    assert names(torchlike.nn.Module) == names(torch.nn.Module)
    assert names(torchlike.nn.Linear) == names(torch.nn.Linear)
    assert names(torchlike.nn.Sequential) == names(torch.nn.Sequential)
    own = {n for n in vars(torch.nn.Module) if not n.startswith("__") or n == "__call__"}
    missing = own - set(vars(torchlike.nn.Module))
    assert missing <= {"T_destination", "_maybe_warn_non_full_backward_hook", "_slow_forward"}, missing
    for name in ("state_dict", "register_forward_hook", "to", "__call__"):
        ours, theirs = getattr(torchlike.nn.Module, name), getattr(torch.nn.Module, name)
        assert ours.__qualname__ == theirs.__qualname__
        assert ours.__module__.replace("torchlike", "torch") == theirs.__module__


def test_torchs_module_level_names_live_at_torchs_path():
    names = ["Module", "_IncompatibleKeys", "_WrappedHook", "_addindent"] + [
        n for n in dir(torch.nn.modules.module) if n.startswith("register_module_")]
    assert len(names) > 10
    for name in names:
        obj = getattr(tl_module, name)
        assert getattr(torch.nn.modules.module, name).__module__ == "torch.nn.modules.module"
        assert obj.__module__ == "torchlike.nn.modules.module", name


def test_pickle_paths_of_hooks_and_results():
    m = torchlike.nn.Linear(2, 2)
    m.register_load_state_dict_pre_hook(print)          # held as a _WrappedHook
    report = m.load_state_dict(m.state_dict())
    blob = pickle.dumps((m, report))
    paths = set(re.findall(rb"torchlike[\w.]*", blob))
    assert paths == {b"torchlike.nn.modules.linear", b"torchlike.nn.modules.module", b"torchlike.nn.parameter"}
    m2, report2 = pickle.loads(blob)
    assert type(report2) is tl_module._IncompatibleKeys and repr(report2) == repr(report)
    assert isinstance(next(iter(m2._load_state_dict_pre_hooks.values())), tl_module._WrappedHook)


def test_module_files_are_small():
    here = Path(tl_module.__file__).parent
    for name in ("module.py", "_module_hooks.py", "_module_state.py", "_module_convert.py"):
        assert len((here / name).read_text().splitlines()) <= 800, name


def test_torchs_private_module_level_names_libraries_read():
    # transformers reads torch.nn.modules.module._EXTRA_STATE_KEY_SUFFIX; hook-inspecting libraries the tables
    import torch.nn.modules.module as theirs
    import torchlike.nn.modules.module as ours
    names = ["_EXTRA_STATE_KEY_SUFFIX", "_global_forward_pre_hooks", "_global_forward_hooks",
             "_global_forward_hooks_with_kwargs", "_global_forward_hooks_always_called",
             "_global_backward_pre_hooks", "_global_backward_hooks", "_global_buffer_registration_hooks",
             "_global_module_registration_hooks", "_global_parameter_registration_hooks"]
    for n in names:
        assert type(getattr(ours, n)) is type(getattr(theirs, n)), n
    assert ours._EXTRA_STATE_KEY_SUFFIX == theirs._EXTRA_STATE_KEY_SUFFIX
    h = ours.register_module_forward_hook(lambda m, i, o: None)
    assert len(ours._global_forward_hooks) == 1
    h.remove()
    assert len(ours._global_forward_hooks) == 0


def test_layers_define_forward_where_torch_does():
    # Conv2d, ConvTranspose2d, LSTM, Sigmoid... shared a private base's forward: ``vars(nn.Conv2d)`` lacked it and
    # Python's argument error named the base ("_Conv.forward() takes 2 positional arguments but 5 were given",
    # from a forward_pre_hook whose return value replaced the input); torch's RNNBase has no forward at all
    import inspect
    for name in dir(torch.nn):
        theirs = getattr(torch.nn, name)
        if not (inspect.isclass(theirs) and issubclass(theirs, torch.nn.Module)) or not hasattr(torchlike.nn, name):
            continue
        ours = getattr(torchlike.nn, name)
        assert ("forward" in vars(ours)) == ("forward" in vars(theirs)), name
        if "forward" in vars(theirs):  # (inherited ones come from private bases that are laid out differently)
            assert ours.forward.__qualname__ == theirs.forward.__qualname__, name
    errors = []
    for lib in (torch, torchlike):
        for make in (lambda: lib.nn.Conv2d(1, 1, 1), lambda: lib.nn.LSTM(2, 2), lambda: lib.nn.Sigmoid()):
            try:
                make()(1, 2, 3, 4)
            except TypeError as e:
                errors.append(str(e))
    assert errors[:3] == errors[3:] and "Conv2d.forward() takes 2 positional arguments" in errors[0], errors
    assert torchlike.nn.LSTM.forward is not torchlike.nn.GRU.forward


def test_user_subclass_inherits_the_layers_forward():
    for lib in (torch, torchlike):
        class MyConv(lib.nn.Conv2d):
            pass
        assert "forward" not in vars(MyConv) and MyConv.forward.__qualname__ == "Conv2d.forward"
        x = lib.ones(1, 1, 3, 3)
        assert tuple(MyConv(1, 2, 3)(x).shape) == (1, 2, 1, 1)
