#include "gui/runcharts.h"

#include "core/metrics/chartx.h"
#include "core/metrics/smoothing.h"
#include "core/store/runmetrics.h"
#include "gui/runchartaxes.h"
#include "gui/runcharttheme.h"
#include "gui/runchartticks.h"
#include "gui/runchartview.h"

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QEvent>
#include <QLegendMarker>
#include <QLineSeries>
#include <QPixmap>
#include <QScatterSeries>
#include <QToolTip>
#include <QVBoxLayout>
#include <QValueAxis>
#include <algorithm>
#include <cmath>
#include <deque>

namespace torchdeck {

namespace {
constexpr int defaultRedrawDelayMs = 100;
constexpr int minimumColumns = 100;
constexpr int maximumBars = 200; // beyond that the bars of the latest epochs
// Compared runs: distinct hues that read on light and dark backgrounds, dashed.
const QColor overlayColors[] = {QColor(0xe0, 0x8a, 0x1e), QColor(0x9b, 0x59, 0xd0), QColor(0x2a, 0xa1, 0x98),
                                QColor(0xd0, 0x3b, 0x6f), QColor(0x7f, 0x8c, 0x3d)};

} // namespace

RunCharts::RunCharts(QWidget *parent)
    : QWidget(parent)
    , m_stepChart(new QChart)
    , m_throughputChart(new QChart)
    , m_epochChart(new QChart)
    , m_timeChart(new QChart)
{
    m_redrawTimer.setSingleShot(true);
    m_redrawTimer.setInterval(defaultRedrawDelayMs);
    connect(&m_redrawTimer, &QTimer::timeout, this, &RunCharts::redraw);

    m_stepChart->setTitle(tr("Train loss by step"));
    m_throughputChart->setTitle(tr("Samples/s by step"));
    m_epochChart->setTitle(tr("Loss by epoch"));
    m_timeChart->setTitle(tr("Epoch time (s)"));
    m_stepLoss = addLine(m_stepChart, seriesName(SeriesKind::TrainLoss));
    m_throughput = addLine(m_throughputChart, seriesName(SeriesKind::Throughput));
    m_epochTrain = addLine(m_epochChart, seriesName(SeriesKind::EpochTrainLoss));
    m_epochVal = addLine(m_epochChart, seriesName(SeriesKind::ValLoss));
    m_stepLossSmooth = addLine(m_stepChart, tr("%1, smoothed").arg(seriesName(SeriesKind::TrainLoss)));
    m_throughputSmooth = addLine(m_throughputChart, tr("%1, smoothed").arg(seriesName(SeriesKind::Throughput)));
    for (const auto &[raw, smooth] :
         {std::pair{m_stepLoss, m_stepLossSmooth}, std::pair{m_throughput, m_throughputSmooth}}) {
        smooth->setProperty("twinOf", raw->name()); // the hover readout shows both values (RunChartView)
        smooth->setProperty("twinLabel", tr("smoothed"));
        raw->setProperty("twinLabel", tr("raw"));
        smooth->hide();
    }
    m_stepDiscarded = new QScatterSeries;
    m_stepDiscarded->setName(tr("discarded"));
    m_stepDiscarded->setMarkerSize(4);
    m_stepChart->addSeries(m_stepDiscarded);
    m_epochTrain->setPointsVisible(true);
    m_epochVal->setPointsVisible(true);
    m_stepChart->legend()->hide(); // shown when other runs are compared
    m_throughputChart->legend()->hide();

    m_bars = new QBarSeries;
    m_barSet = new QBarSet(tr("seconds"));
    m_bars->append(m_barSet);
    m_timeChart->addSeries(m_bars);
    m_barAxis = new QBarCategoryAxis;
    m_timeChart->addAxis(m_barAxis, Qt::AlignBottom);
    m_bars->attachAxis(m_barAxis);
    QValueAxis *secondsAxis = makeTickedAxis(m_timeChart);
    m_timeChart->addAxis(secondsAxis, Qt::AlignLeft);
    m_bars->attachAxis(secondsAxis);
    m_timeChart->legend()->hide();
    connect(m_barSet, &QBarSet::hovered, this, [this](bool over, int index) {
        if (over)
            QToolTip::showText(QCursor::pos(), tr("epoch %1: %2 s").arg(m_barAxis->at(index)).arg(m_barSet->at(index)));
    });

    for (QChart *chart : {m_stepChart, m_throughputChart, m_epochChart}) {
        QValueAxis *x = makeTickedAxis(chart, chart == m_epochChart);
        chart->addAxis(x, Qt::AlignBottom);
        for (QAbstractSeries *series : chart->series())
            series->attachAxis(x);
    }
    replaceYAxis(m_stepChart, m_logScale, tr("loss"));
    replaceYAxis(m_epochChart, m_logScale, tr("loss"));
    replaceYAxis(m_throughputChart, false, tr("samples/s"));
    // No x axis titles: the charts' titles say "by step" or "by epoch", and a short chart elides the tick labels for
    // one.

    m_stepView = makeView(m_stepChart);
    m_throughputView = makeView(m_throughputChart);
    m_epochView = makeView(m_epochChart);
    m_timeView = makeView(m_timeChart);
    m_timeView->setRubberBand(QChartView::NoRubberBand); // bars by category: nothing to zoom into
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto *top = new QHBoxLayout;
    top->addWidget(m_stepView, 3);
    top->addWidget(m_throughputView, 2);
    auto *bottom = new QHBoxLayout;
    bottom->addWidget(m_epochView, 3);
    bottom->addWidget(m_timeView, 2);
    // What the job uses, sampled while the run is shown (ClusterSession::setLookedAt), by wall clock: a third
    // column once sampled, so a 768-pixel screen keeps two rows of charts.
    for (const bool memory : {false, true}) {
        ExtraChart &chart = m_resources[memory];
        chart.chart = new QChart;
        chart.chart->setTitle(memory ? tr("Memory (GiB) over time") : tr("CPU and GPU use (%) over time"));
        QValueAxis *x = makeTickedAxis(chart.chart);
        setTickLabels(x, TickLabels::ClockTimes);
        chart.chart->addAxis(x, Qt::AlignBottom);
        replaceYAxis(chart.chart, false, memory ? tr("GiB") : tr("%"));
        chart.view = makeView(chart.chart);
        chart.view->setObjectName(memory ? QStringLiteral("resourceMemoryChart") : QStringLiteral("resourceUseChart"));
        chart.view->hide();
        (memory ? bottom : top)->addWidget(chart.view, 2);
    }
    layout->addLayout(top, 1);
    layout->addLayout(bottom, 1);
    // What the run's own logger writes beyond loss, accuracy and lr (grad norms, F1, ...), shown once there.
    auto *extras = new QHBoxLayout;
    for (const bool byEpoch : {false, true}) {
        ExtraChart &extra = m_extras[byEpoch];
        extra.chart = new QChart;
        extra.chart->setTitle(byEpoch ? tr("Other series by epoch") : tr("Other series by step"));
        extra.chart->addAxis(makeTickedAxis(extra.chart, byEpoch), Qt::AlignBottom);
        replaceYAxis(extra.chart, false, QString());
        extra.view = makeView(extra.chart);
        extra.view->hide();
        extras->addWidget(extra.view, 1);
    }
    layout->addLayout(extras, 0); // stretched once it shows a chart (drawExtras)
    // One crosshair: hovering a chart shows the same x on the others with that x (step, or epoch).
    for (const QList<RunChartView *> &group : {stepViews(), QList<RunChartView *>{m_epochView, m_extras[1].view}}) {
        for (RunChartView *view : group) {
            connect(view, &RunChartView::hovered, this, [group, view](double x) {
                for (RunChartView *other : group) {
                    if (other != view)
                        other->setCrosshair(x);
                }
            });
        }
    }
    for (RunChartView *view : {m_stepView, m_throughputView, m_epochView, m_extras[0].view, m_extras[1].view})
        connect(view, &RunChartView::markerClicked, this, &RunCharts::attemptClicked);
    applyTheme();
}

QList<RunChartView *> RunCharts::stepViews() const
{
    return {m_stepView, m_throughputView, m_extras[0].view};
}

RunCharts::~RunCharts() = default;

RunChartView *RunCharts::makeView(QChart *chart)
{
    chart->setMargins(QMargins(4, 4, 4, 4));
    auto *view = new RunChartView(chart, this);
    view->setRenderHint(QPainter::Antialiasing);
    view->setMinimumHeight(140);
    connect(view, &RunChartView::zoomChanged, this, &RunCharts::redraw);
    return view;
}

QLineSeries *RunCharts::addLine(QChart *chart, const QString &name)
{
    auto *line = new QLineSeries;
    line->setName(name);
    // A million-point curve stays drawable: replace() with the decimated points, drawn with OpenGL off.
    chart->addSeries(line);
    return line;
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
            connect(run, &RunMetrics::extrasChanged, this, &RunCharts::scheduleRedraw),
            connect(run, &RunMetrics::resourcesChanged, this, &RunCharts::scheduleRedraw),
        };
    }
    redraw();
}

