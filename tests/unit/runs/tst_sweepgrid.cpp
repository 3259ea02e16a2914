#include "core/runs/sweepgrid.h"
#include "core/runs/sweepsubmission.h"
#include "testmain.h"

#include <QTest>

using namespace torchdeck;
using namespace Qt::StringLiterals;

class TestSweepGrid : public QObject {
    Q_OBJECT
private slots:
    void parsesAnAxis_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("name"); // empty: refused
        QTest::addColumn<QStringList>("values");
        QTest::addColumn<QString>("error"); // a part of the refusal
        QTest::addRow("job option") << u"tasks-per-node=1,2"_s << u"tasks-per-node"_s << QStringList{u"1"_s, u"2"_s}
                                    << u""_s;
        QTest::addRow("trainer option") << u"lr=0.1,0.01"_s << u"lr"_s << QStringList{u"0.1"_s, u"0.01"_s} << u""_s;
        QTest::addRow("variable") << u"env:WIDTH=64"_s << u"env:WIDTH"_s << QStringList{u"64"_s} << u""_s;
        QTest::addRow("no equals") << u"lr"_s << u""_s << QStringList{} << u"NAME=V1,V2"_s;
        QTest::addRow("dashes") << u"--lr=1"_s << u""_s << QStringList{} << u"no option name"_s;
        QTest::addRow("shell in the name") << u"lr;rm=1"_s << u""_s << QStringList{} << u"no option name"_s;
        QTest::addRow("bad variable") << u"env:1X=1"_s << u""_s << QStringList{} << u"no option name"_s;
        QTest::addRow("empty value") << u"lr=0.1,,0.2"_s << u""_s << QStringList{} << u"an empty value"_s;
        QTest::addRow("repeated value") << u"lr=0.1,0.1"_s << u""_s << QStringList{} << u"0.1 is given twice"_s;
    }
    void parsesAnAxis()
    {
        QFETCH(QString, text);
        QFETCH(QString, name);
        QFETCH(QStringList, values);
        QFETCH(QString, error);
        QString problem;
        const std::optional<SweepAxis> axis = parseSweepAxis(text, &problem);
        if (name.isEmpty()) {
            QVERIFY(!axis);
            QVERIFY2(problem.contains(error), qPrintable(problem));
            return;
        }
        QVERIFY2(axis, qPrintable(problem));
        QCOMPARE(axis->name, name);
        QCOMPARE(axis->values, values);
    }

    void gridIsTheProductFirstAxisSlowest()
    {
        QString error;
        const auto points =
            sweepGrid({{u"nodes"_s, {u"1"_s, u"2"_s}}, {u"tasks-per-node"_s, {u"1"_s, u"2"_s, u"4"_s}}}, 100, &error);
        QVERIFY2(points, qPrintable(error));
        QStringList labels;
        for (const SweepPoint &point : *points)
            labels.append(point.label());
        QCOMPARE(labels, QStringList({u"nodes=1 tasks-per-node=1"_s, u"nodes=1 tasks-per-node=2"_s,
                                      u"nodes=1 tasks-per-node=4"_s, u"nodes=2 tasks-per-node=1"_s,
                                      u"nodes=2 tasks-per-node=2"_s, u"nodes=2 tasks-per-node=4"_s}));
    }

    void gridRefusesARepeatedNameAndTooManyPoints()
    {
        QString error;
        QVERIFY(!sweepGrid({{u"lr"_s, {u"1"_s}}, {u"lr"_s, {u"2"_s}}}, 100, &error));
        QVERIFY2(error.contains(u"lr is varied twice"_s), qPrintable(error));
        QVERIFY(!sweepGrid({{u"a"_s, {u"1"_s, u"2"_s, u"3"_s}}, {u"b"_s, {u"1"_s, u"2"_s, u"3"_s}}}, 8, &error));
        QVERIFY2(error.contains(u"more than 8 points"_s), qPrintable(error));
        QVERIFY(sweepGrid({{u"a"_s, {u"1"_s, u"2"_s, u"3"_s}}, {u"b"_s, {u"1"_s, u"2"_s, u"3"_s}}}, 9, &error));
    }

    void shapeSettings()
    {
        QVERIFY(isShapeSetting(u"nodes"_s));
        QVERIFY(isShapeSetting(u"tasks-per-node"_s));
        QVERIFY(!isShapeSetting(u"lr"_s));
        QVERIFY(!isShapeSetting(u"env:NODES"_s));
    }

    // The window's grid editor: a job setting, a trainer option or env:NAME; a typo is refused, not passed to
    // every job (the terminal refuses it as an unknown option).
    void specWithValueKnowsTheSettings()
    {
        JobSpec trainer;
        trainer.commandKind = CommandKind::Trainer;
        QString error;
        const std::optional<JobSpec> nodes = specWithValue(trainer, u"nodes"_s, u"2"_s, &error);
        QVERIFY2(nodes && nodes->nodes == 2, qPrintable(error));
        const std::optional<JobSpec> lr = specWithValue(trainer, u"lr"_s, u"0.01"_s, &error);
        QVERIFY2(lr && lr->trainerArgs == QStringList({u"--lr"_s, u"0.01"_s}), qPrintable(lr->trainerArgs.join(u' ')));
        const std::optional<JobSpec> variable = specWithValue(trainer, u"env:SEED"_s, u"3"_s, &error);
        QVERIFY(variable && variable->environment.size() == 1);
        QVERIFY(!specWithValue(trainer, u"node"_s, u"2"_s, &error));
        QVERIFY2(error.contains(u"node is neither a job setting"_s), qPrintable(error));
        QVERIFY(!specWithValue(trainer, u"nodes"_s, u"two"_s, &error));
        JobSpec command = trainer;
        command.commandKind = CommandKind::Custom;
        QVERIFY(!specWithValue(command, u"lr"_s, u"0.1"_s, &error));
        QVERIFY2(error.contains(u"varied as env:NAME"_s), qPrintable(error));
    }
};

TORCHDECK_TEST_MAIN(TestSweepGrid)
#include "tst_sweepgrid.moc"
