#include "checkpoint/checkpoint_store.h"
#include "cli/options.h"
#include "data/dataset.h"
#include "data/distributed_sampler.h"
#include "dist/communicator.h"
#include "dist/gradient_reducer.h"
#include "dist/launch_env.h"
#include "metrics/run_reporter.h"
#include "models/trainable_model.h"
#include "optim/flat_optimizer.h"
#include "optim/flat_parameters.h"
#include "run/autocast_scope.h"
#include "run/batch.h"
#include "run/evaluate.h"
#include "run/rank_heartbeat.h"
#include "run/step_graph.h"
#include "run/stop_signals.h"
#include "run/train_context.h"

#include <chrono>
#include <optional>
#include <stdexcept>
#include <thread>
#include <torch/torch.h>

namespace torchdeck::trainer {

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start)
{
    return std::chrono::duration<double>(Clock::now() - start).count();
}

// Sums `values` over all ranks (blocking; identity with one rank).
std::vector<double> sumOverRanks(const TrainContext &ctx, std::vector<double> values)
{
    if (ctx.comm == nullptr)
        return values;
    at::Tensor t = torch::tensor(values, torch::kFloat64).to(ctx.comm->device());
    ctx.comm->allreduceSum(t)->wait();
    t = t.cpu();
    return std::vector<double>(t.data_ptr<double>(), t.data_ptr<double>() + t.numel());
}

// The testing aids' sleep, in a frame of its own: a stack dump of the hanging rank shows it by name.
[[gnu::noinline]] void sleepForTesting(double seconds)
{
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
}

// Rank 0's model buffers (BatchNorm statistics) to every rank.
void syncBuffers(const TrainContext &ctx)
{
    if (ctx.comm == nullptr)
        return;
    torch::NoGradGuard noGrad;
    for (auto &buffer : ctx.model.buffers())
        ctx.comm->broadcast(buffer, 0);
}

// Per-rank running sums of the training loss; step losses stay on the device until a flush.
struct LossTally {
    at::Tensor unflushed; // device scalar: sum of the step losses since the last flush
    std::int64_t unflushedSteps = 0;
    double epochSum = 0; // flushed sums of this epoch (after a resume rank 0 also holds the global part)
    std::int64_t epochCount = 0;
    double logSum = 0; // since the last step event
    std::int64_t logSteps = 0;
    std::int64_t logSamples = 0;
    double logComputeSeconds = 0; // this rank's, since the last step event
    double logWaitSeconds = 0;

    void add(const at::Tensor &loss, std::int64_t samples)
    {
        unflushed += loss.detach().to(torch::kFloat64);
        ++unflushedSteps;
        ++logSteps;
        logSamples += samples;
    }

    void flush()
    {
        const double sum = unflushedSteps > 0 ? unflushed.item<double>() : 0.0;
        epochSum += sum;
        logSum += sum;
        epochCount += unflushedSteps;
        unflushedSteps = 0;
        unflushed.zero_();
    }

    void resetLog()
    {
        logSum = 0;
        logSteps = 0;
        logSamples = 0;
        logComputeSeconds = 0;
        logWaitSeconds = 0;
    }
};

// The optimizer's capturing mode for the time a graph records its step, whatever happens meanwhile.
class OptimizerCapture {
public:
    explicit OptimizerCapture(FlatOptimizer &optimizer)
        : optimizer_(optimizer)
    {
        optimizer_.setCapturing(true);
    }
    ~OptimizerCapture() { optimizer_.setCapturing(false); }
    OptimizerCapture(const OptimizerCapture &) = delete;
    OptimizerCapture &operator=(const OptimizerCapture &) = delete;

private:
    FlatOptimizer &optimizer_;
};

