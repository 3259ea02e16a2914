#include "core/profiles/profilestore.h"
#include "gui/clusterprofiledialog.h"
#include "testmain.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>

using namespace torchdeck;

// The profile dialog: every field reaches the saved profile, bad values are marked as typed and block Save,
// and what is saved is what a fresh ProfileStore reads back.
class TestClusterProfileDialog : public QObject {
    Q_OBJECT
private:
    static void type(QWidget *field, const QString &text)
    {
        auto *edit = qobject_cast<QLineEdit *>(field);
        QVERIFY(edit);
        edit->selectAll();
        QTest::keyClicks(edit, text);
    }
    static QPushButton *saveButton(QDialog &dialog)
    {
        return dialog.findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Save);
    }

private slots:
    void newProfileIsSavedWithEveryField()
    {
        QTemporaryDir dir;
        ProfileStore store(dir.filePath(QStringLiteral("clusters.json")));
        QString error;
        QVERIFY(store.load(&error));
        ClusterProfileDialog dialog(&store, {});
        QVERIFY(dialog.errorFields().contains(QStringLiteral("name")));
        QVERIFY(!saveButton(dialog)->isEnabled());

        type(dialog.field(QStringLiteral("name")), QStringLiteral("hpc-a"));
        auto *scheduler = qobject_cast<QComboBox *>(dialog.field(QStringLiteral("scheduler")));
        scheduler->setCurrentText(QStringLiteral("pbs"));
        qobject_cast<QComboBox *>(dialog.field(QStringLiteral("pbs_dialect")))->setCurrentIndex(1);
        type(dialog.field(QStringLiteral("partition")), QStringLiteral("gpu"));
        type(dialog.field(QStringLiteral("account")), QStringLiteral("proj42"));
        type(dialog.field(QStringLiteral("work_directory")), QStringLiteral("/scratch/me/td"));
        type(dialog.field(QStringLiteral("modules")), QStringLiteral("gcc/12, cmake  cuda/12.2"));
        type(dialog.field(QStringLiteral("libtorch")), QStringLiteral("~/libtorch"));
        type(dialog.field(QStringLiteral("trainer_binary")), QStringLiteral("/opt/td/torchdeck-train"));
        QVERIFY2(dialog.errorFields().isEmpty(), qPrintable(dialog.errorText()));
        QVERIFY(saveButton(dialog)->isEnabled());

        QSignalSpy saved(&dialog, &ClusterProfileDialog::saved);
        QTest::mouseClick(saveButton(dialog), Qt::LeftButton);
        QCOMPARE(saved.size(), 1);
        QCOMPARE(dialog.result(), int(QDialog::Accepted));

        ProfileStore reread(store.path());
        QVERIFY(reread.load(&error));
        QVERIFY(reread.contains(QStringLiteral("hpc-a")));
        const ClusterProfile profile = reread.profile(QStringLiteral("hpc-a"));
        QCOMPARE(profile.scheduler, SchedulerKind::Pbs);
        QCOMPARE(profile.pbsDialect, PbsDialect::Torque);
        QCOMPARE(profile.partition, QStringLiteral("gpu"));
        QCOMPARE(profile.account, QStringLiteral("proj42"));
        QCOMPARE(profile.workDirectory, QStringLiteral("/scratch/me/td"));
        QCOMPARE(profile.modules,
                 (QStringList{QStringLiteral("gcc/12"), QStringLiteral("cmake"), QStringLiteral("cuda/12.2")}));
        QCOMPARE(profile.libtorch, QStringLiteral("~/libtorch"));
        QCOMPARE(profile.trainerBinary, QStringLiteral("/opt/td/torchdeck-train"));
        QCOMPARE(profile, saved.constFirst().constFirst().value<ClusterProfile>());
    }

    void badValuesAreMarkedAsTyped()
    {
        QTemporaryDir dir;
        ProfileStore store(dir.filePath(QStringLiteral("clusters.json")));
        ClusterProfileDialog dialog(&store, QStringLiteral("alpha"));
        QVERIFY(dialog.errorFields().isEmpty());
        QVERIFY(qobject_cast<QLineEdit *>(dialog.field(QStringLiteral("name")))->isReadOnly());

        type(dialog.field(QStringLiteral("libtorch")), QStringLiteral("relative/libtorch"));
        QCOMPARE(dialog.errorFields(), QStringList{QStringLiteral("libtorch")});
        QVERIFY(!dialog.field(QStringLiteral("libtorch"))->styleSheet().isEmpty());
        QVERIFY(dialog.errorText().contains(QStringLiteral("LibTorch")));
        QVERIFY(!saveButton(dialog)->isEnabled());
        QVERIFY(!dialog.save());
        QVERIFY(!QFile::exists(store.path()));

        qobject_cast<QCheckBox *>(dialog.field(QStringLiteral("build_on")))->setChecked(true);
        qobject_cast<QComboBox *>(dialog.field(QStringLiteral("scheduler")))->setCurrentText(QStringLiteral("local"));
        QCOMPARE(dialog.errorFields(), (QStringList{QStringLiteral("libtorch"), QStringLiteral("build_on")}));

        type(dialog.field(QStringLiteral("libtorch")), QStringLiteral("auto"));
        qobject_cast<QComboBox *>(dialog.field(QStringLiteral("scheduler")))->setCurrentText(QStringLiteral("slurm"));
        qobject_cast<QSpinBox *>(dialog.field(QStringLiteral("build_cpus")))->setValue(8);
        QVERIFY(dialog.errorFields().isEmpty());
        QVERIFY(saveButton(dialog)->isEnabled());
        QVERIFY(dialog.save());
        ProfileStore reread(store.path());
        QString error;
        QVERIFY(reread.load(&error));
        QVERIFY(reread.profile(QStringLiteral("alpha")).buildInJob);
        QCOMPARE(reread.profile(QStringLiteral("alpha")).buildCpus, 8);
    }

    void logPatternsAreCheckedAsTyped()
    {
        QTemporaryDir dir;
        ProfileStore store(dir.filePath(QStringLiteral("clusters.json")));
        ClusterProfileDialog dialog(&store, QStringLiteral("alpha"));
        auto *patterns = qobject_cast<QPlainTextEdit *>(dialog.field(QStringLiteral("log_patterns")));
        QVERIFY(patterns);
        QTest::keyClicks(patterns, QStringLiteral("iter (?<step>\\d+) cost (?<loss"));
        QCOMPARE(dialog.errorFields(), QStringList{QStringLiteral("log_patterns")});
        QVERIFY2(dialog.errorText().contains(QStringLiteral("pattern \"iter (?<step>\\d+) cost (?<loss\"")),
                 qPrintable(dialog.errorText()));
        QVERIFY(!saveButton(dialog)->isEnabled());
        QTest::keyClicks(patterns, QStringLiteral(">\\S+)"));
        QTest::keyClick(patterns, Qt::Key_Return);
        QTest::keyClicks(patterns, QStringLiteral("round (?<epoch>\\d+): (?<loss>\\S+)"));
        QVERIFY2(dialog.errorFields().isEmpty(), qPrintable(dialog.errorText()));
        QVERIFY(dialog.save());
        ProfileStore reread(store.path());
        QString error;
        QVERIFY(reread.load(&error));
        QCOMPARE(reread.profile(QStringLiteral("alpha")).logPatterns,
                 (QStringList{QStringLiteral("iter (?<step>\\d+) cost (?<loss>\\S+)"),
                              QStringLiteral("round (?<epoch>\\d+): (?<loss>\\S+)")}));
    }

    // The scheduler's minimum interval is a field; what the form has no field for (the notice settings, what
    // the check found) is saved as it was, not reset to defaults.
    void minimumPollIsAFieldAndTheRestIsKept()
    {
        QTemporaryDir dir;
        ProfileStore store(dir.filePath(QStringLiteral("clusters.json")));
        ClusterProfile alpha = defaultProfile(QStringLiteral("alpha"));
        alpha.notifyCommand = QStringLiteral("notify-send torchdeck");
        alpha.waitNoticeSeconds = 120;
        alpha.inJobRequeue = InJobRequeue::Allowed;
        store.put(alpha);
        ClusterProfileDialog dialog(&store, QStringLiteral("alpha"));
        auto *minPoll = qobject_cast<QSpinBox *>(dialog.field(QStringLiteral("min_poll_seconds")));
        QVERIFY(minPoll);
        QCOMPARE(minPoll->value(), 10);
        QCOMPARE(minPoll->minimum(), 1);
        minPoll->setValue(30);
        QVERIFY(dialog.save());
        ProfileStore reread(store.path());
        QString error;
        QVERIFY(reread.load(&error));
        const ClusterProfile saved = reread.profile(QStringLiteral("alpha"));
        QCOMPARE(saved.minPollSeconds, 30);
        QCOMPARE(saved.notifyCommand, alpha.notifyCommand);
        QCOMPARE(saved.waitNoticeSeconds, 120);
        QCOMPARE(saved.inJobRequeue, InJobRequeue::Allowed);
    }

    // "Reaches (ssh)": one CLUSTER=SSH ARGUMENTS a line, a line without both marked as typed; saved as lines, shown
    // again when the profile is opened anew.
    void reachesAreLinesCheckedAsTyped()
    {
        QTemporaryDir dir;
        ProfileStore store(dir.filePath(QStringLiteral("clusters.json")));
        ClusterProfileDialog dialog(&store, QStringLiteral("beta"));
        auto *reach = qobject_cast<QPlainTextEdit *>(dialog.field(QStringLiteral("reach")));
        QVERIFY(reach);
        QTest::keyClicks(reach, QStringLiteral("alpha -p 22 me@login.alpha.org"));
        QCOMPARE(dialog.errorFields(), QStringList{QStringLiteral("reach")});
        QVERIFY2(dialog.errorText().contains(QStringLiteral("got \"alpha -p 22 me@login.alpha.org\"")),
                 qPrintable(dialog.errorText()));
        QVERIFY(!saveButton(dialog)->isEnabled());
        reach->selectAll();
        QTest::keyClicks(reach, QStringLiteral("alpha=-p 22 me@login.alpha.org"));
        QTest::keyClick(reach, Qt::Key_Return);
        QTest::keyClick(reach, Qt::Key_Return); // a blank line is no reach
        QTest::keyClicks(reach, QStringLiteral("gamma="));
        QCOMPARE(dialog.errorFields(), QStringList{QStringLiteral("reach")}); // no ssh arguments
        QTest::keyClicks(reach, QStringLiteral("-J jump gamma"));
        QVERIFY2(dialog.errorFields().isEmpty(), qPrintable(dialog.errorText()));
        QVERIFY(dialog.save());

        ProfileStore reread(store.path());
        QString error;
        QVERIFY(reread.load(&error));
        const QStringList expected{QStringLiteral("alpha=-p 22 me@login.alpha.org"),
                                   QStringLiteral("gamma=-J jump gamma")};
        QCOMPARE(reread.profile(QStringLiteral("beta")).reach, expected);
        QCOMPARE(reread.profile(QStringLiteral("beta")).reachArgs(QStringLiteral("gamma")),
                 QStringLiteral("-J jump gamma"));
        ClusterProfileDialog again(&reread, QStringLiteral("beta"));
        QCOMPARE(qobject_cast<QPlainTextEdit *>(again.field(QStringLiteral("reach")))->toPlainText(),
                 expected.join(u'\n'));
    }

    void existingNameIsRefusedForANewProfile()
    {
        QTemporaryDir dir;
        ProfileStore store(dir.filePath(QStringLiteral("clusters.json")));
        store.put(defaultProfile(QStringLiteral("taken")));
        ClusterProfileDialog dialog(&store, {});
        type(dialog.field(QStringLiteral("name")), QStringLiteral("taken"));
        QCOMPARE(dialog.errorFields(), QStringList{QStringLiteral("name")});
        type(dialog.field(QStringLiteral("name")), QStringLiteral("bad name"));
        QCOMPARE(dialog.errorFields(), QStringList{QStringLiteral("name")});
        QVERIFY(dialog.errorText().contains(QStringLiteral("not a host alias")));
    }

    void aNameOutsideTheSshConfigIsNoted()
    {
        QTemporaryDir dir;
        ProfileStore store(dir.filePath(QStringLiteral("clusters.json")));
        ClusterProfileDialog dialog(&store, {});
        dialog.setSshAliases({QStringLiteral("alpha"), QStringLiteral("beta")});
        type(dialog.field(QStringLiteral("name")), QStringLiteral("alpha"));
        QCOMPARE(dialog.noteText(), QString());
        type(dialog.field(QStringLiteral("name")), QStringLiteral("gamma.example.org"));
        QVERIFY(dialog.noteText().startsWith(QStringLiteral("gamma.example.org is not a Host of your ssh config")));
        QVERIFY(dialog.errorFields().isEmpty()); // a note, not an error: it can be saved
    }
};

TORCHDECK_TEST_MAIN(TestClusterProfileDialog)
#include "tst_clusterprofiledialog.moc"
