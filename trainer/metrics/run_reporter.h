#pragma once

#include "metrics/run_records.h"

#include <cstdio>
#include <memory>
#include <string>

namespace torchdeck::trainer {

// Rank 0's voice: every event goes to the JSON Lines metrics file (flushed per line) and, readably, to
// stdout. Other ranks hold a silent reporter.
class RunReporter {
public:
    // `metricsPath` empty: no metrics file. `active` false: report nothing (ranks other than 0).
    RunReporter(const std::string &metricsPath, bool active);
    ~RunReporter();
    RunReporter(const RunReporter &) = delete;
    RunReporter &operator=(const RunReporter &) = delete;

    void start(const StartRecord &r);
    void step(const StepRecord &r);
    void epoch(const EpochRecord &r);
    void checkpoint(const CheckpointRecord &r);
    void stop(const StopRecord &r);
    // A free-form line for the human log only.
    void note(const std::string &line);

private:
    void writeEvent(const std::string &event, const std::string &fieldsJson);

    bool active_;
    std::FILE *metrics_ = nullptr;
};

} // namespace torchdeck::trainer
