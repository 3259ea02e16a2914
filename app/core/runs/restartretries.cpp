#include "core/runs/restartretries.h"

#include "core/runs/restartbackoff.h"

namespace torchdeck {

int RestartRetries::failed(const QString &runId, const QDateTime &now)
{
    const int delay = nextRestartRetrySeconds(m_retries.value(runId).delaySeconds);
    m_retries[runId] = {now.addSecs(delay), delay};
    return delay;
}

void RestartRetries::clear(const QString &runId)
{
    m_retries.remove(runId);
}

QStringList RestartRetries::due(const QDateTime &now, const QSet<QString> &withJob)
{
    QStringList due;
    for (auto it = m_retries.begin(); it != m_retries.end();) {
        if (withJob.contains(it.key())) {
            it = m_retries.erase(it);
            continue;
        }
        if (it->next <= now)
            due.append(it.key());
        ++it;
    }
    due.sort(); // the same order every time
    return due;
}

} // namespace torchdeck
