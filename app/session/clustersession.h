#pragma once

#include "core/profiles/clusterprofile.h"
#include "core/runs/launchrequest.h"
#include "core/store/seriescache.h"
#include "core/store/storeresult.h"
#include "remote/connection.h"

#include <QObject>
#include <QPointer>
#include <QTimer>
#include <functional>

namespace torchdeck {

namespace remote {
class RunTracker;
}
class RunStore;
class RunAction;
class Submission;

// One cluster, for both fronts: its connection, the run tracker and its polling, the restart policy (on for
// every run unless switched off for it, up to its spec's restart limit), submissions (new runs, chains,
// resumes and branches), cancel and requeue, and the one cache of each run's series. Widget-free: the
// desktop window and the terminal commands are views over it and wire none of these parts themselves.
class ClusterSession : public QObject {
    Q_OBJECT
public:
    ClusterSession(const ClusterProfile &profile, const remote::ConnectionSettings &settings, RunStore *store,
                   QObject *parent = nullptr);
    ~ClusterSession() override;

    QString name() const { return m_profile.name; }
    const ClusterProfile &profile() const { return m_profile; }
    // An edited profile replaces the tracker (before the next pass when one runs); the session's signals
    // stay the same, so the fronts notice nothing.
    void setProfile(const ClusterProfile &profile);
    RunStore *store() const { return m_store; }
    remote::Connection *connection() { return &m_connection; }
    remote::ConnectionState state() const { return m_connection.state(); }
    bool isConnected() const { return state() == remote::ConnectionState::Connected; }

    void open(); // no-op while connected or connecting
    void close();
    // Calls `then` once connected (at once if so), or `failed` with the reason. Never blocks.
    void whenConnected(QObject *context, const std::function<void()> &then,
                       const std::function<void(const QString &)> &failed);
    // The profile's work directory made absolute on the cluster (its symlinks resolved, as a submission
    // resolves it), asked once connected; empty until known (workDirectoryKnown).
    QString workDirectory() const { return m_workDirectory; }
    // The script a submission of `request` sends, byte for byte, once the work directory is known; before,
    // its paths start with kUnknownWorkDirectory. What the fronts preview (and `submit --edit` edits).
    SubmissionScript previewSubmission(const LaunchRequest &request) const;

    // Polls every interval while connected (3 s unless set), and once on connecting; refresh() polls now
    // (ignored while a pass runs). A one-shot terminal command turns polling off and refreshes when it needs to.
    void setPolling(bool enabled);
    void setPollInterval(int ms) { m_timer.setInterval(ms); }
    int pollInterval() const { return m_timer.interval(); }
    void refresh(const QStringList &runIds = {});
    bool isRefreshing() const;
    bool isRestarting() const;   // a restart's submission is in flight
    bool hasRestartsDue() const; // a restart the scheduler refused waits to be tried again

    const RunSeries *series(const QString &runId) { return m_series.series(runId); }

    // A new run; chain > 1 also queues chain - 1 further attempts, each to start if the one before fails
    // (afternotok), each resuming from the latest checkpoint. The Submission deletes itself when done.
    Submission *submit(const LaunchRequest &request, int chain = 1);
    // The next attempt of an ended run from a checkpoint ("auto": the latest; a step or file name: a branch).
    // Null, with the reason in `error`, when the run cannot resume.
    Submission *resume(const QString &runId, const QString &from, const QString &epochs, QString *error);
    // The unfinished jobs of these runs, newest first, one at a time (a cancelled attempt of a chain would
    // start the next). Runs without one are left as they are.
    RunAction *cancel(const QStringList &runIds);
    // The scheduler stops the run's running job and queues it again (it resumes from its checkpoint).
    RunAction *requeue(const QString &runId);

    // The automatic restart from outside of one run (on unless switched off; stored with the run).
    [[nodiscard]] StoreStatus setAutoRestart(const QString &runId, bool enabled);

signals:
    void stateChanged(const QString &cluster, torchdeck::remote::ConnectionState state, const QString &detail);
    void runUpdated(const QString &runId);
    void metricsArrived(const QString &runId, int attempt, const QList<torchdeck::MetricEvent> &events);
    // The run's series changed in ways no batch of events says (another front on the store stored them):
    // read series(runId) again.
    void seriesReset(const QString &runId);
    void refreshed(const QString &problem); // one pass ended; empty: all went well
    void restarted(const QString &runId, const QString &jobId, const QString &reason);
    void restartFailed(const QString &runId, const QString &error);
    void submitted(const torchdeck::LaunchResult &result); // every job a submission of this session sent
    void storeFailed(const QString &error);
    void workDirectoryKnown(const QString &directory);

private:
    void makeTracker();
    void replaceTrackerIfIdle();
    void onStateChanged(remote::ConnectionState state, const QString &detail);
    void resolveWorkDirectory();

    ClusterProfile m_profile;
    remote::Connection m_connection;
    RunStore *m_store;
    RunSeriesCache m_series;
    remote::RunTracker *m_tracker = nullptr; // a child
    bool m_trackerStale = false;             // made with an earlier profile
    QTimer m_timer;
    bool m_polling = true;
    QString m_workDirectory;
    bool m_resolving = false;
};

} // namespace torchdeck
