#pragma once

#include "client/agentclient.h"
#include "client/sessionoperation.h"
#include "core/profiles/profilestore.h"
#include "core/store/runstore.h"
#include "term/blocking.h"

#include <QTextStream>
#include <memory>

namespace torchdeck::term {

// What most subcommands need: the run store, the cluster profiles, and the agent (the same sessions as the
// desktop window's), whose questions are asked on the terminal. Errors go to `err` as one line that says what
// to do.
class TermContext {
public:
    TermContext(QString command, QTextStream &out, QTextStream &err);
    ~TermContext();

    bool openStore();    // $TORCHDECK_DATA_DIR/runs.sqlite, else <AppDataLocation>/runs.sqlite
    bool loadProfiles(); // ProfileStore::defaultPath()
    bool open() { return loadProfiles() && openStore(); } // both, what a run command needs first
    RunStore &store() { return m_store; }
    ProfileStore &profiles() { return m_profiles; }
    // The agent of this run store (started when none runs, unless startAgent is false); questions come to this
    // terminal, if there is one.
    AgentClient &agent(bool startAgent = true);

    // A run by id, unique id prefix or unique name.
    std::optional<RunRecord> findRun(const QString &text)
    {
        const QList<RunRecord> found = findRuns(text, false);
        return found.isEmpty() ? std::nullopt : std::optional<RunRecord>(found.first());
    }
    // findRun's run, or (withSweeps, where no run matches) every run of the sweep whose id the text starts (watch
    // and cancel take a sweep for its runs); empty, with the error said, when it names neither.
    QList<RunRecord> findRuns(const QString &text, bool withSweeps);
    // A sweep of `sweeps` (the store's) by id or unique id prefix; none, with the error said, when it names none or
    // several.
    std::optional<SweepRecord> findSweep(const QString &text, const QList<SweepRecord> &sweeps);
    // The runs of a sweep's members, in their order (one the store lost is left out).
    QList<RunRecord> runsOf(const QList<SweepMember> &members);
    // open(), then findRun(): the start of every command that names one run.
    std::optional<RunRecord> openRun(const QString &text) { return open() ? findRun(text) : std::nullopt; }
    // The cluster's session in the agent, connected (a warm agent is connected already); false with the reason
    // said on stderr (an unknown cluster named as such, a question nobody could answer with its hint).
    bool connect(const QString &cluster);
    // Waits for an operation of the agent; a failure is said as this command's error, prefixed with `what`.
    OperationOutcome wait(SessionOperation *operation, int timeoutMs, const QString &what = {},
                          const std::function<void(const QString &, const QCborMap &)> &onEvent = {});

    QTextStream &out() { return m_out; }
    QTextStream &err() { return m_err; }
    // "torchdeck <command>: <message>" on stderr: an error, or a note about what the command was given.
    void error(const QString &message) { note(message); }
    void note(const QString &message);

private:
    QString m_command;
    QTextStream &m_out;
    QTextStream &m_err;
    RunStore m_store;
    ProfileStore m_profiles;
    std::unique_ptr<AgentClient> m_agent;
};

QString shortRunId(const QString &id); // the first 8 characters: what the tables show and accept

} // namespace torchdeck::term