void RunCharts::setLogScale(bool on)
{
    if (on == m_logScale)
        return;
    m_logScale = on;
    replaceYAxis(m_stepChart, on, tr("loss"));
    replaceYAxis(m_epochChart, on, tr("loss"));
    applyTheme(); // the new axes take the palette's colours
    resetZoom();
}

void RunCharts::setComparison(const QList<ComparedRun> &runs)
{
    for (const Overlay &overlay : std::as_const(m_overlays)) {
        m_stepChart->removeSeries(overlay.steps);
        m_epochChart->removeSeries(overlay.epochs);
        delete overlay.steps;
        delete overlay.epochs;
    }
    m_overlays.clear();
    m_compared = runs;
    // A colour per run from its id, the next free one when two ids fall on the same.
    m_overlayColors.clear();
    for (const ComparedRun &run : runs) {
        const size_t count = std::size(overlayColors);
        size_t index = qHash(run.id) % count;
        for (size_t tried = 0; tried < count && m_overlayColors.contains(overlayColors[index]); ++tried)
            index = (index + 1) % count;
        m_overlayColors.append(overlayColors[index]);
    }
    nameOwnLines();
    for (const ComparedRun &run : runs) {
        Overlay overlay{addLine(m_stepChart, tr("%1: train loss").arg(run.name)),
                        addLine(m_epochChart, tr("%1: val loss").arg(run.name))};
        for (QLineSeries *line : {overlay.steps, overlay.epochs}) {
            for (QAbstractAxis *axis : line->chart()->axes())
                line->attachAxis(axis);
        }
        m_overlays.append(overlay);
    }
    fitLegends();
    applyTheme(); // colours the new lines
    redraw();
}

