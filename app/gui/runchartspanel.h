#pragma once

#include "gui/runsummarytable.h"

#include <QStringList>
#include <QTimer>
#include <QWidget>

class QCheckBox;
class QComboBox;
class QLabel;
class QSlider;

namespace torchdeck {

class RunCharts;
class RunSeriesCache;
class RunStore;

// The run view's Charts tab: the charts, and what is done with them: overlay other stored runs (selected in
// the window's list), smooth, reset the zoom, export the charts as PNG and the run's metrics as CSV (core's
// CSV, as `metrics --csv`).
class RunChartsPanel : public QWidget {
    Q_OBJECT
public:
    // The runs compared are shown from `series` (the front's cache), not copied.
    RunChartsPanel(RunStore *store, RunSeriesCache *series, QWidget *parent = nullptr);

    RunCharts *charts() const { return m_charts; }
    QSlider *smoothingSlider() const { return m_smoothing; }
    QComboBox *chartXBox() const { return m_chartX; }
    void setRunId(const QString &runId);
    QStringList comparedRuns() const { return m_compared; }
    // Overlays these runs (the window's selection), from the cache; the shown run is left out. A table
    // under the charts names every run and lists its final and best values.
    void compareWith(const QStringList &runIds);
    RunSummaryTable *summaryTable() const { return m_summary; }
    // New metrics of a run (already in the cache): a compared run is redrawn and summarized again, at most
    // once a second.
    void runMetricsArrived(const QString &runId);
    bool exportCsv(const QString &path, QString *error) const;

signals:
    void message(const QString &text);

private:
    void exportPngAs();
    void exportCsvAs();
    void updateSummary();

    RunStore *m_store;
    RunSeriesCache *m_series;
    QString m_runId;
    QString m_runName;
    QStringList m_compared;
    QList<RunSummaryTable::Row> m_comparedRows; // parallel to m_compared: their table rows
    QTimer m_reloadCompared;
    RunCharts *m_charts;
    QLabel *m_comparedLabel;
    QSlider *m_smoothing; // remembered in QSettings (runView/smoothing)
    RunSummaryTable *m_summary;
    QComboBox *m_chartX;    // remembered (runView/chartX)
    QCheckBox *m_closeGaps; // remembered (runView/closeGaps)
};

} // namespace torchdeck
