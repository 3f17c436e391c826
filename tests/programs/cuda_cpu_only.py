"""torch.cuda on a machine without a GPU: what each runtime function returns or raises in a CPU-only torch build
(AssertionError "Torch not compiled with CUDA enabled", the AttributeError of a missing torch._C binding, queued
seeding that does nothing, NVML/NVTX errors), and Tensor.pin_memory without an accelerator."""
import torch
calls = ["current_device()", "set_device(0)", "current_stream()", "default_stream()", "Event()", "get_rng_state()", "seed()", "initial_seed()", "ipc_collect()", "is_bf16_supported()", "get_arch_list()", "memory_summary()", "set_per_process_memory_fraction(0.5)", "reset_max_memory_allocated()", "max_memory_reserved()", "reset_peak_memory_stats()", "memory_stats()", "utilization()", "get_device_properties(0)", "synchronize()", "stream(None)", "device(0)", "set_rng_state(torch.zeros(5, dtype=torch.uint8))", "manual_seed(1)", "is_initialized()", "init()", "get_device_name(0)", "mem_get_info()", "empty_cache()", "reset_accumulated_memory_stats()", "memory_snapshot()", "list_gpu_processes()", "temperature()", "_is_compiled()", "max_memory_cached()", "memory_cached()", "get_gencode_flags()", "nvtx.range_push('a')", "caching_allocator_alloc(4)", "can_device_access_peer(0, 1)", "set_sync_debug_mode(0)", "get_sync_debug_mode()",
         "is_tf32_supported()", "has_half", "has_magma", "device_of(torch.ones(1)).idx", "set_stream(None)",
         "memory_stats_as_nested_dict()", "host_memory_stats()", "reset_max_memory_cached()",
         "get_per_process_memory_fraction()", "current_blas_handle()", "memory_usage()", "clock_rate()",
         "power_draw()", "device_memory_used()", "FloatTensor(3)", "LongTensor([1, 2])", "DoubleTensor()",
         "FloatStorage(3)", "FloatTensor.dtype", "BoolTensor.is_cuda", "HalfTensor.layout"]
for c in calls:
    try:
        r = eval("torch.cuda." + c)
        print(c, "->", type(r).__name__, r if isinstance(r, (int, float, bool, str, type(None))) else "")
    except Exception as e:
        print(c, "!!", type(e).__name__, str(e)[:100])
x = torch.ones(2)
print([isinstance(x, getattr(torch.cuda, n)) for n in ("FloatTensor", "LongTensor", "DoubleTensor")],
      isinstance(x, torch.FloatTensor), torch.cuda.FloatTensor is torch.FloatTensor,
      isinstance(x.untyped_storage(), torch.cuda.FloatStorage), torch.cuda.FloatTensor.__name__)
for arg in ("torch.cuda.FloatTensor", torch.cuda.LongTensor):
    try:
        x.type(arg)
    except Exception as e:
        print(type(e).__name__, str(e)[:60])
with torch.cuda.device_of(x):
    print("device_of ok", x.type(), x.type(torch.FloatTensor).dtype)
try:
    torch.zeros(2).pin_memory()
except Exception as e:
    print(type(e).__name__, e)
print(torch.cuda.get_rng_state_all(), torch.cuda.is_available(), torch.cuda.device_count())
dp = torch.nn.DataParallel(torch.nn.Linear(3, 2))
print(list(dp.state_dict()), dp.device_ids, hasattr(dp, "output_device"), hasattr(dp, "src_device_obj"))
try:
    torch.nn.parallel.data_parallel(torch.nn.Linear(3, 1), torch.ones(2, 3))
except Exception as e:
    print(type(e).__name__, e)
