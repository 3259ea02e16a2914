#pragma once

namespace torchdeck::trainer {

// Process exit codes of torchdeck-train (documented in docs/trainer.md).
constexpr int kExitOk = 0;
constexpr int kExitError = 1;
constexpr int kExitUsage = 2;
// A stop signal arrived; every rank stopped at the same step and rank 0 wrote a checkpoint. The job should
// be requeued and will resume from that checkpoint (EX_TEMPFAIL of sysexits.h: "try again later").
constexpr int kExitRequeue = 75;

} // namespace torchdeck::trainer
