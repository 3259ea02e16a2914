#include "cli/options.h"
#include "run/exit_codes.h"

namespace torchdeck::trainer {

std::string usageText()
{
    return R"(Usage: torchdeck-train [OPTIONS]

Trains a model with LibTorch, data parallel over all ranks of the launch environment
(torchrun-style RANK/WORLD_SIZE, Slurm srun, Open MPI mpirun, PBS, or one process).

Model and data
  --model NAME            ae | toy | toy-split | resnet18 | resnet50            [ae]
  --data SPEC             fashion-mnist[:DIR] | mnist:DIR | synthetic[:N]      [fashion-mnist]
                          (DIR holds the IDX files, gzipped or not; default
                          /usr/share/datasets/fashion-mnist)
  --limit N               use only the first N training and N validation samples (0: all)

Optimisation
  --epochs N              [1]
  --batch-size N          samples per rank and step                             [64]
  --lr X                  learning rate                                         [0.001]
  --optimizer NAME        adam | sgd                                            [adam]
  --momentum X            SGD momentum                                          [0]
  --weight-decay X        L2 penalty                                            [0]
  --seed N                model initialisation and per-epoch shuffle            [0]

Output
  --metrics PATH          JSON Lines metrics file, appended (see docs/metrics-schema.md)
  --log-every N           steps between progress lines and step events          [50]

Checkpoints
  --checkpoint-dir DIR    where rank 0 writes checkpoint-<step>.pt (+ .json sidecar)
  --checkpoint-every E    'epoch' or a number of steps                          [epoch]
  --keep K                newest checkpoints kept, plus the best by val loss    [3]
  --resume WHAT           auto (newest valid in --checkpoint-dir) | none | PATH [auto]
  --stop-signals LIST     signals that mean "checkpoint and stop", or none      [USR1,USR2,TERM]
  --signal-at-step N      testing aid: raise the first stop signal once global step N is done
  --sleep-in-step S:R:SEC testing aid: rank R sleeps SEC seconds inside global step S (a hang)
  --slow-rank R:SEC       testing aid: rank R sleeps SEC seconds in every step (a straggler)

Distributed and hardware
  --backend NAME          auto | gloo | shm | nccl                              [auto]
                          (auto: nccl for CUDA tensors; on CPU shm when all ranks
                          share a host, else gloo)
  --device NAME           auto | cpu | cuda                                     [auto]
  --amp MODE              none | bf16 (autocast)                                [none]
  --channels-last         use the channels_last memory format (ResNets)
  --deterministic         CUDA: deterministic cuDNN algorithms instead of autotuned
                          ones (cudnn.benchmark): reproducible runs, a little slower
  --cuda-graphs MODE      auto | on | off: replay each full training step as one  [auto]
                          CUDA graph after warm-up (auto: where the device, model,
                          backend and optimizer allow it; the start event says)
  --threads N             intra-op threads per rank (0: LibTorch default)       [0]
  --nproc-per-node N      act as the launcher of N worker processes on this node
  --bucket-mb X           gradient bucket size for the overlapped allreduce     [25]
  --timeout SECONDS       rendezvous and collective timeout                     [300]

  --help, --version

Exit codes: 0 done, 1 error, 2 bad command line, 75 stopped by a signal after a checkpoint
(requeue the job; it resumes from the checkpoint with --resume auto).
)";
}

} // namespace torchdeck::trainer
