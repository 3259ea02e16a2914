#include "term/termcontext.h"

#include "core/sshconfigparser.h"
#include "term/terminalprompts.h"
#include "term/termtr.h"

namespace torchdeck::term {

namespace {
// The sweeps a text names: the one whose id it is, else those whose id it starts.
QList<SweepRecord> sweepsMatching(const QString &text, const QList<SweepRecord> &sweeps)
{
    QList<SweepRecord> matches;
    for (const SweepRecord &sweep : sweeps) {
        if (sweep.id == text)
            return {sweep};
        if (sweep.id.startsWith(text, Qt::CaseInsensitive))
            matches.append(sweep);
    }
    return matches;
}

constexpr int connectTimeoutMs = 120000; // a person may be typing a one-time code
}

TermContext::TermContext(QString command, QTextStream &out, QTextStream &err)
    : m_command(std::move(command))
    , m_out(out)
    , m_err(err)
{
}

TermContext::~TermContext()
{
    m_agent.reset(); // before the store it reads
}

void TermContext::note(const QString &message)
{
    m_err << "torchdeck " << m_command << ": " << message << '\n' << Qt::flush;
}

bool TermContext::openStore()
{
    if (m_store.isOpen())
        return true;
    // Read-only: the agent is the store's only writer (what a command changes, it asks the agent to).
    const StoreStatus opened = m_store.openReadOnly(RunStore::defaultPath());
    if (!opened.ok())
        error(Tr::tr("cannot open the run store: ") + opened.error);
    return opened.ok();
}

bool TermContext::loadProfiles()
{
    QString problem;
    if (!m_profiles.load(&problem))
        error(problem);
    return problem.isEmpty();
}

AgentClient &TermContext::agent(bool startAgent)
{
    if (!m_agent) {
        openStore();
        AgentClient::Options options;
        options.front = QStringLiteral("term");
        options.interactive = hasTerminal();
        options.startAgent = startAgent;
        options.pollMs = 1000; // a command shows the state of at most a second ago
        m_agent = std::make_unique<AgentClient>(options, &m_store);
        answerOnTerminal(*m_agent);
    }
    return *m_agent;
}

QList<RunRecord> TermContext::findRuns(const QString &text, bool withSweeps)
{
    if (text.isEmpty()) {
        error(Tr::tr("which run? (torchdeck runs lists them)"));
        return {};
    }
    const auto runs = m_store.runs();
    if (!runs.ok()) {
        error(runs.error);
        return {};
    }
    QList<RunRecord> matches;
    for (const RunRecord &run : runs.value) {
        if (run.id == text)
            return {run};
        if (run.id.startsWith(text, Qt::CaseInsensitive) || run.name == text)
            matches.append(run);
    }
    if (matches.size() == 1)
        return matches;
    if (matches.isEmpty() && withSweeps) {
        const QList<SweepRecord> sweeps = sweepsMatching(text, m_store.sweeps().value);
        if (sweeps.size() == 1) {
            const QList<RunRecord> ofSweep = runsOf(m_store.sweepMembers(sweeps.constFirst().id).value);
            if (ofSweep.isEmpty())
                error(Tr::tr("sweep %1 has no runs").arg(text));
            return ofSweep;
        }
    }
    if (matches.isEmpty())
        error(withSweeps ? Tr::tr("no run or sweep '%1' (torchdeck runs and torchdeck sweeps list them)").arg(text)
                         : Tr::tr("no run '%1' (torchdeck runs lists them)").arg(text));
    else
        error(Tr::tr("'%1' matches %2 runs; give more of the id").arg(text).arg(matches.size()));
    return {};
}

std::optional<SweepRecord> TermContext::findSweep(const QString &text, const QList<SweepRecord> &sweeps)
{
    const QList<SweepRecord> matches = sweepsMatching(text, sweeps);
    if (matches.size() == 1)
        return matches.constFirst();
    error(matches.isEmpty() ? Tr::tr("no sweep '%1' (torchdeck sweeps lists them)").arg(text)
                            : Tr::tr("'%1' matches %2 sweeps; give more of the id").arg(text).arg(matches.size()));
    return std::nullopt;
}

QList<RunRecord> TermContext::runsOf(const QList<SweepMember> &members)
{
    QList<RunRecord> runs;
    for (const SweepMember &member : members) {
        const auto run = m_store.run(member.runId);
        if (run.ok() && run.value)
            runs.append(*run.value);
    }
    return runs;
}

bool TermContext::connect(const QString &cluster)
{
    const OperationOutcome opened = waitFor(agent().open(cluster), connectTimeoutMs);
    if (opened.ok)
        return true;
    // The agent's message names the host already; the hint fits what went wrong.
    const SshConfig config = readUserSshConfig();
    const QString noSuchCluster = noSuchClusterMessage(cluster, config);
    if (opened.error == noSuchCluster) {
        error(opened.error); // the agent refused a name the user never configured, and said which there are
        return false;
    }
    if (!config.names(cluster) && !m_agent->needsYou(cluster)) {
        error(Tr::tr("cannot connect to %1: %2").arg(cluster, opened.error));
        error(noSuchCluster);
        return false;
    }
    error(opened.error.contains(cluster) ? opened.error
                                         : Tr::tr("cannot connect to %1: %2").arg(cluster, opened.error));
    if (m_agent->needsYou(cluster) && !hasTerminal())
        error(Tr::tr("%1 needs an answer from you (a host key, a password or a one-time code) and there is no terminal "
                     "to ask on: run this command in a terminal, or open the torchdeck window")
                  .arg(cluster));
    return false;
}

OperationOutcome TermContext::wait(SessionOperation *operation, int timeoutMs, const QString &what,
                                   const std::function<void(const QString &, const QCborMap &)> &onEvent)
{
    OperationOutcome outcome = waitFor(operation, timeoutMs, onEvent);
    if (!outcome.ok)
        error(what.isEmpty() ? outcome.error : what + QStringLiteral(": ") + outcome.error);
    return outcome;
}

QString shortRunId(const QString &id)
{
    return id.left(8);
}

} // namespace torchdeck::term
