#include "client/agentclient.h"
#include "core/store/runstore.h"
#include "gui/checkpointlistmodel.h"
#include "gui/checkpointpanel.h"
#include "gui/pullbar.h"
#include "gui/runfilespanel.h"
#include "gui/runnotesbar.h"
#include "gui/runtreemodel.h"
#include "gui/runview.h"
#include "guisandbox.h"

#include <QApplication>
#include <QCheckBox>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QTreeView>
#include <QTreeWidget>

using namespace torchdeck;
using namespace torchdeck::testing;

// The run view's Checkpoints tab against the real sandbox: the marks reflect the files on the cluster, an
// old checkpoint is deleted there (never the latest), and the wall-time budget is shown; then the Files tab, the
// latest checkpoint downloaded, and the run deleted with its directory.
class TestGuiCheckpoints : public QObject {
    Q_OBJECT
    QTemporaryDir m_home;

    static void selectRow(CheckpointPanel *panel, int row)
    {
        panel->view()->selectionModel()->select(panel->model()->index(row, 0),
                                                QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    }
    static QString mark(CheckpointPanel *panel, int row)
    {
        return panel->model()->index(row, CheckpointListModel::MarkColumn).data().toString();
    }

private slots:
    void initTestCase() { initSandboxTest(m_home, TrainerUse::Prebuilt); }

    void marksDeletesAndShowsTheBudget()
    {
        ShownWindow shown; // the window attaches to its agent
        QVERIFY2(shown.window, qPrintable(shown.agent.error));
        MainWindow &window = *shown.window;
        const FormSubmission submission = submitThroughForm(window, smallTrainerJob(3));
        QVERIFY2(submission.error.isEmpty(), qPrintable(submission.error));
        const QString runId = submission.result.runId;
        QCOMPARE(waitForRunEnd(window, runId), QStringLiteral("completed"));
        window.selectRun(runId);
        CheckpointPanel *panel = window.runView()->checkpointPanel();
        QTRY_COMPARE_WITH_TIMEOUT(panel->model()->rowCount(), 3, 10000); // steps 32, 64, 96
        QTRY_VERIFY_WITH_TIMEOUT(mark(panel, 2).contains(QStringLiteral("latest")), 10000);
        QVERIFY2(panel->budgetLabel()->text().contains(QStringLiteral("wall time 00:10:00 holds")),
                 qPrintable(panel->budgetLabel()->text()));

        // The latest cannot be deleted: the button says so, and so does a forced attempt.
        selectRow(panel, 2);
        QVERIFY(!panel->deleteButton()->isEnabled());
        QSignalSpy messages(panel, &CheckpointPanel::message);
        panel->deleteSelected(false);
        QCOMPARE(messages.size(), 1);
        QVERIFY(messages.takeFirst().constFirst().toString().contains(QStringLiteral("the one a resume starts from")));

        // The oldest goes, on the cluster and in the store.
        const QString oldest = panel->model()->index(0, 0).data(CheckpointListModel::PathRole).toString();
        QVERIFY(QFile::exists(oldest));
        selectRow(panel, 0);
        QVERIFY(panel->deleteButton()->isEnabled());
        panel->deleteSelected(false);
        QTRY_VERIFY_WITH_TIMEOUT(!messages.isEmpty(), 20000);
        QCOMPARE(messages.takeFirst().constFirst().toString(), QStringLiteral("Deleted 1 checkpoint(s)"));
        QVERIFY(!QFile::exists(oldest));
        QVERIFY(!QFile::exists(oldest + QStringLiteral(".json")));
        QCOMPARE(window.agent()->store()->checkpoints(runId).value.size(), 2);
        QTRY_COMPARE_WITH_TIMEOUT(panel->model()->rowCount(), 2, 5000);

        // The Files tab lists the run's directory with the latest checkpoint marked.
        RunView *view = window.runView();
        RunFilesPanel *files = view->filesPanel();
        view->tabs()->setCurrentWidget(files);
        const QString latest = QStringLiteral("checkpoints/checkpoint-0000000096.pt");
        QTRY_VERIFY_WITH_TIMEOUT(!files->list()->findItems(latest, Qt::MatchExactly).isEmpty(), 20000);
        QVERIFY(files->list()->findItems(latest, Qt::MatchExactly).constFirst()->text(4).contains(u"latest"));

        // The trained model to this machine from the Checkpoints tab: the same bytes as on the cluster.
        selectRow(panel, 1);
        QSignalSpy pulled(panel->pullBar(), &PullBar::pulled);
        panel->downloadSelected(m_home.filePath(QStringLiteral("pulled")));
        QTRY_COMPARE_WITH_TIMEOUT(pulled.size(), 1, 30000);
        const QString copy = pulled.constFirst().constFirst().toStringList().value(0);
        const QString original = panel->model()->index(1, 0).data(CheckpointListModel::PathRole).toString();
        QFile a(copy);
        QFile b(original);
        QVERIFY(a.open(QIODevice::ReadOnly) && b.open(QIODevice::ReadOnly));
        QVERIFY(a.size() > 0);
        QVERIFY(a.readAll() == b.readAll());

        // Tags, a note and a name edited in the header, kept with the run; the filter box finds the run by a tag.
        RunNotesBar *notes = view->notesBar();
        // Two tags as `torchdeck tag` sets them (through the agent) show in the header; then edited in place.
        window.agent()->annotateRun(QStringLiteral("torchdeck-sandbox"), runId, std::nullopt, std::nullopt,
                                    {QStringLiteral("from-term"), QStringLiteral("baseline")});
        QTRY_COMPARE_WITH_TIMEOUT(notes->tagsEdit()->text(), QStringLiteral("baseline from-term"), 10000);
        notes->tagsEdit()->setText(QStringLiteral("baseline fig-3"));
        emit notes->tagsEdit()->editingFinished();
        notes->noteEdit()->setText(QStringLiteral("the one in the paper"));
        emit notes->noteEdit()->editingFinished();
        notes->rename(QStringLiteral("renamed in place"));
        const auto stored = [&] { return window.agent()->store()->run(runId).value.value_or(RunRecord{}); };
        QTRY_COMPARE_WITH_TIMEOUT(stored().tags, QStringList({QStringLiteral("baseline"), QStringLiteral("fig-3")}),
                                  10000);
        QTRY_COMPARE_WITH_TIMEOUT(stored().note, QStringLiteral("the one in the paper"), 10000);
        QTRY_COMPARE_WITH_TIMEOUT(stored().name, QStringLiteral("renamed in place"), 10000);
        window.filterBox()->setText(QStringLiteral("fig-3"));
        QTRY_COMPARE_WITH_TIMEOUT(window.runTree()->model()->rowCount(window.runTree()->model()->index(0, 0)), 1,
                                  10000);
        window.filterBox()->setText(QStringLiteral("no-such-tag"));
        QCOMPARE(window.runTree()->model()->rowCount(), 0);
        window.filterBox()->clear();

        // "Open a shell": the user's terminal emulator runs `torchdeck shell RUN`.
        const QString terminal = m_home.filePath(QStringLiteral("terminal"));
        const QString said = m_home.filePath(QStringLiteral("terminal-args"));
        QFile script(terminal);
        QVERIFY(script.open(QIODevice::WriteOnly));
        script.write(QStringLiteral("#!/bin/sh\necho \"$*\" >'%1'\n").arg(said).toUtf8());
        script.close();
        script.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        qputenv("TERMINAL", terminal.toUtf8());
        QVERIFY(view->openShell());
        QTRY_VERIFY_WITH_TIMEOUT(QFileInfo(said).size() > 0, 10000);
        QFile args(said);
        QVERIFY(args.open(QIODevice::ReadOnly));
        const QString line = QString::fromUtf8(args.readAll()).trimmed();
        QVERIFY2(line.startsWith(QStringLiteral("-e ")) && line.endsWith(QStringLiteral(" shell ") + runId),
                 qPrintable(line));

        // "Delete run…" with its directory: the record and the directory go.
        const QString directory = original.section(QStringLiteral("/checkpoints/"), 0, 0);
        QVERIFY(directory.endsWith(runId));
        QSignalSpy deleted(view, &RunView::runDeleted);
        view->deleteRun(false, true);
        QTRY_COMPARE_WITH_TIMEOUT(deleted.size(), 1, 30000);
        QVERIFY(!QFileInfo::exists(directory));
        QVERIFY(!window.agent()->store()->run(runId).value);
        QTRY_VERIFY_WITH_TIMEOUT(!window.runModel()->run(runId), 10000); // its row went
        QTRY_VERIFY_WITH_TIMEOUT(window.runView()->runId().isEmpty(), 10000);

        // An ended run of a cluster that cannot be reached (gone from the ssh config): "Delete run…" offers its
        // record alone, says why, and forgets it.
        RunRecord gone;
        gone.id = QStringLiteral("90000000-aaaa-bbbb-cccc-000000000000");
        gone.name = QStringLiteral("on a gone cluster");
        gone.cluster = QStringLiteral("torchdeck-gone");
        gone.state = QStringLiteral("completed");
        gone.created = QDateTime::currentDateTimeUtc();
        RunStore writer; // the window's store only reads: the run is written as the agent would
        QVERIFY(writer.open(window.agent()->store()->path()).ok());
        QVERIFY(writer.addRun(gone).ok());
        RunView goneView(window.agent());
        goneView.showRun(gone.id);
        QString offered;
        QString why;
        bool removable = true;
        QTimer answer; // the box comes after the dry run failed, in its own event loop
        answer.setInterval(50);
        connect(&answer, &QTimer::timeout, this, [&] {
            auto *box = qobject_cast<QMessageBox *>(QApplication::activeModalWidget());
            if (!box)
                return;
            answer.stop();
            offered = box->checkBox()->text();
            removable = box->checkBox()->isEnabled();
            why = box->informativeText();
            box->button(QMessageBox::Yes)->click();
        });
        answer.start();
        QSignalSpy goneDeleted(&goneView, &RunView::runDeleted);
        goneView.deleteRun();
        QTRY_COMPARE_WITH_TIMEOUT(goneDeleted.size(), 1, 60000);
        QCOMPARE(offered, QStringLiteral("Its directory on torchdeck-gone stays"));
        QVERIFY(!removable);
        QVERIFY2(why.contains(QStringLiteral("the dry run on torchdeck-gone failed: ")), qPrintable(why));
        QVERIFY(!window.agent()->store()->run(gone.id).value);
    }
};

QTEST_MAIN(TestGuiCheckpoints)
#include "tst_guicheckpoints.moc"
