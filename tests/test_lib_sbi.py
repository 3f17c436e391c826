"""sbi 0.27.0 (simulation-based inference: NPE with nflows' MAF, an MDN and zuko's NSF, NLE with slice-sampling
MCMC, NRE_C with rejection sampling, flow-matching FMPE, posterior log_prob/MAP/save-load, a posterior predictive
check and SBC ranks) under the drop-in runner, compared line by line with the same program under real torch.
"""
from conftest import lib_program_vs_torch


def test_sbi_npe_nle_nre_fmpe_like_torch():
    _, ours = lib_program_vs_torch("lib_sbi.py", "torch", "sbi", "zuko", "nflows", timeout=900, rtol=2e-3)
    assert len(ours) == 31, ours
    line = {" ".join(text.split(" ")[:2]): text for text in ours}
    assert ours[0].startswith("sims 2 BoxUniform (200, 2) (200, 3) "), ours[0]
    assert ours[1] == "prior [-2.773, -inf] (5, 2)", ours[1]
    assert line["maf NFlowsFlow"].startswith("maf NFlowsFlow 2128 [3] "), line["maf NFlowsFlow"]
    assert line["mdn MixtureDensityEstimator"].startswith("mdn MixtureDensityEstimator 5810 [3] ")
    assert line["zuko_nsf ZukoFlow"].startswith("zuko_nsf ZukoFlow 2708 [3] ")
    for name in ("maf", "mdn", "zuko_nsf"):
        assert line[f"{name} samples"].startswith(f"{name} samples (100, 2) torch.float32 "), line[f"{name} samples"]
        assert line[f"{name} ppc"].startswith(f"{name} ppc (100, 3) "), line[f"{name} ppc"]
        assert line[f"{name} reload"].startswith(f"{name} reload DirectPosterior "), line[f"{name} reload"]
    assert line["nle mcmc"].startswith("nle mcmc MCMCPosterior (40, 2) "), line["nle mcmc"]
    assert line["nre_c rejection"].startswith("nre_c rejection RejectionPosterior (50, 2) ")
    assert line["fmpe samples"].startswith("fmpe samples VectorFieldPosterior (50, 2) ")
    assert line["sbc (20,"].startswith("sbc (20, 2) torch.float32 ") and line["sbc (20,"].endswith(" (20, 2)")
