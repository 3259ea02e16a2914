// The new-job form's wall-time budget, from a comparable earlier run of the cluster in the RunStore (its
// metric events are a real trainer capture, tests/data/metrics/attempt1.jsonl).
#include "client/agentclient.h"
#include "core/metrics/metricsreader.h"
#include "core/profiles/profilestore.h"
#include "core/runs/runbudget.h"
#include "core/store/runstore.h"
#include "gui/jobform.h"
#include "gui/newjobdialog.h"
#include "gui/walltimebudgetlabel.h"
#include "testmain.h"

#include <QComboBox>
#include <QFile>
#include <QJsonDocument>
#include <QLineEdit>
#include <QRadioButton>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace torchdeck;

namespace {
const QString kCluster = QStringLiteral("alpha");

// The spec of the captured run: ae on fashion-mnist, batch 16, two ranks on one node, no GPU.
JobSpec capturedSpec()
{
    JobSpec spec;
    spec.name = QStringLiteral("earlier");
    spec.nodes = 1;
    spec.tasksPerNode = 2;
    spec.wallTimeSeconds = 3600;
    spec.commandKind = CommandKind::Trainer;
    spec.trainerArgs = {QStringLiteral("--model"),       QStringLiteral("ae"),          QStringLiteral("--data"),
                        QStringLiteral("fashion-mnist"), QStringLiteral("--epochs"),    QStringLiteral("3"),
                        QStringLiteral("--batch-size"),  QStringLiteral("16"),          QStringLiteral("--lr"),
                        QStringLiteral("0.001"),         QStringLiteral("--optimizer"), QStringLiteral("adam")};
    return spec;
}

void setText(QWidget *field, const QString &text)
{
    auto *edit = qobject_cast<QLineEdit *>(field);
    QVERIFY(edit);
    edit->clear();
    QTest::keyClicks(edit, text);
}
} // namespace

class TestNewJobBudget : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void summaryUnderTheWallTime();
    void warnsWhenNoCheckpointFits();
    void suggestsALongerLead();
    void nothingWhenUnknown();

private:
    WallTimeBudgetLabel *label() const { return m_dialog->form()->budgetLabel(); }
    WallTimeBudget expected() { return budgetFromEarlierRun(m_store, m_dialog->cluster(), m_dialog->form()->spec()); }

    QTemporaryDir m_dir;
    RunStore m_store;
    std::unique_ptr<ProfileStore> m_profiles;
    std::unique_ptr<AgentClient> m_agent;
    std::unique_ptr<NewJobDialog> m_dialog;
};

void TestNewJobBudget::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
    QVERIFY(m_dir.isValid());
    QVERIFY(m_store.open(m_dir.filePath(QStringLiteral("runs.sqlite"))).ok());
    RunRecord run;
    run.id = QStringLiteral("9b1c2d4e-0000-4000-8000-000000000001");
    run.name = QStringLiteral("earlier");
    run.cluster = kCluster;
    run.state = QStringLiteral("completed");
    run.specJson = QString::fromUtf8(QJsonDocument(capturedSpec().toJson()).toJson(QJsonDocument::Compact));
    QVERIFY(m_store.addRun(run).ok());
    JobRecord job;
    job.runId = run.id;
    job.jobId = QStringLiteral("100");
    QVERIFY(m_store.saveJob(job).ok());
    QFile capture(QFINDTESTDATA("../data/metrics/attempt1.jsonl"));
    QVERIFY(capture.open(QIODevice::ReadOnly));
    MetricsReader reader;
    QVERIFY(m_store.appendMetrics(run.id, 0, reader.feed(capture.readAll())).ok());

    m_profiles = std::make_unique<ProfileStore>(m_dir.filePath(QStringLiteral("profiles.json")));
    m_agent = std::make_unique<AgentClient>(AgentClient::Options{}, &m_store); // no agent: the form reads the store
    m_agent->setProfiles(m_profiles.get());
    m_dialog = std::make_unique<NewJobDialog>(m_agent.get(), QStringList{kCluster, QStringLiteral("beta")}, kCluster);
    m_dialog->form()->setSpec(capturedSpec());
    m_dialog->show();
}

