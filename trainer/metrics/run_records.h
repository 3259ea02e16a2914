#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace torchdeck::trainer {

// What the metrics file and the human log report; one struct per event of docs/metrics-schema.md.

struct ResumeOrigin {
    std::string path;
    std::int64_t epoch = 0;
    std::int64_t step = 0;
    int skipped = 0; // newer checkpoints rejected as torn or corrupt
};

struct StartRecord {
    std::string launcher;
    int worldSize = 1;
    int numNodes = 1;
    int localWorldSize = 1;
    std::string master;
    std::string backend;
    std::string device;
    std::string model;
    std::int64_t parameters = 0;
    std::string dataset;
    std::int64_t trainSamples = 0;
    std::int64_t valSamples = 0;
    int epochs = 0;
    int batchSize = 0;
    std::int64_t stepsPerEpoch = 0;
    int threads = 0;
    std::optional<ResumeOrigin> resume;
    std::string configJson;
    std::string cudaGraphs; // "on", or "off: why"
};

struct StepRecord {
    std::int64_t epoch = 0; // 1-based
    std::int64_t step = 0;  // global step, 1-based count of optimizer steps done
    std::int64_t epochStep = 0;
    std::int64_t stepsPerEpoch = 0;
    double loss = 0;
    double lr = 0;
    double samplesPerSecond = 0;
    // With several ranks: each rank's mean seconds per step since the previous step event, computing (batch,
    // forward, backward) and waiting for the gradient all-reduce to finish; indexed by rank.
    std::vector<double> rankComputeSeconds;
    std::vector<double> rankWaitSeconds;
};

struct EpochRecord {
    std::int64_t epoch = 0; // 1-based
    int epochs = 0;
    std::int64_t step = 0;
    double trainLoss = 0;
    double valLoss = 0;
    std::optional<double> valAccuracy;
    double seconds = 0;
    double samplesPerSecond = 0;
};

struct CheckpointRecord {
    std::string path;
    std::int64_t epoch = 0; // epochs completed
    std::int64_t step = 0;
    std::uint64_t bytes = 0;
    double seconds = 0;
    std::string reason; // epoch | steps | signal | final
};

struct StopRecord {
    std::string reason; // done | signal | error
    int exitCode = 0;
    std::int64_t step = 0;
    std::string signal;
    std::string message;
};

} // namespace torchdeck::trainer
