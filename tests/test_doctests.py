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
    mod = importlib.import_module(name)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for test in doctest.DocTestFinder().find(mod, name):
            if test.examples:
                runner.run(test, out=out.append)
    assert runner.failures == 0, "".join(out)
