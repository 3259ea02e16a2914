#pragma once

#include "core/metrics/serieskind.h"

#include <QPointer>
#include <QTimer>
#include <QWidget>

class QChart;
class QChartView;
class QLineSeries;
class QBarSeries;
class QBarSet;
class QBarCategoryAxis;
class QAbstractAxis;

namespace torchdeck {

class RunMetrics;

// The charts of one run: train loss by step, train/val loss by epoch, and epoch time bars. Every Qt Charts
// call of the application is in this file pair (Qt Charts is deprecated from Qt 6.10 for Qt Graphs).
// Long series are drawn decimated to about one point per pixel column; appends are coalesced into one
// redraw per `redrawDelayMs`.
class RunCharts : public QWidget {
    Q_OBJECT
public:
    explicit RunCharts(QWidget *parent = nullptr);
    ~RunCharts() override;

    void setRun(RunMetrics *run); // null: empty charts
    void setLogScale(bool on);
    bool logScale() const { return m_logScale; }
    void setRedrawDelay(int ms) { m_redrawTimer.setInterval(ms); }
    void redraw(); // now, from the series

    // What is drawn, for tests and benchmarks.
    QList<QPointF> drawnPoints(SeriesKind kind) const;
    int drawnBars() const;
    QWidget *stepChartView() const;

signals:
    void redrawn();

private:
    QChartView *makeView(QChart *chart);
    QLineSeries *addLine(QChart *chart, SeriesKind kind);
    void setYAxis(QChart *chart, QList<QLineSeries *> lines);
    void drawLines(QChart *chart, const QList<QLineSeries *> &lines, const QList<SeriesKind> &kinds, int columns);
    void drawBars();
    void scheduleRedraw();

    QPointer<RunMetrics> m_run;
    QList<QMetaObject::Connection> m_runConnections;
    bool m_logScale = false;
    QTimer m_redrawTimer;

    QChart *m_stepChart;
    QChart *m_epochChart;
    QChart *m_timeChart;
    QChartView *m_stepView;
    QLineSeries *m_stepLoss;
    QLineSeries *m_epochTrain;
    QLineSeries *m_epochVal;
    QBarSeries *m_bars;
    QBarSet *m_barSet;
    QBarCategoryAxis *m_barAxis;
};

} // namespace torchdeck
