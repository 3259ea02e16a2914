#include "gui/clusterlistmodel.h"
#include "testmain.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTest>

using namespace torchdeck;

class TestClusterListModel : public QObject {
    Q_OBJECT
private slots:
    void sshHostsThenProfiles()
    {
        ClusterListModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setClusters({QStringLiteral("alpha"), QStringLiteral("beta")},
                          {QStringLiteral("beta"), QStringLiteral("gamma")});
        QCOMPARE(model.names(),
                 (QStringList{QStringLiteral("alpha"), QStringLiteral("beta"), QStringLiteral("gamma")}));
        QCOMPARE(model.sshAliases(), (QStringList{QStringLiteral("alpha"), QStringLiteral("beta")}));
        QVERIFY(!model.index(0).data(ClusterListModel::HasProfileRole).toBool());
        QVERIFY(model.index(1).data(ClusterListModel::HasProfileRole).toBool());
        QVERIFY(model.index(0).data().toString().contains(QStringLiteral("disconnected")));
    }

    void stateSurvivesReload()
    {
        ClusterListModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setClusters({QStringLiteral("alpha"), QStringLiteral("beta")}, {});
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        model.setState(QStringLiteral("beta"), ConnectionState::Connected, QString());
        QCOMPARE(changed.count(), 1);
        model.setState(QStringLiteral("nope"), ConnectionState::Failed, QString());
        QCOMPARE(changed.count(), 1);
        model.setClusters({QStringLiteral("beta"), QStringLiteral("delta")}, {});
        QCOMPARE(model.index(0).data(ClusterListModel::StateRole).toInt(), int(ConnectionState::Connected));
        QVERIFY(model.index(0).data().toString().contains(QStringLiteral("connected")));
        QCOMPARE(model.index(1).data(ClusterListModel::StateRole).toInt(), int(ConnectionState::Disconnected));
    }
};

TORCHDECK_TEST_MAIN(TestClusterListModel)
#include "tst_clusterlistmodel.moc"
