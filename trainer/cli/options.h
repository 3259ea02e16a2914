#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace torchdeck::trainer {

// Every knob of one training run. Plain values only: this header is included everywhere and must stay
// free of torch includes.
struct Options {
    std::string model = "ae";           // ae | toy | toy-split | resnet18 | resnet50
    std::string data = "fashion-mnist"; // fashion-mnist[:DIR] | mnist:DIR | synthetic[:N]
    int epochs = 1;
    int batchSize = 64; // per rank
    double lr = 1e-3;
    std::string optimizer = "adam"; // adam | sgd
    double momentum = 0.0;          // sgd only
    double weightDecay = 0.0;
    std::uint64_t seed = 0;

    std::string metricsPath;      // empty: no metrics file
    std::string checkpointDir;    // empty: no checkpoints
    int checkpointEverySteps = 0; // 0: at the end of every epoch
    int keep = 3;
    std::string resume = "auto"; // auto | none | PATH

    std::string backend = "auto"; // auto | gloo | nccl | shm
    std::string device = "auto";  // auto | cpu | cuda
    std::string amp = "none";     // none | bf16
    bool channelsLast = false;
    bool deterministic = false; // CUDA: deterministic cuDNN algorithms, no cudnn.benchmark autotuning
    std::string cudaGraphs = "auto"; // auto | on | off: the steady-state step captured in a CUDA graph
    int threads = 0;            // 0: LibTorch's default
    int nprocPerNode = 0;       // 0: no built-in launcher
    std::int64_t limit = 0;     // 0: all samples
    int logEvery = 50;
    double bucketMb = 25.0;
    int timeoutSeconds = 300;
    std::vector<int> stopSignals;   // filled with the defaults by the parser
    std::int64_t signalAtStep = -1; // testing aid: raise the first stop signal after this global step
    // Testing aids for the stall alarm and the straggler report: rank `hangRank` sleeps `hangSeconds` inside
    // global step `hangAtStep` (--sleep-in-step STEP:RANK:SECONDS); rank `slowRank` sleeps `slowSeconds` in
    // every step (--slow-rank RANK:SECONDS).
    std::int64_t hangAtStep = -1;
    int hangRank = 0;
    double hangSeconds = 0;
    int slowRank = -1;
    double slowSeconds = 0;

    bool help = false;
    bool version = false;
};

struct ParseResult {
    Options options;
    std::string error; // empty on success
};

// Parses argv[1..]. Never exits, never prints: errors come back as text.
ParseResult parseOptions(const std::vector<std::string> &args);

std::string usageText();

// The options as a flat JSON object (for the start event and checkpoints).
std::string optionsToJson(const Options &options);

std::string signalName(int signal);

} // namespace torchdeck::trainer
