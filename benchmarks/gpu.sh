#!/usr/bin/env bash
# The GPU benchmarks in one run (docs/performance.md#gpu), each step capped and logged, a summary last.
#
#   bash benchmarks/gpu.sh [OUTDIR]      # a CUDA machine with torch and the package's extras installed
#   GPU_STEPS="clip_mining clip_repro" bash benchmarks/gpu.sh OUTDIR   # only these steps (names below)
#
# 1. CLIP mining (missing_piece_selection_hard) on CUDA vs bare model.encode_image (benchmarks/clip_mining.py);
# 2. CUDA embeddings (amp-fp16, fp32) against the CPU's: which hard items change (benchmarks/clip_reproducibility.py);
# 3. the batched transformers backend vs a per-item generate loop on a random-init model of Qwen2-VL-2B's
#    dimensions (benchmarks/inference.py); whether vLLM is installed (it was not on the lent machine);
# 4. both GRPO examples on the GPU (benchmarks/grpo_gpu.py), the tiny model and the 2B one.
# On a lent machine with no package index, wheels of what it lacks can sit in .whl/ (installed to /tmp/site).
set -u
OUT=${1:-${OUT:-gpu_out}}
mkdir -p "$OUT"
if ls .whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
  export PYTHONPATH=/tmp/site
  if ! python3 -c "import datasets" 2>/dev/null && ls .whl/alt/*.whl >/dev/null 2>&1; then
    echo "datasets does not import with this machine's pyarrow: the older wheels in .whl/alt"
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/alt/*.whl
  fi
fi
export PYTHONPATH=$PWD/src${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TOKENIZERS_PARALLELISM=false
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv | tee "$OUT/gpu.txt"
python3 - <<'PY' | tee -a "$OUT/gpu.txt"
import importlib, platform
print("python", platform.python_version())
for m in ("torch", "transformers", "accelerate", "datasets", "pyarrow", "trl", "open_clip", "PIL", "numpy", "cv2"):
    try:
        print(m, importlib.import_module(m).__version__)
    except Exception as e:
        print(m, "missing:", type(e).__name__, e)
PY
SUMMARY=()
step() {
  local name=$1 limit=$2 t=$SECONDS rc
  shift 2
  if [ -n "${GPU_STEPS:-}" ] && [[ " $GPU_STEPS " != *" $name "* ]]; then
    return
  fi
  echo "== $name: $*"
  timeout "$limit" "$@" > "$OUT/$name.txt" 2>&1
  rc=$?
  grep -v -E "it/s\]|s/it\]|Warning|warn\(" "$OUT/$name.txt" | tail -n 8
  SUMMARY+=("$name rc=$rc $((SECONDS - t)) s")
}
step clip_mining 90 python3 benchmarks/clip_mining.py --device cuda --sources 256 --batch-size 256
step inference_2b 150 python3 benchmarks/inference.py --preset qwen2-vl-2b --items 32 --batch-size 16 \
  --max-new-tokens 32 --image-size 336 --repeats 1 --json
step grpo_jigsaw 90 python3 benchmarks/grpo_gpu.py --example jigsaw --steps 3
step grpo_interactive 90 python3 benchmarks/grpo_gpu.py --example interactive --steps 2
step clip_repro 100 python3 benchmarks/clip_reproducibility.py --settings default cuda_fp16 cuda_fp32 --work /tmp/jp_repro
step grpo_jigsaw_2b 120 python3 benchmarks/grpo_gpu.py --example jigsaw --preset qwen2-vl-2b --steps 2
python3 -c "import vllm; print('vllm', vllm.__version__, 'installed: run benchmarks/inference.py --model ... for it')" \
  2>/dev/null || SUMMARY+=("vllm: not installed on this machine, not measured")
printf '%s\n' "${SUMMARY[@]}" | tee "$OUT/summary.txt"