class Trainer {
public:
    Trainer(TrainContext &ctx, Progress progress)
        : ctx_(ctx)
        , o_(ctx.options)
        , progress_(progress)
        , sampler_(ctx.data.train.size(), ctx.launch.worldSize, ctx.launch.rank, /*shuffle=*/true, o_.seed)
        , valIndices_(strideShard(ctx.data.val.size(), ctx.launch.worldSize, ctx.launch.rank))
        , heartbeat_(ctx.options.metricsPath, ctx.launch.rank)
    {
        tally_.unflushed =
            torch::zeros({}, torch::TensorOptions().dtype(torch::kFloat64).device(ctx.devices.dataDevice));
        tally_.epochSum = progress.epochLossSum;
        tally_.epochCount = progress.epochLossCount;
        // Polling the agreed stop flag forces a host sync; on GPUs do it every few steps only.
        stopCheckEvery_ = ctx.devices.cuda ? kCudaStopCheckEvery : 1;
        if (progress.globalStep > 0)
            lastCheckpointStep_ = progress.globalStep; // resumed from a checkpoint of this step
        // A bucket's all-reduce launched from backward may block until every rank is there (shm): from then
        // on this rank waits for the others, whatever backward has left to do.
        if (ctx.reducer != nullptr)
            ctx.reducer->setLaunchHook([this] { heartbeat_.mark(progress_.globalStep + 1, "allreduce"); });
        if (ctx.cudaGraphs) {
            graph_ = makeStepGraph();
            if (ctx.reducer != nullptr)
                graphControl_ =
                    torch::zeros({1}, torch::TensorOptions().dtype(torch::kFloat).device(ctx.devices.dataDevice));
        }
    }

    ~Trainer()
    {
        if (ctx_.reducer != nullptr)
            ctx_.reducer->setLaunchHook({});
    }
    Trainer(const Trainer &) = delete;
    Trainer &operator=(const Trainer &) = delete;

    TrainOutcome run()
    {
        const std::int64_t steps = stepsPerEpoch(ctx_);
        for (; progress_.epoch < o_.epochs; ++progress_.epoch) {
            const auto epochStart = Clock::now();
            const std::vector<std::int64_t> indices = sampler_.epochIndices(progress_.epoch);
            windowStart_ = Clock::now();
            for (; progress_.epochStep < steps;) {
                const bool stop = trainStep(indices);
                const bool logNow = progress_.globalStep % o_.logEvery == 0;
                const bool checkpointNow = o_.checkpointEverySteps > 0 && !o_.checkpointDir.empty() &&
                                           progress_.globalStep % o_.checkpointEverySteps == 0;
                if (logNow || stop || checkpointNow || progress_.epochStep == steps) {
                    awaitGraph();
                    tally_.flush();
                }
                if (logNow)
                    reportStep(steps);
                if (stop) {
                    checkpoint("signal");
                    return {true, ctx_.signals.signal(), progress_.globalStep};
                }
                if (checkpointNow)
                    checkpoint("steps");
            }
            finishEpoch(secondsSince(epochStart), steps);
        }
        if (!o_.checkpointDir.empty() && lastCheckpointStep_ != progress_.globalStep)
            checkpoint("final");
        return {false, 0, progress_.globalStep};
    }

private:
    static constexpr int kCudaStopCheckEvery = 10;
    static constexpr int kGraphWarmUpSteps = 3;

    // One optimizer step; returns whether all ranks agreed to stop after it.
    bool trainStep(const std::vector<std::int64_t> &indices)
    {
        // Every rank's stop flag, read now, travels with the last gradient bucket of this step: all
        // ranks see the same sum after the step, and it costs no collective of its own.
        const bool checkStop = progress_.globalStep % stopCheckEvery_ == 0;
        bool stop = ctx_.signals.requested();
        const auto stepStart = Clock::now();
        heartbeat_.mark(progress_.globalStep + 1, "compute");
        const std::int64_t batch = o_.batchSize;
        const std::int64_t begin = progress_.epochStep * batch;
        const std::int64_t count = std::min<std::int64_t>(batch, static_cast<std::int64_t>(indices.size()) - begin);
        const Batch b =
            gatherBatch(ctx_.data.train, indices.data() + begin, count, ctx_.devices.dataDevice, o_.channelsLast);
        const at::Tensor loss =
            graph_ != nullptr && count == batch ? graphStep(b, stop, stepStart) : eagerStep(b, stop, stepStart);

        ++progress_.globalStep;
        ++progress_.epochStep;
        tally_.add(loss, count);
        if (ctx_.reducer != nullptr && checkStop)
            awaitGraph();
        if (ctx_.reducer != nullptr)
            stop = checkStop && ctx_.reducer->control() > 0.0f;
        else
            stop = stop && checkStop;
        if (o_.signalAtStep == progress_.globalStep)
            ctx_.signals.raiseFirst();
        return stop;
    }

