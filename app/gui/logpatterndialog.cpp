#include "gui/logpatterndialog.h"

#include "core/metrics/logmetrics.h"
#include "core/profiles/profilestore.h"
#include "core/profiles/profilevalidation.h"

#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace torchdeck {

namespace {

constexpr qsizetype kLinesTried = 5000; // the log's last lines: enough to see a pattern work, quick to redo

QString number(double value)
{
    return QString::number(value, 'g', 6);
}

// What one parsed line gives, as the charts would take it.
QString describe(const MetricEvent &e)
{
    QStringList values;
    const std::pair<const char *, double> named[] = {
        {"loss", e.loss}, {"val_loss", e.valLoss}, {"accuracy", e.valAccuracy}, {"lr", e.lr}, {"seconds", e.seconds}};
    for (const auto &[name, value] : named) {
        if (MetricEvent::has(value))
            values.append(QStringLiteral("%1 %2").arg(QLatin1String(name), number(value)));
    }
    const QString where = e.kind == MetricEventKind::Epoch
                              ? LogPatternDialog::tr("epoch %1%2")
                                    .arg(e.epoch)
                                    .arg(e.epochs >= 0 ? QStringLiteral("/%1").arg(e.epochs) : QString())
                              : LogPatternDialog::tr("step %1").arg(e.step);
    return where + QStringLiteral(": ") + values.join(QStringLiteral(", "));
}

} // namespace

LogPatternDialog::LogPatternDialog(ProfileStore *profiles, const QString &cluster, const QStringList &jobPatterns,
                                   const QString &log, QWidget *parent)
    : QDialog(parent)
    , m_profiles(profiles)
    , m_cluster(cluster)
    , m_jobPatterns(jobPatterns)
    , m_patterns(new QPlainTextEdit)
    , m_matches(new QTreeWidget)
    , m_status(new QLabel)
{
    setObjectName(QStringLiteral("logPatternDialog"));
    setWindowTitle(tr("Log patterns of %1").arg(cluster));
    m_lines = log.split(u'\n');
    if (!m_lines.isEmpty() && m_lines.constLast().isEmpty())
        m_lines.removeLast(); // the newline ending the last line
    if (m_lines.size() > kLinesTried)
        m_lines = m_lines.mid(m_lines.size() - kLinesTried);
    auto *intro = new QLabel(
        tr("How this cluster's own commands print their progress: one regular expression a line, with named groups "
           "epoch, epochs, step, epoch_step, steps, loss, val_loss, accuracy, lr, seconds. Tried after the job's "
           "own patterns%1 and before the built-in ones, on the run's log below.")
            .arg(jobPatterns.isEmpty() ? QString() : tr(" (%n of them)", nullptr, int(jobPatterns.size()))));
    intro->setWordWrap(true);
    m_patterns->setPlainText(profiles->profile(cluster).logPatterns.join(u'\n'));
    m_patterns->setTabChangesFocus(true);
    m_patterns->setMaximumHeight(m_patterns->fontMetrics().lineSpacing() * 6);
    m_matches->setHeaderLabels({tr("Line"), tr("Reads"), tr("Text")});
    m_matches->setRootIsDecorated(false);
    m_matches->header()->setStretchLastSection(true);
    m_status->setWordWrap(true);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Save | QDialogButtonBox::Close);
    m_save = buttons->button(QDialogButtonBox::Save);
    m_save->setText(tr("&Save to the cluster's profile"));
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_save, &QPushButton::clicked, this, [this] {
        if (save())
            accept();
    });
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    layout->addWidget(m_patterns);
    layout->addWidget(m_status);
    layout->addWidget(m_matches, 1);
    layout->addWidget(buttons);
    resize(900, 560);
    connect(m_patterns, &QPlainTextEdit::textChanged, this, &LogPatternDialog::evaluate);
    evaluate();
}

QStringList LogPatternDialog::patterns() const
{
    return m_patterns->toPlainText().split(u'\n', Qt::SkipEmptyParts);
}

QString LogPatternDialog::statusText() const
{
    return m_status->text();
}

void LogPatternDialog::evaluate()
{
    m_matches->clear();
    PatternParser parser;
    const QString problem = parser.setPatterns(jobLogPatterns(m_jobPatterns + patterns()));
    m_save->setEnabled(problem.isEmpty());
    m_status->setStyleSheet(problem.isEmpty() ? QString() : QStringLiteral("color: #d04040;"));
    if (!problem.isEmpty())
        return m_status->setText(problem);
    QList<QTreeWidgetItem *> rows;
    int epochs = 0;
    int steps = 0;
    for (qsizetype i = 0; i < m_lines.size(); ++i) {
        const QList<MetricEvent> events = parser.parseLine(m_lines.at(i).toUtf8());
        for (const MetricEvent &e : events) {
            (e.kind == MetricEventKind::Epoch ? epochs : steps) += 1;
            rows.append(new QTreeWidgetItem({QString::number(i + 1), describe(e), m_lines.at(i).left(200)}));
        }
    }
    m_matches->addTopLevelItems(rows);
    m_status->setText(tr("%1 of the log's last %2 lines read: %3 epoch line(s), %4 step line(s). Every rank's "
                         "repeat is listed here; the charts keep the first.")
                          .arg(rows.size())
                          .arg(m_lines.size())
                          .arg(epochs)
                          .arg(steps));
}

bool LogPatternDialog::save()
{
    ClusterProfile profile = m_profiles->profile(m_cluster);
    profile.logPatterns = patterns();
    const QList<ProfileError> errors = validateClusterProfile(profile);
    QString problem = errors.isEmpty() ? QString() : errors.constFirst().message;
    if (problem.isEmpty()) {
        m_profiles->put(profile);
        if (!m_profiles->save(&problem) && problem.isEmpty())
            problem = tr("Cannot save the profiles in %1.").arg(m_profiles->path());
    }
    if (!problem.isEmpty()) {
        m_status->setStyleSheet(QStringLiteral("color: #d04040;"));
        m_status->setText(problem);
        return false;
    }
    emit saved(m_cluster);
    return true;
}

} // namespace torchdeck