void RunCharts::resetZoom()
{
    const QList<RunChartView *> views{m_stepView,       m_throughputView, m_epochView,         m_timeView,
                                      m_extras[0].view, m_extras[1].view, m_resources[0].view, m_resources[1].view};
    for (RunChartView *view : views)
        view->chart()->zoomReset();
    for (RunChartView *view : views) {
        if (view->isZoomed())
            view->resetZoom(); // redraws
    }
    redraw();
}

void RunCharts::scheduleRedraw()
{
    if (!m_redrawTimer.isActive())
        m_redrawTimer.start();
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
    const auto own = [this](SeriesKind kind) { return m_run ? &m_run->series(kind) : nullptr; };
    MetricSeries smoothLoss, smoothThroughput;
    const bool smooth = m_run && m_smoothing > 0;
    if (smooth) {
        smoothLoss = smoothedSeries(m_run->series(SeriesKind::TrainLoss), m_smoothing);
        smoothThroughput = smoothedSeries(m_run->series(SeriesKind::Throughput), m_smoothing);
    }
    std::deque<MetricSeries> moved; // the by-step curves on another x (time, epoch); pointers stay valid
    const auto onX = [&](const MetricSeries *series, const RunSeries &run) { return onChartX(series, run, &moved); };
    const RunSeries noRun;
    const RunSeries &ownRun = m_run ? m_run->series() : noRun;
    QList<QLineSeries *> steps{m_stepLoss, m_stepLossSmooth}, epochs{m_epochTrain, m_epochVal};
    QList<const MetricSeries *> stepSeries{onX(own(SeriesKind::TrainLoss), ownRun),
                                           onX(smooth ? &smoothLoss : nullptr, ownRun)};
    QList<const MetricSeries *> epochSeries{own(SeriesKind::EpochTrainLoss), own(SeriesKind::ValLoss)};
    for (qsizetype i = 0; i < m_overlays.size(); ++i) {
        steps.append(m_overlays.at(i).steps);
        epochs.append(m_overlays.at(i).epochs);
        const RunSeries &other = *m_compared.at(i).series;
        stepSeries.append(onX(&other.series(SeriesKind::TrainLoss), other));
        epochSeries.append(&other.series(SeriesKind::ValLoss));
    }
    drawDecimated(m_stepChart, steps, stepSeries, m_stepView->isZoomed(), minimumColumns);
    drawDecimated(m_throughputChart, {m_throughput, m_throughputSmooth},
                  {onX(own(SeriesKind::Throughput), ownRun), onX(smooth ? &smoothThroughput : nullptr, ownRun)},
                  m_throughputView->isZoomed(), minimumColumns);
    m_stepLossSmooth->setVisible(smooth);
    m_throughputSmooth->setVisible(smooth);
    drawDecimated(m_epochChart, epochs, epochSeries, m_epochView->isZoomed(), minimumColumns);
    drawBars();
    drawExtras();
    drawResources();
    drawAttempts();
    tipLegends();
    emit redrawn();
}

