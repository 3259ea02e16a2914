#include "term/render/plainupdate.h"
#include "testmain.h"

#include <QTest>

using namespace torchdeck;
using namespace torchdeck::term;

namespace {

WatchRunRow row(const QString &id)
{
    WatchRunRow r;
    r.id = id;
    r.name = QStringLiteral("ae");
    r.state = QStringLiteral("RUNNING");
    r.epochsDone = 2;
    r.epochsTotal = 4;
    r.lastLoss = 0.0213;
    r.etaSeconds = 35;
    r.jobIds = {QStringLiteral("101")};
    return r;
}

} // namespace

class TestPlainUpdate : public QObject {
    Q_OBJECT
private slots:
    void runLine();
    void firstUpdatePrintsEveryRun();
    void onlyInterestingChangesPrint();
    void messagesPrintOnce();
    void noEscapesEver();
    void chartOverlaysChangeNothing();
};

void TestPlainUpdate::runLine()
{
    QCOMPARE(plainRunLine(row(QStringLiteral("1a2b3c4d"))),
             QStringLiteral("run 1a2b3c4d RUNNING epoch 2/4 loss 0.0213 eta 35s job 101"));
    WatchRunRow pending;
    pending.id = QStringLiteral("5e6f");
    pending.state = QStringLiteral("PENDING");
    QCOMPARE(plainRunLine(pending), QStringLiteral("run 5e6f PENDING epoch 0/?"));
}

void TestPlainUpdate::firstUpdatePrintsEveryRun()
{
    WatchSnapshot now;
    now.runs = {row(QStringLiteral("a")), row(QStringLiteral("b"))};
    const QStringList lines = renderPlainUpdate(WatchSnapshot(), now);
    QCOMPARE(lines.size(), 2);
    QVERIFY(lines[0].startsWith(u"run a "));
    QVERIFY(lines[1].startsWith(u"run b "));
    QVERIFY(renderPlainUpdate(now, now).isEmpty());
}

void TestPlainUpdate::onlyInterestingChangesPrint()
{
    WatchSnapshot before;
    before.runs = {row(QStringLiteral("a")), row(QStringLiteral("b"))};
    WatchSnapshot now = before;
    now.runs[0].lastLoss = 0.0201; // every step: not worth a line
    now.runs[1].etaSeconds = 30;
    QVERIFY(renderPlainUpdate(before, now).isEmpty());
    now.runs[1].epochsDone = 3;
    QCOMPARE(renderPlainUpdate(before, now),
             QStringList{QStringLiteral("run b RUNNING epoch 3/4 loss 0.0213 eta 30s job 101")});
    now = before;
    now.runs[0].state = QStringLiteral("COMPLETED");
    now.runs[1].jobIds.append(QStringLiteral("102")); // resumed
    const QStringList lines = renderPlainUpdate(before, now);
    QCOMPARE(lines.size(), 2);
    QVERIFY(lines[0].contains(u"COMPLETED"));
    QVERIFY(lines[1].endsWith(u"job 102"));
}

void TestPlainUpdate::messagesPrintOnce()
{
    WatchSnapshot before;
    WatchSnapshot now;
    now.message = QStringLiteral("lost the connection to sandbox");
    now.messageIsError = true;
    QCOMPARE(renderPlainUpdate(before, now), QStringList{QStringLiteral("error: lost the connection to sandbox")});
    QVERIFY(renderPlainUpdate(now, now).isEmpty());
}

void TestPlainUpdate::noEscapesEver()
{
    WatchSnapshot now;
    now.runs = {row(QStringLiteral("a\x1b[2Jb"))};
    now.runs[0].state = QStringLiteral("RUN\x1b[31mNING");
    now.message = QStringLiteral("\x1b]0;x\x07hi");
    for (const QString &line : renderPlainUpdate(WatchSnapshot(), now))
        QVERIFY2(!line.contains(u'\x1b'), qPrintable(line));
}

void TestPlainUpdate::chartOverlaysChangeNothing()
{
    WatchSnapshot before;
    before.runs = {row(QStringLiteral("a"))};
    WatchSnapshot now = before;
    now.runs[0].epochsDone = 3;
    WatchSnapshot overlaid = now;
    overlaid.smoothing = 0.9;
    overlaid.attemptsByStep = {{100, QStringLiteral("job 101: wall time")}};
    overlaid.attemptsByEpoch = {{1, QStringLiteral("job 101: wall time")}};
    QCOMPARE(renderPlainUpdate(before, overlaid), renderPlainUpdate(before, now));
    QCOMPARE(renderPlainUpdate(WatchSnapshot(), overlaid), renderPlainUpdate(WatchSnapshot(), now));
}

TORCHDECK_TEST_MAIN(TestPlainUpdate)
#include "tst_plainupdate.moc"
