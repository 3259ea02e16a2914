#include "term/termcontext.h"

#include "core/sshconfigparser.h"
#include "term/terminalprompts.h"

#include <QDir>

namespace torchdeck::term {

namespace {
constexpr int connectTimeoutMs = 60000;
}

TermContext::TermContext(QString command, QTextStream &out, QTextStream &err)
    : m_command(std::move(command))
    , m_out(out)
    , m_err(err)
    , m_sessions(std::make_unique<ClusterSessions>(&m_store, &m_profiles))
{
    m_sessions->setConnectionSetup([](remote::Connection *connection) { answerOnTerminal(*connection); });
    m_sessions->setPolling(false); // a command refreshes what it shows; watch and logs -f poll
}

TermContext::~TermContext()
{
    m_sessions.reset(); // before the store and profiles they use
}

void TermContext::note(const QString &message)
{
    m_err << "torchdeck " << m_command << ": " << message << '\n' << Qt::flush;
}

bool TermContext::openStore()
{
    const StoreStatus opened = m_store.open(RunStore::defaultPath());
    if (!opened.ok())
        error(QStringLiteral("cannot open the run store: ") + opened.error);
    return opened.ok();
}

bool TermContext::loadProfiles()
{
    QString problem;
    if (!m_profiles.load(&problem))
        error(problem);
    return problem.isEmpty();
}

std::optional<RunRecord> TermContext::findRun(const QString &text)
{
    if (text.isEmpty()) {
        error(QStringLiteral("which run? (torchdeck runs lists them)"));
        return std::nullopt;
    }
    const auto runs = m_store.runs();
    if (!runs.ok()) {
        error(runs.error);
        return std::nullopt;
    }
    QList<RunRecord> matches;
    for (const RunRecord &run : runs.value) {
        if (run.id == text)
            return run;
        if (run.id.startsWith(text, Qt::CaseInsensitive) || run.name == text)
            matches.append(run);
    }
    if (matches.size() == 1)
        return matches.constFirst();
    if (matches.isEmpty())
        error(QStringLiteral("no run '%1' (torchdeck runs lists them)").arg(text));
    else
        error(QStringLiteral("'%1' matches %2 runs; give more of the id").arg(text).arg(matches.size()));
    return std::nullopt;
}

ClusterSession *TermContext::connect(const QString &cluster)
{
    ClusterSession *session = m_sessions->session(cluster);
    session->open();
    QString problem;
    if (!waitConnected(*session->connection(), connectTimeoutMs, &problem)) {
        // The worker's message names the host already; a question nobody could answer gets a hint.
        const bool unanswered =
            !hasTerminal() &&
            (problem.contains(QStringLiteral("not known")) || problem.contains(QStringLiteral("uthentic")) ||
             problem.contains(QStringLiteral("passphrase")) || problem.contains(QStringLiteral("password")));
        error(problem.contains(cluster) ? problem : QStringLiteral("cannot connect to %1: %2").arg(cluster, problem));
        if (unanswered)
            error(QStringLiteral("no terminal to ask on: run `ssh %1 true` once in a terminal, or load the key into "
                                 "ssh-agent")
                      .arg(cluster));
        return nullptr;
    }
    return session;
}

QString shortRunId(const QString &id)
{
    return id.left(8);
}

} // namespace torchdeck::term
