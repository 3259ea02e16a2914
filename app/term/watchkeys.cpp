#include "client/sessionoperation.h"
#include "core/agent/agentops.h"
#include "core/runs/runbudget.h"
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
#include "term/watch.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QEventLoop>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QTimer>
#include <unistd.h>

namespace torchdeck::term {

void Watch::setMessage(const QString &text, bool error)
{
    m_message = text;
    m_messageIsError = error;
    redraw();
}

void Watch::refreshAll()
{
    for (const QString &cluster : std::as_const(m_clusters))
        m_context.agent().refresh(cluster, {}, 0);
}

void Watch::cancelSelected()
{
    const RunRecord *run = selectedRun();
    if (!run || !m_clusters.contains(run->cluster))
        return setMessage(Tr::tr("not connected to this run's cluster"), true);
    const QString shortId = shortRunId(run->id);
    SessionOperation *cancel = m_context.agent().cancel(run->cluster, {run->id});
    connect(cancel, &SessionOperation::failed, this, [this](const QString &error) { setMessage(error, true); });
    onReply<agent::Cancel>(cancel, this, [this, shortId](const agent::RunActionReply &result) {
        if (result.jobs.isEmpty())
            return setMessage(Tr::tr("run %1 has no unfinished job").arg(shortId));
        setMessage(Tr::tr("cancelled run %1").arg(shortId));
        refreshAll();
    });
    setMessage(Tr::tr("cancelling run %1...").arg(shortId));
}

void Watch::resumeSelected()
{
    const RunRecord *run = selectedRun();
    if (!run || !m_clusters.contains(run->cluster))
        return setMessage(Tr::tr("not connected to this run's cluster"), true);
    SessionOperation *resume = m_context.agent().resume(run->cluster, run->id, ResumeFrom::latest(), {});
    connect(resume, &SessionOperation::progress, this,
            [this](const QString &step) { setMessage(step + QStringLiteral("...")); });
    connect(resume, &SessionOperation::failed, this,
            [this](const QString &error) { setMessage(error.section(u'\n', 0, 0), true); });
    onReply<agent::Resume>(resume, this, [this](const agent::SubmitReply &reply) {
        const LaunchResult &result = reply.first;
        setMessage(Tr::tr("resumed run %1: job %2").arg(shortRunId(result.runId), result.jobId));
        loadRuns();
        refreshAll();
    });
}

void Watch::onKey(Key key)
{
    if (m_pending != Pending::None) {
        const Pending pending = std::exchange(m_pending, Pending::None);
        if (key.code == Key::Char && (key.ch == u'y' || key.ch == u'Y'))
            return pending == Pending::Cancel ? cancelSelected() : resumeSelected();
        return setMessage({});
    }
    const RunRecord *run = selectedRun();
    switch (key.code) {
    case Key::Up:
        m_selected = std::max(0, m_selected - 1);
        break;
    case Key::Down:
        m_selected = std::min(int(m_runs.size()) - 1, m_selected + 1);
        break;
    case Key::Escape:
    case Key::CtrlC:
        return m_loop.quit();
    case Key::Char:
        if (key.ch == u'q')
            return m_loop.quit();
        if (key.ch == u'k')
            m_selected = std::max(0, m_selected - 1);
        else if (key.ch == u'j')
            m_selected = std::min(int(m_runs.size()) - 1, m_selected + 1);
        else if (key.ch == u'l')
            m_logScale = !m_logScale;
        else if (key.ch == u's')
            m_smoothing = nextWatchSmoothing(m_smoothing);
        else if (key.ch == u'c' && run && run->hasEnded())
            return setMessage(Tr::tr("run %1 has ended (%2): nothing to cancel").arg(shortRunId(run->id), run->state),
                              true);
        else if (key.ch == u'r' && run && !run->hasEnded())
            return setMessage(Tr::tr("run %1 is %2: it goes on without a resume").arg(shortRunId(run->id), run->state),
                              true);
        else if ((key.ch == u'c' || key.ch == u'r') && run) {
            m_pending = key.ch == u'c' ? Pending::Cancel : Pending::Resume;
            return setMessage(
                Tr::tr("%1 run %2 (%3)? y/n")
                    .arg(key.ch == u'c' ? Tr::tr("Cancel") : Tr::tr("Resume"), shortRunId(run->id), run->name));
        }
        break;
    default:
        break;
    }
    m_logLines.clear();
    m_logReadAs.clear();
    redraw();
    fetchLog();
}

} // namespace torchdeck::term
