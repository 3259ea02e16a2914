#pragma once

#include "client/sessionoperation.h"

#include <QPointer>
#include <QWidget>

class QLabel;
class QProgressBar;

namespace torchdeck {

class AgentClient;

// A pull of a run's files to this machine (agent::Pull) with its bar: the file, bytes, rate and time left; hidden
// while nothing is pulled. The Files tab and the Checkpoints tab each have one.
class PullBar : public QWidget {
    Q_OBJECT
public:
    explicit PullBar(AgentClient *agent, QWidget *parent = nullptr);

    // `to` empty: the user picks a directory (the last one, else Downloads). False when nothing was started.
    bool pull(const QString &cluster, const QString &runId, const QStringList &files, const QString &checkpoint,
              QString to = {});
    bool isPulling() const { return m_pulling != nullptr; }

signals:
    void message(const QString &text);
    void pulled(const QStringList &localFiles);

private:
    AgentClient *m_agent;
    QLabel *m_label;
    QProgressBar *m_bar;
    QPointer<SessionOperation> m_pulling;
    QString m_lastDirectory;
};

} // namespace torchdeck