    // Forward, loss, backward with the gradient all-reduce, optimizer step; returns the loss.
    at::Tensor eagerStep(const Batch &b, bool stop, Clock::time_point stepStart)
    {
        ctx_.params.zeroGrads();
        if (ctx_.reducer != nullptr)
            ctx_.reducer->prepare(stop ? 1.0f : 0.0f);
        return stepBody(b, stepStart);
    }

    // After the gradients were zeroed and the reducer prepared (its stop flag would be zeroed too).
    at::Tensor stepBody(const Batch &b, Clock::time_point stepStart)
    {
        at::Tensor output;
        {
            AutocastScope autocast(o_.amp == "bf16", ctx_.devices.dataDevice.type());
            output = ctx_.model.forward(b.inputs);
        }
        at::Tensor loss = batchLoss(ctx_.model.lossKind(), output, b);
        sleepIfAsked(progress_.globalStep + 1);
        loss.backward();
        const auto waitStart = Clock::now();
        const double waitedInBackward = ctx_.reducer != nullptr ? ctx_.reducer->secondsInBackwardLaunches() : 0.0;
        tally_.logComputeSeconds += std::chrono::duration<double>(waitStart - stepStart).count() - waitedInBackward;
        if (ctx_.reducer != nullptr) {
            heartbeat_.mark(progress_.globalStep + 1, "allreduce");
            ctx_.reducer->finish();
        }
        tally_.logWaitSeconds += secondsSince(waitStart) + waitedInBackward;
        ctx_.optimizer.step();
        return loss;
    }

    // A full batch under --cuda-graphs: a few eager steps first (cuDNN's autotuning, the optimizer's state,
    // the allocator settle), then the step is recorded once and replayed from then on. The host's time per
    // step is then the launch only: compute and wait are not told apart.
    at::Tensor graphStep(const Batch &b, bool stop, Clock::time_point stepStart)
    {
        if (!graph_->captured()) {
            if (eagerWarmUps_ < kGraphWarmUpSteps) {
                ++eagerWarmUps_;
                return eagerStep(b, stop, stepStart);
            }
            // Recording runs nothing: the step count and the step timings are put back as they were.
            const std::int64_t stepsBefore = ctx_.optimizer.stepCount();
            const double computeBefore = tally_.logComputeSeconds;
            const double waitBefore = tally_.logWaitSeconds;
            {
                const OptimizerCapture capturing(ctx_.optimizer);
                graph_->capture(b, [this, stepStart](const Batch &staticBatch) {
                    ctx_.params.zeroGrads();
                    if (ctx_.reducer != nullptr)
                        ctx_.reducer->prepare(graphControl_);
                    return stepBody(staticBatch, stepStart);
                });
            }
            ctx_.optimizer.setStepCount(stepsBefore);
            tally_.logComputeSeconds = computeBefore;
            tally_.logWaitSeconds = waitBefore;
            ctx_.reporter.note("cuda graphs: the training step is captured (after " +
                               std::to_string(kGraphWarmUpSteps) + " eager steps) and replayed");
        }
        if (graphControl_.defined())
            graphControl_.fill_(stop ? 1.0 : 0.0);
        at::Tensor loss = graph_->replay(b);
        ctx_.optimizer.setStepCount(ctx_.optimizer.stepCount() + 1);
        tally_.logComputeSeconds += secondsSince(stepStart);
        return loss;
    }

