#pragma once

#include <csignal>
#include <vector>

namespace torchdeck::trainer {

// Installs handlers for the stop signals (SIGUSR1/SIGUSR2/SIGTERM by default) that only record the
// first signal received; the training loop polls it and all ranks agree on the step to stop at.
// The previous handlers come back on destruction.
class StopSignals {
public:
    explicit StopSignals(const std::vector<int> &signals);
    ~StopSignals();
    StopSignals(const StopSignals &) = delete;
    StopSignals &operator=(const StopSignals &) = delete;

    bool requested() const;
    int signal() const; // 0 if none arrived
    // Testing aid (--signal-at-step): sends the first stop signal to this process.
    void raiseFirst() const;

private:
    std::vector<int> signals_;
    struct Saved {
        int signal;
        struct sigaction previous;
    };
    std::vector<Saved> saved_;
};

} // namespace torchdeck::trainer
