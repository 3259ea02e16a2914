#pragma once

#include "client/sessionoperation.h"
#include "core/eventwait.h"

#include <QCborMap>
#include <QCborValue>
#include <QString>
#include <functional>

namespace torchdeck::term {

// A terminal command waits for its answer: these run the event loop until it comes (the libraries below
// never block).

using torchdeck::waitUntil; // core/eventwait.h

// How an operation of the agent ended.
struct OperationOutcome {
    bool ok = false;
    QCborValue result; // when ok: read it with reply<Op>()
    QString error;     // when not
    // The reply of the protocol's operation `Op` (core/agent/agentops.h); none when not ok or unreadable.
    template <class Op> std::optional<typename Op::Reply> reply() const
    {
        return ok ? replyOf<Op>(result) : std::nullopt;
    }
};
// Waits for the operation's end (timeoutMs 0: no limit; on timeout it is stopped and the outcome says so);
// `onEvent` sees its events (log bytes, a check's lines) as they come.
OperationOutcome waitFor(SessionOperation *operation, int timeoutMs,
                         const std::function<void(const QString &name, const QCborMap &args)> &onEvent = {});

} // namespace torchdeck::term
