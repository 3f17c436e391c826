"""Per-sample gradients with ``torchlike.func``: ``vmap(grad(loss))`` over the batch, as torch.func does.

Each row of the result is the gradient of one example's loss; their mean is the batch gradient that
``loss.backward()`` computes, which the example checks.

Run: python examples/per_sample_grads_vmap.py
"""
import torchlike as torch
from torchlike.func import functional_call, grad, vmap


def main():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(5, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))
    x, y = torch.randn(16, 5), torch.randint(0, 2, (16,))
    params = {k: v.detach() for k, v in model.named_parameters()}

    def loss_one(p, xi, yi):
        out = functional_call(model, p, (xi.unsqueeze(0),))
        return torch.nn.functional.cross_entropy(out, yi.unsqueeze(0))

    per_sample = vmap(grad(loss_one), in_dims=(None, 0, 0))(params, x, y)
    torch.nn.functional.cross_entropy(model(x), y).backward()
    for name, p in model.named_parameters():
        assert per_sample[name].shape == (16,) + tuple(p.shape)
        assert torch.allclose(per_sample[name].mean(0), p.grad, atol=1e-6), name
    norms = torch.stack([g.flatten(1).norm(dim=1) for g in per_sample.values()]).norm(dim=0)
    print("per-sample gradient norms:", [round(v, 3) for v in norms.tolist()[:4]], "...")
    return per_sample


if __name__ == "__main__":
    main()
