#include "gui/submissionpanel.h"

#include "client/sessionoperation.h"
#include "core/agent/agentevents.h"
#include "core/agent/agentops.h"

#include <QFontDatabase>
#include <QLabel>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QScrollBar>
#include <QSet>
#include <QVBoxLayout>

namespace torchdeck {

SubmissionPanel::SubmissionPanel(QWidget *parent)
    : QWidget(parent)
    , m_status(new QLabel)
    , m_progress(new QProgressBar)
    , m_output(new QPlainTextEdit)
{
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_progress->setRange(0, 1);
    m_progress->setValue(0);
    m_progress->setTextVisible(false); // "0%" before anything started says nothing
    m_output->setReadOnly(true);
    m_output->setMaximumBlockCount(5000);
    m_output->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_output->setPlaceholderText(tr("Deployment and build output appears here."));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_status);
    layout->addWidget(m_progress);
    layout->addWidget(m_output, 1);
}

QString SubmissionPanel::statusText() const
{
    return m_status->text();
}

QString SubmissionPanel::outputText() const
{
    return m_output->toPlainText();
}

void SubmissionPanel::note(const QString &text)
{
    if (!m_noted && !m_running)
        m_output->clear(); // the last submission's lines go when this one's first note comes
    m_noted = true;
    m_output->appendPlainText(text);
}

void SubmissionPanel::follow(SessionOperation *submission)
{
    if (m_running)
        return submission->stop();
    m_running = true;
    if (!m_noted)
        m_output->clear();
    m_noted = false;            // the notes just before (the start estimates) stay above this submission's lines
    m_progress->setRange(0, 0); // busy until a step says how far it is
    m_status->setStyleSheet(QString());
    emit started();
    connect(submission, &SessionOperation::progress, this, [this](const QString &step, qint64 done, qint64 total) {
        m_status->setText(step);
        m_progress->setTextVisible(total > 0);
        if (total > 0) {
            // QProgressBar is int: scale byte counts down.
            const double scale = total > 1'000'000'000 ? 1000.0 : 1.0;
            m_progress->setRange(0, int(double(total) / scale));
            m_progress->setValue(int(double(done) / scale));
        } else {
            m_progress->setRange(0, 0);
        }
    });
    connect(submission, &SessionOperation::output, this, [this](const QString &text) {
        QScrollBar *bar = m_output->verticalScrollBar();
        const bool atEnd = bar->value() == bar->maximum();
        m_output->moveCursor(QTextCursor::End);
        m_output->insertPlainText(text);
        if (atEnd)
            bar->setValue(bar->maximum());
    });
    auto jobs = std::make_shared<QStringList>();
    auto runs = std::make_shared<QSet<QString>>();
    onEvent<agent::JobEvent>(submission, this, [this, jobs, runs](const agent::JobEvent &sent) {
        const LaunchResult &result = sent.result;
        jobs->append(result.jobId);
        runs->insert(result.runId);
        m_output->appendPlainText(
            tr("job %1: attempt %2 of run %3").arg(result.jobId).arg(result.attempt).arg(result.runId.left(8)));
    });
    onEvent<agent::JobErrorsEvent>(submission, this,
                                   [this](const agent::JobErrorsEvent &refusal) { emit refused(refusal.errors); });
    connect(submission, &SessionOperation::finished, this, [this, jobs, runs](const QCborValue &value) {
        // Every submission's reply (submit, submit_sweep and resume alike).
        const std::optional<agent::SubmitReply> reply = replyOf<agent::Submit>(value);
        if (!reply)
            return finish(tr("Failed: the agent's answer is unreadable"), false);
        const LaunchResult *result = &reply->first;
        const QString &sweep = reply->sweep;
        if (!sweep.isEmpty()) {
            finish(tr("Submitted: sweep %1, %2 runs (jobs %3)")
                       .arg(sweep.left(8))
                       .arg(runs->size())
                       .arg(jobs->join(QStringLiteral(", "))),
                   true);
            return emit submitted(*result);
        }
        finish(jobs->size() > 1 ? tr("Submitted: jobs %1 (a chain), run %2")
                                      .arg(jobs->join(QStringLiteral(", ")), result->runId.left(8))
                                : tr("Submitted: job %1, run %2 (attempt %3)")
                                      .arg(result->jobId, result->runId.left(8))
                                      .arg(result->attempt),
               true);
        emit submitted(*result);
    });
    connect(submission, &SessionOperation::failed, this,
            [this](const QString &error) { finish(tr("Failed: %1").arg(error), false); });
}

void SubmissionPanel::finish(const QString &status, bool ok)
{
    m_running = false;
    m_progress->setRange(0, 1);
    m_progress->setValue(ok ? 1 : 0);
    m_status->setText(status);
    m_status->setStyleSheet(ok ? QString() : QStringLiteral("color: #d04040;"));
    if (!ok)
        emit failed(status);
}

} // namespace torchdeck
