#include "run/stop_signals.h"

#include <csignal>
#include <cstring>
#include <stdexcept>

namespace torchdeck::trainer {

namespace {

// A signal handler can only write to static storage; this is the one piece of global state, written by
// the handler and read by the training loop.
volatile std::sig_atomic_t receivedSignal = 0;

extern "C" void recordStopSignal(int signal)
{
    if (receivedSignal == 0)
        receivedSignal = signal;
}

} // namespace

StopSignals::StopSignals(const std::vector<int> &signals)
    : signals_(signals)
{
    receivedSignal = 0;
    for (const int s : signals_) {
        struct sigaction action;
        std::memset(&action, 0, sizeof action);
        action.sa_handler = recordStopSignal;
        sigemptyset(&action.sa_mask);
        action.sa_flags = SA_RESTART;
        Saved saved{s, {}};
        if (sigaction(s, &action, &saved.previous) != 0)
            throw std::runtime_error("cannot install a handler for signal " + std::to_string(s));
        saved_.push_back(saved);
    }
}

StopSignals::~StopSignals()
{
    for (const Saved &saved : saved_)
        sigaction(saved.signal, &saved.previous, nullptr);
}

bool StopSignals::requested() const
{
    return receivedSignal != 0;
}

int StopSignals::signal() const
{
    return receivedSignal;
}

void StopSignals::raiseFirst() const
{
    if (!signals_.empty())
        std::raise(signals_.front());
}

} // namespace torchdeck::trainer
