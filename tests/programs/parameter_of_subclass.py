"""nn.Parameter of a tensor subclass instance (with and without its own __torch_function__): the class, the
parameter flag, Module registration, .data and the repr, printed for comparison with torch."""
import torch


class Plain(torch.Tensor):
    pass


class Overriding(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return super().__torch_function__(func, types, args, kwargs or {})


for cls in (Plain, Overriding):
    x = torch.ones(3).as_subclass(cls)
    p = torch.nn.Parameter(x)
    m = torch.nn.Linear(3, 1)
    m.extra = p
    print(type(p).__name__, isinstance(p, torch.nn.Parameter), p.requires_grad, p is x, type(p.data).__name__,
          [n for n, _ in m.named_parameters()], type(torch.nn.Parameter(torch.ones(2))).__name__)
    print(repr(p))
