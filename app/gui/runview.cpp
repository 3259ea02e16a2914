#include "gui/runview.h"

#include "client/agentclient.h"
#include "client/sessionoperation.h"
#include "core/agent/agentops.h"
#include "core/metrics/resourcesample.h"
#include "core/metrics/slowestrank.h"
#include "core/profiles/profilestore.h"
#include "core/runs/jobscheduling.h"
#include "core/runs/restartdecision.h"
#include "core/runs/runfiles.h"
#include "core/scheduler/jobstate.h"
#include "core/sshconfigparser.h"
#include "core/store/keptlogs.h"
#include "core/store/runmetrics.h"
#include "core/store/runstore.h"
#include "gui/checkpointpanel.h"
#include "gui/logpanel.h"
#include "gui/logpatterndialog.h"
#include "gui/openport.h"
#include "gui/runactions.h"
#include "gui/runcharts.h"
#include "gui/runchartspanel.h"
#include "gui/runfilespanel.h"
#include "gui/runnotesbar.h"
#include "gui/submissionpanel.h"

#include <QCborMap>
#include <QCheckBox>
#include <QDateTime>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTabWidget>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>

namespace torchdeck {

RunView::RunView(AgentClient *agent, QWidget *parent)
    : QWidget(parent)
    , m_agent(agent)
    , m_actions(new RunActions(agent, this))
    , m_metrics(new RunMetrics(this))
    , m_checkpoints(new CheckpointPanel(agent))
    , m_files(new RunFilesPanel(agent))
    , m_notes(new RunNotesBar(agent))
    , m_header(new QLabel)
    , m_uses(new QLabel)
    , m_logScale(new QCheckBox(tr("Lo&g scale")))
    , m_autoRestart(new QCheckBox(tr("Restart &automatically")))
    , m_cancel(new QPushButton(tr("&Cancel run")))
    , m_requeue(new QPushButton(tr("Re&queue")))
    , m_logPatterns(new QAction(tr("Log &patterns\u2026"), this))
    , m_resumeLatest(new QPushButton(tr("Resume &latest")))
    , m_openPort(new QAction(tr("&Open port\u2026"), this))
    , m_stackDump(new QAction(tr("S&tacks\u2026"), this))
    , m_delete(new QAction(tr("&Delete run\u2026"), this))
    , m_shell(new QAction(tr("Open a &shell"), this))
    , m_continueOn(new QAction(tr("Continue &on\u2026"), this))
    , m_more(new QToolButton)
    , m_tabs(new QTabWidget)
    , m_chartsPanel(new RunChartsPanel(agent->store(), agent->seriesCache()))
    , m_charts(m_chartsPanel->charts())
    , m_log(new LogPanel)
    , m_script(new QPlainTextEdit)
{
    m_header->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_header->setWordWrap(true);
    m_charts->setRun(m_metrics);
    m_script->setReadOnly(true);
    m_script->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));

    m_tabs->addTab(m_chartsPanel, tr("Charts"));
    m_tabs->addTab(m_log, tr("Log"));
    m_tabs->addTab(m_checkpoints, tr("Checkpoints"));
    m_tabs->addTab(m_files, tr("Files"));
    m_tabs->addTab(m_script, tr("Script"));

    auto *bar = new QHBoxLayout;
    bar->addWidget(m_header, 1);
    bar->addWidget(m_logScale);
    bar->addWidget(m_autoRestart);
    bar->addWidget(m_resumeLatest);
    m_more->setText(tr("&More"));
    m_more->setObjectName(QStringLiteral("moreRunActions"));
    m_more->setPopupMode(QToolButton::InstantPopup);
    m_more->setToolButtonStyle(Qt::ToolButtonTextOnly);
    auto *more = new QMenu(m_more);
    more->setToolTipsVisible(true);
    more->addActions({m_shell, m_logPatterns, m_openPort, m_stackDump, m_continueOn});
    more->addSeparator();
    more->addAction(m_delete);
    m_more->setMenu(more);
    bar->addWidget(m_more);
    bar->addWidget(m_requeue);
    bar->addWidget(m_cancel);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(bar);
    layout->addWidget(m_notes);
    m_uses->setObjectName(QStringLiteral("resourceUse"));
    m_uses->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_uses->setToolTip(tr("What the running job uses, sampled on its nodes every %1 s while the run is shown")
                           .arg(kResourceSampleMs / 1000));
    m_uses->hide();
    layout->addWidget(m_uses);
    connect(m_metrics, &RunMetrics::resourcesChanged, this, &RunView::showUses);
    connect(m_metrics, &RunMetrics::infoChanged, this, &RunView::showUses);
    layout->addWidget(m_tabs, 1);

    connect(m_logScale, &QCheckBox::toggled, m_charts, &RunCharts::setLogScale);
    m_autoRestart->setObjectName(QStringLiteral("autoRestart"));
    connect(m_autoRestart, &QCheckBox::clicked, this, &RunView::setAutoRestart);
    connect(m_cancel, &QPushButton::clicked, this, &RunView::cancelRun);
    connect(m_requeue, &QPushButton::clicked, this, &RunView::requeueRun);
    connect(m_logPatterns, &QAction::triggered, this, &RunView::openLogPatterns);
    m_openPort->setToolTip(tr("Reach a port of the running job's first node (a web server, TensorBoard) from here"));
    connect(m_openPort, &QAction::triggered, this, [this] {
        const auto run = m_agent->store()->run(m_runId);
        if (run.ok() && run.value)
            openPort(this, m_agent, run.value->cluster, m_runId);
    });
    m_stackDump->setObjectName(QStringLiteral("stackDump"));
    m_stackDump->setToolTip(tr("The stack of every process of the running job (py-spy or gdb on its nodes), kept "
                               "with the run: where a run that stalls hangs"));
    connect(m_stackDump, &QAction::triggered, this, &RunView::dumpStacks);
    m_logPatterns->setToolTip(tr("How the run's log becomes metrics: try patterns on it, save them for the cluster"));
    connect(m_actions, &RunActions::message, this, &RunView::message);
    connect(m_chartsPanel, &RunChartsPanel::message, this, &RunView::message);
    connect(m_charts, &RunCharts::attemptClicked, this, &RunView::showAttemptLog);
    connect(m_actions, &RunActions::resumeOffered, this, [this](const QString &runId) {
        if (runId == m_runId)
            resumeFrom(ResumeFrom::latest());
    });
    m_requeue->setToolTip(
        tr("Requeue the run's current job; an ended run is offered a resume from its latest checkpoint"));
    connect(m_resumeLatest, &QPushButton::clicked, this, [this] { resumeFrom(ResumeFrom::latest()); });
    m_continueOn->setObjectName(QStringLiteral("continueOn"));
    m_continueOn->setToolTip(tr("Go on with the ended run on another of your clusters, from its latest checkpoint "
                                "(copied there through this machine and checked)"));
    connect(m_continueOn, &QAction::triggered, this, &RunView::chooseClusterToContinueOn);
    connect(m_checkpoints, &CheckpointPanel::resumeRequested, this,
            [this](const QString &checkpoint) { resumeFrom(ResumeFrom::checkpoint(checkpoint)); });
    connect(m_checkpoints, &CheckpointPanel::message, this, &RunView::message);
    connect(m_files, &RunFilesPanel::message, this, &RunView::message);
    connect(m_notes, &RunNotesBar::message, this, &RunView::message);
    m_delete->setObjectName(QStringLiteral("deleteRun"));
    m_delete->setToolTip(tr("Remove the ended run from this machine's records, and if you wish its directory on the "
                            "cluster"));
    connect(m_delete, &QAction::triggered, this, [this] { deleteRun(); });
    m_shell->setObjectName(QStringLiteral("openShell"));
    m_shell->setToolTip(tr("A terminal with a login shell inside the running job, on its node (torchdeck shell)"));
    connect(m_shell, &QAction::triggered, this, &RunView::openShell);
    connect(m_tabs, &QTabWidget::currentChanged, this,
            [this] { m_log->setShown(m_onScreen && m_tabs->currentWidget() == m_log); });
    showRun({});
}