void TestNewJobBudget::summaryUnderTheWallTime()
{
    QTRY_VERIFY(label()->isVisible());
    const WallTimeBudget budget = expected();
    QVERIFY(budget.known);
    QVERIFY(budget.reachesCheckpoint);
    QVERIFY(!label()->isWarning());
    QCOMPARE(label()->text(), budget.summary + QStringLiteral(" (measured on an earlier run)"));
    QVERIFY2(label()->text().startsWith(QStringLiteral("wall time 01:00:00 holds ")), qPrintable(label()->text()));
    QVERIFY(!label()->text().contains(QStringLiteral("lead should be")));

    // Updated as the wall time changes: more time, more epochs.
    const qint64 before = label()->budget().epochsPerJob;
    setText(m_dialog->form()->field(QStringLiteral("wallTimeSeconds")), QStringLiteral("02:00:00"));
    QTRY_VERIFY(label()->budget().epochsPerJob > before);
    QVERIFY(label()->text().startsWith(QStringLiteral("wall time 02:00:00 holds ")));
}

void TestNewJobBudget::warnsWhenNoCheckpointFits()
{
    auto *lead = qobject_cast<QSpinBox *>(m_dialog->form()->field(QStringLiteral("signalLeadSeconds")));
    QVERIFY(lead);
    // The default lead follows a short wall time (a fifth of 00:05:05: 61 s), which leaves room for epochs.
    setText(m_dialog->form()->field(QStringLiteral("wallTimeSeconds")), QStringLiteral("00:05:05"));
    QCOMPARE(lead->value(), 61);
    QTRY_VERIFY(label()->text().startsWith(QStringLiteral("wall time 00:05:05 holds ")));
    QVERIFY(!label()->isWarning());
    // A lead the user sets stays: 5 s left before 300 s, less than one epoch and its save.
    lead->setValue(300);
    QTRY_VERIFY(label()->isWarning());
    QVERIFY(label()->isVisible());
    QVERIFY2(
        label()->text().startsWith(QStringLiteral("Warning: wall time 00:05:05 cannot reach one epoch's checkpoint")),
        qPrintable(label()->text()));
    QCOMPARE(label()->text(),
             QStringLiteral("Warning: ") + expected().summary + QStringLiteral(" (measured on an earlier run)"));
    setText(m_dialog->form()->field(QStringLiteral("wallTimeSeconds")), QStringLiteral("01:00:00"));
    QTRY_VERIFY(!label()->isWarning());
    QCOMPARE(lead->value(), 300);
}

void TestNewJobBudget::suggestsALongerLead()
{
    auto *lead = qobject_cast<QSpinBox *>(m_dialog->form()->field(QStringLiteral("signalLeadSeconds")));
    QVERIFY(lead);
    QCOMPARE(lead->value(), 300);
    lead->setValue(10);
    QCOMPARE(m_dialog->form()->spec().signalLeadSeconds, 10);
    const QString suggestion =
        QStringLiteral("; the signal's lead should be at least %1 s").arg(expected().suggestedLeadSeconds);
    QTRY_VERIFY2(label()->text().contains(suggestion), qPrintable(label()->text()));
    QVERIFY(expected().suggestedLeadSeconds > 10);
    lead->setValue(expected().suggestedLeadSeconds);
    QTRY_VERIFY(!label()->text().contains(QStringLiteral("lead should be")));
    lead->setValue(300);
}

void TestNewJobBudget::nothingWhenUnknown()
{
    QTRY_VERIFY(label()->isVisible());
    // Another batch size trains at another pace: the earlier run says nothing of it.
    JobSpec other = capturedSpec();
    other.trainerArgs[7] = QStringLiteral("64");
    m_dialog->form()->setSpec(other);
    QTRY_VERIFY(!label()->isVisible());
    QVERIFY(label()->text().isEmpty());
    m_dialog->form()->setSpec(capturedSpec());
    QTRY_VERIFY(label()->isVisible());
    // A cluster without earlier runs.
    m_dialog->setCluster(QStringLiteral("beta"));
    QTRY_VERIFY(!label()->isVisible());
    m_dialog->setCluster(kCluster);
    QTRY_VERIFY(label()->isVisible());
    // No wall time.
    setText(m_dialog->form()->field(QStringLiteral("wallTimeSeconds")), QString());
    QTRY_VERIFY(!label()->isVisible());
}

TORCHDECK_TEST_MAIN(TestNewJobBudget)
#include "tst_newjobbudget.moc"
