// What Slurm's accounting allows the user (sacctmgr) and PBS's queues (qstat -Q -f), read with the partitions,
// kept in the profile, and the validation that refuses what they would refuse. The outputs are in
// tests/data/scheduler (the sandbox has no slurmdbd; its qstat wrapper's queues are captured).
#include "core/jobs/jobspecvalidation.h"
#include "core/profiles/accountlimits.h"
#include "core/profiles/clusterprofile.h"
#include "core/profiles/partitionshape.h"
#include "testmain.h"

#include <QFile>
#include <QTest>

using namespace torchdeck;

namespace {
QByteArray data(const char *name)
{
    QFile file(QStringLiteral(TORCHDECK_TEST_DATA "/scheduler/") + QString::fromUtf8(name));
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

ClusterProfile accountingProfile()
{
    ClusterProfile profile = defaultProfile(QStringLiteral("c"));
    QString ignored;
    profile.partitions = parseSinfoPartitions("cpu*|infinite|8|64|256000|(null)\n"
                                              "gpu|2-00:00:00|4|64|512000|gpu:a100:4(S:0-1)\n",
                                              &ignored);
    profile.accounts = parseSacctmgrAssociations(data("slurm-sacctmgr-assoc.txt"));
    profile.qos = parseSacctmgrQos(data("slurm-sacctmgr-qos.txt"));
    profile.partitionsReadAt = QDateTime(QDate(2026, 11, 28), QTime(15, 40), Qt::UTC);
    return profile;
}

JobSpec job(const char *account, const char *partition, qint64 wall)
{
    JobSpec spec;
    spec.name = QStringLiteral("j");
    spec.account = QString::fromUtf8(account);
    spec.partition = QString::fromUtf8(partition);
    spec.wallTimeSeconds = wall;
    return spec;
}

QString only(const QList<JobSpecError> &errors, const QString &field)
{
    if (errors.size() != 1 || errors.first().field != field)
        return QStringLiteral("expected one error on %1, got: %2").arg(field, formatJobSpecErrors(errors));
    return errors.first().message;
}
} // namespace

class TestAccountLimits : public QObject {
    Q_OBJECT
private slots:
    void sacctmgrOutput()
    {
        const QList<AccountAccess> accounts = parseSacctmgrAssociations(data("slurm-sacctmgr-assoc.txt"));
        QCOMPARE(accounts.size(), 3); // the torn line is passed over
        QCOMPARE(accounts.at(0).account, QStringLiteral("def-lab"));
        QVERIFY(accounts.at(0).partition.isEmpty());
        QCOMPARE(accounts.at(0).defaultQos, QStringLiteral("normal"));
        QCOMPARE(accounts.at(0).limits.maxWallSeconds, -1);
        const AccountAccess &gpu = accounts.at(1);
        QCOMPARE(gpu.partition, QStringLiteral("gpu"));
        QCOMPARE(gpu.qos, (QStringList{QStringLiteral("gpu-normal"), QStringLiteral("gpu-long")}));
        QCOMPARE(gpu.limits.maxWallSeconds, 2 * 86400);
        QCOMPARE(gpu.limits.maxGpus, 8);
        QCOMPARE(gpu.limits.maxNodes, 2);
        QCOMPARE(accounts.at(2).limits.maxWallSeconds, 0); // UNLIMITED

        const QList<QosLimits> qos = parseSacctmgrQos(data("slurm-sacctmgr-qos.txt"));
        QCOMPARE(qos.size(), 4);
        QCOMPARE(qos.at(0).limits.maxWallSeconds, 86400);
        QCOMPARE(qos.at(1).limits.maxNodes, 8);
        QCOMPARE(qos.at(2).limits.maxGpus, 4);
        QCOMPARE(qos.at(3).limits.maxGpus, 8); // typed: gres/gpu:a100
        QCOMPARE(
            describeAccounts(accounts),
            QStringLiteral("def-lab; def-lab on gpu (QOS gpu-normal, gpu-long); rrg-big on cpu (QOS normal, long)"));

        // Kept in the profile and read back.
        const ClusterProfile profile = accountingProfile();
        QString error;
        const ClusterProfile back = ClusterProfile::fromJson(QStringLiteral("c"), profile.toJson(), &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QVERIFY(back == profile);
        QVERIFY(back.caps().accountsSource.startsWith(QStringLiteral("sacctmgr, read 2026-11-28")));
    }

    void refusesWhatAccountingWould()
    {
        const ClusterCaps caps = accountingProfile().caps();
        QVERIFY(validateJobSpec(job("def-lab", "cpu", 3600), caps).isEmpty());
        QString message = only(validateJobSpec(job("someone-else", "cpu", 3600), caps), QStringLiteral("account"));
        QVERIFY2(message.startsWith(QStringLiteral("You have no association with account 'someone-else' (sacctmgr, "
                                                   "read ")) &&
                     message.endsWith(QStringLiteral(": yours are def-lab, rrg-big.")),
                 qPrintable(message));
        // def-lab's default QOS on cpu is normal: one day.
        message = only(validateJobSpec(job("def-lab", "cpu", 2 * 86400), caps), QStringLiteral("wallTimeSeconds"));
        QVERIFY2(message.startsWith(QStringLiteral("QOS 'normal' allows at most 24:00:00 of wall time per job")),
                 qPrintable(message));
        // On gpu its own line: gpu-normal's 12 hours, and the association's 8 GPUs and 2 nodes.
        message = only(validateJobSpec(job("def-lab", "gpu", 86400), caps), QStringLiteral("wallTimeSeconds"));
        QVERIFY2(message.startsWith(QStringLiteral("QOS 'gpu-normal' allows at most 12:00:00")), qPrintable(message));
        JobSpec big = job("def-lab", "gpu", 3600);
        big.nodes = 3;
        big.gpusPerNode = 4;
        const QList<JobSpecError> errors = validateJobSpec(big, caps);
        QCOMPARE(errors.size(), 3); // 3 nodes, 12 GPUs for the association, 12 for the QOS
        QVERIFY2(errors.at(0).message.startsWith(QStringLiteral("Account 'def-lab' allows at most 2 nodes per job")),
                 qPrintable(formatJobSpecErrors(errors)));
        // rrg-big has no line for gpu: Slurm's own words for it are named.
        message = only(validateJobSpec(job("rrg-big", "gpu", 3600), caps), QStringLiteral("account"));
        QVERIFY2(message.contains(QStringLiteral("Invalid account or account/partition combination")),
                 qPrintable(message));
        // Two accounts and none named: the default account is not known, nothing is checked.
        QVERIFY(validateJobSpec(job("", "cpu", 30 * 86400), caps).isEmpty());
    }

    void pbsQueues()
    {
        const QList<PartitionCaps> queues = parseQstatQueues(data("pbspro-qstat-Q-f.txt"));
        QCOMPARE(queues.size(), 2); // the routing queue and the disabled one are left out
        QCOMPARE(queues.at(0).name, QStringLiteral("workq"));
        QCOMPARE(queues.at(0).maxSeconds, 86400);
        QCOMPARE(queues.at(0).nodes, 16);
        QCOMPARE(queues.at(0).gpusPerNode, -1);
        QCOMPARE(queues.at(1).maxSeconds, 2 * 86400);
        QCOMPARE(queues.at(1).nodes, 4);
        QCOMPARE(queues.at(1).gpusPerNode, 4);
        // Slurm's wrapper: tab-indented, "yes", no limits set.
        const QList<PartitionCaps> wrapper = parseQstatQueues(data("torque-wrapper-qstat-Q-f.txt"));
        QCOMPARE(wrapper.size(), 2);
        QCOMPARE(wrapper.at(1).name, QStringLiteral("short"));
        QCOMPARE(wrapper.at(1).maxSeconds, 0);

        ClusterProfile pbs = defaultProfile(QStringLiteral("p"));
        pbs.scheduler = SchedulerKind::Pbs;
        pbs.partitions = queues;
        pbs.partitionsReadAt = QDateTime::currentDateTime();
        JobSpec spec = job("", "workq", 2 * 86400);
        spec.launch = LaunchMethod::Mpirun;
        const QString message = only(validateJobSpec(spec, pbs.caps()), QStringLiteral("wallTimeSeconds"));
        QVERIFY2(message.contains(QStringLiteral("(qstat -Q -f, read ")), qPrintable(message));
    }
};

TORCHDECK_TEST_MAIN(TestAccountLimits)
#include "tst_accountlimits.moc"
