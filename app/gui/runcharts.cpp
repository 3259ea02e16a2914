#include "gui/runcharts.h"

#include "core/metrics/runmetrics.h"

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QToolTip>
#include <QValueAxis>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace torchdeck {

namespace {
constexpr int defaultRedrawDelayMs = 100;
constexpr int minimumColumns = 100;
constexpr int maximumBars = 200; // beyond that the bars of the latest epochs

QAbstractAxis *axisOf(QChart *chart, Qt::Orientation orientation)
{
    const auto axes = chart->axes(orientation);
    return axes.isEmpty() ? nullptr : axes.constFirst();
}

void fitY(QAbstractAxis *axis, double lo, double hi, bool log)
{
    if (log) {
        static_cast<QLogValueAxis *>(axis)->setRange(lo / 1.2, hi * 1.2);
        return;
    }
    const double pad = hi > lo ? (hi - lo) * 0.05 : std::max(std::abs(hi) * 0.05, 1e-9);
    static_cast<QValueAxis *>(axis)->setRange(lo - pad, hi + pad);
}
} // namespace

RunCharts::RunCharts(QWidget *parent)
    : QWidget(parent)
    , m_stepChart(new QChart)
    , m_epochChart(new QChart)
    , m_timeChart(new QChart)
{
    m_redrawTimer.setSingleShot(true);
    m_redrawTimer.setInterval(defaultRedrawDelayMs);
    connect(&m_redrawTimer, &QTimer::timeout, this, &RunCharts::redraw);

    m_stepChart->setTitle(tr("Train loss by step"));
    m_epochChart->setTitle(tr("Loss by epoch"));
    m_timeChart->setTitle(tr("Epoch time (s)"));
    m_stepLoss = addLine(m_stepChart, SeriesKind::TrainLoss);
    m_epochTrain = addLine(m_epochChart, SeriesKind::EpochTrainLoss);
    m_epochVal = addLine(m_epochChart, SeriesKind::ValLoss);
    m_epochTrain->setPointsVisible(true);
    m_epochVal->setPointsVisible(true);
    m_stepChart->legend()->hide();

    m_bars = new QBarSeries;
    m_barSet = new QBarSet(tr("seconds"));
    m_bars->append(m_barSet);
    m_timeChart->addSeries(m_bars);
    m_barAxis = new QBarCategoryAxis;
    m_timeChart->addAxis(m_barAxis, Qt::AlignBottom);
    m_bars->attachAxis(m_barAxis);
    auto *secondsAxis = new QValueAxis;
    m_timeChart->addAxis(secondsAxis, Qt::AlignLeft);
    m_bars->attachAxis(secondsAxis);
    m_timeChart->legend()->hide();
    connect(m_barSet, &QBarSet::hovered, this, [this](bool over, int index) {
        if (over)
            QToolTip::showText(QCursor::pos(), tr("epoch %1: %2 s").arg(m_barAxis->at(index)).arg(m_barSet->at(index)));
    });

    for (QChart *chart : {m_stepChart, m_epochChart}) {
        auto *x = new QValueAxis;
        x->setLabelFormat(QStringLiteral("%g"));
        chart->addAxis(x, Qt::AlignBottom);
        for (QAbstractSeries *series : chart->series())
            series->attachAxis(x);
    }
    setYAxis(m_stepChart, {m_stepLoss});
    setYAxis(m_epochChart, {m_epochTrain, m_epochVal});
    axisOf(m_stepChart, Qt::Horizontal)->setTitleText(tr("step"));
    // No axis title on the epoch chart: its title says it, and a short chart elides the tick labels for it.
    static_cast<QValueAxis *>(axisOf(m_epochChart, Qt::Horizontal))->setLabelFormat(QStringLiteral("%.0f"));

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_stepView = makeView(m_stepChart);
    layout->addWidget(m_stepView, 1);
    auto *row = new QHBoxLayout;
    row->addWidget(makeView(m_epochChart), 3);
    row->addWidget(makeView(m_timeChart), 2);
    layout->addLayout(row, 1);
}

RunCharts::~RunCharts() = default;

QChartView *RunCharts::makeView(QChart *chart)
{
    chart->setMargins(QMargins(4, 4, 4, 4));
    auto *view = new QChartView(chart, this);
    view->setRenderHint(QPainter::Antialiasing);
    view->setMinimumHeight(140);
    return view;
}

QLineSeries *RunCharts::addLine(QChart *chart, SeriesKind kind)
{
    auto *line = new QLineSeries;
    line->setName(seriesName(kind));
    // A million-point curve stays drawable: replace() with the decimated points, drawn with OpenGL off.
    chart->addSeries(line);
    connect(line, &QLineSeries::hovered, this, [line](const QPointF &point, bool state) {
        if (state)
            QToolTip::showText(QCursor::pos(), QStringLiteral("%1: x %2, y %3").arg(line->name()).arg(point.x()).arg(point.y()));
    });
    return line;
}

