#include "core/profiles/profilevalidation.h"
#include "testmain.h"

#include <QTest>

using namespace torchdeck;

// The checks the profile dialog shows inline: each bad value names its field.
class TestProfileValidation : public QObject {
    Q_OBJECT
private slots:
    void defaultsAreValid()
    {
        QVERIFY(validateClusterProfile(defaultProfile(QStringLiteral("hpc.example-1"))).isEmpty());
        QVERIFY(validateClusterProfile(defaultProfile(QStringLiteral("torchdeck-sandbox"))).isEmpty());
    }

    void badValues_data()
    {
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("field");
        QTest::addRow("empty name") << "name"
                                    << ""
                                    << "name";
        QTest::addRow("name with a space") << "name"
                                           << "my cluster"
                                           << "name";
        QTest::addRow("name pattern") << "name"
                                      << "node*"
                                      << "name";
        QTest::addRow("empty work directory") << "work_directory"
                                              << "  "
                                              << "work_directory";
        QTest::addRow("work directory with a space") << "work_directory"
                                                     << "~/my runs"
                                                     << "work_directory";
        QTest::addRow("relative libtorch") << "libtorch"
                                           << "opt/libtorch"
                                           << "libtorch";
        QTest::addRow("relative trainer") << "trainer_binary"
                                          << "bin/torchdeck-train"
                                          << "trainer_binary";
        QTest::addRow("build job without a scheduler") << "build_on"
                                                       << "local"
                                                       << "build_on";
        QTest::addRow("no build cpus") << "build_cpus"
                                       << "0"
                                       << "build_cpus";
        QTest::addRow("empty module") << "modules"
                                      << ""
                                      << "modules";
        // A pattern of context groups only ("epoch (?<epoch>\\d+)") is a context pattern, accepted.
        QTest::addRow("log pattern that captures nothing") << "log_patterns"
                                                           << "epoch \\d+"
                                                           << "log_patterns";
        QTest::addRow("log pattern that does not compile") << "log_patterns"
                                                           << "loss=(?<loss>"
                                                           << "log_patterns";
        QTest::addRow("reach without a cluster") << "reach"
                                                 << "=-p 22 me@login"
                                                 << "reach";
        QTest::addRow("reach without arguments") << "reach"
                                                 << "other= "
                                                 << "reach";
    }

    void badValues()
    {
        QFETCH(QString, key);
        QFETCH(QString, value);
        QFETCH(QString, field);
        ClusterProfile profile = defaultProfile(QStringLiteral("alpha"));
        if (key == u"name")
            profile.name = value;
        else if (key == u"work_directory")
            profile.workDirectory = value;
        else if (key == u"libtorch")
            profile.libtorch = value;
        else if (key == u"trainer_binary")
            profile.trainerBinary = value;
        else if (key == u"build_on") {
            profile.buildInJob = true;
            profile.scheduler = SchedulerKind::Local;
        } else if (key == u"build_cpus")
            profile.buildCpus = value.toInt();
        else if (key == u"modules")
            profile.modules = QStringList{QStringLiteral("gcc"), value};
        else if (key == u"log_patterns")
            profile.logPatterns = QStringList{QStringLiteral("it (?<step>\\d+) (?<loss>\\S+)"), value};
        else if (key == u"reach")
            profile.reach = QStringList{QStringLiteral("a=-p 2222 me@a"), value};
        const QList<ProfileError> errors = validateClusterProfile(profile);
        QCOMPARE(errors.size(), 1);
        QCOMPARE(errors.constFirst().field, field);
        QVERIFY(!errors.constFirst().message.isEmpty());
    }

    void contextPatternAccepted()
    {
        ClusterProfile profile = defaultProfile(QStringLiteral("alpha"));
        profile.logPatterns = {QStringLiteral("^== epoch (?<epoch>\\d+) done in (?<seconds>[0-9.]+) s")};
        QVERIFY(validateClusterProfile(profile).isEmpty());
    }

    void homePathsAreAbsolute()
    {
        ClusterProfile profile = defaultProfile(QStringLiteral("alpha"));
        profile.libtorch = QStringLiteral("~/libtorch");
        profile.trainerBinary = QStringLiteral("/scratch/me/torchdeck-train");
        profile.buildInJob = true; // Slurm: fine
        QVERIFY(validateClusterProfile(profile).isEmpty());
        for (const QString &dir : {QStringLiteral("~"), QStringLiteral("~/td-runs"), QStringLiteral("$HOME/td"),
                                   QStringLiteral("/scratch/me/runs")}) {
            profile.workDirectory = dir; // the cluster resolves the home
            QVERIFY2(validateClusterProfile(profile).isEmpty(), qPrintable(dir));
        }
        profile.scheduler = SchedulerKind::Pbs; // its logs are redirected in the script, quoted
        profile.workDirectory = QStringLiteral("~/my runs");
        QVERIFY(validateClusterProfile(profile).isEmpty());
    }
};

TORCHDECK_TEST_MAIN(TestProfileValidation)
#include "tst_profilevalidation.moc"