void RunView::showRun(const QString &runId)
{
    m_runId = runId;
    m_logAttempt = -1;
    const auto run = runId.isEmpty() ? StoreResult<std::optional<RunRecord>>{} : m_agent->store()->run(runId);
    const bool shown = run.ok() && run.value;
    // The front's cache, which the agent's events keep current: shown from there, not copied.
    if (!m_metrics->follow(m_agent->seriesCache(), shown ? runId : QString()))
        emit message(tr("Cannot read the metrics of run %1").arg(runId.left(8)));
    m_chartsPanel->setRunId(runId);
    m_charts->redraw();
    reloadDetails();
}

RunCharts *RunView::charts() const
{
    return m_charts;
}

void RunView::runMetricsArrived(const QString &runId)
{
    // The shown run's events reach its charts from the cache (RunMetrics follows it).
    if (runId != m_runId)
        m_chartsPanel->runMetricsArrived(runId); // a compared run that is still running
}

void RunView::runChanged(const QString &runId)
{
    if (runId == m_runId && !runId.isEmpty())
        reloadDetails();
}

void RunView::reloadDetails()
{
    RunStore *store = m_agent->store();
    const auto run = m_runId.isEmpty() ? StoreResult<std::optional<RunRecord>>{} : store->run(m_runId);
    const bool have = run.ok() && run.value.has_value();
    for (QWidget *w :
         std::initializer_list<QWidget *>{m_cancel, m_requeue, m_resumeLatest, m_tabs, m_autoRestart, m_more})
        w->setEnabled(have);
    for (QAction *action : {m_logPatterns, m_openPort, m_stackDump, m_delete, m_shell})
        action->setEnabled(have);
    if (!have) {
        lookAt({}, false);
        m_header->setText(tr("Select a run to see its charts, log and checkpoints."));
        m_checkpoints->showRun(nullptr, {}, m_metrics);
        m_files->showRun({}, {});
        m_notes->showRun(nullptr);
        m_script->clear();
        m_log->follow(nullptr, {}, {}, false);
        return;
    }
    const RunRecord &record = *run.value;
    const QList<JobRecord> jobs = store->jobs(m_runId).value;
    const QStringList ids = submittedJobIds(jobs);
    // Why it waits (and when it may start) or how its job ended, beside the state.
    const QString why = jobs.isEmpty() ? QString() : jobWhy(jobs.at(speakingJob(jobs)), requeueExitCodeOf(record));
    m_header->setText(tr("<b>%1</b> on %2 \u2014 %3%4 \u2014 epoch %5/%6 \u2014 jobs %7%8")
                          .arg(record.name.toHtmlEscaped(), record.cluster.toHtmlEscaped(), record.state,
                               why.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(why.toHtmlEscaped()))
                          .arg(record.epochsDone)
                          .arg(record.epochsTotal > 0 ? QString::number(record.epochsTotal) : QStringLiteral("?"))
                          .arg(ids.join(QStringLiteral(", ")),
                               record.message.isEmpty()
                                   ? QString()
                                   : QString(QStringLiteral("<br>") + record.message.toHtmlEscaped())));
    const bool running = !jobs.isEmpty() && !jobs.constLast().hasEnded();
    lookAt(record.cluster, jobStateFromName(jobs.isEmpty() ? QString() : jobs.constLast().state) == JobState::Running);
    updateAutoRestart(record, jobs);
    m_cancel->setEnabled(running);
    m_stackDump->setEnabled(m_running);
    m_shell->setEnabled(m_running);
    const JobSpec::FromJson spec = record.spec();
    m_logPatterns->setEnabled(spec.ok() && spec.spec.commandKind == CommandKind::Custom);
    m_resumeLatest->setEnabled(!running && !jobs.isEmpty());
    m_continueOn->setEnabled(!running && !jobs.isEmpty());
    m_checkpoints->showRun(&record, jobs, m_metrics);
    m_files->showRun(record.cluster, record.id, clustersRanOn(record.cluster, jobs));
    m_notes->showRun(&record);
    m_delete->setEnabled(!running);
    if (m_script->toPlainText() != record.script)
        m_script->setPlainText(record.script);
    m_charts->setAttempts(jobs, store->checkpoints(m_runId).value);
    // The latest job's log, or the one whose boundary was clicked on a chart.
    const auto shown =
        std::find_if(jobs.cbegin(), jobs.cend(), [this](const JobRecord &job) { return job.attempt == m_logAttempt; });
    const JobRecord *logJob = shown != jobs.cend() ? &*shown : jobs.isEmpty() ? nullptr : &jobs.constLast();
    // On the cluster it ran on (a run continued elsewhere has attempts on two); an ended one as kept here, read once
    // (reloads come with every change of the run).
    const bool ended = logJob && logJob->hasEnded();
    const QString keptKey = ended ? record.id + u'/' + QString::number(logJob->attempt) : QString();
    if (keptKey != m_keptLogKey || (!keptKey.isEmpty() && !m_keptLog)) {
        m_keptLogKey = keptKey;
        const std::optional<KeptLog> kept =
            ended ? readKeptLog(store->path(), record.id, logJob->attempt) : std::optional<KeptLog>();
        // The panel shows the log's last lines: the end kept of a long one holds them (from its first whole line),
        // its cluster reachable or not.
        m_keptLog = !kept               ? std::nullopt
                    : kept->truncated() ? std::optional(kept->out.mid(kept->out.indexOf('\n') + 1))
                                        : std::optional(kept->out);
    }
    m_log->follow(m_agent, logJob && !logJob->cluster.isEmpty() ? logJob->cluster : record.cluster,
                  logJob ? logJob->stdoutPath : QString(), logJob && !ended, m_keptLog);
}

