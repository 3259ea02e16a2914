#include "gui/runchartspanel.h"

#include "core/metrics/metricscsv.h"
#include "core/store/runmetrics.h"
#include "core/store/runstore.h"
#include "core/store/seriescache.h"
#include "gui/runcharts.h"
#include "gui/runsummarytable.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSaveFile>
#include <QSettings>
#include <QSlider>
#include <QStandardPaths>
#include <QVBoxLayout>
#include <algorithm>

namespace torchdeck {

namespace {
const char *const exportDirKey = "runView/exportDirectory";
const char *const smoothingKey = "runView/smoothing";
const char *const chartXKey = "runView/chartX";
const char *const closeGapsKey = "runView/closeGaps";
constexpr int smoothingSteps = 99; // the slider in hundredths: 0 .. 0.99, as TensorBoard's (to 0.999)

QString exportDirectory()
{
    return QSettings()
        .value(QString::fromLatin1(exportDirKey), QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation))
        .toString();
}
} // namespace

RunChartsPanel::RunChartsPanel(RunStore *store, RunSeriesCache *series, QWidget *parent)
    : QWidget(parent)
    , m_store(store)
    , m_series(series)
    , m_charts(new RunCharts)
    , m_comparedLabel(new QLabel)
    , m_smoothing(new QSlider(Qt::Horizontal))
    , m_summary(new RunSummaryTable)
    , m_chartX(new QComboBox)
    , m_closeGaps(new QCheckBox(tr("Close gaps")))
{
    m_reloadCompared.setSingleShot(true);
    m_reloadCompared.setInterval(1000);
    connect(&m_reloadCompared, &QTimer::timeout, this, [this] { compareWith(m_compared); });
    // A compared run the cache reads anew (a gap, a new attempt) is taken from it again.
    connect(m_series, &RunSeriesCache::dropped, this, &RunChartsPanel::runMetricsArrived);
    auto *reset = new QPushButton(tr("Reset &zoom"));
    auto *png = new QPushButton(tr("Export &PNG\u2026"));
    auto *csv = new QPushButton(tr("Export CS&V\u2026"));
    reset->setToolTip(tr("Fit every chart to its data again. In a chart: wheel zooms, a dragged box zooms to it, "
                         "middle button or Shift+drag pans, double-click fits all, hover shows the nearest value."));
    connect(reset, &QPushButton::clicked, m_charts, &RunCharts::resetZoom);
    connect(png, &QPushButton::clicked, this, &RunChartsPanel::exportPngAs);
    connect(csv, &QPushButton::clicked, this, &RunChartsPanel::exportCsvAs);
    m_comparedLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // Elided by the room left, never widening the window (1366x768 screens).
    m_comparedLabel->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_smoothing->setObjectName(QStringLiteral("smoothing"));
    m_smoothing->setRange(0, smoothingSteps);
    m_smoothing->setMaximumWidth(140);
    m_smoothing->setToolTip(tr("Smoothing of the curves by step: an exponential moving average, debiased at the "
                               "start as TensorBoard's; the raw curve stays faint behind it."));
    auto *smoothingLabel = new QLabel;
    const auto applySmoothing = [this, smoothingLabel](int hundredths) {
        smoothingLabel->setText(tr("Smoothing %1").arg(hundredths / 100.0, 0, 'f', 2));
        m_charts->setSmoothing(hundredths / 100.0);
        QSettings().setValue(QString::fromLatin1(smoothingKey), hundredths / 100.0);
    };
    connect(m_smoothing, &QSlider::valueChanged, this, applySmoothing);
    const int saved = qRound(QSettings().value(QString::fromLatin1(smoothingKey), 0.6).toDouble() * 100);
    m_smoothing->setValue(std::clamp(saved, 0, smoothingSteps));
    applySmoothing(m_smoothing->value());
    // The by-step charts' x: step, epoch, wall time or relative time (remembered, as the smoothing).
    m_chartX->setObjectName(QStringLiteral("chartX"));
    for (const ChartX x : {ChartX::Step, ChartX::Epoch, ChartX::WallTime, ChartX::RelativeTime})
        m_chartX->addItem(tr("x: %1").arg(chartXName(x)), int(x));
    m_closeGaps->setObjectName(QStringLiteral("closeGaps"));
    m_closeGaps->setToolTip(tr("Relative time: each job of the run goes on where the one before it stopped, "
                               "without the time it waited in the queue"));
    const auto applyChartX = [this] {
        const auto x = ChartX(m_chartX->currentData().toInt());
        m_closeGaps->setEnabled(x == ChartX::RelativeTime);
        m_charts->setChartX(x, m_closeGaps->isChecked());
        QSettings settings;
        settings.setValue(QString::fromLatin1(chartXKey), int(x));
        settings.setValue(QString::fromLatin1(closeGapsKey), m_closeGaps->isChecked());
    };
    const QSettings settings;
    m_closeGaps->setChecked(settings.value(QString::fromLatin1(closeGapsKey), true).toBool());
    m_chartX->setCurrentIndex(
        std::max(0, m_chartX->findData(settings.value(QString::fromLatin1(chartXKey), 0).toInt())));
    connect(m_chartX, &QComboBox::currentIndexChanged, this, applyChartX);
    connect(m_closeGaps, &QCheckBox::toggled, this, applyChartX);
    applyChartX();
    auto *bar = new QHBoxLayout;
    m_comparedLabel->setText(tr("Select several runs in the list to overlay them."));
    bar->addWidget(m_comparedLabel, 1);
    bar->addWidget(m_chartX);
    bar->addWidget(m_closeGaps);
    bar->addWidget(smoothingLabel);
    bar->addWidget(m_smoothing);
    bar->addWidget(reset);
    bar->addWidget(png);
    bar->addWidget(csv);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(bar);
    // Under the charts while runs are overlaid: their legend, with their final and best values.
    layout->addWidget(m_charts, 1);
    layout->addWidget(m_summary);
    m_summary->hide();
    connect(m_charts, &RunCharts::redrawn, this, &RunChartsPanel::updateSummary);
}

