#include "remote/commandstep.h"

#include "remote/remotetr.h"

namespace torchdeck::remote {

void runCommandStep(Connection *connection, const StepHandle &step, const QString &what, const QString &command,
                    const std::function<void(const QByteArray &)> &then, const CommandStepOptions &options)
{
    if (!connection)
        return step.fail(Tr::tr("%1: the connection is gone").arg(what));
    RemoteCommand *run = connection->run(command, options.deadlineMs);
    if (options.output)
        QObject::connect(run, &RemoteCommand::output, step.context(),
                         [output = options.output](const QByteArray &data, bool) { output(data); });
    QObject::connect(run, &RemoteCommand::failed, step.context(),
                     [step, what](const QString &error) { step.fail(what + u": " + error); });
    QObject::connect(run, &RemoteCommand::finished, step.context(), [step, what, then](const ExecResult &result) {
        if (result.exitCode != 0) {
            const QByteArray tail = (result.err.isEmpty() ? result.out : result.err).right(4000).trimmed();
            return step.fail(Tr::tr("%1 failed (exit code %2)%3%4")
                                 .arg(what)
                                 .arg(result.exitCode)
                                 .arg(tail.isEmpty() ? QString() : QStringLiteral(":\n"), QString::fromUtf8(tail)));
        }
        then(result.out);
    });
}

} // namespace torchdeck::remote
