#include "core/eventwait.h"

#include <QEventLoop>
#include <QPointer>
#include <QTimer>
#include <memory>

namespace torchdeck {

bool waitUntil(const std::function<void(std::function<void()> done)> &start, int timeoutMs)
{
    // done() may be called after a timeout, from a signal still connected: it must not touch the stack.
    struct State {
        bool finished = false;
        QPointer<QEventLoop> loop;
    };
    const auto state = std::make_shared<State>();
    QEventLoop loop;
    state->loop = &loop;
    start([state] {
        state->finished = true;
        if (state->loop)
            state->loop->quit();
    });
    if (!state->finished) {
        if (timeoutMs > 0)
            QTimer::singleShot(timeoutMs, &loop, &QEventLoop::quit);
        loop.exec();
    }
    return state->finished;
}

} // namespace torchdeck