void RunChartsPanel::updateSummary()
{
    m_summary->setVisible(!m_compared.isEmpty());
    if (m_compared.isEmpty())
        return;
    QList<RunSummaryTable::Row> rows;
    if (const RunMetrics *run = m_charts->run())
        rows.append({m_runName, m_charts->runColor(), summarize(run->series()), false});
    rows.append(m_comparedRows); // summarized once, when loaded
    m_summary->setRows(rows);
}

void RunChartsPanel::setRunId(const QString &runId)
{
    m_runId = runId;
    const auto run = runId.isEmpty() ? StoreResult<std::optional<RunRecord>>{} : m_store->run(runId);
    m_runName = run.ok() && run.value ? (run.value->name.isEmpty() ? runId.left(8) : run.value->name) : QString();
    m_charts->setRunName(m_runName);
    if (m_compared.contains(runId))
        compareWith(m_compared);
}

void RunChartsPanel::compareWith(const QStringList &runIds)
{
    // A copy: runIds may be m_compared itself, which the loop below clears.
    const QStringList wanted = runIds; // NOLINT(performance-unnecessary-copy-initialization)
    QList<ComparedRun> runs;
    QStringList names;
    m_compared.clear();
    for (const QString &id : wanted) {
        if (id == m_runId)
            continue;
        const auto run = m_store->run(id);
        std::shared_ptr<const RunSeries> series = run.ok() && run.value ? m_series->shared(id) : nullptr;
        if (!series) {
            emit message(tr("Cannot read run %1 to compare: %2")
                             .arg(id.left(8), run.ok() ? tr("its metrics are unreadable") : run.error));
            continue;
        }
        const QString name = run.value->name.isEmpty() ? id.left(8) : run.value->name;
        runs.append({id, name, std::move(series)});
        names.append(name);
        m_compared.append(id);
    }
    m_charts->setComparison(runs);
    m_comparedRows.clear();
    for (int i = 0; i < runs.size(); ++i)
        m_comparedRows.append({runs.at(i).name, m_charts->comparisonColor(i), summarize(*runs.at(i).series), true});
    m_comparedLabel->setText(names.isEmpty() ? tr("Select several runs in the list to overlay them.")
                                             : tr("Overlaid: the runs below dashed, in their colours"));
    m_comparedLabel->setToolTip(names.join(u'\n'));
    updateSummary();
}

void RunChartsPanel::runMetricsArrived(const QString &runId)
{
    if (m_compared.contains(runId) && !m_reloadCompared.isActive())
        m_reloadCompared.start();
}

bool RunChartsPanel::exportCsv(const QString &path, QString *error) const
{
    const auto events = m_store->metrics(m_runId);
    if (!events.ok()) {
        *error = events.error;
        return false;
    }
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Text)) {
        *error = file.errorString();
        return false;
    }
    file.write(metricsCsv(events.value).toUtf8());
    if (!file.commit()) {
        *error = file.errorString();
        return false;
    }
    return true;
}

void RunChartsPanel::exportPngAs()
{
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export the charts"), exportDirectory() + u'/' + m_runId.left(8) + QStringLiteral("-charts.png"),
        tr("PNG images (*.png)"));
    if (path.isEmpty())
        return;
    QSettings().setValue(QString::fromLatin1(exportDirKey), QFileInfo(path).absolutePath());
    emit message(m_charts->exportPng(path) ? tr("Saved the charts to %1").arg(path) : tr("Cannot write %1").arg(path));
}

void RunChartsPanel::exportCsvAs()
{
    if (m_runId.isEmpty())
        return;
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export the metrics"), exportDirectory() + u'/' + m_runId.left(8) + QStringLiteral("-metrics.csv"),
        tr("CSV files (*.csv)"));
    if (path.isEmpty())
        return;
    QSettings().setValue(QString::fromLatin1(exportDirKey), QFileInfo(path).absolutePath());
    QString error;
    emit message(exportCsv(path, &error) ? tr("Saved the metrics to %1").arg(path)
                                         : tr("Cannot write %1: %2").arg(path, error));
}

} // namespace torchdeck
