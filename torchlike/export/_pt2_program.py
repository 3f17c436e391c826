"""The program object for a torch ``.pt2`` archive, and the module that runs it (see ``_pt2``)."""
from __future__ import annotations

import json

from .. import _dispatch
from .._creation import as_tensor
from ..autograd import grad_mode
from ..nn.modules.module import Module
from ..nn.parameter import Parameter
from ..tensor import Tensor
from . import _pt2

__all__ = ["TorchExportedProgram"]


class TorchExportedProgram:
    """A program written by PyTorch's ``torch.export.save``, loaded without torch.

    It mirrors ``torch.export.ExportedProgram``: ``module()`` gives a callable module whose parameters
    and buffers are the program's ``state_dict``; ``graph_signature``, ``constants`` and
    ``range_constraints`` describe it.  Each call runs the whole graph as one XLA program (jitted, one
    compilation per input shape).

    A one-node archive built by hand (``torch.export.save`` writes the same layout, plus weights):

    >>> import io, json, zipfile, torchlike
    >>> node = {"target": "torch.ops.aten.relu.default", "outputs": [{"as_tensor": {"name": "y"}}],
    ...         "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "x"}}, "kind": 1}]}
    >>> graph = {"nodes": [node], "outputs": [{"as_tensor": {"name": "y"}}],
    ...          "tensor_values": {"x": {"dtype": 7, "sizes": [{"as_int": 2}]}}}
    >>> sig = {"input_specs": [{"user_input": {"arg": {"as_tensor": {"name": "x"}}}}],
    ...        "output_specs": [{"user_output": {"arg": {"as_tensor": {"name": "y"}}}}]}
    >>> buf = io.BytesIO()
    >>> with zipfile.ZipFile(buf, "w") as z:
    ...     z.writestr("m/archive_format", "pt2")
    ...     z.writestr("m/models/model.json", json.dumps({"graph_module": {"graph": graph, "signature": sig}}))
    >>> ep = torchlike.export.load(io.BytesIO(buf.getvalue()))
    >>> ep.module()(torchlike.tensor([-1.0, 2.0]))
    tensor([0., 2.])
    >>> ep.graph_signature.user_inputs
    ('x',)
    """

    def __init__(self, graph, signature, call_spec, state, constants, range_constraints, torch_version=None):
        self._graph = graph
        self.graph_signature = signature
        self.range_constraints = range_constraints
        self.torch_version = torch_version
        for spec in signature.input_specs:
            if spec.kind in ("CUSTOM_OBJ", "TOKEN"):
                raise NotImplementedError(
                    f"torchlike.export.load: programs with {spec.kind.lower()} inputs (script objects, effect "
                    "tokens) are not supported (see docs/differences.md)")
        params = set(signature.parameters)
        self.state_dict = {k: Parameter(v, requires_grad=v.is_floating_point()) if k in params else v
                           for k, v in state.items()}
        self.constants = dict(constants)
        self._plan = _pt2._resolve(graph["nodes"])  # NotImplementedError for an unknown aten op, at load
        self._in_spec = self._out_spec = None
        self._arg_names = []
        if call_spec:
            self._in_spec = json.loads(call_spec["in_spec"])[1]
            self._out_spec = json.loads(call_spec["out_spec"])[1]
            self._arg_names = list(call_spec.get("forward_arg_names") or [])
        self._guards = {g[0]: g[1:] for g in _pt2.input_guards(graph, signature)}
        self._outputs = []  # ("env", name) or ("const", value) per graph output
        for o in graph["outputs"]:
            key, val = next(iter(o.items()))
            if key == "as_tensor":
                self._outputs.append(("env", val["name"]))
            elif isinstance(val, dict) and "as_name" in val:
                self._outputs.append(("env", val["as_name"]))
            else:
                self._outputs.append(("const", _pt2._arg(o, {})))
        state_names = [s.name for s in signature.input_specs if s.kind in ("PARAMETER", "BUFFER", "CONSTANT_TENSOR")]
        self._state_specs = [s for s in signature.input_specs if s.kind in ("PARAMETER", "BUFFER", "CONSTANT_TENSOR")]
        self._user_specs = [s for s in signature.input_specs if s.kind == "USER_INPUT"]
        self._const_inputs = tuple((s.name, None) for s in signature.input_specs if s.kind == "CONSTANT_INPUT")
        self._fn = None
        self._state_names = state_names

    # -- torch's surface
    def module(self):
        """A ``torchlike.nn.Module`` running this program; its parameters are ``state_dict``'s tensors."""
        return _Pt2Module(self)

    def __call__(self, *args, **kwargs):
        raise RuntimeError("Unable to call ExportedProgram directly. You should use `exported_program.module()` "
                           "instead.")

    def run_decompositions(self, decomp_table=None, decompose_custom_triton_ops=False):
        """The program itself: its graph is already aten and runs as it is."""
        return self

    @property
    def graph(self):
        return _GraphText(self._graph)

    def __str__(self):
        return f"ExportedProgram:\n{self.graph}\nGraph signature: {self.graph_signature}"

    # -- running
    def _inputs(self, args, kwargs):
        if self._in_spec is None:
            return list(args)
        pos_spec, kw_spec = self._in_spec["children_spec"]
        n = len(pos_spec["children_spec"])
        args, kwargs = list(args), dict(kwargs)
        for name, extra in zip(self._arg_names[n:], args[n:]):
            kwargs[name] = extra  # keyword inputs given by position
        expected = json.loads(kw_spec["context"]) if kw_spec.get("context") not in (None, "null") else []
        if sorted(kwargs) != sorted(expected):  # torch's check on the module's keyword inputs
            raise ValueError(f"Ran into a kwarg keyword mismatch: Got the following keywords {sorted(kwargs)} but "
                             f"expected {sorted(expected)}")
        try:
            if len(args) > max(n, len(self._arg_names)):
                raise TypeError(f"{len(args)} positional inputs")
            leaves = _pt2._flatten((tuple(args[:n]), kwargs), self._in_spec, [])
        except (TypeError, KeyError, IndexError) as e:
            raise ValueError(
                f"Trying to flatten user inputs with exported input tree spec: \n{_pt2._spec_text(self._in_spec)}\n"
                f"but actually got inputs that do not match it ({e}).\nPlease check that the inputs have the same "
                "number and type of args and kwargs as the ones you used when tracing.") from None
        return leaves

    def _check(self, name, x):
        """torch's input guards: static sizes, and the bounds of symbolic ones (sizes 0 and 1 are not
        checked against a lower bound, as torch's 0/1 specialization does not check them)."""
        dims, _rank, _dt = self._guards[name]
        shape = tuple(x.shape)
        for i, want in dims:
            if i >= len(shape):
                raise IndexError("tuple index out of range")
            if isinstance(want, int):
                if shape[i] != want:
                    raise AssertionError(f"Guard failed: {name}.size()[{i}] == {want}")
            elif want is not None and want in self.range_constraints:
                lo, hi = self.range_constraints[want]
                if lo is not None and shape[i] > 1 and shape[i] < lo:
                    raise AssertionError(f"Guard failed: {name}.size()[{i}] >= {lo}")
                if hi is not None and shape[i] > hi:
                    raise AssertionError(f"Guard failed: {name}.size()[{i}] <= {hi}")

    def _run(self, module, args, kwargs):
        leaves = self._inputs(args, kwargs)
        statics, in_names, in_arrays, in_tensors = list(self._const_inputs), [], [], {}
        for spec, x in zip(self._user_specs, leaves):
            if spec.name in self._guards:
                if not isinstance(x, Tensor):
                    x = as_tensor(x)
                self._check(spec.name, x)
                in_names.append(spec.name)
                in_arrays.append(x._value)
                in_tensors[spec.name] = x
            elif spec.name:
                statics.append((spec.name, x))
        state, state_tensors = [], []
        for spec in self._state_specs:
            if spec.kind == "PARAMETER":
                t = module.get_parameter(spec.target)
            elif spec.kind == "BUFFER":
                t = module.get_buffer(spec.target)
            else:
                t = self.constants[spec.target]
            state.append(t._value)
            state_tensors.append(t)
        key = tuple(in_names)
        if self._fn is None or self._fn[0] != key:
            env_outs = [v for k, v in self._outputs if k == "env"]
            self._fn = (key, _pt2.program_fn(self._plan, self._state_names, in_names, env_outs))
        f = self._fn[1]
        inputs = [in_tensors[n] for n in in_names]
        res = _dispatch.dispatch(f, state_tensors + inputs, (("statics", _pt2.freeze(statics)),),
                                 name="ExportedProgram")
        res = res if isinstance(res, tuple) else (res,)
        n_out = len(res) - len(f.mutated)
        outs = iter(res[:n_out])
        values = [next(outs) if k == "env" else v for k, v in self._outputs]
        targets = state_tensors + inputs
        with grad_mode.no_grad():
            for i, t in zip(f.mutated, res[n_out:]):  # in-place updates made by the graph
                targets[i].copy_(t)
        user = []
        with grad_mode.no_grad():
            for spec, v in zip(self.graph_signature.output_specs, values):
                if spec.kind in ("USER_OUTPUT", "LOSS_OUTPUT"):
                    user.append(v)
                elif spec.kind == "BUFFER_MUTATION":
                    module.get_buffer(spec.target).copy_(v)
                elif spec.kind == "PARAMETER_MUTATION":
                    module.get_parameter(spec.target).copy_(v)
                elif spec.kind == "USER_INPUT_MUTATION":
                    in_tensors[spec.target].copy_(v)
        if self._out_spec is None:
            return user[0] if len(user) == 1 else tuple(user)
        return _pt2._unflatten(self._out_spec, iter(user))


