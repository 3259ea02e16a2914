#include "remote/callqueue.h"

namespace torchdeck::remote {

CallQueue::CallQueue()
{
    m_sender.m_shared = std::make_shared<Sender::Shared>();
    m_sender.m_shared->receiver = this;
}

CallQueue::~CallQueue()
{
    std::deque<std::function<void()>> dropped; // destroyed outside the lock: captures may post again
    const std::lock_guard lock(m_sender.m_shared->mutex);
    m_sender.m_shared->receiver = nullptr;
    dropped.swap(m_sender.m_shared->calls);
}

void CallQueue::Sender::post(std::function<void()> call) const
{
    const std::lock_guard lock(m_shared->mutex);
    if (!m_shared->receiver)
        return;
    m_shared->calls.push_back(std::move(call));
    if (!m_shared->wakePending) {
        m_shared->wakePending = true;
        // By name: Qt then allocates and frees the event inside libQt6Core, none of it in our instrumented code.
        // Under the lock, so the receiver cannot be destroyed in between.
        QMetaObject::invokeMethod(m_shared->receiver, "drain", Qt::QueuedConnection);
    }
}

// One call per event, the next one's event posted first: the order holds, and a call that waits in a nested
// event loop still sees the calls posted after it.
void CallQueue::drain()
{
    std::function<void()> call;
    {
        const std::lock_guard lock(m_sender.m_shared->mutex);
        std::deque<std::function<void()>> &calls = m_sender.m_shared->calls;
        if (calls.empty()) {
            m_sender.m_shared->wakePending = false;
            return;
        }
        call = std::move(calls.front());
        calls.pop_front();
        if (calls.empty())
            m_sender.m_shared->wakePending = false;
        else
            QMetaObject::invokeMethod(this, "drain", Qt::QueuedConnection);
    }
    call();
}

} // namespace torchdeck::remote
