"""sbi (simulation-based inference): a toy simulator with a BoxUniform prior checked and simulated through sbi's
input utilities; NPE with nflows' MAF, a mixture density network and zuko's NSF (training losses, posterior
samples, log_prob with leakage correction, MAP, a torch.save/torch.load round trip of the posterior, a posterior
predictive check), NLE with vectorized slice-sampling MCMC, NRE_C with rejection sampling, flow-matching NPE
(FMPE, sampled by an ODE solve) and simulation-based calibration ranks.  Values print rounded; shapes and names
exactly.  Runs in a temporary directory (sbi writes tensorboard logs to ./sbi-logs).  (nflows'
rational-quadratic NSF is left out: its boolean-mask indexing gives every batch a new shape, each compiled anew
under torchlike, minutes on a 2-core machine.)
"""
import io
import os
import tempfile

import numpy as np
import torch
from sbi.diagnostics import run_sbc
from sbi.inference import FMPE, NLE, NPE, NRE_C, simulate_for_sbi
from sbi.neural_nets import likelihood_nn, posterior_nn
from sbi.utils import BoxUniform
from sbi.utils.user_input_checks import check_sbi_inputs, process_prior, process_simulator


def r(x, n=3):
    return round(float(x), n)


def rl(t, n=3):
    return [r(v, n) for v in t.flatten()]


def simulator(theta):
    return torch.cat([theta + 0.1 * torch.randn_like(theta), (theta ** 2).sum(-1, keepdim=True)], -1)


def main():
    os.chdir(tempfile.mkdtemp())
    torch.manual_seed(0)
    np.random.seed(0)
    prior = BoxUniform(low=-2 * torch.ones(2), high=2 * torch.ones(2))
    prior, num_parameters, returns_numpy = process_prior(prior)
    sim = process_simulator(simulator, prior, returns_numpy)
    check_sbi_inputs(sim, prior)
    theta, x = simulate_for_sbi(sim, prior, num_simulations=200, show_progress_bar=False)
    print("sims", num_parameters, type(prior).__name__, tuple(theta.shape), tuple(x.shape), r(theta.sum()), r(x.sum()))
    print("prior", rl(prior.log_prob(torch.tensor([[0.0, 0.0], [3.0, 0.0]]))), tuple(prior.sample((5,)).shape))
    x_o = torch.tensor([[0.5, -0.5, 0.5]])

    for name, estimator in [("maf", posterior_nn("maf", hidden_features=20, num_transforms=2)),
                            ("mdn", "mdn"),
                            ("zuko_nsf", posterior_nn("zuko_nsf", hidden_features=16, num_transforms=2))]:
        torch.manual_seed(1)
        inference = NPE(prior=prior, density_estimator=estimator, show_progress_bars=False)
        est = inference.append_simulations(theta, x).train(max_num_epochs=2, training_batch_size=50)
        summary = inference.summary
        print(name, type(est).__name__, sum(p.numel() for p in est.parameters()), summary["epochs_trained"],
              rl(torch.tensor(summary["training_loss"])), rl(torch.tensor(summary["validation_loss"])))
        posterior = inference.build_posterior(est)
        samples = posterior.sample((100,), x=x_o, show_progress_bars=False)
        print(name, "samples", tuple(samples.shape), samples.dtype, rl(samples.mean(0)), rl(samples.std(0)))
        torch.manual_seed(2)
        print(name, "log_prob", rl(posterior.log_prob(samples[:4], x=x_o), 2))
        print(name, "log_prob unnormalized", rl(posterior.log_prob(samples[:4], x=x_o, norm_posterior=False)))
        predictive = simulator(samples)
        print(name, "ppc", tuple(predictive.shape), rl(predictive.mean(0) - x_o[0]))
        buf = io.BytesIO()
        torch.save(posterior, buf)
        buf.seek(0)
        reloaded = torch.load(buf, weights_only=False)
        print(name, "reload", type(reloaded).__name__,
              rl(reloaded.log_prob(samples[:2], x=x_o, norm_posterior=False)))
        posterior.set_default_x(x_o)
        torch.manual_seed(3)
        print(name, "map", rl(posterior.map(num_iter=20, num_init_samples=50, show_progress_bars=False), 2))

    torch.manual_seed(4)
    np.random.seed(4)
    nle = NLE(prior=prior, density_estimator=likelihood_nn("maf", hidden_features=16, num_transforms=2),
              show_progress_bars=False)
    est = nle.append_simulations(theta, x).train(max_num_epochs=2, training_batch_size=50)
    print("nle", type(est).__name__, rl(torch.tensor(nle.summary["training_loss"])))
    posterior = nle.build_posterior(est, mcmc_method="slice_np_vectorized",
                                    mcmc_parameters=dict(num_chains=4, thin=1, warmup_steps=10, init_strategy="proposal"))
    samples = posterior.sample((40,), x=x_o, show_progress_bars=False)
    print("nle mcmc", type(posterior).__name__, tuple(samples.shape), rl(samples.mean(0)))
    print("nle potential", rl(posterior.potential(samples[:3], x=x_o), 2))

    torch.manual_seed(5)
    nre = NRE_C(prior=prior, show_progress_bars=False)
    est = nre.append_simulations(theta, x).train(max_num_epochs=2, training_batch_size=50)
    print("nre_c", type(est).__name__, rl(torch.tensor(nre.summary["training_loss"])))
    posterior = nre.build_posterior(est, sample_with="rejection")
    samples = posterior.sample((50,), x=x_o, show_progress_bars=False)
    print("nre_c rejection", type(posterior).__name__, tuple(samples.shape), rl(samples.mean(0)))

    torch.manual_seed(6)
    fmpe = FMPE(prior=prior, show_progress_bars=False)
    est = fmpe.append_simulations(theta, x).train(max_num_epochs=2, training_batch_size=50)
    print("fmpe", type(est).__name__, rl(torch.tensor(fmpe.summary["training_loss"])))
    posterior = fmpe.build_posterior(est)
    samples = posterior.sample((50,), x=x_o, show_progress_bars=False)
    print("fmpe samples", type(posterior).__name__, tuple(samples.shape), rl(samples.mean(0)))

    torch.manual_seed(7)
    npe = NPE(prior=prior, density_estimator="mdn", show_progress_bars=False)
    npe.append_simulations(theta, x).train(max_num_epochs=2, training_batch_size=50)
    thetas = prior.sample((20,))
    ranks, dap_samples = run_sbc(thetas, simulator(thetas), npe.build_posterior(), num_posterior_samples=30,
                                 num_workers=1, show_progress_bar=False)
    print("sbc", tuple(ranks.shape), ranks.dtype, rl(ranks.float().mean(0)), tuple(dap_samples.shape))


if __name__ == "__main__":
    main()
