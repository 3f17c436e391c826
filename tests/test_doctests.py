"""The runnable examples in torchlike's docstrings run and print what they show."""
import doctest
import importlib
import pkgutil
import warnings

import pytest

import torchlike


def _modules():
    for info in pkgutil.walk_packages(torchlike.__path__, "torchlike."):
        if "_runner_site" not in info.name and not info.name.endswith("__main__"):
            yield info.name


@pytest.mark.parametrize("name", sorted(_modules()))
def test_docstring_examples(name):
    try:
        mod = importlib.import_module(name)
    except ModuleNotFoundError as e:  # an optional dependency, required as torch requires it (tensorboard)
        if e.name and e.name.split(".")[0] not in ("torchlike", "jax", "numpy"):
            pytest.skip(f"{name} needs {e.name}")
        raise
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for test in doctest.DocTestFinder().find(mod, name):
            if test.examples:
                runner.run(test, out=out.append)
    assert runner.failures == 0, "".join(out)
