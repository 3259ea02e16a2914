#pragma once

#include "checkpoint/train_state.h"
#include "run/devices.h"

#include <string>

namespace torchdeck::trainer {

class Communicator;
class FlatOptimizer;
class FlatParameters;
class GradientReducer;
class RunReporter;
class StopSignals;
struct DatasetSplits;
struct LaunchEnv;
struct Options;
struct TrainableModel;

// Everything train() works with, set up by runTraining(). Owned elsewhere; this only refers.
struct TrainContext {
    const Options &options;
    const LaunchEnv &launch;
    const DevicePlan &devices;
    TrainableModel &model;
    FlatParameters &params;
    FlatOptimizer &optimizer;
    Communicator *comm;       // null with one rank
    GradientReducer *reducer; // null with one rank
    const DatasetSplits &data;
    RunReporter &reporter;
    StopSignals &signals;
    std::string configJson;
    bool cudaGraphs = false; // the steady-state step replayed as a CUDA graph (chooseCudaGraphs)
};

struct TrainOutcome {
    bool stoppedBySignal = false;
    int signal = 0;
    std::int64_t globalStep = 0;
};

// The training loop: epochs from `progress` on, validation per epoch, step/epoch events, checkpoints, and
// the agreed stop on a signal (after which rank 0 has written a checkpoint).
TrainOutcome train(TrainContext &ctx, Progress progress);

std::int64_t stepsPerEpoch(const TrainContext &ctx);

} // namespace torchdeck::trainer
