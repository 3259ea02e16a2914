#!/usr/bin/env bash
# A/B benchmark of two torchdeck-train source trees (e.g. the trainer before and after a commit:
# `git archive COMMIT trainer | tar -x -C DIR`, then DIR/trainer is a SOURCE; both may be one tree, told apart
# by ARGS_A and ARGS_B). From the repository root:
#   1. build both (one build when the trees are the same) against PyTorch's own LibTorch (Release, warnings as
#      errors, the trainer tests off), side by side in build-ab-a and build-ab-b, each with half the cores;
#   2. one warm-up run of each side, not counted (clocks, cuDNN's autotuning, the page cache);
#   3. PAIRS pairs, the order alternating (A B, then B A, ...); each pair runs both sides with --metrics (the
#      per-rank heartbeat and the metrics file written) and without (no heartbeat, no file: images/s read from
#      the printed epoch lines), so that what the heartbeat costs is measured, not assumed.
#   A run's images/s is its best epoch after the first.
# Usage: tests/bench/gpu_trainer_ab.sh SOURCE_A SOURCE_B [PAIRS]      (PAIRS: 5, at least 5 to tell anything)
# Environment: PYTHON (python3), ARGS_A / ARGS_B (extra trainer arguments of one side, e.g. "--cuda-graphs
# off"), BENCH_ARGS (the runs' arguments; default ResNet-50 bf16 channels_last, synthetic 3x32x32, batch 256,
# 3 epochs, on cuda), DEVICE (cuda; cpu runs the script on Debian's LibTorch, for checking the script itself),
# AB_REUSE=1 (keep build-ab-a and build-ab-b where both hold a trainer: another benchmark of the same trees).
# Prints every run, then per mode the median and best of each side and B/A of the medians, and each side's
# plain/metrics ratio; exits 1 if a side failed to build.
set -uo pipefail
(($# >= 2)) || { sed -n 2,20p "$0"; exit 2; }
declare -A src=([A]=$1 [B]=$2) build=([A]=build-ab-a [B]=build-ab-b) args=([A]=${ARGS_A:-} [B]=${ARGS_B:-})
pairs=${3:-5}
python=${PYTHON:-python3}
device=${DEVICE:-cuda}
((pairs >= 5)) || echo "warning: $pairs pairs; fewer than 5 cannot tell a few percent from the machine's drift"
read -r -a bench <<<"${BENCH_ARGS:---model resnet50 --data synthetic:25600 --epochs 3 --batch-size 256 --amp bf16 --channels-last}"
bench+=(--device "$device" --log-every 1000000 --resume none)

prefix=
if [[ $device == cuda ]]; then
    "$python" -c 'import torch; assert torch.cuda.is_available(), "no CUDA device"
print("torch", torch.__version__, "CUDA", torch.version.cuda, "cuDNN", torch.backends.cudnn.version())' || exit 1
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
    prefix=$("$python" -c 'import torch;print(torch.utils.cmake_prefix_path)') || exit 1
fi
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
same=0
[[ $(realpath "${src[A]}") == $(realpath "${src[B]}") ]] && same=1
jobs=$(nproc)
((same)) || jobs=$((jobs / 2))
((jobs > 0)) || jobs=1
build_side() { # SIDE: configure and build, output to BUILD.log
    local b=${build[$1]}
    [[ ${AB_REUSE:-0} == 1 && -x $b/torchdeck-train ]] && return
    rm -rf "$b" && mkdir -p "$b"
    { cmake -S "${src[$1]}" -B "$b" "${generator[@]}" ${prefix:+-DCMAKE_PREFIX_PATH="$prefix"} \
        -DCMAKE_BUILD_TYPE=Release -DCMAKE_COMPILE_WARNING_AS_ERROR=ON -DTORCHDECK_TRAINER_TESTS=OFF \
        -DTORCHDECK_CUDA_GRAPHS=ON &&
        cmake --build "$b" -j "$jobs" --target torchdeck-train; } >"$b.log" 2>&1
}
start=$SECONDS
status_b=0
if ((same)); then
    echo "== building ${src[A]} once, -j $jobs"
    build_side A; status_a=$?
    build[B]=${build[A]}
else
    echo "== building A (${src[A]}) and B (${src[B]}), -j $jobs each"
    build_side A & pid_a=$!
    build_side B & pid_b=$!
    wait "$pid_a"; status_a=$?
    wait "$pid_b"; status_b=$?
fi
echo "builds took $((SECONDS - start)) s"
ok=() # the sides that built
for side in A B; do
    status=$status_a; [[ $side == B ]] && status=$status_b
    log=${build[$side]}.log
    if [[ $status == 0 && -x ${build[$side]}/torchdeck-train ]]; then
        ok+=("$side")
        echo "build $side: OK ($(grep -c 'warning:' "$log") warning lines)${args[$side]:+, arguments ${args[$side]}}"
    else
        echo "build $side: FAILED (exit $status); last lines of $log:"
        grep -m 30 -E 'error|warning:' "$log"
        tail -n 25 "$log"
    fi
done
((${#ok[@]})) || exit 1

work=$(mktemp -d)
results=$work/results # lines: MODE SIDE IMAGES_PER_S
: >"$results"
# run SIDE MODE: one run; prints its images/s (empty when it failed)
run() {
    local side=$1 mode=$2 extra=()
    read -r -a extra <<<"${args[$side]}"
    rm -f "$work/m.jsonl"
    local metrics=()
    [[ $mode == metrics ]] && metrics=(--metrics "$work/m.jsonl")
    if ! "${build[$side]}/torchdeck-train" "${bench[@]}" "${extra[@]}" "${metrics[@]}" >"$work/run.log" 2>&1; then
        echo "run $side $mode: FAILED" >&2; tail -n 15 "$work/run.log" >&2
        return
    fi
    # The printed epoch lines ("epoch: 2/3, ..., 13536.2 samples/s"), the same figure as the metrics file's.
    "$python" - "$work/run.log" <<'PY'
import re, sys
rates = [float(m.group(1)) for m in re.finditer(r"^epoch: \d+/\d+,.* ([0-9.]+) samples/s$", open(sys.argv[1]).read(), re.M)]
print(f"{max(rates[1:] or rates):.1f}" if rates else "")
PY
}
echo "== ${bench[*]}: ${ok[*]}, warm-up then $pairs alternating pairs, with and without --metrics"
for side in "${ok[@]}"; do
    echo "warm-up $side: $(run "$side" metrics) images/s (not counted)"
done
for ((i = 1; i <= pairs; i++)); do
    order=("${ok[@]}")
    ((i % 2 == 0 && ${#ok[@]} == 2)) && order=(B A)
    for mode in metrics plain; do
        for side in "${order[@]}"; do
            ips=$(run "$side" "$mode")
            echo "pair $i $side $mode: ${ips:-failed} images/s"
            [[ -n $ips ]] && echo "$mode $side $ips" >>"$results"
        done
    done
done
"$python" - "$results" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    mode, side, ips = line.split()
    runs.setdefault((mode, side), []).append(float(ips))
def med(mode, side):
    r = runs.get((mode, side))
    return statistics.median(r) if r else 0.0
for mode in ("metrics", "plain"):
    cells = []
    for side in "AB":
        r = runs.get((mode, side), [])
        cells.append(f"{side} median {med(mode, side):.1f} best {max(r or [0]):.1f} images/s ({len(r)} runs)")
    a, b = med(mode, "A"), med(mode, "B")
    ratio = f"{b / a:.3f}" if a and b else "n/a"
    print(f"| {'with --metrics (heartbeat on)' if mode == 'metrics' else 'without --metrics'} | " + " | ".join(cells) + f" | B/A {ratio} |")
for side in "AB":
    m, p = med("metrics", side), med("plain", side)
    if m and p:
        print(f"| {side}: without / with --metrics {p / m:.3f} (the heartbeat's and the metrics file's cost) |")
PY
((${#ok[@]} == 2))
