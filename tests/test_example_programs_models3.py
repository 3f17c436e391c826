"""Model families re-created as stand-alone programs (own code after the public repositories' idioms, synthetic
data, no downloads) and run unmodified under the drop-in runner: DLRM (facebookresearch/dlrm: ``EmbeddingBag``
with offsets and ``per_sample_weights``, ``sparse=True`` gradients stepped by ``SparseAdam``, the ``bmm`` dot
interaction with ``tril_indices``) and Neural Collaborative Filtering (NeuMF, hit ratio / NDCG evaluation).

Each program in tests/programs/ex_*.py seeds torch, trains a few steps and prints one fact per line. It runs
with plain python (real torch, the oracle) and under ``python -m torchlike run``; the printed lines must
match, numbers within ``rtol`` (``conftest.lib_program_vs_torch``), and a few key lines are checked exactly."""
import pytest
from conftest import program_matches_torch

PROGRAMS_AND_TOLERANCES = [
    ("ex_dlrm_ncf.py", 1e-4),
]
REQUIRES = {}
KEY_LINES = {  # lines each program must print exactly (under both libraries)
    "ex_dlrm_ncf.py": [
        "dlrm bags [(10, 8), (7, 8), (13, 8)] EmbeddingBag(10, 8, mode='sum')",
        "bag (16, 8) matches manual True",
        "emb grad sparse True torch.sparse_coo 1 dense grad torch.strided",
        "sparse grad rows True",
        "load <All keys matched successfully>",
        "ncf Linear(in_features=64, out_features=32, bias=True) 16",
    ],
}


@pytest.mark.parametrize("name,rtol", PROGRAMS_AND_TOLERANCES, ids=[p[0][3:-3] for p in PROGRAMS_AND_TOLERANCES])
def test_model_program_matches_torch(name, rtol):
    program_matches_torch(name, rtol, KEY_LINES[name], REQUIRES.get(name, ()))
