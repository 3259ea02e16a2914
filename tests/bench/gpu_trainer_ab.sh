#!/usr/bin/env bash
# A/B benchmark of two torchdeck-train source trees on one NVIDIA GPU (e.g. the trainer before and after a
# commit: `git archive COMMIT trainer | tar -x -C DIR`, then DIR/trainer is a SOURCE). From the repository root:
#   1. build both against PyTorch's own LibTorch (Release, warnings as errors, the trainer tests off), side by
#      side in build-ab-a and build-ab-b, each with half the cores,
#   2. run gpu_bench.sh's ResNet-50 bf16 channels_last bench (synthetic 3x32x32, batch 256, 3 epochs) A, B,
#      A, B, ... REPEATS times each; a run's images/s is the best epoch's samples_per_s after the first.
# Usage: tests/bench/gpu_trainer_ab.sh SOURCE_A SOURCE_B [REPEATS]      (REPEATS: 3)
# Environment: PYTHON (python3). A side that fails to build is reported and the other is still benched.
# Prints each run's images/s, then "| A N images/s (best) | B N images/s (best) | B/A R |"; exits 1 if a side
# failed to build.
set -uo pipefail
(($# >= 2)) || { sed -n 2,11p "$0"; exit 2; }
declare -A src=([A]=$1 [B]=$2) build=([A]=build-ab-a [B]=build-ab-b) best=([A]=0 [B]=0)
ok=() # the sides that built
repeats=${3:-3}
python=${PYTHON:-python3}
"$python" -c 'import torch; assert torch.cuda.is_available(), "no CUDA device"
print("torch", torch.__version__, "CUDA", torch.version.cuda, "cuDNN", torch.backends.cudnn.version())' || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true

prefix=$("$python" -c 'import torch;print(torch.utils.cmake_prefix_path)') || exit 1
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
jobs=$(($(nproc) / 2))
((jobs > 0)) || jobs=1
build_side() { # SIDE: configure and build, output to BUILD.log
    local b=${build[$1]}
    rm -rf "$b" && mkdir -p "$b"
    { cmake -S "${src[$1]}" -B "$b" "${generator[@]}" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_COMPILE_WARNING_AS_ERROR=ON -DTORCHDECK_TRAINER_TESTS=OFF &&
        cmake --build "$b" -j "$jobs" --target torchdeck-train; } >"$b.log" 2>&1
}
echo "== building A (${src[A]}) and B (${src[B]}), -j $jobs each"
start=$SECONDS
build_side A & pid_a=$!
build_side B & pid_b=$!
wait "$pid_a"; status_a=$?
wait "$pid_b"; status_b=$?
echo "builds took $((SECONDS - start)) s"
for side in A B; do
    status=$status_a; [[ $side == B ]] && status=$status_b
    log=${build[$side]}.log
    if [[ $status == 0 && -x ${build[$side]}/torchdeck-train ]]; then
        ok+=("$side")
        echo "build $side: OK ($(grep -c 'warning:' "$log") warning lines)"
        grep -m 20 'warning:' "$log"
    else
        echo "build $side: FAILED (exit $status); last lines of $log:"
        grep -m 30 -E 'error|warning:' "$log"
        tail -n 25 "$log"
    fi
done
((${#ok[@]})) || exit 1

echo "== ResNet-50 bf16 channels_last, synthetic 3x32x32, batch 256, 1 GPU: ${ok[*]} alternately, $repeats each"
bench=(--model resnet50 --data synthetic:25600 --epochs 3 --batch-size 256 --amp bf16 --channels-last
    --device cuda --log-every 1000000 --resume none)
work=$(mktemp -d)
for ((i = 1; i <= repeats; i++)); do
    for side in "${ok[@]}"; do
        rm -f "$work/$side.jsonl"
        if ! "${build[$side]}/torchdeck-train" "${bench[@]}" --metrics "$work/$side.jsonl" >"$work/$side.log" 2>&1; then
            echo "run $i $side: FAILED"; tail -n 15 "$work/$side.log"; continue
        fi
        ips=$("$python" -c "import json,sys; r=[e['samples_per_s'] for e in map(json.loads, open(sys.argv[1])) if e['event'] == 'epoch']; print(f'{max(r[1:]):.1f}')" "$work/$side.jsonl")
        echo "run $i $side: $ips images/s"
        best[$side]=$("$python" -c "print(max(${best[$side]}, $ips))")
    done
done
ratio=$("$python" -c "a, b = ${best[A]}, ${best[B]}; print(f'{b / a:.3f}' if a > 0 and b > 0 else 'n/a')")
for side in A B; do [[ ${best[$side]} != 0 ]] || best[$side]=failed; done
echo "| A ${best[A]} images/s (best) | B ${best[B]} images/s (best) | B/A $ratio |"
((${#ok[@]} == 2))
