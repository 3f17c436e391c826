"""Programs in the style of the classic pytorch/examples scripts, vision and generative models (VAE, DCGAN,
super-resolution / siamese, STN, a split CIFAR CNN, WGAN-GP with SWA, the classic MNIST train/test loop, the
Annotated Diffusion DDPM U-Net, fast_neural_style's TransformerNet training and checkpoint cleanup), run unmodified under the drop-in
runner.

Each program in tests/programs/ex_*.py (own code, synthetic data, no downloads) seeds torch, trains a few
steps and prints its losses/metrics in a fixed format. It runs twice: with plain python (real torch, the
oracle) and under ``python -m torchlike run``; the printed lines must match, numbers within float32
tolerance (``conftest.example_program_vs_torch``). The programs are split over four files by subject so that
``pytest -n 2 --dist loadfile`` can spread them over both workers.
"""
import pytest
from conftest import example_program_vs_torch

PROGRAMS_AND_TOLERANCES = [
    ("ex_vae.py", 0.0001),
    ("ex_dcgan.py", 0.0002),
    ("ex_super_resolution_siamese.py", 0.0002),
    ("ex_seq_and_stn.py", 0.0001),
    ("ex_cifar_cnn_split.py", 0.0001),
    ("ex_wgan_gp_swa.py", 0.0001),
    ("ex_mnist_classic.py", 0.0001),
    ("ex_annotated_diffusion.py", 0.0001),
    ("ex_fast_neural_style.py", 0.0002),
]
REQUIRES = {  # libraries a program imports (the test skips without them)
    "ex_annotated_diffusion.py": ("einops", "tqdm"),
}


@pytest.mark.parametrize("name,rtol", PROGRAMS_AND_TOLERANCES, ids=[p[0][3:-3] for p in PROGRAMS_AND_TOLERANCES])
def test_example_program_matches_torch(name, rtol):
    example_program_vs_torch(name, rtol, *REQUIRES.get(name, ()))
