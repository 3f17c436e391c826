"""Conformance harness: torchlike vs PyTorch's OpInfo database (``python -m conformance``).

See ``conformance/__main__.py`` for the command line and ``conformance/REPORT.md`` for the latest results.
``conformance/optim_conformance.py`` (optimizers) is a separate script that lives alongside.
"""