    // Before the host reads a device value after replays: waits for them with the collectives' timeout (NCCL's
    // watchdog does not see the all-reduces inside a graph). Meanwhile the rank is waiting for the step's
    // all-reduce, as far as its heartbeat tells: a rank whose host hangs is the one still in "compute".
    void awaitGraph()
    {
        if (graph_ == nullptr || !graph_->captured())
            return;
        heartbeat_.mark(progress_.globalStep, "allreduce");
        graph_->awaitReplays(std::chrono::seconds(o_.timeoutSeconds));
    }

    // The testing aids (--sleep-in-step, --slow-rank), in the compute part of `step`.
    void sleepIfAsked(std::int64_t step) const
    {
        if (o_.hangAtStep == step && o_.hangRank == ctx_.launch.rank)
            sleepForTesting(o_.hangSeconds);
        if (o_.slowRank == ctx_.launch.rank)
            sleepForTesting(o_.slowSeconds);
    }

    void reportStep(std::int64_t steps)
    {
        // Each rank's compute and wait per step ride in the same sum, in slots of their own.
        const int world = ctx_.launch.worldSize;
        std::vector<double> values{tally_.logSum, static_cast<double>(tally_.logSteps),
                                   static_cast<double>(tally_.logSamples)};
        values.resize(3 + 2 * static_cast<std::size_t>(world), 0.0);
        const double stepsDone = std::max<double>(static_cast<double>(tally_.logSteps), 1.0);
        values[3 + 2 * static_cast<std::size_t>(ctx_.launch.rank)] = tally_.logComputeSeconds / stepsDone;
        values[4 + 2 * static_cast<std::size_t>(ctx_.launch.rank)] = tally_.logWaitSeconds / stepsDone;
        const auto sums = sumOverRanks(ctx_, values);
        StepRecord r;
        r.epoch = progress_.epoch + 1;
        r.step = progress_.globalStep;
        r.epochStep = progress_.epochStep;
        r.stepsPerEpoch = steps;
        r.loss = sums[1] > 0 ? sums[0] / sums[1] : 0.0;
        r.lr = ctx_.optimizer.lr();
        r.samplesPerSecond = sums[2] / std::max(secondsSince(windowStart_), 1e-9);
        if (world > 1) {
            for (std::size_t rank = 0; rank < static_cast<std::size_t>(world); ++rank) {
                r.rankComputeSeconds.push_back(sums[3 + 2 * rank]);
                r.rankWaitSeconds.push_back(sums[4 + 2 * rank]);
            }
        }
        ctx_.reporter.step(r);
        tally_.resetLog();
        windowStart_ = Clock::now();
    }

    void finishEpoch(double trainSeconds, std::int64_t steps)
    {
        const auto loss = sumOverRanks(ctx_, {tally_.epochSum, static_cast<double>(tally_.epochCount)});
        const auto evalStart = Clock::now();
        heartbeat_.mark(progress_.globalStep, "eval");
        syncBuffers(ctx_);
        const EvalSums eval = evaluate(ctx_.model, ctx_.data.val, valIndices_, o_.batchSize, ctx_.devices,
                                       o_.channelsLast, o_.amp == "bf16");
        const auto val = sumOverRanks(ctx_, {eval.lossSum, eval.correct, eval.count});
        EpochRecord r;
        r.epoch = progress_.epoch + 1;
        r.epochs = o_.epochs;
        r.step = progress_.globalStep;
        r.trainLoss = loss[1] > 0 ? loss[0] / loss[1] : 0.0;
        r.valLoss = val[2] > 0 ? val[0] / val[2] : 0.0;
        if (ctx_.model.lossKind() == LossKind::Classification && val[2] > 0)
            r.valAccuracy = val[1] / val[2];
        r.seconds = trainSeconds + secondsSince(evalStart);
        const double samples = static_cast<double>(steps * o_.batchSize * ctx_.launch.worldSize);
        r.samplesPerSecond = samples / std::max(trainSeconds, 1e-9);
        ctx_.reporter.epoch(r);
        epochValLoss_ = r.valLoss;

        progress_.epochStep = 0;
        tally_.epochSum = 0;
        tally_.epochCount = 0;
        tally_.resetLog();
        const bool lastEpoch = progress_.epoch + 1 == o_.epochs;
        if (!o_.checkpointDir.empty() && (o_.checkpointEverySteps == 0 || lastEpoch)) {
            ++progress_.epoch; // the checkpoint resumes at the next epoch
            checkpoint(lastEpoch ? "final" : "epoch");
            --progress_.epoch;
            epochValLoss_.reset();
        }
    }

