#!/usr/bin/env python3
"""torchdeck-train against the tutorials' Python recipes (python_recipe.py), same machine, same LibTorch,
same model, batch, threads, data and epochs. Prints a table of training samples/s and ratios.

  tests/bench/trainer_bench.py --trainer build-trainer/torchdeck-train [--repeat 2] [--quick]

Throughput is training only (validation excluded), the best epoch after the first, the best of --repeat
runs of each side (the machine may be shared). Targets from issue 3 are printed beside the ratios."""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))

# name, target, torchdeck-train arguments, python_recipe.py arguments
CASES = [
    ("ae, 2 ranks x 1 thread, batch 64/rank (DDP vs DDP)", 2.0,
     ["--model", "ae", "--nproc-per-node", "2", "--threads", "1", "--batch-size", "64", "--epochs", "3",
      "--limit", "30000"],
     ["ddp", "--model", "ae", "--nproc", "2", "--threads", "1", "--batch-size", "64", "--epochs", "3",
      "--limit", "30000"]),
    ("ae, same, torchdeck-train forced to --backend gloo (as Python)", 2.0,
     ["--model", "ae", "--nproc-per-node", "2", "--threads", "1", "--batch-size", "64", "--epochs", "3",
      "--limit", "30000", "--backend", "gloo"],
     ["ddp", "--model", "ae", "--nproc", "2", "--threads", "1", "--batch-size", "64", "--epochs", "3",
      "--limit", "30000"]),
    ("ae, 1 process x 1 thread, batch 128 (vs fastest loop)", 1.2,
     ["--model", "ae", "--threads", "1", "--batch-size", "128", "--epochs", "3", "--limit", "30000"],
     ["loop", "--model", "ae", "--threads", "1", "--batch-size", "128", "--epochs", "3", "--limit", "30000"]),
    ("resnet18, 1 process x 2 threads, batch 64 (vs fastest loop)", 1.0,
     ["--model", "resnet18", "--threads", "2", "--batch-size", "64", "--epochs", "2", "--limit", "3072"],
     ["loop", "--model", "resnet18", "--threads", "2", "--batch-size", "64", "--epochs", "2", "--limit", "3072"]),
]


def run_trainer(trainer, args):
    with tempfile.TemporaryDirectory() as tmp:
        metrics = os.path.join(tmp, "m.jsonl")
        cmd = [trainer, *args, "--log-every", "1000000", "--resume", "none", "--metrics", metrics]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        rates = [json.loads(line)["samples_per_s"] for line in open(metrics) if '"event":"epoch"' in line]
    return max(rates[1:] or rates)


def run_python(python, args):
    # torch.set_num_threads does not reach OpenBLAS (LibTorch's BLAS here); without this its pthread build
    # would use every core in every rank. torchdeck-train sets it itself from --threads.
    env = dict(os.environ, OPENBLAS_NUM_THREADS=args[args.index("--threads") + 1])
    out = subprocess.run([python, os.path.join(HERE, "python_recipe.py"), *args], check=True,
                         capture_output=True, text=True, env=env).stdout
    return float(out.strip().split("samples_per_s=")[1])


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--trainer", required=True)
    p.add_argument("--python", default="/usr/bin/python3", help="a python3 with torch (Debian's python3-torch)")
    p.add_argument("--repeat", type=int, default=2)
    p.add_argument("--quick", action="store_true", help="a tenth of the data, one repeat (smoke test)")
    p.add_argument("--only", default="", help="run the cases whose name contains this text")
    args = p.parse_args()
    print(f"# {time.strftime('%Y-%m-%d %H:%M')}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}")
    print("| case | torchdeck-train samples/s | Python samples/s | ratio | target |")
    print("|------|------:|------:|------:|------:|")
    ok = True
    for name, target, cpp_args, py_args in CASES:
        if args.only not in name:
            continue
        if args.quick:
            cpp_args = [a if prev != "--limit" else str(int(a) // 10) for prev, a in zip([""] + cpp_args, cpp_args)]
            py_args = [a if prev != "--limit" else str(int(a) // 10) for prev, a in zip([""] + py_args, py_args)]
        repeat = 1 if args.quick else args.repeat
        cpp, py = 0.0, 0.0
        for _ in range(repeat):  # interleaved, so that a busy moment hits both sides
            cpp = max(cpp, run_trainer(args.trainer, cpp_args))
            py = max(py, run_python(args.python, py_args))
        ratio = cpp / py
        ok = ok and ratio >= target
        print(f"| {name} | {cpp:.0f} | {py:.0f} | {ratio:.2f}x | {target:.1f}x {'ok' if ratio >= target else 'MISSED'} |",
              flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