QList<QLineSeries *> RunCharts::syncLines(ExtraChart &chart, const QStringList &names, bool points)
{
    bool changed = false;
    for (qsizetype i = chart.lines.size() - 1; i >= 0; --i) { // another run's names
        if (!names.contains(chart.lines.at(i)->name())) {
            chart.chart->removeSeries(chart.lines.at(i));
            delete chart.lines.takeAt(i);
            changed = true;
        }
    }
    QList<QLineSeries *> lines;
    for (const QString &name : names) {
        auto it = std::find_if(chart.lines.cbegin(), chart.lines.cend(),
                               [&name](const QLineSeries *line) { return line->name() == name; });
        QLineSeries *line = it != chart.lines.cend() ? *it : nullptr;
        if (!line) {
            line = addLine(chart.chart, name);
            for (QAbstractAxis *axis : chart.chart->axes())
                line->attachAxis(axis);
            line->setPointsVisible(points);
            chart.lines.append(line);
            changed = true;
        }
        lines.append(line);
    }
    if (changed)
        applyPalette(chart.chart, activePalette());
    chart.view->setVisible(!names.isEmpty());
    return lines;
}

void RunCharts::drawExtras()
{
    std::deque<MetricSeries> moved;
    for (const bool byEpoch : {false, true}) {
        ExtraChart &extra = m_extras[byEpoch];
        const QStringList names = m_run ? m_run->series().extraNames(byEpoch) : QStringList();
        const QList<QLineSeries *> lines = syncLines(extra, names, byEpoch);
        QList<const MetricSeries *> series;
        for (const QString &name : names)
            series.append(byEpoch ? m_run->series().extra(name, true)
                                  : onChartX(m_run->series().extra(name, false), m_run->series(), &moved));
        // An empty row of extra charts takes no room from the others.
        const bool anyExtras = !m_extras[0].view->isHidden() || !m_extras[1].view->isHidden();
        static_cast<QBoxLayout *>(this->layout())->setStretch(2, anyExtras ? 1 : 0);
        drawDecimated(extra.chart, lines, series, extra.view->isZoomed(), minimumColumns);
    }
}

void RunCharts::drawResources()
{
    const QStringList all = m_run ? m_run->series().resourceNames() : QStringList();
    for (const bool memory : {false, true}) {
        ExtraChart &chart = m_resources[memory];
        QStringList names;
        for (const QString &name : all) {
            if (name.endsWith(QStringLiteral("GiB")) == memory)
                names.append(name);
        }
        const QList<QLineSeries *> lines = syncLines(chart, names, false);
        QList<const MetricSeries *> series;
        for (const QString &name : names)
            series.append(m_run->series().resource(name));
        drawDecimated(chart.chart, lines, series, chart.view->isZoomed(), minimumColumns);
    }
}

QStringList RunCharts::drawnResources() const
{
    QStringList names;
    for (const ExtraChart &chart : m_resources) {
        for (const QLineSeries *line : chart.lines)
            names.append(line->name());
    }
    return names;
}

QList<QPointF> RunCharts::drawnResource(const QString &name) const
{
    for (const ExtraChart &chart : m_resources) {
        for (const QLineSeries *line : chart.lines) {
            if (line->name() == name)
                return line->points();
        }
    }
    return {};
}

QStringList RunCharts::drawnExtras(bool byEpoch) const
{
    QStringList names;
    for (const QLineSeries *line : m_extras[byEpoch].lines)
        names.append(line->name());
    return names;
}

QList<QPointF> RunCharts::drawnExtra(const QString &name, bool byEpoch) const
{
    for (const QLineSeries *line : m_extras[byEpoch].lines) {
        if (line->name() == name)
            return line->points();
    }
    return {};
}

void RunCharts::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::ApplicationPaletteChange)
        applyTheme();
}

void RunCharts::applyTheme()
{
    for (QChart *chart : charts())
        applyPalette(chart, activePalette());
    for (QLineSeries *raw : {m_stepLoss, m_throughput}) {
        // The theme's colour, once it set one: a theme kept as it was leaves our faint pen on the raw curve.
        if (raw->pen().color().alpha() == 255)
            raw->setProperty("themeColor", raw->pen().color());
    }
    styleSmoothed();
    for (qsizetype i = 0; i < m_overlays.size(); ++i) {
        for (QLineSeries *line : {m_overlays.at(i).steps, m_overlays.at(i).epochs})
            line->setPen(QPen(m_overlayColors.at(i), 1.5, Qt::DashLine));
    }
}

