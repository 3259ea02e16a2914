#pragma once

#include "core/metrics/runseries.h"
#include "core/store/runrecord.h"
#include "remote/connection.h"
#include "term/render/keydecoder.h"
#include "term/render/watchsnapshot.h"
#include "term/terminalfront.h"

#include <QEventLoop>
#include <QHash>
#include <QMap>
#include <QObject>
#include <memory>

namespace torchdeck::remote {
class RunTracker;
}

namespace torchdeck::term {

class TermContext;

// The event loop of one `torchdeck watch`: refreshes from the clusters, redraws, answers keys. watch.cpp
// loads, refreshes and draws; watchkeys.cpp answers keys and runs the actions they ask for.
class Watch : public QObject {
public:
    Watch(TermContext &context, QStringList runIds, bool plain, bool untilDone)
        : m_context(context)
        , m_runIds(std::move(runIds))
        , m_plain(plain)
        , m_untilDone(untilDone)
    {
    }

    int run(int intervalMs);

private:
    void connectClusters();
    void tick();
    void loadRuns();
    void redraw();
    void onKey(Key key);
    void fetchLog();
    void cancelSelected();
    void resumeSelected();
    void setMessage(const QString &text, bool error = false);
    const RunRecord *selectedRun() const;
    const RunSeries *seriesOf(const QString &runId);
    bool allFinished() const;
    void quitWhenDone();

    TermContext &m_context;
    QStringList m_runIds; // empty: every run
    bool m_plain;
    bool m_untilDone;
    QList<RunRecord> m_runs;
    QHash<QString, QStringList> m_jobIds;
    QHash<QString, QString> m_logPaths; // run -> its latest attempt's log
    int m_selected = 0;
    QMap<QString, std::shared_ptr<remote::Connection>> m_connections;
    QMap<QString, remote::RunTracker *> m_trackers;
    QHash<QString, RunSeries> m_series;
    QStringList m_logLines;
    QString m_message;
    bool m_messageIsError = false;
    enum class Pending { None, Cancel, Resume } m_pending = Pending::None;
    bool m_logScale = false;
    WatchSnapshot m_previous;
    QEventLoop m_loop;
    int m_exitCode = Ok;
};

} // namespace torchdeck::term
