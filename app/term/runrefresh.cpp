#include "term/runrefresh.h"

#include "core/agent/agentops.h"
#include "term/termtr.h"

#include <QMap>

namespace torchdeck::term {

namespace {
constexpr int refreshTimeoutMs = 120000;
// A pass of the agent's that ended this recently stands for a new one: against a warm agent a command
// answers at once (the agent polls while a run is unfinished).
constexpr int freshEnoughMs = 1000;
} // namespace

bool refreshRuns(TermContext &context, const QList<RunRecord> &runs)
{
    QMap<QString, QStringList> byCluster;
    for (const RunRecord &run : runs) {
        if (!run.hasEnded())
            byCluster[run.cluster].append(run.id);
    }
    bool allWell = true;
    for (auto it = byCluster.cbegin(); it != byCluster.cend(); ++it) {
        if (!context.connect(it.key())) {
            allWell = false;
            continue;
        }
        AgentClient &agent = context.agent();
        const QStringList &runIds = it.value();
        const QMetaObject::Connection said = QObject::connect(
            &agent, &AgentClient::restarted, &agent,
            [&context, runIds](const QString &runId, const QString &jobId, const QString &reason) {
                if (runIds.contains(runId))
                    context.err()
                        << Tr::tr("torchdeck: run %1 restarted as job %2 (%3)\n").arg(runId.left(8), jobId, reason)
                        << Qt::flush;
            });
        const OperationOutcome pass =
            context.wait(agent.refresh(it.key(), runIds, freshEnoughMs), refreshTimeoutMs, it.key());
        QObject::disconnect(said);
        const QString problem = pass.reply<agent::Refresh>().value_or(agent::Refresh::Reply{}).problem;
        if (!pass.ok) {
            allWell = false;
        } else if (!problem.isEmpty()) {
            context.error(QStringLiteral("%1: %2").arg(it.key(), problem));
            allWell = false;
        }
    }
    return allWell;
}

} // namespace torchdeck::term
