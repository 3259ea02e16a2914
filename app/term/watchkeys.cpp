#include "core/scheduler/jobstate.h"
#include "remote/remotepath.h"
#include "remote/runbudget.h"
#include "remote/runtracker.h"
#include "remote/schedulerclient.h"
#include "term/render/plainupdate.h"
#include "term/render/terminalinput.h"
#include "term/render/terminalsession.h"
#include "term/render/watchscreen.h"
#include "term/runactions.h"
#include "term/runrefresh.h"
#include "term/submitcommand.h"
#include "term/termcontext.h"
#include "term/terminalfront.h"
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

void Watch::cancelSelected()
{
    const RunRecord *run = selectedRun();
    if (!run || !m_connections.contains(run->cluster))
        return setMessage(QStringLiteral("not connected to this run's cluster"), true);
    const UnfinishedJobs jobs = unfinishedJobs(m_context, *run);
    if (jobs.ids.isEmpty())
        return setMessage(QStringLiteral("run %1 has no unfinished job").arg(shortRunId(run->id)));
    auto *client = new remote::SchedulerClient(m_connections.value(run->cluster).get(), jobs.commands, this);
    const QString shortId = shortRunId(run->id);
    connect(client, &remote::SchedulerClient::failed, this, [this, client](const QString &error) {
        client->deleteLater();
        setMessage(error, true);
    });
    connect(client, &remote::SchedulerClient::actionDone, this, [this, client, shortId] {
        client->deleteLater();
        setMessage(QStringLiteral("cancelled run %1").arg(shortId));
        tick();
    });
    client->act(SchedulerAction::Cancel, jobs.ids);
    setMessage(QStringLiteral("cancelling run %1...").arg(shortId));
}

void Watch::resumeSelected()
{
    const RunRecord *run = selectedRun();
    if (!run || !m_connections.contains(run->cluster))
        return setMessage(QStringLiteral("not connected to this run's cluster"), true);
    QString problem;
    const auto request = resumeRequest(m_context, *run, QStringLiteral("auto"), {}, &problem);
    if (!request)
        return setMessage(problem, true);
    auto *launcher = new remote::RunLauncher(m_connections.value(run->cluster).get(), &m_context.store(), this);
    connect(launcher, &remote::RunLauncher::progress, this,
            [this](const QString &step) { setMessage(step + QStringLiteral("...")); });
    connect(launcher, &remote::RunLauncher::failed, this, [this, launcher](const QString &error) {
        launcher->deleteLater();
        setMessage(error.section(u'\n', 0, 0), true);
    });
    connect(launcher, &remote::RunLauncher::submitted, this, [this, launcher](const remote::LaunchResult &result) {
        launcher->deleteLater();
        m_series.remove(result.runId); // the next attempt's start event rebuilds the curve from the store
        setMessage(QStringLiteral("resumed run %1: job %2").arg(shortRunId(result.runId), result.jobId));
        loadRuns();
        tick();
    });
    launcher->start(*request);
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
        else if ((key.ch == u'c' || key.ch == u'r') && run) {
            m_pending = key.ch == u'c' ? Pending::Cancel : Pending::Resume;
            return setMessage(QStringLiteral("%1 run %2 (%3)? y/n")
                                  .arg(key.ch == u'c' ? QStringLiteral("Cancel") : QStringLiteral("Resume"),
                                       shortRunId(run->id), run->name));
        }
        break;
    default:
        break;
    }
    m_logLines.clear();
    redraw();
    fetchLog();
}

} // namespace torchdeck::term
