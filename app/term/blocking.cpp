#include "term/blocking.h"

#include "client/sessionoperation.h"
#include "term/termtr.h"

#include <QPointer>
#include <memory>

namespace torchdeck::term {

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
