#include "term/watch.h"

#include "client/sessionoperation.h"
#include "core/agent/agentevents.h"
#include "core/metrics/slowestrank.h"
#include "core/runs/jobscheduling.h"
#include "core/runs/restartdecision.h"
#include "core/runs/runbudget.h"
#include "core/runs/runsettlement.h"
#include "core/scheduler/jobstate.h"
#include "term/console/terminalinput.h"
#include "term/console/terminalsession.h"
#include "term/render/plainupdate.h"
#include "term/render/watchscreen.h"
#include "term/runrefresh.h"
#include "term/submitcommand.h"
#include "term/termcontext.h"
#include "term/terminalfront.h"
#include "term/termtr.h"
#include "term/watchmarkers.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QEventLoop>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QTimer>
#include <algorithm>
#include <unistd.h>

namespace torchdeck::term {

namespace {
// The run's record says how far it was at the last poll; its series, kept current by streamed metrics, says
// how far it is now, counted against the epochs its spec sets (a resumed run's new --epochs).
void takeStreamedProgress(WatchRunRow &row, const RunProgress &streamed, qint64 specified)
{
    const RunProgress progress = againstEpochsTotal(streamed, specified);
    if (progress.epochsDone < row.epochsDone)
        return;
    row.epochsDone = progress.epochsDone;
    if (progress.epochsTotal != kNoCount)
        row.epochsTotal = progress.epochsTotal;
    if (MetricEvent::has(progress.lastLoss))
        row.lastLoss = progress.lastLoss;
    if (MetricEvent::has(progress.etaSeconds))
        row.etaSeconds = progress.etaSeconds;
}

constexpr int logLinesShown = 12;
QString helpText()
{
    return Tr::tr("\u2191\u2193 select  c cancel  r resume  l log scale  s smoothing  q quit");
}
} // namespace

const RunRecord *Watch::selectedRun() const
{
    return m_selected >= 0 && m_selected < m_runs.size() ? &m_runs.at(m_selected) : nullptr;
}

bool Watch::allFinished() const
{
    return std::all_of(m_runs.cbegin(), m_runs.cend(), [](const RunRecord &run) { return run.hasEnded(); });
}

void Watch::quitWhenDone()
{
    if (!m_untilDone)
        return;
    // Not while the agent is submitting a restart: the run only looks finished until its next job is
    // recorded. Nor while a refused restart waits for its next try.
    const bool restarting = std::any_of(m_clusters.cbegin(), m_clusters.cend(), [this](const QString &cluster) {
        return m_context.agent().restartsPending(cluster);
    });
    if (allFinished() && !restarting)
        QTimer::singleShot(500, &m_loop, &QEventLoop::quit);
}

void Watch::loadRuns()
{
    const QString selectedId = selectedRun() ? selectedRun()->id : QString();
    const auto runs = m_context.store().runs();
    m_runs.clear();
    for (const RunRecord &run : runs.value) {
        if (m_runIds.isEmpty() || m_runIds.contains(run.id))
            m_runs.append(run);
    }
    for (const RunRecord &run : std::as_const(m_runs)) {
        m_specifiedEpochs[run.id] = specifiedEpochs(run);
        const auto jobs = m_context.store().jobs(run.id);
        m_jobs[run.id] = jobs.value;
        if (!jobs.value.isEmpty())
            m_logPaths[run.id] = jobs.value.constLast().stdoutPath;
    }
    m_selected = 0;
    for (qsizetype i = 0; i < m_runs.size(); ++i) {
        if (m_runs.at(i).id == selectedId)
            m_selected = int(i);
    }
}

void Watch::connectClusters(int intervalMs)
{
    for (const RunRecord &run : std::as_const(m_runs)) {
        if (!m_clusters.contains(run.cluster) && m_context.connect(run.cluster))
            m_clusters.append(run.cluster);
        else if (!m_clusters.contains(run.cluster))
            m_exitCode = Failure;
    }
    AgentClient &agent = m_context.agent();
    connect(&agent, &AgentClient::restarted, this,
            [this](const QString &runId, const QString &jobId, const QString &reason) {
                loadRuns();
                setMessage(Tr::tr("run %1 restarted as job %2 (%3)").arg(shortRunId(runId), jobId, reason));
            });
    connect(&agent, &AgentClient::restartFailed, this,
            [this](const QString &, const QString &error) { setMessage(error, true); });
    // What the agent told the user of a watched run: shown, with the terminal's bell (restarts say themselves).
    connect(&agent, &AgentClient::notice, this,
            [this](const QString &runId, const QString &event, const QString &title, const QString &body) {
                if (std::none_of(m_runs.cbegin(), m_runs.cend(), [&](const RunRecord &run) { return run.id == runId; }))
                    return;
                writeAll(STDOUT_FILENO, QByteArrayLiteral("\a"));
                if (event == u"completed" || event == u"failed" || event == u"stalled")
                    setMessage(title + QStringLiteral(": ") + body, event != u"completed");
            });
    connect(&agent, &AgentClient::refreshed, this, [this](const QString &cluster, const QString &problem) {
        if (!m_clusters.contains(cluster))
            return;
        loadRuns();
        if (!problem.isEmpty())
            m_message = problem, m_messageIsError = true;
        redraw();
        fetchLog();
        quitWhenDone();
    });
    connect(&m_logStream, &LogStream::text, this, [this](const QString &latest) {
        m_logLines = latest.split(u'\n', Qt::SkipEmptyParts);
        m_streamed.start();
    });
    // Metrics stream between polls: shown as they come (a redraw per turn of the event loop at most).
    m_streamed.setSingleShot(true);
    m_streamed.setInterval(0);
    connect(&m_streamed, &QTimer::timeout, this, &Watch::redraw);
    connect(&agent, &AgentClient::metricsArrived, this, [this](const QString &runId) {
        if (std::any_of(m_runs.cbegin(), m_runs.cend(), [&](const RunRecord &run) { return run.id == runId; }))
            m_streamed.start();
    });
    connect(&agent, &AgentClient::detached, this, [this](const QString &reason) {
        m_exitCode = Failure;
        setMessage(reason, true);
        m_loop.quit();
    });
    agent.setPollInterval(intervalMs); // the agent polls at the shortest interval its fronts ask for
    for (const QString &cluster : std::as_const(m_clusters)) {
        const int least = m_context.profiles().profile(cluster).minPollSeconds;
        if (intervalMs < least * 1000) // shown with the first frame: the full screen is not up yet
            m_message = Tr::tr("%1's scheduler is asked every %2 s at most (min_poll_seconds of its profile); "
                               "metrics and logs stream in between")
                            .arg(cluster)
                            .arg(least);
    }
}

const RunSeries *Watch::seriesOf(const QString &runId)
{
    static const RunSeries none;
    // The agent's events keep it current; a cluster not reached still shows what the store has.
    const RunSeries *series = m_context.agent().series(runId);
    return series ? series : &none;
}

void Watch::fetchLog()
{
    const RunRecord *run = selectedRun();
    // One fetch at a time: on a loaded cluster a fetch can take longer than the refresh interval.
    if (m_plain || m_fetchingLog || !run || !m_clusters.contains(run->cluster) || m_logPaths.value(run->id).isEmpty())
        return;
    const QString runId = run->id;
    // A running job's log streams as it grows; any other's is read once per state (an ended job's last lines).
    const QString readAs = runId + u'\n' + m_logPaths.value(runId) + u'\n' + run->state;
    const bool growing = jobStateFromName(run->state) == JobState::Running;
    if (growing) {
        if (!m_logStream.isRunning() || m_logStream.path() != m_logPaths.value(runId))
            m_logStream.start(&m_context.agent(), run->cluster, m_logPaths.value(runId), logLinesShown);
        else // the lines a key cleared
            m_logLines = m_logStream.latest().split(u'\n', Qt::SkipEmptyParts);
        return;
    }
    m_logStream.stop();
    if (readAs == m_logReadAs)
        return;
    SessionOperation *tail = m_context.agent().readFile(run->cluster, m_logPaths.value(runId), logLinesShown);
    m_fetchingLog = true;
    auto text = std::make_shared<QByteArray>();
    onEvent<agent::DataEvent>(tail, this, [text](const agent::DataEvent &data) { *text += data.bytes; });
    connect(tail, &SessionOperation::failed, this, [this] { m_fetchingLog = false; });
    connect(tail, &SessionOperation::finished, this, [this, runId, text, readAs] {
        m_fetchingLog = false;
        if (!selectedRun() || selectedRun()->id != runId)
            return;
        m_logReadAs = readAs;
        m_logLines = QString::fromUtf8(*text).split(u'\n', Qt::SkipEmptyParts);
        redraw();
    });
}

void Watch::lookAtSelected()
{
    const RunRecord *run = selectedRun();
    const bool sampled = !m_plain && run && jobStateFromName(run->state) == JobState::Running;
    for (const QString &cluster : std::as_const(m_clusters))
        m_context.agent().lookAt(cluster, sampled && run->cluster == cluster ? QStringList{run->id} : QStringList{});
}

WatchRunRow Watch::rowOf(const RunRecord &run) const
{
    const QList<JobRecord> jobs = m_jobs.value(run.id);
    const QString why = jobs.isEmpty() ? QString() : jobWhy(jobs.at(speakingJob(jobs)), requeueExitCodeOf(run));
    return {shortRunId(run.id), run.name,     run.cluster,    run.state.toUpper(),   run.epochsDone,
            run.epochsTotal,    run.lastLoss, run.etaSeconds, submittedJobIds(jobs), why};
}

void Watch::redraw()
{
    WatchSnapshot snapshot;
    for (const RunRecord &run : std::as_const(m_runs)) {
        snapshot.runs.append(rowOf(run));
        if (jobStateFromName(run.state) == JobState::Running)
            takeStreamedProgress(snapshot.runs.last(), seriesOf(run.id)->progress(),
                                 m_specifiedEpochs.value(run.id, -1));
    }
    snapshot.selected = m_runs.isEmpty() ? -1 : m_selected;
    snapshot.series = selectedRun() ? seriesOf(selectedRun()->id) : nullptr;
    lookAtSelected();
    if (snapshot.series && jobStateFromName(selectedRun()->state) == JobState::Running) {
        snapshot.runs[m_selected].resources = resourceSummary(snapshot.series->lastResources());
        snapshot.runs[m_selected].slowestRank =
            slowestRankSummary(slowestRank(snapshot.series->info().rankComputeSeconds));
        const JobSpec::FromJson spec = selectedRun()->spec();
        const CheckpointOutlook outlook =
            spec.ok()
                ? outlookFromSeries(spec.spec, *snapshot.series, double(QDateTime::currentMSecsSinceEpoch()) / 1000.0)
                : CheckpointOutlook{};
        if (outlook.known) {
            snapshot.runs[m_selected].nextCheckpointIn = outlook.nextCheckpointIn;
            snapshot.runs[m_selected].signalIn = outlook.signalIn;
        }
    }
    const QList<JobRecord> jobs = selectedRun() ? m_jobs.value(selectedRun()->id) : QList<JobRecord>();
    if (!m_plain && snapshot.series && jobs.size() > 1) { // a restarted run: where each attempt began
        const auto checkpoints = m_context.store().checkpoints(selectedRun()->id);
        const MetricSeries &epochs = snapshot.series->series(SeriesKind::EpochTrainLoss);
        snapshot.attemptsByStep =
            attemptMarkers(snapshot.series->series(SeriesKind::TrainLoss), jobs, checkpoints.value);
        snapshot.attemptsByEpoch = attemptMarkers(
            epochs.isEmpty() ? snapshot.series->series(SeriesKind::ValLoss) : epochs, jobs, checkpoints.value);
    }
    snapshot.smoothing = m_smoothing;
    snapshot.logLines = m_logLines;
    snapshot.helpLine = helpText();
    // The agent's next scheduler query for the selected run's cluster: the interval adapts (docs/agent.md).
    const QString cluster = selectedRun() ? selectedRun()->cluster : m_clusters.value(0);
    if (const QString next = nextPollText(m_context.agent().nextPoll(cluster)); !next.isEmpty())
        snapshot.helpLine += QStringLiteral("    ") + next;
    snapshot.message = m_message;
    snapshot.messageIsError = m_messageIsError;
    snapshot.logScale = m_logScale;
    snapshot.useColor = qEnvironmentVariableIsEmpty("NO_COLOR");
    if (m_plain) {
        QByteArray text;
        for (const QString &line : renderPlainUpdate(m_previous, snapshot))
            text += line.toUtf8() + '\n';
        writeAll(STDOUT_FILENO, text);
    } else {
        const TerminalSize size = terminalSize();
        writeAll(STDOUT_FILENO, renderWatchScreen(snapshot, size.cols, size.rows).toUtf8());
    }
    m_previous = snapshot;
    m_previous.series = nullptr;
}

int Watch::run(int intervalMs)
{
    loadRuns();
    if (m_runs.isEmpty()) {
        m_context.error(Tr::tr("no runs to watch (torchdeck submit starts one)"));
        return Failure;
    }
    connectClusters(intervalMs); // before the full screen: connecting may ask on the terminal
    std::unique_ptr<TerminalSession> terminal;
    std::unique_ptr<TerminalInput> input;
    if (!m_plain) {
        terminal = std::make_unique<TerminalSession>();
        if (terminal->hasRawInput()) {
            input = std::make_unique<TerminalInput>();
            connect(input.get(), &TerminalInput::key, this, &Watch::onKey);
            connect(input.get(), &TerminalInput::resized, this, &Watch::redraw);
            connect(input.get(), &TerminalInput::closed, &m_loop, &QEventLoop::quit);
        }
    }
    redraw();
    fetchLog();
    quitWhenDone();
    m_loop.exec();
    m_context.agent().setPollInterval(0);
    input.reset();
    terminal.reset();
    if (!m_plain && m_untilDone) {
        // What the screen showed, left in the scrollback.
        QByteArray text;
        for (const RunRecord &run : std::as_const(m_runs))
            text += plainRunLine(rowOf(run)).toUtf8() + '\n';
        writeAll(STDOUT_FILENO, text);
    }
    return m_exitCode;
}

} // namespace torchdeck::term