class _GraphText:
    """A printable listing of the serialized graph (``ep.graph``)."""

    def __init__(self, graph):
        self.nodes = graph["nodes"]
        self._graph = graph

    def __str__(self):
        lines = ["graph():"]
        for n in self.nodes:
            outs = ", ".join(str(next(iter(o.values()))) for o in n["outputs"])
            ins = ", ".join(f"{i['name']}={next(iter(i['arg'].values()))}" for i in n["inputs"])
            lines.append(f"    {outs} = {n['target']}({ins})")
        return "\n".join(lines)

    __repr__ = __str__


class _Pt2Module(Module):
    """``ExportedProgram.module()``: forward runs the program with this module's parameters and buffers."""

    def __init__(self, program):
        super().__init__()
        object.__setattr__(self, "_program", program)
        persistent = {s.target: s.persistent is not False for s in program.graph_signature.input_specs
                      if s.kind == "BUFFER"}
        for fqn, t in program.state_dict.items():
            owner, name = self._owner(fqn)
            if isinstance(t, Parameter):
                owner.register_parameter(name, t)
            else:
                owner.register_buffer(name, t, persistent=persistent.get(fqn, True))
        for fqn, t in program.constants.items():
            if fqn in persistent:  # non-persistent buffers are saved with the constants
                owner, name = self._owner(fqn)
                owner.register_buffer(name, t, persistent=False)

    def _owner(self, fqn):
        *path, name = fqn.split(".")
        mod = self
        for p in path:
            sub = mod._modules.get(p)
            if sub is None:
                sub = Module()
                mod.add_module(p, sub)
            mod = sub
        return mod, name

    def forward(self, *args, **kwargs):
        return self._program._run(self, args, kwargs)
