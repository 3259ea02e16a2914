#!/usr/bin/env bash
# On a machine with an NVIDIA GPU and PyTorch (CUDA) installed, from the repository root:
#   1. build torchdeck-train against PyTorch's own LibTorch (CUDA, NCCL compiled in), warnings as errors,
#   2. check the CUDA paths: CUDA tensors end to end, NCCL (world size 1: a process group of one),
#      bf16 autocast + channels_last, toy-split, 2 ranks sharing the GPU over Gloo, and resume
#      equivalence on CUDA (stop with exit 75, resume, final parameters within 1e-6),
#   3. compare images/s of ResNet-50 bf16 channels_last and of the auto-encoder (synthetic data, batch 256):
#      torchdeck-train (--cuda-graphs auto, and off), the fastest Python eager loop and the same loop under
#      torch.compile, each mode the device's PyTorch offers, the best counted (tests/bench/python_recipe.py),
#   4. run the trainer tests there if GoogleTest is installed (they pin --device cpu; the end-to-end
#      ones read Fashion-MNIST from /usr/share/datasets/fashion-mnist).
# Usage: tests/bench/gpu_bench.sh [BUILD_DIR] [--only build|checks|gloo|bench|tests]...
# Environment: PYTHON (python3), TORCHDECK_WERROR (ON), JOBS (nproc), BENCH_REPEAT (2), COMPILE_MODES (the
# torch.compile modes to bench, space-separated; all that PyTorch lists: max-autotune takes minutes), GLOO_INCLUDE (a
# directory holding gloo/ headers: PyTorch's pip wheels ship none, and without them there is no Gloo backend).
# Prints "CHECK <name>: PASS|FAIL ..." lines and a results table; exits 1 if a check failed.
set -uo pipefail
build=build-gpu
only=()
while (($#)); do
    case $1 in
    --only) only+=("$2"); shift 2 ;;
    *) build=$1; shift ;;
    esac
