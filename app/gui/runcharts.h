#pragma once

#include "core/metrics/chartx.h"
#include "core/metrics/runseries.h"
#include "core/store/runrecord.h"
#include "gui/runchartview.h"

#include <QPointer>
#include <QTimer>
#include <QWidget>
#include <deque>
#include <memory>

class QChart;
class QLineSeries;
class QBarSeries;
class QBarSet;
class QBarCategoryAxis;
class QScatterSeries;

namespace torchdeck {

class RunChartView;
class RunMetrics;

// Another run drawn over this one's loss curves, to compare.
struct ComparedRun {
    QString id; // its colour follows it: the same run keeps its colour as others come and go
    QString name;
    std::shared_ptr<const RunSeries> series; // the cache's (RunSeriesCache::shared), never null
};

// The charts of one run: train loss and samples/s by step, train/val loss by epoch, epoch time bars. Every
// Qt Charts call of the application is in runcharts.cpp, runchartsbystep.cpp, runchartaxes*, runchartticks*,
// runchartview* and runcharttheme* (Qt Charts is deprecated from Qt 6.10 for Qt Graphs: the move stays
// there; runchartspanel* only arranges them). Long series are drawn decimated to about one
// point per pixel column of the visible range; appends are coalesced into one redraw per `redrawDelayMs`.
// Each chart zooms and pans (RunChartView); a zoomed chart keeps its range while points arrive. The charts'
// theme follows the palette.
class RunCharts : public QWidget {
    Q_OBJECT
public:
    explicit RunCharts(QWidget *parent = nullptr);
    ~RunCharts() override;

    void setRun(RunMetrics *run); // null: empty charts
    const RunMetrics *run() const;
    void setLogScale(bool on);
    bool logScale() const { return m_logScale; }
    void setComparison(const QList<ComparedRun> &runs); // empty: none
    // TensorBoard's smoothing of the by-step curves (core/metrics/smoothing.h), 0 .. 0.99; the raw curve
    // stays, faint, behind the smoothed one.
    void setSmoothing(double weight);
    double smoothing() const { return m_smoothing; }
    // What the by-step charts put along x: step, epoch, wall time, or time since the run began (the gaps
    // between its jobs closed or shown).
    void setChartX(ChartX x, bool closeGaps);
    ChartX chartX() const { return m_chartX; }
    // The run's jobs and checkpoints: where each attempt ended is marked on the curves (job id and why), and
    // the points a later attempt discarded are drawn dimmed.
    void setAttempts(const QList<JobRecord> &jobs, const QList<CheckpointRecord> &checkpoints);
    int comparedRuns() const { return int(m_compared.size()); }
    QColor comparisonColor(int index) const; // a compared run's curves' colour
    QColor runColor() const;                 // the shown run's
    // The shown run's name: the legend names every run while others are overlaid.
    void setRunName(const QString &name);
    void setRedrawDelay(int ms) { m_redrawTimer.setInterval(ms); }
    void redraw(); // now, from the series
    void resetZoom();
    bool exportPng(const QString &path); // the four charts as shown

    // What is drawn, for tests and benchmarks.
    QList<QPointF> drawnPoints(SeriesKind kind) const;
    QList<QPointF> drawnComparison(int index, SeriesKind kind) const; // TrainLoss or ValLoss
    int drawnBars() const;
    QWidget *stepChartView() const;
    RunChartView *view(SeriesKind kind) const; // the view that draws this kind
    QList<QChart *> charts() const;
    // The named series of the run's own logger drawn (by step, or by epoch), by name.
    QStringList drawnExtras(bool byEpoch) const;
    QList<QPointF> drawnExtra(const QString &name, bool byEpoch) const;
    // What the job used over wall time (RunSeries::resourceNames): percents on one chart, GiB on the other.
    QStringList drawnResources() const;
    QList<QPointF> drawnResource(const QString &name) const;
    QList<QPointF> drawnSmoothed(SeriesKind kind) const; // TrainLoss or Throughput; empty while not smoothed
    QList<QPointF> drawnDiscarded() const;               // the train loss points later attempts discarded

signals:
    void redrawn();
    void attemptClicked(int attempt); // its boundary on a chart was clicked

protected:
    void changeEvent(QEvent *event) override;

private:
    struct Overlay {
        QLineSeries *steps = nullptr;
        QLineSeries *epochs = nullptr;
    };
    RunChartView *makeView(QChart *chart);
    struct ExtraChart;
    // The chart's lines made those of `names`, in order (others removed, new ones added); hidden when none.
    QList<QLineSeries *> syncLines(ExtraChart &chart, const QStringList &names, bool points);
    QLineSeries *addLine(QChart *chart, const QString &name);
    void drawBars();
    void scheduleRedraw();
    void applyTheme();
    void drawExtras();    // one chart of the extra series by step, one by epoch; hidden while empty
    void drawResources(); // CPU and GPU percents, memory in GiB, over wall time; hidden while unsampled
    void drawSmoothed();
    void drawAttempts();
    void styleSmoothed(); // the raw curves faint behind the smoothed ones, in the same colour
    StepClock stepClock(const RunSeries &run) const;
    // A by-step series as the chart's x wants it: itself for steps, else a copy kept in `keep`.
    const MetricSeries *onChartX(const MetricSeries *series, const RunSeries &run,
                                 std::deque<MetricSeries> *keep) const;
    QPalette activePalette() const;
    void nameOwnLines();                     // "train loss", or "<run>: train loss" while others are overlaid
    void fitLegends();                       // overlaid runs: named in the table under the charts, not in a legend
    void tipLegends();                       // a legend entry's whole name on hover
    QList<RunChartView *> stepViews() const; // the charts whose x is the step: one crosshair across them

    QPointer<RunMetrics> m_run;
    QList<QMetaObject::Connection> m_runConnections;
    bool m_logScale = false;
    QTimer m_redrawTimer;
    QList<ComparedRun> m_compared;
    QList<Overlay> m_overlays;     // parallel to m_compared
    QList<QColor> m_overlayColors; // parallel to m_compared
    QString m_runName;
    double m_smoothing = 0;
    ChartX m_chartX = ChartX::Step;
    bool m_closeGaps = true;
    QList<JobRecord> m_jobs;
    QList<CheckpointRecord> m_checkpoints;

    QChart *m_stepChart;
    QChart *m_throughputChart;
    QChart *m_epochChart;
    QChart *m_timeChart;
    RunChartView *m_stepView;
    RunChartView *m_throughputView;
    RunChartView *m_epochView;
    RunChartView *m_timeView;
    QLineSeries *m_stepLoss;
    QLineSeries *m_throughput;
    QLineSeries *m_epochTrain;
    QLineSeries *m_epochVal;
    QLineSeries *m_stepLossSmooth;
    QLineSeries *m_throughputSmooth;
    QScatterSeries *m_stepDiscarded;
    QBarSeries *m_bars;
    QBarSet *m_barSet;
    QBarCategoryAxis *m_barAxis;
    struct ExtraChart {
        QChart *chart = nullptr;
        RunChartView *view = nullptr;
        QList<QLineSeries *> lines; // named as the series they draw
    };
    ExtraChart m_extras[2];    // by step, by epoch
    ExtraChart m_resources[2]; // percents, GiB
};

} // namespace torchdeck
