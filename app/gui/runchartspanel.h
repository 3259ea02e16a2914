#pragma once

#include <QStringList>
#include <QTimer>
#include <QWidget>

class QLabel;
class QSlider;

namespace torchdeck {

class CompareRunsDialog;
class RunCharts;
class RunStore;

// The run view's Charts tab: the charts, and what is done with them: compare with other stored runs,
// reset the zoom, export the charts as PNG and the run's metrics as CSV (core's CSV, as `metrics --csv`).
class RunChartsPanel : public QWidget {
    Q_OBJECT
public:
    explicit RunChartsPanel(RunStore *store, QWidget *parent = nullptr);

    RunCharts *charts() const { return m_charts; }
    QSlider *smoothingSlider() const { return m_smoothing; }
    void setRunId(const QString &runId);
    QStringList comparedRuns() const { return m_compared; }
    void compareWith(const QStringList &runIds); // loaded from the store; the shown run is left out
    CompareRunsDialog *chooseComparison();       // opened; applied when accepted
    // New metrics of a run (from its tracker, already in the store): a compared run is redrawn, at most
    // once a second.
    void runMetricsArrived(const QString &runId);
    bool exportCsv(const QString &path, QString *error) const;

signals:
    void message(const QString &text);

private:
    void exportPngAs();
    void exportCsvAs();

    RunStore *m_store;
    QString m_runId;
    QStringList m_compared;
    QTimer m_reloadCompared;
    RunCharts *m_charts;
    QLabel *m_comparedLabel;
    QSlider *m_smoothing; // remembered in QSettings (runView/smoothing)
};

} // namespace torchdeck
