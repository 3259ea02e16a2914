#pragma once

#include <QDateTime>
#include <QHash>
#include <QSet>
#include <QStringList>

namespace torchdeck {

// The runs whose restart failed (the scheduler refused it, the connection broke): each is tried again once its
// wait is over, waiting longer each time (core/runs/restartbackoff.h), until it restarts, is not to be restarted
// after all, or has a job again (restarted elsewhere). The run tracker keeps one; its decisions are here.
class RestartRetries {
public:
    // A restart of the run failed at `now`: the wait, in seconds, before it is tried again.
    int failed(const QString &runId, const QDateTime &now);
    void clear(const QString &runId); // restarted, or not to be restarted after all
    bool contains(const QString &runId) const { return m_retries.contains(runId); }
    bool isEmpty() const { return m_retries.isEmpty(); }
    // The runs to try again at `now`, their wait over. Those with a job again (`withJob`) are forgotten.
    QStringList due(const QDateTime &now, const QSet<QString> &withJob);

private:
    struct Retry {
        QDateTime next;
        int delaySeconds = 0;
    };
    QHash<QString, Retry> m_retries;
};

} // namespace torchdeck
