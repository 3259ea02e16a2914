#pragma once

#include "core/jobs/jobspecvalidation.h"
#include "core/runs/launchrequest.h"

#include <QPointer>
#include <QWidget>

class QLabel;
class QPlainTextEdit;
class QProgressBar;

namespace torchdeck {

class SessionOperation;

// One submission in the agent (a new run, a chain, a resume or branch), shown as it goes: the step and its
// progress bar, the streamed deploy/build output, then the job ids or the error.
class SubmissionPanel : public QWidget {
    Q_OBJECT
public:
    explicit SubmissionPanel(QWidget *parent = nullptr);

    // Shows it as it goes (one at a time). Never blocks.
    void follow(SessionOperation *submission);
    // A line of its own in the output, before or between submissions (the clusters' start estimates).
    void note(const QString &text);
    bool isRunning() const { return m_running; }
    QString statusText() const;
    QString outputText() const;

signals:
    void started();
    void submitted(const torchdeck::LaunchResult &result);
    void failed(const QString &error);
    void refused(const QList<torchdeck::JobSpecError> &errors); // the job's own check, in the agent, before failed

private:
    void finish(const QString &status, bool ok);

    QLabel *m_status;
    QProgressBar *m_progress;
    QPlainTextEdit *m_output;
    bool m_running = false;
    bool m_noted = false; // notes since the last submission began
};

} // namespace torchdeck
