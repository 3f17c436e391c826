"""bayesian-torch 0.5.0 under the drop-in runner, compared line by line with real torch: dnn_to_bnn on a trained
CNN with MOPED priors, ELBO training (cross-entropy plus get_kl_loss), Monte Carlo predictions with predictive
entropy and mutual information, hand-built Flipout/Reparameterization layers (Conv1d, Linear, ConvTranspose2d)
trained with SGD, LSTMReparameterization/LSTMFlipout trained with a head (their rho gradients read the eps
buffer as rewritten through .data at the last time step, as torch's backward does), and a state_dict round trip.
(bayesian_torch imports torch.nn.quantized.BatchNorm2d, which torchlike now has: tests/test_quantized_static.py.)"""
from conftest import lib_program_vs_torch


def test_bayesian_torch_like_torch():
    _, ours = lib_program_vs_torch("lib_bayesian_torch.py", "bayesian_torch", timeout=600, rtol=1e-4)
    assert len(ours) == 23, ours
    assert ours[1] == "bnn layers ['Conv2dReparameterization', 'ReLU', 'MaxPool2d', 'Flatten', " \
        "'LinearReparameterization']", ours[1]
    assert ours[2] == "bnn params 470 ['mu_bias', 'mu_kernel', 'rho_bias', 'rho_kernel']", ours[2]
    assert ours[-1] == "reloaded True", ours[-1]
