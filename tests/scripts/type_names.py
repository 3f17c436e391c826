import pickle

import torch

print(type(torch.ones(1)), type(torch.nn.Linear(1, 1)), type(torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1)))
print(type(torch.float32), torch.Size, type(torch.device("cpu")), torch.nn.parameter.Parameter)
print(torch.optim.lr_scheduler.StepLR, torch.utils.data.DataLoader, torch.distributions.Normal, type(torch.max(torch.ones(2), 0)))
print(pickle.loads(pickle.dumps(torch.nn.Linear(2, 1))).weight.shape, pickle.dumps(torch.nn.ReLU()).count(b"torch.nn.modules.activation"))
print(type(torch.Generator()), torch.layout, torch.memory_format, isinstance(torch.ones(1), torch._C.TensorBase))
print(pickle.loads(pickle.dumps(torch.strided)), torch.relu.__name__, torch.Tensor.add_.__qualname__.split(".")[-1], "<locals>" in repr(torch.abs))