const RunMetrics *RunCharts::run() const
{
    return m_run.data();
}

QColor RunCharts::comparisonColor(int index) const
{
    return m_overlayColors.value(index);
}

QColor RunCharts::runColor() const
{
    return m_stepLoss->property("themeColor").value<QColor>();
}

void RunCharts::setRunName(const QString &name)
{
    m_runName = name;
    nameOwnLines();
}

void RunCharts::nameOwnLines()
{
    const bool named = !m_compared.isEmpty() && !m_runName.isEmpty();
    const auto label = [&](SeriesKind kind) {
        return named ? tr("%1: %2").arg(m_runName, seriesName(kind)) : seriesName(kind);
    };
    m_stepLoss->setName(label(SeriesKind::TrainLoss));
    m_epochTrain->setName(label(SeriesKind::EpochTrainLoss));
    m_epochVal->setName(label(SeriesKind::ValLoss));
    m_stepLossSmooth->setName(tr("%1, smoothed").arg(m_stepLoss->name()));
    m_stepLossSmooth->setProperty("twinOf", m_stepLoss->name());
    fitLegends();
}

void RunCharts::fitLegends()
{
    // The table under the charts names the overlaid runs (RunSummaryTable): a legend of run names in a
    // chart's width would elide every one. The epoch chart's legend tells the shown run's train loss from its val
    // loss; hovering a line names it whole.
    for (QLineSeries *own : {m_epochTrain, m_epochVal}) {
        for (QLegendMarker *marker : m_epochChart->legend()->markers(own))
            marker->setLabel(seriesName(own == m_epochTrain ? SeriesKind::EpochTrainLoss : SeriesKind::ValLoss));
    }
    for (const Overlay &overlay : std::as_const(m_overlays)) {
        for (QLegendMarker *marker : m_epochChart->legend()->markers(overlay.epochs))
            marker->setVisible(false);
    }
}

void RunCharts::tipLegends()
{
    // A legend elides long names (a logger's own series): hovering an entry shows it whole.
    for (QChart *chart : charts()) {
        for (QLegendMarker *marker : chart->legend()->markers()) {
            if (marker->property("tipped").toBool())
                continue;
            marker->setProperty("tipped", true);
            connect(marker, &QLegendMarker::hovered, marker, [marker](bool over) {
                if (over)
                    QToolTip::showText(QCursor::pos(), marker->series()->name());
                else
                    QToolTip::hideText();
            });
        }
    }
}

QPalette RunCharts::activePalette() const
{
    // The charts bake colours in: a palette read while the view is disabled (between two runs) would grey them.
    QPalette active = palette();
    active.setCurrentColorGroup(QPalette::Active);
    return active;
}

bool RunCharts::exportPng(const QString &path)
{
    return grab().save(path, "PNG");
}

QList<QPointF> RunCharts::drawnPoints(SeriesKind kind) const
{
    switch (kind) {
    case SeriesKind::TrainLoss:
        return m_stepLoss->points();
    case SeriesKind::Throughput:
        return m_throughput->points();
    case SeriesKind::EpochTrainLoss:
        return m_epochTrain->points();
    case SeriesKind::ValLoss:
        return m_epochVal->points();
    default:
        return {};
    }
}

QList<QPointF> RunCharts::drawnComparison(int index, SeriesKind kind) const
{
    if (index < 0 || index >= m_overlays.size())
        return {};
    return kind == SeriesKind::TrainLoss ? m_overlays.at(index).steps->points()
           : kind == SeriesKind::ValLoss ? m_overlays.at(index).epochs->points()
                                         : QList<QPointF>();
}

int RunCharts::drawnBars() const
{
    return int(m_barSet->count());
}

QWidget *RunCharts::stepChartView() const
{
    return m_stepView;
}

RunChartView *RunCharts::view(SeriesKind kind) const
{
    switch (kind) {
    case SeriesKind::TrainLoss:
    case SeriesKind::LearningRate:
        return m_stepView;
    case SeriesKind::Throughput:
        return m_throughputView;
    case SeriesKind::EpochSeconds:
        return m_timeView;
    default:
        return m_epochView;
    }
}

QList<QChart *> RunCharts::charts() const
{
    return {m_stepChart,       m_throughputChart, m_epochChart,         m_timeChart,
            m_extras[0].chart, m_extras[1].chart, m_resources[0].chart, m_resources[1].chart};
}

} // namespace torchdeck
