#pragma once

namespace torchdeck::trainer {

struct LaunchEnv;
struct Options;

// One rank's whole run: devices, rendezvous, data, model, resume, train(), final events. Returns the
// process exit code (run/exit_codes.h); errors are reported (stop event, stderr) and become kExitError.
int runTraining(const Options &options, const LaunchEnv &env);

} // namespace torchdeck::trainer
