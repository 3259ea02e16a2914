#pragma once

#include "core/profiles/profilestore.h"
#include "core/store/runstore.h"
#include "session/clustersessions.h"
#include "term/blocking.h"

#include <QTextStream>
#include <memory>

namespace torchdeck::term {

// What most subcommands need: the run store, the cluster profiles, and the sessions of the clusters (the
// same session layer as the desktop window's), whose questions are asked on the terminal. Errors go to
// `err` as one line that says what to do.
class TermContext {
public:
    TermContext(QString command, QTextStream &out, QTextStream &err);
    ~TermContext();

    bool openStore();    // $TORCHDECK_DATA_DIR/runs.sqlite, else <AppDataLocation>/runs.sqlite
    bool loadProfiles(); // ProfileStore::defaultPath()
    bool open() { return loadProfiles() && openStore(); } // both, what a run command needs first
    RunStore &store() { return m_store; }
    ProfileStore &profiles() { return m_profiles; }
    ClusterSessions &sessions() { return *m_sessions; }

    // A run by id, unique id prefix or unique name.
    std::optional<RunRecord> findRun(const QString &text);
    // open(), then findRun(): the start of every command that names one run.
    std::optional<RunRecord> openRun(const QString &text) { return open() ? findRun(text) : std::nullopt; }
    // The cluster's session, connected (questions asked on the terminal, if there is one); null with the
    // reason said on stderr when it cannot connect.
    ClusterSession *connect(const QString &cluster);

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
    std::unique_ptr<ClusterSessions> m_sessions;
};

QString shortRunId(const QString &id); // the first 8 characters: what the tables show and accept

} // namespace torchdeck::term
