#pragma once

#include <QString>
#include <condition_variable>
#include <mutex>
#include <optional>

namespace torchdeck::remote {

// A question asked from the worker thread and answered from the front's thread. The worker waits;
// cancel() (the connection is going away) wakes it with "no answer".
struct PendingAnswer {
    std::optional<QString> wait()
    {
        std::unique_lock lock(mutex);
        ready.wait(lock, [this] { return answered || cancelled; });
        answered = false;
        std::optional<QString> result = std::move(value);
        value.reset();
        return cancelled ? std::nullopt : result;
    }
    void answer(std::optional<QString> answerValue)
    {
        const std::lock_guard lock(mutex);
        value = std::move(answerValue);
        answered = true;
        ready.notify_all();
    }
    void cancel()
    {
        const std::lock_guard lock(mutex);
        cancelled = true;
        ready.notify_all();
    }

    std::mutex mutex;
    std::condition_variable ready;
    std::optional<QString> value;
    bool answered = false;
    bool cancelled = false;
};

} // namespace torchdeck::remote