    // Collective: every rank takes part in the loss sum, rank 0 writes, then every rank waits until the
    // checkpoint is durable (written, fsync'ed, renamed) or has failed. A launcher such as mpirun kills
    // all ranks as soon as one exits with a non-zero code (75 too): no rank may leave before rank 0 is done.
    void checkpoint(const std::string &reason)
    {
        const auto loss = sumOverRanks(ctx_, {tally_.epochSum, static_cast<double>(tally_.epochCount)});
        lastCheckpointStep_ = progress_.globalStep;
        if (o_.checkpointDir.empty())
            return;
        heartbeat_.mark(progress_.globalStep, "checkpoint");
        std::string failure;
        if (ctx_.launch.rank == 0) {
            try {
                writeCheckpoint(reason, loss);
            } catch (const std::exception &e) {
                failure = e.what();
            }
        }
        const auto failed = sumOverRanks(ctx_, {failure.empty() ? 0.0 : 1.0});
        if (failed[0] > 0)
            throw std::runtime_error(ctx_.launch.rank == 0 ? "checkpoint: " + failure
                                                           : "rank 0 could not write the checkpoint");
    }

    void writeCheckpoint(const std::string &reason, const std::vector<double> &loss)
    {
        Progress p = progress_;
        p.epochLossSum = loss[0];
        p.epochLossCount = static_cast<std::int64_t>(loss[1]);
        p.batchSize = o_.batchSize;
        p.worldSize = ctx_.launch.worldSize;
        const auto start = Clock::now();
        const std::vector<char> bytes =
            serializeTrainState({ctx_.model, ctx_.params, ctx_.optimizer}, p, ctx_.configJson);
        const SavedCheckpoint saved =
            saveCheckpoint(o_.checkpointDir, o_.keep, p.globalStep, p.epoch, bytes, epochValLoss_);
        CheckpointRecord r;
        r.path = saved.path;
        r.epoch = p.epoch;
        r.step = p.globalStep;
        r.bytes = saved.bytes;
        r.seconds = secondsSince(start);
        r.reason = reason;
        ctx_.reporter.checkpoint(r);
    }

    TrainContext &ctx_;
    const Options &o_;
    Progress progress_;
    DistributedSampler sampler_;
    std::vector<std::int64_t> valIndices_;
    LossTally tally_;
    std::int64_t stopCheckEvery_ = 1;
    std::int64_t lastCheckpointStep_ = -1;
    std::optional<double> epochValLoss_; // set only while the end-of-epoch checkpoint is written
    Clock::time_point windowStart_;
    RankHeartbeat heartbeat_;
    std::unique_ptr<StepGraph> graph_; // --cuda-graphs in effect
    at::Tensor graphControl_;          // the stop flag the graph's all-reduce carries (with a reducer)
    int eagerWarmUps_ = 0;
};

} // namespace

std::int64_t stepsPerEpoch(const TrainContext &ctx)
{
    const DistributedSampler sampler(ctx.data.train.size(), ctx.launch.worldSize, ctx.launch.rank, true, 0);
    return (sampler.shardSize() + ctx.options.batchSize - 1) / ctx.options.batchSize;
}

TrainOutcome train(TrainContext &ctx, Progress progress)
{
    ctx.model.train();
    Trainer trainer(ctx, progress);
    return trainer.run();
}

} // namespace torchdeck::trainer
