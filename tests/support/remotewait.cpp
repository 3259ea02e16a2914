#include "remotewait.h"

namespace torchdeck::testing {

bool waitConnected(remote::Connection &connection, int timeoutMs, QString *error)
{
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
        *error = connected ? QString()
                 : connection.lastDetail().isEmpty()
                     ? QStringLiteral("timed out connecting to %1").arg(connection.host())
                     : connection.lastDetail();
    return connected;
}

remote::ExecResult runAndWait(remote::Connection &connection, const QString &command, int timeoutMs)
{
    remote::ExecResult result;
    result.error = QStringLiteral("timed out after %1 ms: %2").arg(timeoutMs).arg(command);
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

} // namespace torchdeck::testing
