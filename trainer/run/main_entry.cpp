#include "run/main_entry.h"

#include "cli/options.h"
#include "dist/communicator.h"
#include "dist/launch_env.h"
#include "dist/worker_launcher.h"
#include "run/allocator_tuning.h"
#include "run/exit_codes.h"
#include "run/training_run.h"

#include <cstdio>
#include <exception>
#include <torch/version.h>

namespace torchdeck::trainer {

int trainerMain(int argc, char **argv)
{
    std::vector<std::string> args(argv + 1, argv + argc);
    const ParseResult parsed = parseOptions(args);
    if (!parsed.error.empty()) {
        std::fprintf(stderr, "torchdeck-train: %s\n", parsed.error.c_str());
        return kExitUsage;
    }
    const Options &options = parsed.options;
    if (options.help) {
        std::fputs(usageText().c_str(), stdout);
        return kExitOk;
    }
    if (options.version) {
        std::printf("torchdeck-train 0.1.0 (LibTorch %s, backends: shm%s%s)\n", TORCH_VERSION,
                    glooAvailable() ? ", gloo" : "", ncclAvailable() ? ", nccl" : "");
        return kExitOk;
    }
    const EnvMap env = processEnvironment();
    const LaunchEnvResult launch = detectLaunchEnv(env, readWholeFile);
    if (!launch.error.empty()) {
        std::fprintf(stderr, "torchdeck-train: launch environment: %s\n", launch.error.c_str());
        return kExitUsage;
    }
    if (options.nprocPerNode > 0 && env.count(kWorkerMarker) == 0) {
        try {
            const WorkerPlan plan =
                planWorkers(launch.env, options.nprocPerNode, env.count("MASTER_PORT") != 0, findFreePort());
            std::vector<std::string> all(argv, argv + argc);
            return launchWorkers(plan, all, kExitRequeue);
        } catch (const std::exception &e) {
            std::fprintf(stderr, "torchdeck-train: launcher: %s\n", e.what());
            return kExitError;
        }
    }
    tuneAllocator();
    return runTraining(options, launch.env);
}

} // namespace torchdeck::trainer
