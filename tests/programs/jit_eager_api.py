"""torch.jit's eager-mode API beyond script/trace: isinstance refinement, Attribute, interface, fuser settings,
the warning/error classes and the script/traced module classes."""
import warnings
import torch
from typing import Dict, List, Optional, Tuple, Union
print(torch.jit.Attribute(3, int), torch.jit.set_fusion_strategy([("STATIC", 1)]), torch.jit.set_fusion_strategy([("STATIC", 2), ("DYNAMIC", 10)]))
cases = [([1, 2], List[int]), ([1, "a"], List[int]), ({"a": torch.ones(1)}, Dict[str, torch.Tensor]), (None, Optional[int]),
         ((1, "a"), Tuple[int, str]), ((1, "a"), Tuple[int, int]), ([[1], [2.0]], List[List[int]]), (3, Union[int, str]),
         ({"a": None}, Dict[str, Optional[torch.Tensor]]), (torch.ones(1), torch.Tensor)]
print([torch.jit.isinstance(o, t) for o, t in cases])
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    print(torch.jit.isinstance([], List[int]), [str(x.message)[:40] for x in w])
for bad in (lambda: torch.jit.isinstance(1, 3), lambda: torch.jit.interface(lambda x: x)):
    try: bad()
    except Exception as e: print(type(e).__name__, e)
print(torch.jit.onednn_fusion_enabled(), issubclass(torch.jit.TracerWarning, Warning), issubclass(torch.jit.TracingCheckError, Exception))
print(issubclass(torch.jit.RecursiveScriptModule, torch.jit.ScriptModule), issubclass(torch.jit.TopLevelTracedModule, torch.jit.TracedModule), torch.jit.ScriptFunction is torch.ScriptFunction)
with torch.jit.optimized_execution(False), torch.jit.fuser("fuser1"), torch.jit.strict_fusion():
    print("in blocks")
try:
    with torch.jit.fuser("bad"): pass
except Exception as e: print(type(e).__name__, e)
print(torch.jit.script_if_tracing(len)([1]))
@torch.jit.interface
class I:
    def f(self, x: int) -> int: pass
print(I.__name__)
print(repr(str(torch.jit.TracingCheckError("graph diff", "a\nb", "extra"))), repr(str(torch.jit.TracingCheckError(None, "t"))))
