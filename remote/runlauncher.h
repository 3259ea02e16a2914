#pragma once

#include "core/jobs/jobspec.h"
#include "core/profiles/clusterprofile.h"
#include "core/store/runrecord.h"
#include "remote/trainerbundle.h"

#include <QObject>
#include <QPointer>

namespace torchdeck {
class RunStore;
}

namespace torchdeck::remote {

class Connection;
class SchedulerClient;

// One submission: a new run (attempt 0) or a further attempt of a stored run (resume, requeue).
struct LaunchRequest {
    ClusterProfile profile;
    JobSpec spec;    // as the user wrote it; the run layout is applied here (core/jobs/runlayout.h)
    QString runId;   // empty: a new run with a new id
    int attempt = 0; // the attempt to submit; a resume is the next attempt of runId
    QString resume;  // trainer --resume for this attempt: "auto", "none", a checkpoint path; empty: keep
    QString script;  // non-empty: submit this text (the user edited the rendered script)
    SubmitDependency after;
};

struct LaunchResult {
    QString runId;
    int attempt = 0;
    QString jobId;
    QString runDirectory;
    QString script;
};

// Resolves the run directory, deploys the trainer (unless the profile names a prebuilt one), renders the
// script, submits it and records the run and its job in the store. Each step says what failed; the
// trainer build's output streams through output().
class RunLauncher : public QObject {
    Q_OBJECT
public:
    RunLauncher(Connection *connection, RunStore *store, QObject *parent = nullptr);

    void start(const LaunchRequest &request);
    // Only renders (after resolving the directories): the script a submission would send.
    void preview(const LaunchRequest &request);

signals:
    void progress(const QString &step, qint64 done, qint64 total);
    void output(const QString &text);
    void rendered(const QString &script);
    void submitted(const torchdeck::remote::LaunchResult &result);
    void failed(const QString &error);

private:
    void begin(const LaunchRequest &request, bool previewOnly);
    void resolveDirectory();
    void deploy();
    void render(const QString &trainerBinary);
    void branchCheckpoints();
    void submit();
    void record(const QString &jobId);
    void fail(const QString &error);

    QPointer<Connection> m_connection;
    RunStore *m_store;
    LaunchRequest m_request;
    bool m_previewOnly = false;
    QString m_workDirectory;
    QString m_runDirectory;
    QString m_localStateDirectory;
    JobSpec m_attemptSpec;
    QString m_script;
};

} // namespace torchdeck::remote

Q_DECLARE_METATYPE(torchdeck::remote::LaunchResult)