void RunView::lookAt(const QString &cluster, bool running)
{
    if (!m_lookedCluster.isEmpty() && m_lookedCluster != cluster)
        m_agent->lookAt(m_lookedCluster, {});
    m_lookedCluster = cluster;
    m_running = running;
    if (!cluster.isEmpty()) // a minimized window looks at nothing: no samples are taken for it
        m_agent->lookAt(cluster, running && m_onScreen ? QStringList{m_runId} : QStringList{});
    showUses();
}

void RunView::setOnScreen(bool onScreen)
{
    if (onScreen == m_onScreen)
        return;
    m_onScreen = onScreen;
    m_log->setShown(m_onScreen && m_tabs->currentWidget() == m_log);
    lookAt(m_lookedCluster, m_running);
}

void RunView::showUses()
{
    const ResourceSample &sample = m_metrics->series().lastResources();
    const QString summary = m_running ? resourceSummary(sample) : QString();
    const QString slowest = slowestRankSummary(slowestRank(m_metrics->series().info().rankComputeSeconds));
    QStringList lines;
    if (!summary.isEmpty())
        lines.append(
            tr("Uses %1 (sampled %2)")
                .arg(summary,
                     QDateTime::fromMSecsSinceEpoch(qint64(sample.time * 1000)).toString(QStringLiteral("HH:mm:ss"))));
    if (!slowest.isEmpty())
        lines.append(slowest.at(0).toUpper() + slowest.mid(1));
    m_uses->setVisible(!lines.isEmpty());
    m_uses->setText(lines.join(QStringLiteral(" \u2014 ")));
}

