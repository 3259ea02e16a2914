#pragma once

#include "remote/runlauncher.h"

#include <QPointer>
#include <QWidget>

class QLabel;
class QPlainTextEdit;
class QProgressBar;

namespace torchdeck {

class ClusterSession;
class RunStore;

// One submission (new run or resume) through remote::RunLauncher, shown as it goes: the step and its
// progress bar, the streamed deploy/build output, then the job id or the remote's error.
class SubmissionPanel : public QWidget {
    Q_OBJECT
public:
    explicit SubmissionPanel(QWidget *parent = nullptr);

    // Connects the session first when needed; never blocks.
    void start(ClusterSession *session, RunStore *store, const remote::LaunchRequest &request);
    bool isRunning() const { return m_running; }
    QString statusText() const;
    QString outputText() const;

signals:
    void started();
    void submitted(const torchdeck::remote::LaunchResult &result);
    void failed(const QString &error);

private:
    void launch(ClusterSession *session, RunStore *store, const remote::LaunchRequest &request);
    void finish(const QString &status, bool ok);

    QLabel *m_status;
    QProgressBar *m_progress;
    QPlainTextEdit *m_output;
    QPointer<remote::RunLauncher> m_launcher;
    bool m_running = false;
};

} // namespace torchdeck
