#pragma once

#include "client/logstream.h"
#include "core/metrics/runseries.h"
#include "core/store/runrecord.h"
#include "term/console/keydecoder.h"
#include "term/render/watchsnapshot.h"
#include "term/terminalfront.h"

#include <QEventLoop>
#include <QHash>
#include <QMap>
#include <QObject>
#include <QTimer>
#include <memory>

namespace torchdeck::term {

class TermContext;

// The event loop of one `torchdeck watch`: a view over the agent's sessions of its runs' clusters (they poll,
// restart and keep each run's series), redrawn as they report; keys ask them for actions. watch.cpp loads and
// draws; watchkeys.cpp answers keys.
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
    void connectClusters(int intervalMs);
    void refreshAll();
    void loadRuns();
    void redraw();
    WatchRunRow rowOf(const RunRecord &run) const; // a line of the runs table
    void onKey(Key key);
    void fetchLog();
    void cancelSelected();
    void resumeSelected();
    void setMessage(const QString &text, bool error = false);
    const RunRecord *selectedRun() const;
    void lookAtSelected(); // the agent samples what the selected run's job uses (not in --plain)
    const RunSeries *seriesOf(const QString &runId);
    bool allFinished() const;
    void quitWhenDone();

    TermContext &m_context;
    QStringList m_runIds; // empty: every run
    bool m_plain;
    bool m_untilDone;
    QList<RunRecord> m_runs;
    QHash<QString, QList<JobRecord>> m_jobs;  // run -> its jobs, by attempt
    QHash<QString, QString> m_logPaths;       // run -> its latest attempt's log
    QHash<QString, qint64> m_specifiedEpochs; // run -> specifiedEpochs(), read once per load, not per frame
    int m_selected = 0;
    QStringList m_clusters; // connected through the agent
    QStringList m_logLines;
    QString m_logReadAs; // the run, log and state the lines shown were read for
    bool m_fetchingLog = false;
    QString m_message;
    bool m_messageIsError = false;
    enum class Pending { None, Cancel, Resume } m_pending = Pending::None;
    bool m_logScale = false;
    double m_smoothing = 0.6; // as the window's slider starts
    WatchSnapshot m_previous;
    QTimer m_streamed;     // a redraw for metrics or log lines that arrived
    LogStream m_logStream; // the selected run's log while its job runs
    QEventLoop m_loop;
    int m_exitCode = Ok;
};

} // namespace torchdeck::term
