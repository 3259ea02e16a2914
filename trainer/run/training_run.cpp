#include "run/training_run.h"

#include "checkpoint/checkpoint_store.h"
#include "cli/options.h"
#include "data/dataset.h"
#include "dist/communicator.h"
#include "dist/gradient_reducer.h"
#include "dist/launch_env.h"
#include "metrics/run_reporter.h"
#include "models/model_factory.h"
#include "models/trainable_model.h"
#include "optim/flat_optimizer.h"
#include "optim/flat_parameters.h"
#include "run/blas_threads.h"
#include "run/cuda_graphs.h"
#include "run/exit_codes.h"
#include "run/state_broadcast.h"
#include "run/step_graph.h"
#include "run/stop_signals.h"
#include "run/train_context.h"

#include <ATen/Context.h>
#include <ATen/Parallel.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <thread>
#include <torch/torch.h>

namespace torchdeck::trainer {

namespace {

constexpr double kBytesPerMb = 1024.0 * 1024.0;

std::unique_ptr<FlatOptimizer> makeOptimizer(const Options &o, FlatParameters &params)
{
    if (o.optimizer == "sgd")
        return makeSgd(params, SgdConfig{o.lr, o.momentum, o.weightDecay});
    AdamConfig config;
    config.lr = o.lr;
    config.weightDecay = o.weightDecay;
    return makeAdam(params, config);
}

void toChannelsLast(torch::nn::Module &model)
{
    for (auto &p : model.parameters()) {
        if (p.dim() == 4)
            p.set_data(p.data().contiguous(at::MemoryFormat::ChannelsLast));
    }
}

std::vector<std::int64_t> sampleShape(const Dataset &d)
{
    const auto sizes = d.inputs.sizes();
    return std::vector<std::int64_t>(sizes.begin() + 1, sizes.end());
}

// --threads, else LibTorch's default, or the cores shared out when several ranks share a node; BLAS gets
// the same count.
void setThreads(const Options &o, const LaunchEnv &env)
{
    int threads = o.threads;
    if (threads == 0 && env.localWorldSize > 1)
        threads = std::max(1, static_cast<int>(std::thread::hardware_concurrency()) / env.localWorldSize);
    if (threads > 0)
        at::set_num_threads(threads);
    setBlasThreads(at::get_num_threads());
}

CudaGraphsSetting cudaGraphsSetting(const Options &o, const DevicePlan &devices, bool processGroup)
{
    CudaGraphsSetting s;
    s.mode = o.cudaGraphs;
    s.cudaDevice = devices.cuda;
    s.builtWithCuda = builtWithCudaGraphs();
    s.modelSpansDevices = devices.modelDevices.size() > 1;
    s.collectives = processGroup;
    s.backend = devices.backend;
    s.optimizer = o.optimizer;
    s.hostWaitsInStep = o.hangAtStep >= 0 || o.slowRank >= 0;
    s.ncclSetting = uncapturableNcclSetting([](const char *name) -> const char * { return std::getenv(name); });
    return s;
}

int trainRank(const Options &o, const LaunchEnv &env, RunReporter &reporter, StopSignals &signals)
{
    setThreads(o, env);
    torch::manual_seed(o.seed);
    const DevicePlan devices = planDevices(o, env, isModelParallel(o.model));
    // One process alone needs no process group, unless a backend was asked for by name: then a world
    // of one is built (checks NCCL and the gradient reducer on a single GPU).
    const bool processGroup = env.worldSize > 1 || o.backend != "auto";
    const CudaGraphsChoice cudaGraphs = chooseCudaGraphs(cudaGraphsSetting(o, devices, processGroup));
    if (!cudaGraphs.error.empty())
        throw std::invalid_argument(cudaGraphs.error);
    std::unique_ptr<TrainingStream> trainingStream; // from before the model is placed to the end
    if (cudaGraphs.enabled)
        trainingStream = enterTrainingStream(devices.dataDevice);

    if (devices.cuda) {
        // cudnn.benchmark: autotuned convolution algorithms (the fastest, not always deterministic);
        // --deterministic for reproducible runs.
        at::globalContext().setBenchmarkCuDNN(!o.deterministic);
        at::globalContext().setDeterministicCuDNN(o.deterministic);
    }

    std::unique_ptr<Communicator> comm;
    if (processGroup) {
        CommunicatorConfig config;
        config.backend = devices.backend;
        config.device = devices.dataDevice;
        config.timeout = std::chrono::seconds(o.timeoutSeconds);
        comm = connectCommunicator(env, config);
    }

    const DatasetSpecResult spec = parseDatasetSpec(o.data);
    if (!spec.error.empty())
        throw std::invalid_argument("--data: " + spec.error);
    DatasetSplits data = loadDatasets(spec.spec, naturalInputShape(o.model), o.limit);
    if (devices.cuda) // the whole dataset on the GPU: batches are gathered there, no host copies per step
        for (Dataset *d : {&data.train, &data.val}) {
            d->inputs = d->inputs.to(devices.dataDevice);
            d->targets = d->targets.to(devices.dataDevice);
        }
    if (data.train.size() == 0)
        throw std::runtime_error("the training split is empty");

    std::shared_ptr<TrainableModel> model = makeModel(o.model, sampleShape(data.train), data.train.numClasses);
    model->place(devices.modelDevices);
    if (o.channelsLast)
        toChannelsLast(*model);
    FlatParameters params(*model);
    std::unique_ptr<FlatOptimizer> optimizer = makeOptimizer(o, params);
    const std::string configJson = optionsToJson(o);

    Progress progress;
    std::optional<ResumeOrigin> origin;
    std::string resumeFailure;
    if (env.rank == 0) {
        try {
            const auto choice = chooseResume(o.resume, o.checkpointDir, [&](const std::vector<char> &bytes) {
                return restoreTrainState(bytes, {*model, params, *optimizer}, progress);
            });
            if (choice) {
                origin = ResumeOrigin{choice->path, progress.epoch, progress.globalStep, choice->skipped};
                for (const std::string &problem : choice->problems)
                    reporter.note("warning: " + problem);
            }
        } catch (const std::exception &e) {
            resumeFailure = e.what();
        }
    }
    if (comm) {
        // The other ranks would wait for the state broadcast forever when rank 0 cannot resume.
        at::Tensor failed = torch::tensor({resumeFailure.empty() ? 0.0f : 1.0f}).to(comm->device());
        comm->broadcast(failed, 0);
        if (failed.cpu().item<float>() > 0.0f && env.rank != 0)
            throw std::runtime_error("rank 0 could not resume from a checkpoint (its log says why)");
    }
    if (!resumeFailure.empty())
        throw std::runtime_error(resumeFailure);
    if (comm)
        broadcastTrainState(*comm, *model, params, *optimizer, progress);
    if (progress.epochStep > 0 && (progress.batchSize != o.batchSize || progress.worldSize != env.worldSize)) {
        reporter.note("note: batch size or world size changed since the checkpoint; epoch " +
                      std::to_string(progress.epoch + 1) + " restarts from its first batch");
        progress.epochStep = 0;
        progress.epochLossSum = 0;
        progress.epochLossCount = 0;
    }
    if (env.rank != 0) { // rank 0 alone carries the epoch's loss sums of before the resume
        progress.epochLossSum = 0;
        progress.epochLossCount = 0;
    }

    std::unique_ptr<GradientReducer> reducer;
    if (comm)
        reducer = std::make_unique<GradientReducer>(params, *comm, static_cast<std::int64_t>(o.bucketMb * kBytesPerMb));

    TrainContext ctx{o,          env,        devices,           *model, params,
                     *optimizer, comm.get(), reducer.get(),     data,   reporter,
                     signals,    configJson, cudaGraphs.enabled};
    StartRecord start;
    start.launcher = launchKindName(env.kind);
    start.worldSize = env.worldSize;
    start.numNodes = env.numNodes;
    start.localWorldSize = env.localWorldSize;
    start.master = env.masterAddr + ":" + std::to_string(env.masterPort);
    start.backend = comm ? comm->backend() : "none";
    start.device = devices.describe();
    start.model = o.model;
    start.parameters = params.numel();
    start.dataset = spec.spec.describe();
    start.trainSamples = data.train.size();
    start.valSamples = data.val.size();
    start.epochs = o.epochs;
    start.batchSize = o.batchSize;
    start.stepsPerEpoch = stepsPerEpoch(ctx);
    start.threads = at::get_num_threads();
    start.resume = origin;
    start.configJson = configJson;
    start.cudaGraphs = cudaGraphs.why;
    reporter.start(start);
    if (devices.cuda)
        reporter.note("cuda graphs: " + cudaGraphs.why);
    if (reducer)
        reporter.note("gradient buckets: " + std::to_string(reducer->bucketCount()));

    const TrainOutcome outcome = train(ctx, progress);
    StopRecord stop;
    stop.step = outcome.globalStep;
    if (outcome.stoppedBySignal) {
        stop.reason = "signal";
        stop.signal = signalName(outcome.signal);
        if (o.checkpointDir.empty()) {
            stop.exitCode = kExitError;
            stop.message = "stopped by a signal without --checkpoint-dir: nothing was saved";
        } else {
            stop.exitCode = kExitRequeue;
            stop.message = "checkpointed; requeue to resume";
        }
    } else {
        stop.reason = "done";
        stop.exitCode = kExitOk;
    }
    reporter.stop(stop);
    return stop.exitCode;
}

} // namespace

int runTraining(const Options &options, const LaunchEnv &env)
{
    // Installed first: a signal during the rendezvous or data loading stops the run after its first step.
    StopSignals signals(options.stopSignals);
    std::unique_ptr<RunReporter> reporter;
    try {
        reporter = std::make_unique<RunReporter>(options.metricsPath, env.rank == 0);
        return trainRank(options, env, *reporter, signals);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "torchdeck-train [rank %d]: error: %s\n", env.rank, e.what());
        if (reporter) {
            StopRecord stop;
            stop.reason = "error";
            stop.exitCode = kExitError;
            stop.message = e.what();
            reporter->stop(stop);
        }
        return kExitError;
    }
}

} // namespace torchdeck::trainer
