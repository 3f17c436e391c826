"""vector-quantize-pytorch (VectorQuantize with EMA codebooks, k-means init, dead-code expiry, cosine similarity,
multi-head codebooks, masks; ResidualVQ; FSQ; LFQ; SimVQ, LatentQuantize, ResidualFSQ/LFQ, GroupedResidualVQ) as the bottleneck of a tiny autoencoder trained a few steps under
the drop-in runner, compared line by line with the same program under real torch."""
from conftest import lib_program_vs_torch


def test_vector_quantize_autoencoders_train_like_torch():
    _, ours = lib_program_vs_torch("lib_vector_quantize.py", "torch", "vector_quantize_pytorch", timeout=900,
                                   rtol=1e-4)
    assert len(ours) == 35, ours

    def line(prefix):
        return next(text for text in ours if text.startswith(prefix + " "))

    assert ours[0] == "vq initted before False [1, 12, 6]"
    assert line("vq initted True").startswith("vq initted True cluster_size"), ours[3]
    assert line("vq eval").endswith("frozen True"), line("vq eval")
    assert line("vq reload") == "vq reload same True True"
    assert line("cos vq losses").startswith("cos vq losses [("), ours
    assert "pad zero True" in ours[13] and "-1, -1]]" in ours[13], ours[13]
    assert line("rvq from").startswith("rvq from indices True"), line("rvq from")
    assert line("fsq round") == "fsq round trip True"
    assert line("fsq levels").endswith("torch.int32"), line("fsq levels")
    assert line("lfq losses").startswith("lfq losses [("), line("lfq losses")
    for name, shape in (("simvq", "[2, 10]"), ("latentq", "[2, 2, 5]"), ("rfsq", "[2, 10, 3]"), ("rlfq", "[2, 10, 2]"),
                        ("grvq", "[2, 2, 10, 2]")):
        assert f" {shape} [" in line(name), line(name)
