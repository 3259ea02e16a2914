#pragma once

#include "core/profiles/profilestore.h"
#include "core/store/runstore.h"
#include "remote/connection.h"

#include <QTextStream>
#include <functional>
#include <memory>

namespace torchdeck::term {

// What most subcommands need: the run store, the cluster profiles, and a connection to one cluster with
// its questions asked on the terminal. Errors go to `err` as one line that says what to do.
class TermContext {
public:
    TermContext(QString command, QTextStream &out, QTextStream &err);

    bool openStore();    // $TORCHDECK_DATA_DIR/runs.sqlite, else <AppDataLocation>/runs.sqlite
    bool loadProfiles(); // ProfileStore::defaultPath()
    bool open() { return loadProfiles() && openStore(); } // both, what a run command needs first
    RunStore &store() { return m_store; }
    ProfileStore &profiles() { return m_profiles; }

    // A run by id, unique id prefix or unique name.
    std::optional<RunRecord> findRun(const QString &text);
    // open(), then findRun(): the start of every command that names one run.
    std::optional<RunRecord> openRun(const QString &text) { return open() ? findRun(text) : std::nullopt; }
    std::unique_ptr<remote::Connection> connect(const QString &cluster);

    QTextStream &out() { return m_out; }
    QTextStream &err() { return m_err; }
    // "torchdeck <command>: <message>" on stderr.
    void error(const QString &message);

private:
    QString m_command;
    QTextStream &m_out;
    QTextStream &m_err;
    RunStore m_store;
    ProfileStore m_profiles;
};

// Runs the event loop until `done` is called (by a signal handler the caller connected) or timeoutMs passes.
// Returns false on timeout.
bool waitUntil(const std::function<void(std::function<void()> done)> &start, int timeoutMs);

QString shortRunId(const QString &id); // the first 8 characters: what the tables show and accept

} // namespace torchdeck::term
