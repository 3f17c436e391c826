"""torch._inductor.config's settings, with torch 2.13's defaults: accepted, recorded, no effect (XLA compiles
``torchlike.compile``'s programs; docs/differences.md).
>>> import torchlike
>>> with torchlike._inductor.config.patch({"triton.cudagraphs": True, "coordinate_descent_tuning": True}):
...     torchlike._inductor.config.triton.cudagraphs
True
>>> torchlike._inductor.config.coordinate_descent_tuning
False
"""

import sys

from .._config_module import SettingsModule, SubConfig

aggressive_fusion = False
autotune_local_cache = True
benchmark_kernel = False
compile_threads = 2
conv_1x1_as_mm = False
coordinate_descent_check_all_directions = False
coordinate_descent_tuning = False
cpp_wrapper = False
debug = False
emulate_precision_casts = False
epilogue_fusion = True
fallback_random = False
force_disable_caches = False
force_fuse_int_mm_with_mul = False
freezing = False
freezing_discard_parameters = False
fx_graph_cache = True
fx_graph_remote_cache = None
keep_output_stride = True
layout_optimization = True
max_autotune = False
max_autotune_gemm = False
permute_fusion = False
search_autotune_cache = False
shape_padding = True
size_asserts = True
split_reductions = True
unroll_reductions_threshold = 8
use_mixed_mm = True
triton = SubConfig(cudagraphs=False, cudagraph_trees=True, unique_kernel_names=True, max_tiles=None)
cpp = SubConfig(simdlen=None, threads=-1, enable_kernel_profile=False, max_horizontal_fusion_size=16)
trace = SubConfig(enabled=False, graph_diagram=False)

sys.modules[__name__].__class__ = SettingsModule
