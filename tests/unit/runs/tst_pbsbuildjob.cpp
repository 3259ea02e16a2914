// The PBS build job (core/runs/pbsbuildjob.h): the job script core renders for it, and refused profile values.
// The submit-and-follow command runs for real in term.deployed, through the sandbox's qsub/qstat.
#include "core/profiles/clusterprofile.h"
#include "core/runs/pbsbuildjob.h"
#include "testmain.h"

#include <QTest>

using namespace torchdeck;

class TestPbsBuildJob : public QObject {
    Q_OBJECT
private slots:
    void rendersAJobThatReportsTheBuildsExitCode()
    {
        ClusterProfile profile = defaultProfile(QStringLiteral("hpc"));
        profile.scheduler = SchedulerKind::Pbs;
        profile.pbsDialect = PbsDialect::PbsPro;
        profile.partition = QStringLiteral("short");
        profile.account = QStringLiteral("proj-42");
        QString error;
        const QString script = pbsBuildJobScript(profile, QStringLiteral("/home/u/.torchdeck/trainer/abc"), 4, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        for (const char *expected : {"#PBS -N torchdeck-build", "#PBS -q short", "#PBS -A proj-42", "ncpus=4",
                                     "#PBS -l walltime=00:30:00", "/home/u/.torchdeck/trainer/abc/.torchdeck-build.log",
                                     "bash .torchdeck-build-body.sh; echo \"torchdeck-build-exit=$?\""})
            QVERIFY2(script.contains(QString::fromUtf8(expected)), expected);
        const QString command = pbsBuildAndWaitCommand(QStringLiteral("set -e\ncmake ..."), script);
        QVERIFY(command.startsWith(QStringLiteral("sh -c ")));
        QVERIFY(command.contains(QStringLiteral("qsub .torchdeck-build-job.sh")));
    }

    void refusesAQueueThatCannotGoIntoADirective()
    {
        ClusterProfile profile = defaultProfile(QStringLiteral("hpc"));
        profile.scheduler = SchedulerKind::Pbs;
        profile.partition = QStringLiteral("short\n#PBS -l mem=1T");
        QString error;
        QVERIFY(pbsBuildJobScript(profile, QStringLiteral("/w/trainer/abc"), 1, &error).isEmpty());
        QVERIFY2(error.contains(QStringLiteral("the build job cannot be written for hpc")), qPrintable(error));
    }
};

TORCHDECK_TEST_MAIN(TestPbsBuildJob)
#include "tst_pbsbuildjob.moc"
