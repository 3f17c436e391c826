"""The per-test "compared nothing" guard in conftest.py: a test whose same_as_torch calls compared no value
(every tensor empty) fails at teardown unless it is marked ``compares_empty``."""
import numpy as np
import pytest

import conftest
from conftest import same_as_torch

pytest_plugins = ["pytester"]


@pytest.mark.compares_empty
def test_an_empty_comparison_counts_no_value():
    same_as_torch(lambda m, x: x[:0] * 2, np.ones(3, np.float32), grad=False)
    assert conftest._COMPARED == {"calls": 1, "values": 0}  # the guard would fail this test without the mark


def test_values_are_counted():
    same_as_torch(lambda m, x: (x * 2, x.sum().item(), x.dtype), np.ones(3, np.float32), grad=False)
    assert conftest._COMPARED == {"calls": 1, "values": 3 + 1 + 1}


def test_the_guard_fails_a_test_that_compared_nothing(pytester):
    pytester.makeconftest(open(conftest.__file__).read())
    pytester.makepyfile(test_x="""
import numpy as np
from conftest import same_as_torch

def test_empty():
    same_as_torch(lambda m, x: x[:0], np.ones(3, np.float32), grad=False)

def test_full():
    same_as_torch(lambda m, x: x + 1, np.ones(3, np.float32), grad=False)
""")
    r = pytester.runpytest_subprocess("-q", "-p", "no:cacheprovider")
    r.assert_outcomes(passed=2, errors=1)
    r.stdout.fnmatch_lines(["*test_empty*compared no value*"])
