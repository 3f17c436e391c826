"""sentence-transformers under the drop-in runner: a SentenceTransformer assembled from modules (a tiny BERT built
from a config and saved locally, mean pooling, normalisation) encodes, ranks, trains a few steps with
MultipleNegativesRankingLoss and CosineSimilarityLoss, saves and reloads; compared line by line with real torch.
"""
import os

import pytest
from conftest import lib_program_vs_torch


def test_sentence_transformers_encode_train_reload_matches_torch():
    env = dict(os.environ, HF_HUB_OFFLINE="1", TOKENIZERS_PARALLELISM="false")
    _, ours = lib_program_vs_torch("lib_sentence_transformers.py", "torch", "transformers", "sentence_transformers", env=env, timeout=900)
    assert "best match [0, 1, 2, 3, 4, 5, 6, 7]" in ours  # trained pairs find each other
    assert "reload maxdiff 0.000000" in ours


def test_printoptions_and_device_states_like_torch():
    # sentence-transformers prints model-card snippets under torch._tensor_str.printoptions and snapshots RNG
    # states with torch.utils.checkpoint.get_device_states (CPU tensors: no device states)
    torch = pytest.importorskip("torch", reason="compared with real torch")
    import torchlike
    from torchlike._tensor_str import get_printoptions, printoptions
    from torchlike.utils.checkpoint import get_device_states, set_device_states
    assert get_printoptions() == torch._tensor_str.get_printoptions()
    with printoptions(precision=2, linewidth=40):
        assert get_printoptions() == {**torch._tensor_str.get_printoptions(), "precision": 2, "linewidth": 40}
        assert repr(torchlike.tensor([1.23456])) == "tensor([1.23])"
    assert get_printoptions() == torch._tensor_str.get_printoptions()
    assert get_device_states(torchlike.ones(2), 3) == torch.utils.checkpoint.get_device_states(torch.ones(2), 3)
    set_device_states([], [])
