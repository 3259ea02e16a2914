// The srun a Slurm build step runs behind (core/runs/slurmbuildjob.h). The build runs for real in
// integration.deployment.
#include "core/profiles/clusterprofile.h"
#include "core/runs/slurmbuildjob.h"
#include "testmain.h"

#include <QTest>

using namespace torchdeck;

class TestSlurmBuildJob : public QObject {
    Q_OBJECT
private slots:
    void arguments_data()
    {
        QTest::addColumn<QString>("partition");
        QTest::addColumn<QString>("account");
        QTest::addColumn<int>("cpus");
        QTest::addColumn<QStringList>("launcher");
        const QStringList common{QStringLiteral("srun"), QStringLiteral("--nodes=1"), QStringLiteral("--ntasks=1")};
        const QStringList tail{QStringLiteral("--time=00:30:00"), QStringLiteral("--job-name=torchdeck-build")};
        QTest::addRow("the scheduler's defaults")
            << ""
            << "" << 4 << common + QStringList{QStringLiteral("--cpus-per-task=4")} + tail;
        QTest::addRow("partition and account")
            << "debug"
            << "proj-42" << 16
            << common + QStringList{QStringLiteral("--cpus-per-task=16")} + tail +
                   QStringList{QStringLiteral("--partition=debug"), QStringLiteral("--account=proj-42")};
        QTest::addRow("hostile values stay one argument each")
            << "a b;rm -rf ~"
            << "$(id)" << 1
            << common + QStringList{QStringLiteral("--cpus-per-task=1")} + tail +
                   QStringList{QStringLiteral("--partition=a b;rm -rf ~"), QStringLiteral("--account=$(id)")};
    }
    void arguments()
    {
        QFETCH(QString, partition);
        QFETCH(QString, account);
        QFETCH(int, cpus);
        QFETCH(QStringList, launcher);
        ClusterProfile profile = defaultProfile(QStringLiteral("hpc"));
        profile.partition = partition;
        profile.account = account;
        profile.buildCpus = cpus;
        QCOMPARE(slurmBuildLauncher(profile), launcher);
    }
};

TORCHDECK_TEST_MAIN(TestSlurmBuildJob)
#include "tst_slurmbuildjob.moc"
