#include "core/scheduler/localcommands.h"
#include "core/scheduler/qstatfullparser.h"
#include "core/scheduler/qstatjsonparser.h"
#include "core/scheduler/sacctparser.h"
#include "core/scheduler/scontrolparser.h"
#include "core/scheduler/squeueparser.h"
#include "core/scheduler/submitreply.h"
#include "fixture.h"
#include "testmain.h"

#include <QDir>
#include <QRandomGenerator>
#include <QTest>
#include <functional>

using namespace torchdeck;
using namespace torchdeck::testing;

// Every parser on every fixture, cut at every length and with bytes flipped: never a crash (run it under
// the asan preset), and every job it does report has an id.
class TestParserRobustness : public QObject {
    Q_OBJECT
private slots:
    void cutAndFlipped_data();
    void cutAndFlipped();
};

void TestParserRobustness::cutAndFlipped_data()
{
    QTest::addColumn<QByteArray>("output");
    const QDir dir(QStringLiteral(TORCHDECK_TEST_DATA "/scheduler"));
    const QStringList files = dir.entryList({QStringLiteral("*.txt")}, QDir::Files);
    QVERIFY(files.size() >= 20);
    for (const QString &file : files)
        QTest::addRow("%s", qPrintable(file)) << fixture(file);
}

void TestParserRobustness::cutAndFlipped()
{
    QFETCH(QByteArray, output);
    const QList<std::function<JobListResult(const QByteArray &)>> parsers = {
        parseSqueue,
        parseSacct,
        parseScontrolShowJob,
        [](const QByteArray &out) { return parseQstatFull(out, PbsDialect::PbsPro); },
        [](const QByteArray &out) { return parseQstatFull(out, PbsDialect::Torque); },
        [](const QByteArray &out) { return parseQstatJson(out); },
        local::parseLocalStatus,
    };
    QRandomGenerator random(42);
    const qsizetype step = qMax<qsizetype>(1, output.size() / 200);
    for (qsizetype length = 0; length <= output.size(); length += step) {
        QByteArray variant = output.left(length);
        if (length % 3 == 0 && !variant.isEmpty()) // flip a few bytes, control characters included
            for (int i = 0; i < 3; ++i)
                variant[random.bounded(int(variant.size()))] = char(random.bounded(256));
        for (const auto &parse : parsers) {
            const JobListResult result = parse(variant);
            for (const JobInfo &job : result.jobs)
                QVERIFY(!job.id.isEmpty());
        }
        parseSbatchReply(variant);
        parseQsubReply(variant);
        parseLocalReply(variant);
    }
}

TORCHDECK_TEST_MAIN(TestParserRobustness)
#include "tst_parserrobustness.moc"