done
wants() { ((${#only[@]} == 0)) || [[ " ${only[*]} " == *" $1 "* ]]; }
python=${PYTHON:-python3}
jobs=${JOBS:-$(nproc)}
repeat=${BENCH_REPEAT:-2}
failures=0
check() { # check NAME STATUS DETAIL
    if [[ $2 == 0 ]]; then echo "CHECK $1: PASS $3"; else echo "CHECK $1: FAIL $3"; failures=$((failures + 1)); fi
}

"$python" -c 'import torch; assert torch.cuda.is_available(), "no CUDA device"
print("torch", torch.__version__, "CUDA", torch.version.cuda, "cuDNN", torch.backends.cudnn.version(),
      "NCCL", ".".join(map(str, torch.cuda.nccl.version())), "GPU", torch.cuda.get_device_name(0))' || exit 1
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true

if wants build; then
    prefix=$("$python" -c 'import torch; print(torch.utils.cmake_prefix_path)')
    generator=()
    command -v ninja >/dev/null && generator=(-G Ninja)
    cmake -S trainer -B "$build" "${generator[@]}" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_COMPILE_WARNING_AS_ERROR="${TORCHDECK_WERROR:-ON}" -DTORCHDECK_CUDA_GRAPHS=ON \
        ${GLOO_INCLUDE:+-DTORCHDECK_GLOO_INCLUDE_DIR="$GLOO_INCLUDE"} || exit 1
    cmake --build "$build" -j "$jobs" || exit 1
fi
trainer=$build/torchdeck-train
[[ -x $trainer ]] || { echo "no $trainer"; exit 1; }
work=$(mktemp -d)

# The newest checkpoints' models of two directories: max |difference| <= tolerance?
compare() { # DIR_A DIR_B TOLERANCE
    "$python" - "$@" <<'PY'
import glob, re, sys, torch
def newest(d):
    return max(glob.glob(d + "/checkpoint-*.pt"), key=lambda p: int(re.findall(r"(\d+)\.pt$", p)[0]))
a, b = (torch.load(newest(d), weights_only=True)["model"] for d in sys.argv[1:3])
assert a.keys() == b.keys()
diff = max((a[k].double() - b[k].double()).abs().max().item() for k in a)
moved = max((v.double().abs().max().item() for v in a.values()))
print(f"max |difference| {diff:.3g} (tolerance {float(sys.argv[3]):.0e})")
sys.exit(0 if diff <= float(sys.argv[3]) and moved > 0 else 1)
PY
}

# start event field of a metrics file
field() { "$python" -c "import json,sys; print([e for e in map(json.loads, open(sys.argv[1])) if e['event'] == 'start'][-1]$2)" "$1"; }

# resume_check NAME ARGS...: uninterrupted vs. stopped by a signal (exit 75) and resumed.
resume_check() {
    local name=$1 code
    shift
    local d=$work/$name
    mkdir -p "$d"
    "$trainer" "$@" --resume none --checkpoint-dir "$d/full" --metrics "$d/full.jsonl" >"$d.full.log" 2>&1 ||
        { check "$name" 1 "(uninterrupted run failed: $(tail -3 "$d.full.log"))"; return; }
    "$trainer" "$@" --checkpoint-dir "$d/split" --metrics "$d/split.jsonl" --signal-at-step 20 >"$d.a.log" 2>&1
    code=$?
    [[ $code == 75 ]] || { check "$name" 1 "(expected exit 75, got $code: $(tail -3 "$d.a.log"))"; return; }
    "$trainer" "$@" --checkpoint-dir "$d/split" --metrics "$d/split.jsonl" >"$d.b.log" 2>&1 ||
        { check "$name" 1 "(resumed run failed: $(tail -3 "$d.b.log"))"; return; }
    local result
    result=$(compare "$d/full" "$d/split" "${TOLERANCE:-1e-6}")
    check "$name" $? "($result; device $(field "$d/split.jsonl" "['device']"), backend $(field "$d/split.jsonl" "['backend']"))"
}

if wants checks; then
    echo "== CUDA checks"
    r18=(--device cuda --model resnet18 --data synthetic:2048 --epochs 2 --batch-size 64 --log-every 8 --seed 1)
    resume_check resume-cuda-resnet18-fp32 "${r18[@]}" --deterministic
    resume_check resume-cuda-nccl-resnet18-bf16-channels-last "${r18[@]}" --deterministic --backend nccl \
        --amp bf16 --channels-last
    resume_check resume-cuda-nccl-ae --device cuda --backend nccl --model ae --data synthetic:2048 --epochs 2 \
        --batch-size 64 --log-every 8 --seed 4
    # CUDA graphs: the replayed step trains as the eager one (deterministic algorithms; 2000 samples leave a
    # partial last batch, run eagerly), resumes alike, and carries the stop flag through NCCL's all-reduce.
    for model in resnet18 ae; do
        d=$work/graphs-$model
        mkdir -p "$d"
        g=(--device cuda --model "$model" --data synthetic:2000 --epochs 2 --batch-size 64 --log-every 8 --seed 5
            --deterministic --resume none)
        "$trainer" "${g[@]}" --cuda-graphs off --checkpoint-dir "$d/off" >"$d.off.log" 2>&1 &&
            "$trainer" "${g[@]}" --cuda-graphs on --checkpoint-dir "$d/on" --metrics "$d/on.jsonl" >"$d.on.log" 2>&1
        if [[ $? == 0 ]]; then
            result=$(compare "$d/off" "$d/on" 1e-5)
            check "cuda-graphs-equal-eager-$model" $? "($result; $(grep -m1 -o 'cuda graphs: the training step.*' "$d.on.log"); start event: $(field "$d/on.jsonl" "['cuda_graphs']"))"
        else
            check "cuda-graphs-equal-eager-$model" 1 "($(tail -5 "$d.on.log" "$d.off.log"))"
        fi
    done
    resume_check resume-cuda-graphs-resnet18-bf16 "${r18[@]}" --deterministic --amp bf16 --channels-last --cuda-graphs on
    resume_check resume-cuda-graphs-nccl-ae --device cuda --backend nccl --model ae --data synthetic:2048 --epochs 2 \
        --batch-size 64 --log-every 8 --seed 4 --cuda-graphs on
    # Informational: with cudnn.benchmark (the default) the convolution algorithms may not be deterministic.
    TOLERANCE=1e30 resume_check info-resume-cuda-resnet18-benchmark-mode "${r18[@]}"

    d=$work/toysplit
    "$trainer" --device cuda --backend nccl --model toy-split --data synthetic:2048 --epochs 2 --batch-size 64 \
        --resume none --metrics "$d.jsonl" >"$d.log" 2>&1
    check toy-split-cuda-nccl $? "(devices $(field "$d.jsonl" "['device']" 2>/dev/null))"
fi
if { wants checks || wants gloo; } && ! "$trainer" --version | grep -q gloo; then
    echo "SKIP two ranks on one GPU over Gloo: $("$trainer" --version) (LibTorch without gloo headers)"
elif wants checks || wants gloo; then
    # Two ranks on the one GPU over Gloo (CUDA tensors): 2 x 32 == 1 x 64 (1e-5).
    eq=(--device cuda --model ae --data synthetic:2048 --epochs 2 --log-every 8 --seed 3 --lr 0.002 --resume none)
    d=$work/eq
    mkdir -p "$d"
    "$trainer" "${eq[@]}" --batch-size 64 --checkpoint-dir "$d/one" >"$d.one.log" 2>&1 &&
        "$trainer" "${eq[@]}" --batch-size 32 --nproc-per-node 2 --backend gloo --checkpoint-dir "$d/two" \
            --metrics "$d/two.jsonl" >"$d.two.log" 2>&1
    if [[ $? == 0 ]]; then
        result=$(compare "$d/one" "$d/two" 1e-5)
        check two-ranks-one-gpu-gloo-equivalence $? "($result; world $(field "$d/two.jsonl" "['world_size']"), backend $(field "$d/two.jsonl" "['backend']"))"
    else
        check two-ranks-one-gpu-gloo-equivalence 1 "($(tail -5 "$d.two.log"))"
    fi
fi
if wants checks; then
    # Two ranks on the one GPU over NCCL: NCCL refuses two ranks on one device; recorded, not counted.
    d=$work/nccl2
    timeout 90 "$trainer" --device cuda --model ae --data synthetic:512 --batch-size 32 --nproc-per-node 2 \
        --backend nccl --timeout 60 --resume none >"$d.log" 2>&1
    echo "INFO two ranks on one GPU over NCCL: exit $? ($(grep -m1 -io 'error.*' "$d.log" | cut -c1-200))"
fi

if wants bench; then
    modes=${COMPILE_MODES:-$("$python" tests/bench/python_recipe.py loop --compile list | tr '\n' ' ')}
    echo "== torchdeck-train, the Python eager loop and torch.compile (modes: $modes), best epoch after the first, best of $repeat"
    # trainer_rate ARGS...: the best images/s of `repeat` runs
    trainer_rate() {
        local best=0 i
        for ((i = 0; i < repeat; i++)); do
            rm -f "$work/bench.jsonl"
            "$trainer" --device cuda "$@" --log-every 1000000 --resume none --metrics "$work/bench.jsonl" \
                >"$work/bench.log" 2>&1 || { tail -n 20 "$work/bench.log" >&2; echo 0; return; }
            best=$("$python" -c "import json,sys; r=[e['samples_per_s'] for e in map(json.loads, open(sys.argv[1])) if e['event'] == 'epoch']; print(max(float(sys.argv[2]), max(r[1:] or r)))" "$work/bench.jsonl" "$best")
        done
        echo "$best"
    }
    # python_rate ARGS...: the same for tests/bench/python_recipe.py loop
    python_rate() {
        local best=0 i out
        for ((i = 0; i < repeat; i++)); do
            out=$("$python" tests/bench/python_recipe.py loop --device cuda --threads 4 "$@" 2>>"$work/python.log") ||
                { tail -n 20 "$work/python.log" >&2; echo 0; return; }
            best=$("$python" -c "print(max($best, float('${out#samples_per_s=}')))")
        done
        echo "$best"
    }
    ratio() { "$python" -c "a, b = $1, $2; print(f'{a / b:.2f}x' if a > 0 and b > 0 else 'n/a')"; }
    bench_row() { # LABEL ARGS... (the same arguments for the trainer and the Python loop)
        local label=$1 graphs off eager compiled=0 best_mode=none mode rate
        shift
        graphs=$(trainer_rate "$@" --cuda-graphs auto)
        echo "  torchdeck-train, $(grep -m1 -o 'cuda graphs: .*' "$work/bench.log"): $graphs images/s"
        off=$(trainer_rate "$@" --cuda-graphs off)
        echo "  torchdeck-train --cuda-graphs off: $off images/s"
        eager=$(python_rate "$@")
        echo "  Python eager loop: $eager images/s"
        for mode in $modes; do
            rate=$(python_rate "$@" --compile "$mode")
            echo "  torch.compile(mode=$mode): $rate images/s"
            if "$python" -c "import sys; sys.exit(0 if $rate > $compiled else 1)"; then
                compiled=$rate
                best_mode=$mode
            fi
        done
        echo "| $label | torchdeck-train $graphs images/s (graphs off: $off) | Python eager $eager | torch.compile $compiled ($best_mode) | vs eager $(ratio "$graphs" "$eager") | vs torch.compile $(ratio "$graphs" "$compiled") |"
    }
    bench_row "ResNet-50 bf16 channels_last, 1 GPU, batch 256" --model resnet50 --data synthetic:25600 --epochs 3 \
        --batch-size 256 --amp bf16 --channels-last
    bench_row "auto-encoder, 1 GPU, batch 256" --model ae --data synthetic:60000 --epochs 3 --batch-size 256
fi

if wants tests; then
    if [[ -n $(ctest --test-dir "$build" -N -L trainer | grep 'Test *#') ]]; then
        ctest --test-dir "$build" -L trainer --output-on-failure -j 4
        check trainer-tests $? "(ctest -L trainer: the CPU tests, on this build)"
    else
        echo "(trainer tests not built: GoogleTest missing)"
    fi
fi

echo "checks failed: $failures"
((failures == 0))