void RunCharts::setYAxis(QChart *chart, QList<QLineSeries *> lines)
{
    if (QAbstractAxis *old = axisOf(chart, Qt::Vertical)) {
        for (QLineSeries *line : lines)
            line->detachAxis(old);
        chart->removeAxis(old);
        delete old;
    }
    QAbstractAxis *axis = nullptr;
    if (m_logScale) {
        auto *log = new QLogValueAxis;
        log->setLabelFormat(QStringLiteral("%.3g"));
        log->setMinorTickCount(-1);
        axis = log;
    } else {
        auto *linear = new QValueAxis;
        linear->setLabelFormat(QStringLiteral("%.3g"));
        axis = linear;
    }
    axis->setTitleText(tr("loss"));
    chart->addAxis(axis, Qt::AlignLeft);
    for (QLineSeries *line : lines)
        line->attachAxis(axis);
}

void RunCharts::setRun(RunMetrics *run)
{
    for (const QMetaObject::Connection &c : std::as_const(m_runConnections))
        disconnect(c);
    m_runConnections.clear();
    m_run = run;
    if (run) {
        m_runConnections = {
            connect(run, &RunMetrics::pointsAppended, this, &RunCharts::scheduleRedraw),
            connect(run, &RunMetrics::pointsDiscarded, this, &RunCharts::scheduleRedraw),
            connect(run, &RunMetrics::replaced, this, &RunCharts::scheduleRedraw),
        };
    }
    redraw();
}

void RunCharts::setLogScale(bool on)
{
    if (on == m_logScale)
        return;
    m_logScale = on;
    setYAxis(m_stepChart, {m_stepLoss});
    setYAxis(m_epochChart, {m_epochTrain, m_epochVal});
    redraw();
}

void RunCharts::scheduleRedraw()
{
    if (!m_redrawTimer.isActive())
        m_redrawTimer.start();
}

void RunCharts::drawLines(QChart *chart, const QList<QLineSeries *> &lines, const QList<SeriesKind> &kinds,
                          int columns)
{
    double xLo = INFINITY, xHi = -INFINITY, yLo = INFINITY, yHi = -INFINITY;
    for (qsizetype i = 0; i < lines.size(); ++i) {
        QList<QPointF> points;
        if (m_run) {
            const MetricSeries &series = m_run->series(kinds.at(i));
            const SeriesBounds bounds = series.visibleBounds();
            if (bounds.valid)
                points = series.decimated(bounds.xMin, bounds.xMax, columns);
        }
        if (m_logScale)
            points.removeIf([](const QPointF &p) { return p.y() <= 0; });
        for (const QPointF &p : std::as_const(points)) {
            xLo = std::min(xLo, p.x());
            xHi = std::max(xHi, p.x());
            yLo = std::min(yLo, p.y());
            yHi = std::max(yHi, p.y());
        }
        lines.at(i)->replace(points);
    }
    if (xLo > xHi)
        return;
    auto *xAxis = static_cast<QValueAxis *>(axisOf(chart, Qt::Horizontal));
    xAxis->setRange(xLo, xHi > xLo ? xHi : xLo + 1);
    if (chart == m_epochChart) // whole epochs: one tick each while they fit
        xAxis->setTickCount(std::clamp(int(xHi - xLo) + 1, 2, 6));
    fitY(axisOf(chart, Qt::Vertical), yLo, yHi, m_logScale);
}

void RunCharts::drawBars()
{
    QStringList categories;
    QList<qreal> values;
    if (m_run) {
        const QList<QPointF> points = m_run->series(SeriesKind::EpochSeconds).visiblePoints();
        for (qsizetype i = std::max<qsizetype>(0, points.size() - maximumBars); i < points.size(); ++i) {
            categories.append(QString::number(points.at(i).x()));
            values.append(points.at(i).y());
        }
    }
    if (m_barSet->count() > 0)
        m_barSet->remove(0, m_barSet->count());
    m_barSet->append(values);
    m_barAxis->setCategories(categories);
    const double hi = values.isEmpty() ? 1.0 : *std::max_element(values.cbegin(), values.cend());
    static_cast<QValueAxis *>(axisOf(m_timeChart, Qt::Vertical))->setRange(0, hi > 0 ? hi * 1.1 : 1.0);
}

void RunCharts::redraw()
{
    m_redrawTimer.stop();
    const int columns = std::max(minimumColumns, int(m_stepChart->plotArea().width()));
    drawLines(m_stepChart, {m_stepLoss}, {SeriesKind::TrainLoss}, columns);
    drawLines(m_epochChart, {m_epochTrain, m_epochVal}, {SeriesKind::EpochTrainLoss, SeriesKind::ValLoss},
              std::max(minimumColumns, int(m_epochChart->plotArea().width())));
    drawBars();
    emit redrawn();
}

QList<QPointF> RunCharts::drawnPoints(SeriesKind kind) const
{
    switch (kind) {
    case SeriesKind::TrainLoss: return m_stepLoss->points();
    case SeriesKind::EpochTrainLoss: return m_epochTrain->points();
    case SeriesKind::ValLoss: return m_epochVal->points();
    default: return {};
    }
}

int RunCharts::drawnBars() const
{
    return int(m_barSet->count());
}

QWidget *RunCharts::stepChartView() const
{
    return m_stepView;
}

} // namespace torchdeck
