// A cluster's partitions from `sinfo` (core/profiles/partitionshape.h), kept in its profile, and the job
// validation that refuses what they cannot run. The command runs for real in sandbox.check.
#include "core/jobs/jobspecvalidation.h"
#include "core/profiles/clusterprofile.h"
#include "core/profiles/partitionshape.h"
#include "testmain.h"

#include <QTest>

using namespace torchdeck;

class TestPartitionShape : public QObject {
    Q_OBJECT
private slots:
    void sinfoOutput()
    {
        // The sandbox's two partitions, a GPU partition of two node kinds (one line each), damaged lines.
        const QByteArray out = "debug*|infinite|2|4|2000|(null)\n"
                               "short|30:00|2|4|2000|(null)\n"
                               "gpu|2-00:00:00|4|64|512000+|gpu:a100:4(S:0-1)\n"
                               "gpu|2-00:00:00|2|128|1024000|gpu:h100:8(S:0-1),mps:400\n"
                               "torn|line\n"
                               "bad|soon|1|4|2000|(null)\n";
        QString defaultPartition;
        const QList<PartitionCaps> partitions = parseSinfoPartitions(out, &defaultPartition);
        QCOMPARE(partitions.size(), 3);
        QCOMPARE(defaultPartition, QStringLiteral("debug"));
        const PartitionCaps &debug = partitions.at(0);
        QVERIFY(debug.isDefault);
        QCOMPARE(debug.maxSeconds, 0); // no limit
        QCOMPARE(debug.nodes, 2);
        QCOMPARE(debug.cpusPerNode, 4);
        QCOMPARE(debug.memoryMiB, 2000);
        QCOMPARE(debug.gpusPerNode, 0);
        QCOMPARE(partitions.at(1).maxSeconds, 1800);
        const PartitionCaps &gpu = partitions.at(2);
        QCOMPARE(gpu.maxSeconds, 2 * 86400);
        QCOMPARE(gpu.nodes, 6);
        QCOMPARE(gpu.cpusPerNode, 128);
        QCOMPARE(gpu.gpusPerNode, 8);
        QCOMPARE(gpu.gpuTypes, (QStringList{QStringLiteral("a100"), QStringLiteral("h100")}));
        QCOMPARE(describePartitions(partitions),
                 QStringLiteral("debug (default): no time limit, 2 nodes, 4 CPUs, 2.0 GiB; short: 30 min, 2 nodes, 4 "
                                "CPUs, 2.0 GiB; gpu: 2 days, 6 nodes, 128 CPUs, 1000.0 GiB, 8 GPUs (a100/h100)"));
        QCOMPARE(describeTimeLimit(90 * 60), QStringLiteral("1 h 30 min"));

        ClusterProfile profile = defaultProfile(QStringLiteral("c"));
        profile.partitions = partitions;
        profile.partitionsReadAt = QDateTime(QDate(2026, 11, 28), QTime(15, 40), Qt::UTC);
        QString error;
        const ClusterProfile back = ClusterProfile::fromJson(QStringLiteral("c"), profile.toJson(), &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QVERIFY(back == profile);
        QCOMPARE(back.caps().defaultPartition, QStringLiteral("debug"));
    }

    void jobsBeyondAPartitionsLimits()
    {
        ClusterProfile profile = defaultProfile(QStringLiteral("c"));
        QString ignored;
        profile.partitions =
            parseSinfoPartitions("debug*|infinite|2|4|2000|(null)\nshort|30:00|2|4|2000|(null)\n", &ignored);
        profile.partitionsReadAt = QDateTime::currentDateTime();
        const ClusterCaps caps = profile.caps();
        JobSpec spec;
        spec.name = QStringLiteral("j");
        spec.partition = QStringLiteral("short");
        spec.wallTimeSeconds = 3600;
        QList<JobSpecError> errors = validateJobSpec(spec, caps);
        QCOMPARE(errors.size(), 1);
        QCOMPARE(errors.at(0).field, QStringLiteral("wallTimeSeconds"));
        QVERIFY2(errors.at(0).message.startsWith(
                     QStringLiteral("Partition 'short' allows at most 00:30:00 of wall time (sinfo, read ")),
                 qPrintable(errors.at(0).message));
        spec.wallTimeSeconds = 1800;
        QVERIFY(validateJobSpec(spec, caps).isEmpty());
        spec.partition.clear(); // the default, debug: no limit; but 2 nodes only
        spec.wallTimeSeconds = 86400;
        spec.nodes = 3;
        errors = validateJobSpec(spec, caps);
        QCOMPARE(errors.size(), 1);
        QCOMPARE(errors.at(0).field, QStringLiteral("nodes"));
        spec.partition = QStringLiteral("elsewhere"); // not known: not checked
        QVERIFY(validateJobSpec(spec, caps).isEmpty());
    }
};

TORCHDECK_TEST_MAIN(TestPartitionShape)
#include "tst_partitionshape.moc"
