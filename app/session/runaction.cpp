#include "session/internal/runaction.h"

#include "remote/schedulerclient.h"
#include "session/internal/sessioninternals.h"

#include <QTimer>

namespace torchdeck {

namespace {
QString doneWord(SchedulerAction action)
{
    switch (action) {
    case SchedulerAction::Cancel:
        return RunAction::tr("cancelled");
    case SchedulerAction::Requeue:
        return RunAction::tr("requeued");
    case SchedulerAction::Hold:
        return RunAction::tr("held");
    case SchedulerAction::Release:
        return RunAction::tr("released");
    }
    return {};
}
} // namespace

RunAction::RunAction(ClusterSession *session, SchedulerAction action, QStringList runIds,
                     QList<QStringList> jobIdsByRun, SchedulerCommands commands)
    : QObject(session)
    , m_session(session)
    , m_action(action)
    , m_runIds(std::move(runIds))
    , m_commands(std::move(commands))
{
    for (const QStringList &ofRun : std::as_const(jobIdsByRun)) {
        for (qsizetype i = 0; i < ofRun.size(); ++i) {
            if (m_turns.size() <= i)
                m_turns.append(QStringList());
            m_turns[i].append(ofRun.at(i));
            m_jobIds.append(ofRun.at(i));
        }
    }
}

void RunAction::start()
{
    if (m_jobIds.isEmpty()) {
        // Asynchronous like every other outcome, so a caller connects after start() all the same.
        QTimer::singleShot(0, this, [this] {
            emit finished(tr("no unfinished job"));
            deleteLater();
        });
        return;
    }
    m_session->whenConnected(
        this, [this] { act(); },
        [this](const QString &error) {
            emit failed(tr("cannot connect to %1: %2").arg(m_session->name(), error));
            deleteLater();
        });
}

void RunAction::act()
{
    if (!m_session)
        return deleteLater();
    auto *client = new remote::SchedulerClient(&SessionInternals::connection(*m_session), m_commands, this);
    connect(client, &remote::SchedulerClient::failed, this, [this](const QString &error) {
        emit failed(error);
        deleteLater();
    });
    connect(client, &remote::SchedulerClient::actionDone, this, [this, client] {
        if (!m_turns.isEmpty())
            return client->act(m_action, m_turns.takeFirst());
        emit finished(tr("%1 job %2").arg(doneWord(m_action), m_jobIds.join(QStringLiteral(", "))));
        if (m_session)
            m_session->refresh(m_runIds);
        deleteLater();
    });
    client->act(m_action, m_turns.takeFirst());
}

} // namespace torchdeck