void RunView::dumpStacks()
{
    const auto run = m_agent->store()->run(m_runId);
    if (!run.ok() || !run.value)
        return;
    auto *dialog = new QDialog(this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setObjectName(QStringLiteral("stackDumpDialog"));
    dialog->setWindowTitle(tr("Stacks of %1").arg(run.value->name));
    auto *text = new QPlainTextEdit;
    text->setReadOnly(true);
    text->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    text->setPlainText(tr("Attaching to every process of the job on its nodes\u2026"));
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::reject);
    auto *layout = new QVBoxLayout(dialog);
    layout->addWidget(text, 1);
    layout->addWidget(buttons);
    dialog->resize(900, 600);
    dialog->show();
    SessionOperation *dump = m_agent->stackDump(run.value->cluster, m_runId);
    onReply<agent::StackDump>(dump, text, [this, text](const agent::StackDump::Reply &dumped) {
        text->setPlainText(dumped.dump);
        if (!dumped.path.isEmpty())
            emit message(tr("The stacks are kept in %1").arg(dumped.path));
    });
    connect(dump, &SessionOperation::failed, text,
            [text](const QString &error) { text->setPlainText(tr("No stacks: %1").arg(error)); });
}

void RunView::showAttemptLog(int attempt)
{
    m_logAttempt = attempt;
    reloadDetails();
    m_tabs->setCurrentWidget(m_log);
}

