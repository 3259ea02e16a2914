#include "term/blocking.h"

#include "remote/connection.h"
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

bool waitConnected(remote::Connection &connection, int timeoutMs, QString *error)
{
    using remote::ConnectionState;
    const auto settled = [&connection] {
        return connection.state() == ConnectionState::Connected || connection.state() == ConnectionState::Failed;
    };
    if (!settled()) {
        QObject context;
        waitUntil(
            [&](const std::function<void()> &done) {
                QObject::connect(&connection, &remote::Connection::stateChanged, &context, [settled, done] {
                    if (settled())
                        done();
                });
            },
            timeoutMs);
    }
    const bool connected = connection.state() == ConnectionState::Connected;
    if (error)
        *error = connected                           ? QString()
                 : connection.lastDetail().isEmpty() ? Tr::tr("timed out connecting to %1").arg(connection.host())
                                                     : connection.lastDetail();
    return connected;
}

remote::ExecResult runAndWait(remote::Connection &connection, const QString &command, int timeoutMs)
{
    remote::ExecResult result;
    result.error = Tr::tr("timed out after %1 ms: %2").arg(timeoutMs).arg(command);
    QObject context;
    remote::RemoteCommand *operation = connection.run(command);
    waitUntil(
        [&](const std::function<void()> &done) {
            QObject::connect(operation, &remote::RemoteCommand::finished, &context,
                             [&result, done](const remote::ExecResult &finished) {
                                 result = finished;
                                 done();
                             });
            QObject::connect(operation, &remote::RemoteCommand::failed, &context,
                             [&result, done](const QString &error) {
                                 result.error = error;
                                 done();
                             });
        },
        timeoutMs);
    return result;
}

} // namespace torchdeck::term
