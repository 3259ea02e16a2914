#!/usr/bin/env bash
# On a machine with an NVIDIA GPU and PyTorch (CUDA) installed:
#   1. build torchdeck-train against PyTorch's own LibTorch (CUDA, NCCL compiled in),
#   2. run the trainer tests there (they pin --device cpu: several ranks share the machine),
#   3. check resume equivalence on CUDA (1e-6) directly,
#   4. compare ResNet-50 bf16 (channels_last) images/s with the Python recipe (tests/bench/python_recipe.py).
# Usage: tests/bench/gpu_bench.sh [BUILD_DIR]            (from the repository root)
set -euo pipefail
build=${1:-build-gpu}
python=${PYTHON:-python3}
prefix=$("$python" -c 'import torch; print(torch.utils.cmake_prefix_path)')
"$python" -c 'import torch; assert torch.cuda.is_available(), "no CUDA device"; print(torch.__version__, torch.cuda.get_device_name(0))'

cmake -S trainer -B "$build" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release
cmake --build "$build" -j "$(nproc)"
trainer=$build/torchdeck-train
ctest --test-dir "$build" -L trainer --output-on-failure || echo "WARNING: some trainer tests failed on this machine"

work=$(mktemp -d)
echo "== resume equivalence on CUDA tensors (ResNet-18, world size 1)"
common=(--device cuda --model resnet18 --data synthetic:2048 --epochs 2 --batch-size 64 --log-every 8 --seed 1)
"$trainer" "${common[@]}" --resume none --checkpoint-dir "$work/full" >"$work/full.log"
set +e
"$trainer" "${common[@]}" --checkpoint-dir "$work/split" --signal-at-step 20 >"$work/a.log"; code=$?
set -e
[[ $code == 75 ]] || { echo "expected exit 75, got $code"; exit 1; }
"$trainer" "${common[@]}" --checkpoint-dir "$work/split" >"$work/b.log"
"$python" - "$work/full" "$work/split" <<'PY'
import glob, sys, torch
a, b = (torch.load(sorted(glob.glob(d + "/checkpoint-*.pt"))[-1])["model"] for d in sys.argv[1:3])
diff = max((a[k].float() - b[k].float()).abs().max().item() for k in a)
print(f"max |difference| after stop+resume on CUDA: {diff:.3g}")
assert diff < 1e-6
PY

echo "== ResNet-50 bf16 channels_last, synthetic 3x32x32, batch 256, 1 GPU"
"$trainer" --device cuda --model resnet50 --data synthetic:25600 --epochs 3 --batch-size 256 --amp bf16 \
    --channels-last --log-every 1000000 --resume none --metrics "$work/r50.jsonl" >/dev/null
cpp=$("$python" -c "import json,sys; r=[json.loads(l)['samples_per_s'] for l in open(sys.argv[1]) if '\"epoch\"' in l]; print(max(r[1:]))" "$work/r50.jsonl")
py=$("$python" tests/bench/python_recipe.py loop --device cuda --model resnet50 --data synthetic:25600 --epochs 3 \
    --batch-size 256 --amp bf16 --channels-last --threads 4 | sed 's/samples_per_s=//')
echo "| ResNet-50 bf16, 1 GPU, batch 256 | torchdeck-train $cpp images/s | Python $py images/s | ratio $("$python" -c "print(f'{$cpp/$py:.2f}x')") |"