void RunView::cancelRun()
{
    if (!m_runId.isEmpty())
        m_actions->cancel({m_runId});
}

void RunView::requeueRun()
{
    if (!m_runId.isEmpty())
        m_actions->requeue(m_runId);
}

LogPatternDialog *RunView::openLogPatterns()
{
    const auto run = m_runId.isEmpty() ? StoreResult<std::optional<RunRecord>>{} : m_agent->store()->run(m_runId);
    if (!run.ok() || !run.value)
        return nullptr;
    const JobSpec::FromJson spec = run.value->spec();
    auto *dialog = new LogPatternDialog(m_agent->profiles(), run.value->cluster,
                                        spec.ok() ? spec.spec.logPatterns : QStringList{}, m_log->text(), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    // The log is read only while its tab is shown: read now what the patterns are tried on.
    connect(m_log->follower(), &LogFollower::text, dialog, &LogPatternDialog::setLog);
    m_log->follower()->readNow();
    connect(dialog, &LogPatternDialog::saved, this, [this](const QString &cluster) {
        // The agent's tracker reads the logs of the cluster's runs with them from its next pass on.
        m_agent->profilesChanged();
        emit message(tr("Saved the log patterns of %1 in %2").arg(cluster, m_agent->profiles()->path()));
    });
    dialog->open();
    return dialog;
}

void RunView::updateAutoRestart(const RunRecord &run, const QList<JobRecord> &jobs)
{
    const JobSpec::FromJson spec = run.spec();
    const bool known = spec.ok();
    const bool trainer = known && spec.spec.commandKind == CommandKind::Trainer;
    m_autoRestart->setChecked(run.autoRestart && known);
    m_autoRestart->setEnabled(known);
    const int used = restartsUsed(jobs, {}, m_metrics->series().info());
    m_autoRestart->setText(known ? tr("Restart &automatically (%1 of %2 used)").arg(used).arg(spec.spec.maxRestarts)
                                 : tr("Restart &automatically"));
    m_autoRestart->setToolTip(
        trainer
            ? tr("When a job stops at its wall time's warning or is preempted, the torchdeck agent (running with no "
                 "window open) submits the next attempt from the latest checkpoint, up to the job's restart limit.")
            : tr("When the command exits with %1 after the warning signal, or the job is preempted, the next "
                 "attempt is submitted with TORCHDECK_RESUME=1, up to the job's restart limit.")
                  .arg(known ? spec.spec.requeueExitCode : kTrainerRequeueExitCode));
}

void RunView::setAutoRestart(bool enabled)
{
    const auto run = m_agent->store()->run(m_runId);
    if (!run.ok() || !run.value)
        return;
    const QString runId = m_runId;
    SessionOperation *switched = m_agent->setAutoRestart(run.value->cluster, runId, enabled);
    connect(switched, &SessionOperation::failed, this, [this, runId](const QString &error) {
        emit message(tr("Cannot change the restart of run %1: %2").arg(runId.left(8), error));
        reloadDetails();
    });
    connect(switched, &SessionOperation::finished, this, &RunView::reloadDetails);
}

void RunView::chooseClusterToContinueOn()
{
    const auto run = m_agent->store()->run(m_runId);
    if (!run.ok() || !run.value)
        return;
    QStringList others = readUserSshConfig().hostAliases();
    others.removeAll(run.value->cluster);
    if (others.isEmpty()) {
        QMessageBox::information(this, tr("Continue on another cluster"),
                                 tr("Your ssh config names no other cluster than %1.").arg(run.value->cluster));
        return;
    }
    bool chosen = false;
    const QString cluster = QInputDialog::getItem(
        this, tr("Continue on another cluster"),
        tr("Run %1 goes on from its latest checkpoint, copied from %2 to:").arg(run.value->name, run.value->cluster),
        others, 0, false, &chosen);
    if (chosen)
        resumeFrom(ResumeFrom::latest(), cluster);
}

void RunView::resumeFrom(const ResumeFrom &checkpoint, const QString &cluster)
{
    const auto run = m_agent->store()->run(m_runId);
    if (!run.ok() || !run.value)
        return;
    const QString where = cluster.isEmpty() ? run.value->cluster : cluster;
    // A completed run goes on from its final checkpoint only to more epochs than it did: how many is asked.
    QString epochs;
    const auto spec = run.value->spec();
    if (run.value->state == u"completed" && spec.ok() && spec.spec.commandKind == CommandKind::Trainer &&
        (checkpoint.kind() == ResumeFrom::Kind::Latest || checkpoint.kind() == ResumeFrom::Kind::AsSpecified)) {
        QInputDialog ask(this);
        ask.setObjectName(QStringLiteral("resumeEpochs"));
        ask.setWindowTitle(tr("Resume %1").arg(run.value->name));
        ask.setLabelText(tr("It completed its %n epoch(s). Train on to epoch:", nullptr, int(run.value->epochsDone)));
        ask.setInputMode(QInputDialog::IntInput);
        ask.setIntRange(int(run.value->epochsDone) + 1, 1000000);
        ask.setIntValue(int(run.value->epochsDone) + 1);
        if (ask.exec() != QDialog::Accepted)
            return;
        epochs = QString::number(ask.intValue());
    }
    QString problem;
    // Refused before asking the agent when the run cannot resume (still running, no such checkpoint).
    if (!m_agent->profiles() || !resumeRequest(*m_agent->store(), m_agent->profiles()->profile(where), *run.value,
                                               checkpoint, epochs, &problem)) {
        QMessageBox::warning(this, tr("Cannot resume"), problem);
        return;
    }
    SessionOperation *submission = where == run.value->cluster
                                       ? m_agent->resume(where, m_runId, checkpoint, epochs)
                                       : m_agent->continueOn(where, m_runId, checkpoint, epochs);
    auto *dialog = new QDialog(this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowTitle(where == run.value->cluster ? tr("Resume %1").arg(run.value->name)
                                                       : tr("Continue %1 on %2").arg(run.value->name, where));
    auto *panel = new SubmissionPanel;
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::reject);
    auto *layout = new QVBoxLayout(dialog);
    layout->addWidget(panel, 1);
    layout->addWidget(buttons);
    dialog->resize(640, 360);
    connect(panel, &SubmissionPanel::submitted, this, &RunView::resumed);
    dialog->show();
    panel->follow(submission);
}

} // namespace torchdeck
