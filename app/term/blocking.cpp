#include "term/blocking.h"

#include "session/sessionoperation.h"
#include "term/termtr.h"

#include <QEventLoop>
#include <QPointer>
#include <QTimer>
#include <memory>

namespace torchdeck::term {

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

OperationOutcome waitFor(SessionOperation *operation, int timeoutMs,
                         const std::function<void(const QString &, const QCborMap &)> &onEvent)
{
    auto outcome = std::make_shared<OperationOutcome>();
    QObject context;
    const QPointer<SessionOperation> watched(operation);
    const bool ended = waitUntil(
        [&](const std::function<void()> &done) {
            if (onEvent)
                QObject::connect(operation, &SessionOperation::event, &context, onEvent);
            QObject::connect(operation, &SessionOperation::finished, &context, [outcome, done](const QCborValue &r) {
                outcome->ok = true;
                outcome->result = r;
                done();
            });
            QObject::connect(operation, &SessionOperation::failed, &context, [outcome, done](const QString &error) {
                outcome->error = error;
                done();
            });
        },
        timeoutMs);
    if (!ended) {
        if (watched)
            watched->stop();
        outcome->error = Tr::tr("no answer within %1 s").arg(timeoutMs / 1000);
    }
    return *outcome;
}

} // namespace torchdeck::term
