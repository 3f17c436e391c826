#!/bin/bash
# The GPU checks as one prepared run for a lent GPU machine (the device tool): what the GPU is, the GPU tests
# (tests/test_cuda_gpu.py, against torch on the same GPU) and the GPU benchmark (bench/bench_gpu.py).
# Output lands under $OUT (gpu_tests.log, bench_gpu.txt, bench_gpu.jsonl).
#   OUT=/tmp/out bash bench/device_gpu.sh [reference workloads.py]
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
REF=${1:-../shared/reference/workloads.py}
nvidia-smi -L
python3 -c "import jax, torch, numpy; print('jax', jax.__version__, jax.devices(), '| torch', torch.__version__,
torch.cuda.is_available(), '| numpy', numpy.__version__)"
XLA_PYTHON_CLIENT_PREALLOCATE=false timeout "${TEST_LIMIT:-170}" python3 -m pytest -p no:cacheprovider -q -rfEs \
    --tb=short -n 4 tests/test_cuda_gpu.py 2>&1 | tee "$OUT/gpu_tests.log" | tail -60
timeout "${BENCH_LIMIT:-300}" python3 bench/bench_gpu.py --ref "$REF" --limit 90 --total "$((${BENCH_LIMIT:-300} - 10))" \
    2>"$OUT/bench_gpu.jsonl" | tee "$OUT/bench_gpu.txt"
