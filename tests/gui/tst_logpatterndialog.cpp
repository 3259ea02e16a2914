// The log pattern editor: patterns tried live on a run's log, an invalid one named and not saved, the saved
// ones in the cluster's profile.
#include "core/profiles/profilestore.h"
#include "gui/logpatterndialog.h"
#include "testmain.h"

#include <QDialogButtonBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>

using namespace torchdeck;

class TestLogPatternDialog : public QObject {
    Q_OBJECT
private slots:
    void patternsAreTriedOnTheLogAsTyped()
    {
        QTemporaryDir dir;
        ProfileStore store(dir.filePath(QStringLiteral("clusters.json")));
        const QString log = QStringLiteral("loading data\n"
                                           "epoch: 1/2, loss = 0.500000\n" // a tutorial's line
                                           "iter 10 cost 0.91\n"
                                           "iter 20 cost 0.74\n"
                                           "done\n");
        LogPatternDialog dialog(&store, QStringLiteral("hpc-a"), {}, log);
        // The general reader reads the tutorial's line, and the iterations as where the log is (a step, no value).
        QCOMPARE(dialog.matches()->topLevelItemCount(), 3);
        QCOMPARE(dialog.matches()->topLevelItem(0)->text(0), QStringLiteral("2"));
        QCOMPARE(dialog.matches()->topLevelItem(0)->text(1), QStringLiteral("general reader"));
        QCOMPARE(dialog.matches()->topLevelItem(0)->text(2), QStringLiteral("epoch 1/2: loss 0.5"));
        QCOMPARE(dialog.matches()->topLevelItem(1)->text(2), QStringLiteral("context: step 10"));

        QTest::keyClicks(dialog.patternEdit(), QStringLiteral("iter (?<step>\\d+) cost (?<loss>[0-9.]+"));
        QVERIFY2(dialog.statusText().contains(QStringLiteral("missing closing parenthesis")),
                 qPrintable(dialog.statusText()));
        QCOMPARE(dialog.matches()->topLevelItemCount(), 0);
        auto *save = dialog.findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Save);
        QVERIFY(!save->isEnabled());

        QTest::keyClicks(dialog.patternEdit(), QStringLiteral(")"));
        QCOMPARE(dialog.matches()->topLevelItemCount(), 3);
        QVERIFY(dialog.matches()->topLevelItem(1)->text(1).startsWith(QStringLiteral("pattern \"iter")));
        QCOMPARE(dialog.matches()->topLevelItem(1)->text(2), QStringLiteral("step 10 (epoch 1/2): loss 0.91"));
        QCOMPARE(dialog.matches()->topLevelItem(2)->text(0), QStringLiteral("4"));
        QVERIFY2(dialog.statusText().startsWith(
                     QStringLiteral("3 of the log's last 5 lines read: 1 epoch(s), 2 step(s), 0 context line(s)")),
                 qPrintable(dialog.statusText()));

        QSignalSpy saved(&dialog, &LogPatternDialog::saved);
        QVERIFY(save->isEnabled());
        QTest::mouseClick(save, Qt::LeftButton);
        QCOMPARE(saved.size(), 1);
        ProfileStore reread(store.path());
        QString error;
        QVERIFY(reread.load(&error));
        QCOMPARE(reread.profile(QStringLiteral("hpc-a")).logPatterns,
                 QStringList{QStringLiteral("iter (?<step>\\d+) cost (?<loss>[0-9.]+)")});
    }
};

TORCHDECK_TEST_MAIN(TestLogPatternDialog)
#include "tst_logpatterndialog.moc"
