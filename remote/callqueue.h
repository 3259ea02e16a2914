#pragma once

#include <QObject>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>

namespace torchdeck::remote {

// Calls handed from any thread to the thread of this object, run there in order. The hand-over goes through
// a std::mutex, so ThreadSanitizer sees it: Qt's queued calls synchronise inside libQt6Core, which it cannot
// see, so every queued lambda between the connection's threads looked like a race to it.
class CallQueue final : public QObject {
    Q_OBJECT
public:
    CallQueue();
    ~CallQueue() override;

    // What other threads post through; it may outlive the queue (a post after that is dropped).
    class Sender {
    public:
        void post(std::function<void()> call) const;

    private:
        friend class CallQueue;
        struct Shared;
        std::shared_ptr<Shared> m_shared;
    };
    Sender sender() const { return m_sender; }

private:
    Q_INVOKABLE void drain();
    Sender m_sender;
};

struct CallQueue::Sender::Shared {
    std::mutex mutex;
    std::deque<std::function<void()>> calls;
    CallQueue *receiver = nullptr; // null once the queue is gone
    bool wakePending = false;
};

} // namespace torchdeck::remote
