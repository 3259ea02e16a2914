#include "metrics/run_reporter.h"

#include "metrics/json_object.h"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>

namespace torchdeck::trainer {

namespace {

constexpr int kSchemaVersion = 1;

double unixSeconds()
{
    using namespace std::chrono;
    return duration<double>(system_clock::now().time_since_epoch()).count();
}

} // namespace

RunReporter::RunReporter(const std::string &metricsPath, bool active)
    : active_(active)
{
    if (!active_ || metricsPath.empty())
        return;
    metrics_ = std::fopen(metricsPath.c_str(), "a+");
    if (metrics_ == nullptr)
        throw std::runtime_error("cannot open metrics file '" + metricsPath + "': " + std::strerror(errno));
    // A job killed mid-line (a requeued attempt appends to its own file) left a torn last line: end it, so
    // this run's first event starts a line of its own instead of being glued to the fragment and lost.
    if (std::fseek(metrics_, -1, SEEK_END) == 0 && std::fgetc(metrics_) != '\n') {
        std::fputc('\n', metrics_);
        std::fflush(metrics_);
    }
}

RunReporter::~RunReporter()
{
    if (metrics_ != nullptr)
        std::fclose(metrics_);
}

void RunReporter::writeEvent(const std::string &event, const std::string &fieldsJson)
{
    if (metrics_ == nullptr)
        return;
    JsonObject head;
    head.add("schema", kSchemaVersion).add("event", event).addFixed("time", unixSeconds(), 3);
    std::string line = head.str();
    line.pop_back(); // merge the two objects: drop '}' here and '{' of the fields
    if (fieldsJson.size() > 2)
        line += "," + fieldsJson.substr(1);
    else
        line += "}";
    line += "\n";
    std::fputs(line.c_str(), metrics_);
    std::fflush(metrics_);
}

void RunReporter::start(const StartRecord &r)
{
    if (!active_)
        return;
    JsonObject j;
    j.add("launcher", r.launcher)
        .add("world_size", r.worldSize)
        .add("nodes", r.numNodes)
        .add("local_world_size", r.localWorldSize)
        .add("master", r.master)
        .add("backend", r.backend)
        .add("device", r.device)
        .add("model", r.model)
        .add("parameters", r.parameters)
        .add("dataset", r.dataset)
        .add("train_samples", r.trainSamples)
        .add("val_samples", r.valSamples)
        .add("epochs", r.epochs)
        .add("batch_size", r.batchSize)
        .add("global_batch_size", static_cast<std::int64_t>(r.batchSize) * r.worldSize)
        .add("steps_per_epoch", r.stepsPerEpoch)
        .add("threads", r.threads)
        .add("cuda_graphs", r.cudaGraphs);
    if (r.resume) {
        JsonObject resume;
        resume.add("path", r.resume->path)
            .add("epoch", r.resume->epoch)
            .add("step", r.resume->step)
            .add("skipped", r.resume->skipped);
        j.add("resume", resume);
    } else {
        j.addNull("resume");
    }
    j.addRaw("config", r.configJson);
    writeEvent("start", j.str());
    std::printf("torchdeck-train: %s, world size %d (%d node(s), %s), backend %s on %s\n", r.launcher.c_str(),
                r.worldSize, r.numNodes, r.master.c_str(), r.backend.c_str(), r.device.c_str());
    std::printf("model %s (%lld parameters), data %s: %lld train / %lld val samples, %lld steps per epoch, "
                "batch %d per rank\n",
                r.model.c_str(), static_cast<long long>(r.parameters), r.dataset.c_str(),
                static_cast<long long>(r.trainSamples), static_cast<long long>(r.valSamples),
                static_cast<long long>(r.stepsPerEpoch), r.batchSize);
    if (r.resume)
        std::printf("resumed from %s (epoch %lld, step %lld%s)\n", r.resume->path.c_str(),
                    static_cast<long long>(r.resume->epoch), static_cast<long long>(r.resume->step),
                    r.resume->skipped > 0 ? ", newer checkpoints were unusable" : "");
    std::fflush(stdout);
}

void RunReporter::step(const StepRecord &r)
{
    if (!active_)
        return;
    JsonObject j;
    j.add("epoch", r.epoch)
        .add("step", r.step)
        .add("epoch_step", r.epochStep)
        .add("steps_per_epoch", r.stepsPerEpoch)
        .add("loss", r.loss)
        .add("lr", r.lr)
        .add("samples_per_s", r.samplesPerSecond);
    if (!r.rankComputeSeconds.empty()) {
        for (const auto &[key, values] :
             {std::pair{"rank_compute_s", &r.rankComputeSeconds}, std::pair{"rank_wait_s", &r.rankWaitSeconds}}) {
            std::vector<std::string> numbers;
            for (const double v : *values)
                numbers.push_back(jsonNumber(v));
            j.addRaw(key, jsonArray(numbers));
        }
    }
    writeEvent("step", j.str());
    std::printf("epoch %lld step %lld/%lld (global %lld): loss = %.6f, lr = %g, %.1f samples/s\n",
                static_cast<long long>(r.epoch), static_cast<long long>(r.epochStep),
                static_cast<long long>(r.stepsPerEpoch), static_cast<long long>(r.step), r.loss, r.lr,
                r.samplesPerSecond);
    std::fflush(stdout);
}

void RunReporter::epoch(const EpochRecord &r)
{
    if (!active_)
        return;
    JsonObject j;
    j.add("epoch", r.epoch)
        .add("epochs", r.epochs)
        .add("step", r.step)
        .add("train_loss", r.trainLoss)
        .add("val_loss", r.valLoss);
    if (r.valAccuracy)
        j.add("val_accuracy", *r.valAccuracy);
    else
        j.addNull("val_accuracy");
    j.add("seconds", r.seconds).add("samples_per_s", r.samplesPerSecond);
    writeEvent("epoch", j.str());
    // The tutorials' line format, so that generic log patterns also plot this trainer.
    std::printf("epoch: %lld/%d, loss = %.6f, val_loss = %.6f", static_cast<long long>(r.epoch), r.epochs, r.trainLoss,
                r.valLoss);
    if (r.valAccuracy)
        std::printf(", val_accuracy = %.4f", *r.valAccuracy);
    std::printf(", time = %.2fs, %.1f samples/s\n", r.seconds, r.samplesPerSecond);
    std::fflush(stdout);
}

void RunReporter::checkpoint(const CheckpointRecord &r)
{
    if (!active_)
        return;
    JsonObject j;
    j.add("path", r.path)
        .add("epoch", r.epoch)
        .add("step", r.step)
        .add("bytes", static_cast<std::uint64_t>(r.bytes))
        .add("seconds", r.seconds)
        .add("reason", r.reason);
    writeEvent("checkpoint", j.str());
    std::printf("checkpoint %s (%s, step %lld, %llu bytes, %.3fs)\n", r.path.c_str(), r.reason.c_str(),
                static_cast<long long>(r.step), static_cast<unsigned long long>(r.bytes), r.seconds);
    std::fflush(stdout);
}

void RunReporter::stop(const StopRecord &r)
{
    if (!active_)
        return;
    JsonObject j;
    j.add("reason", r.reason).add("exit_code", r.exitCode).add("step", r.step);
    if (!r.signal.empty())
        j.add("signal", r.signal);
    if (!r.message.empty())
        j.add("message", r.message);
    writeEvent("stop", j.str());
    std::printf("stop: %s at step %lld, exit code %d%s%s\n", r.reason.c_str(), static_cast<long long>(r.step),
                r.exitCode, r.message.empty() ? "" : ": ", r.message.c_str());
    std::fflush(stdout);
}

void RunReporter::note(const std::string &line)
{
    if (!active_)
        return;
    std::printf("%s\n", line.c_str());
    std::fflush(stdout);
}

} // namespace torchdeck::trainer
