#include "gui/logpatterndialog.h"

#include "core/metrics/logexplain.h"
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
    takeLog(log);
    auto *intro = new QLabel(
        tr("How this cluster's own commands print their progress: one regular expression a line, with named groups "
           "epoch, epochs, step, epoch_step, steps, loss, val_loss, accuracy, lr, seconds. A pattern of only "
           "epoch, epochs, step, epoch_step, steps and seconds is a context pattern: it places the lines after it. "
           "Tried after the job's own patterns%1, before the general reader and the built-in ones, on the run's "
           "log below: each line says which rule read it and what it gave.")
            .arg(jobPatterns.isEmpty() ? QString() : tr(" (%n of them)", nullptr, int(jobPatterns.size()))));
    intro->setWordWrap(true);
    m_patterns->setPlainText(profiles->profile(cluster).logPatterns.join(u'\n'));
    m_patterns->setTabChangesFocus(true);
    m_patterns->setMaximumHeight(m_patterns->fontMetrics().lineSpacing() * 6);
    m_matches->setHeaderLabels({tr("Line"), tr("Read by"), tr("Gives"), tr("Text")});
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

void LogPatternDialog::takeLog(const QString &log)
{
    m_lines = log.split(u'\n');
    if (!m_lines.isEmpty() && m_lines.constLast().isEmpty())
        m_lines.removeLast(); // the newline ending the last line
    if (m_lines.size() > kLinesTried)
        m_lines = m_lines.mid(m_lines.size() - kLinesTried);
}

void LogPatternDialog::setLog(const QString &log)
{
    takeLog(log);
    evaluate();
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
    int contexts = 0;
    const QByteArray log = m_lines.join(u'\n').toUtf8();
    for (const ExplainedLine &line : explainLog(log, jobLogPatterns(m_jobPatterns + patterns()))) {
        for (const MetricEvent &e : line.explanation.events)
            (e.kind == MetricEventKind::Epoch ? epochs : steps) += 1;
        contexts += line.explanation.context ? 1 : 0;
        rows.append(new QTreeWidgetItem(
            {QString::number(line.number), explanationRules(line), explanationGives(line), line.text.left(200)}));
    }
    m_matches->addTopLevelItems(rows);
    m_status->setText(tr("%1 of the log's last %2 lines read: %3 epoch(s), %4 step(s), %5 context line(s). Every "
                         "rank's repeat of a value is counted once, as in the charts.")
                          .arg(rows.size())
                          .arg(m_lines.size())
                          .arg(epochs)
                          .arg(steps)
                          .arg(contexts));
    QStringList context;
    for (const QString &regex : patterns()) {
        if (PatternParser::isContextPattern({regex, regex}))
            context.append(regex);
    }
    if (!context.isEmpty())
        m_status->setText(
            m_status->text() + u' ' +
            tr("Context pattern(s), giving where the lines after them belong: %1").arg(context.join(u", ")));
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
