#include "core/store/runstore.h"
#include "gui/sweepdialog.h"
#include "gui/sweepswindow.h"
#include "guisandbox.h"

#include <QChartView>
#include <QPushButton>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace torchdeck;
using namespace torchdeck::testing;
using namespace Qt::StringLiterals;

// Issue 30 in the window, against the sandbox: "Sweep..." in the new-job dialog runs the form's job over a
// grid the user types (checked before anything is sent), the agent sends it as one job array, and the Sweeps
// window shows its table and overlays its runs.
class TestGuiSweep : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { initSandboxTest(m_home, TrainerUse::Prebuilt); }

    void sweepsTheFormsJobAndShowsItsTable()
    {
        ShownWindow shown;
        QVERIFY2(shown.window, qPrintable(shown.agent.error));
        MainWindow &window = *shown.window;
        NewJobDialog *job = window.openNewJob();
        job->setCluster(kSandboxHost);
        job->form()->setSpec(smallTrainerJob(2));
        auto *sweepButton = job->findChild<QPushButton *>(u"sweepButton"_s);
        QVERIFY(sweepButton && sweepButton->isEnabled());
        SweepDialog *sweep = job->openSweep();
        auto *submit = sweep->findChild<QPushButton *>(u"submitSweep"_s);
        QVERIFY(submit);
        // Nothing to vary, then a value that is no number: said, and nothing can be sent.
        QVERIFY2(sweep->summary().contains(u"Give a setting"_s), qPrintable(sweep->summary()));
        QVERIFY(!submit->isEnabled());
        sweep->setAxis(0, u"nodes"_s, u"1,x"_s);
        QVERIFY2(sweep->summary().contains(u"nodes wants a whole number: x"_s), qPrintable(sweep->summary()));
        QVERIFY(!submit->isEnabled());
        // A point the job's checks refuse: named with its problem in words, no JSON key.
        sweep->setAxis(0, u"nodes"_s, u"1,0"_s);
        QVERIFY2(sweep->summary().contains(u"1 of 2 points cannot run on torchdeck-sandbox"_s) &&
                     sweep->summary().contains(u"nodes=0: A job needs at least one node."_s),
                 qPrintable(sweep->summary()));
        QVERIFY(!submit->isEnabled());
        sweep->setAxis(0, u"lr"_s, u"0.01, 0.001"_s);
        QVERIFY2(sweep->summary().startsWith(u"2 points, 0.33 node-hours at most; one job array"_s),
                 qPrintable(sweep->summary()));
        QVERIFY(submit->isEnabled());

        QSignalSpy submitted(sweep, &SweepDialog::sweepSubmitted);
        QSignalSpy failed(sweep->panel(), &SubmissionPanel::failed);
        sweep->submit();
        QTRY_VERIFY_WITH_TIMEOUT(!submitted.isEmpty() || !failed.isEmpty(), 180000);
        QVERIFY2(failed.isEmpty(), qPrintable(sweep->panel()->outputText()));
        const QString sweepId = submitted.constFirst().constFirst().toString();

        // The window shows the new sweep: a row per point, each a run whose job is a task of one array.
        auto *sweeps = window.findChild<SweepsWindow *>();
        QVERIFY(sweeps);
        QCOMPARE(sweeps->sweepId(), sweepId);
        QCOMPARE(sweeps->table()->rowCount(), 2);
        QStringList runs;
        QStringList arrays;
        for (const SweepRow &row : sweeps->rows()) {
            runs.append(row.runId);
            arrays.append(row.jobId.section(u'_', 0, 0));
            QVERIFY2(row.jobId.contains(u'_'), qPrintable(row.jobId));
        }
        QCOMPARE(arrays.at(0), arrays.at(1));
        // Not deleted while its runs go on (they cannot have ended: the tracker has not seen them run yet).
        sweeps->deleteShown(); // the agent refuses it
        QTRY_VERIFY2_WITH_TIMEOUT(sweeps->actionText().contains(u"still go on"_s), qPrintable(sweeps->actionText()),
                                  60000);
        for (const QString &run : std::as_const(runs))
            QCOMPARE(waitForRunEnd(window, run), u"completed"_s);
        sweeps->refresh();
        const QList<SweepRow> rows = sweeps->rows();
        QCOMPARE(rows.size(), 2);
        QVERIFY(rows.at(0).bestValLoss <= rows.at(1).bestValLoss); // a learning-rate sweep: the best first
        QVERIFY(!sweeps->chart()->isVisible());                    // no speedup for it
        QCOMPARE(sweeps->table()->horizontalHeaderItem(0)->text(), u"lr"_s);

        // Their curves overlaid: the runs selected together in the window.
        auto *overlay = sweeps->findChild<QPushButton *>(u"overlaySweep"_s);
        QVERIFY(overlay);
        overlay->click();
        QStringList selected = window.selectedRuns();
        selected.sort();
        runs.sort();
        QCOMPARE(selected, runs);

        // Both completed: nothing to resume. Then the whole sweep leaves the store, its runs with it.
        sweeps->resumeUnfinished();
        QTRY_VERIFY2_WITH_TIMEOUT(sweeps->actionText().contains(u"nothing to resume"_s),
                                  qPrintable(sweeps->actionText()), 60000);
        sweeps->deleteShown();
        QTRY_VERIFY2_WITH_TIMEOUT(sweeps->actionText().contains(u"deleted with its 2 runs"_s),
                                  qPrintable(sweeps->actionText()), 60000);
        const RunStore &store = *window.agent()->store();
        for (const SweepRecord &left : store.sweeps().value)
            QVERIFY(left.id != sweepId);
        for (const QString &run : std::as_const(runs))
            QVERIFY(store.run(run).ok() && !store.run(run).value);
        QVERIFY(sweeps->sweepId() != sweepId);
    }

private:
    QTemporaryDir m_home;
};

QTEST_MAIN(TestGuiSweep)
#include "tst_guisweep.moc"
