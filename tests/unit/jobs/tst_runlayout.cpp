#include "core/jobs/runlayout.h"
#include "testmain.h"

#include <QJsonDocument>
#include <QTest>

using namespace torchdeck;

namespace {
const QString runDir = QStringLiteral("/home/ada/.torchdeck/runs/r-7f3a");
const QString binary = QStringLiteral("/home/ada/.torchdeck/trainer/3f9a1c/bin/torchdeck-train");

QStringList words(const char *text)
{
    return QString::fromUtf8(text).split(u' ', Qt::SkipEmptyParts);
}

JobSpec trainerSpec()
{
    JobSpec spec;
    spec.name = QStringLiteral("train-ae");
    spec.nodes = 2;
    spec.tasksPerNode = 4;
    spec.trainerArgs = words("--model ae --epochs 10");
    return spec;
}

qsizetype occurrences(const QStringList &args, const QString &flag)
{
    qsizetype n = 0;
    for (const QString &word : args)
        n += word == flag || word.startsWith(flag + u'=') ? 1 : 0;
    return n;
}

QByteArray json(const JobSpec &spec)
{
    return QJsonDocument(spec.toJson()).toJson(QJsonDocument::Compact);
}
} // namespace

class TestRunLayout : public QObject {
    Q_OBJECT
private slots:
    void paths();
    void defaultsForTheBundledTrainer();
    void keepsWhatTheUserChose();
    void keepsTheUsersMetricsAndCheckpointDir_data();
    void keepsTheUsersMetricsAndCheckpointDir();
    void replacesResume_data();
    void replacesResume();
    void emptyResumeKeepsTheUsers();
    void customCommandGetsTheRunsVariables();
    void trainerOption_data();
    void trainerOption();
    void withTrainerOption_data();
    void withTrainerOption();
};

void TestRunLayout::paths()
{
    const RunLayout layout{runDir};
    QCOMPARE(layout.scriptName(1), QStringLiteral("job-1.sh"));
    QCOMPARE(layout.scriptName(12), QStringLiteral("job-12.sh"));
    QCOMPARE(layout.outputPattern(3), runDir + QStringLiteral("/attempt-3-%j.out"));
    QCOMPARE(layout.metricsPath(3), runDir + QStringLiteral("/metrics-3.jsonl"));
    QCOMPARE(layout.traceFile(3), runDir + QStringLiteral("/attempt-3.job")); // the job's own record
    // One checkpoint directory for every attempt, so --resume auto finds the newest.
    QCOMPARE(layout.checkpointDirectory(), runDir + QStringLiteral("/checkpoints"));
}

void TestRunLayout::defaultsForTheBundledTrainer()
{
    const RunLayout layout{runDir};
    const JobSpec spec = attemptSpec(trainerSpec(), layout, 2, binary, ResumeFrom::latest());

    JobSpec expected = trainerSpec();
    expected.workingDirectory = runDir;
    expected.outputPath = runDir + QStringLiteral("/attempt-2-%j.out");
    expected.traceFile = runDir + QStringLiteral("/attempt-2.job");
    expected.trainerPath = binary;
    expected.trainerArgs =
        QStringList{QStringLiteral("--model"),   QStringLiteral("ae"),       QStringLiteral("--epochs"),
                    QStringLiteral("10"),        QStringLiteral("--resume"), QStringLiteral("auto"),
                    QStringLiteral("--metrics"), layout.metricsPath(2),      QStringLiteral("--checkpoint-dir"),
                    layout.checkpointDirectory()};
    QCOMPARE(json(spec), json(expected));
    QVERIFY(spec == expected);
}

void TestRunLayout::keepsWhatTheUserChose()
{
    JobSpec mine = trainerSpec();
    mine.workingDirectory = QStringLiteral("/scratch/ada/work dir");
    mine.outputPath = QStringLiteral("logs/%x-%j.txt");
    mine.errorPath = QStringLiteral("logs/%x-%j.err");
    // No binary given: the trainer the spec names (on PATH, by default).
    const JobSpec spec = attemptSpec(mine, RunLayout{runDir}, 1, QString(), ResumeFrom());
    QCOMPARE(spec.workingDirectory, QStringLiteral("/scratch/ada/work dir"));
    QCOMPARE(spec.outputPath, QStringLiteral("logs/%x-%j.txt"));
    QCOMPARE(spec.errorPath, QStringLiteral("logs/%x-%j.err"));
    QCOMPARE(spec.trainerPath, QStringLiteral("torchdeck-train"));
    QCOMPARE(occurrences(spec.trainerArgs, QStringLiteral("--resume")), 0);

    mine.trainerPath = QStringLiteral("/opt/td/torchdeck-train");
    QCOMPARE(attemptSpec(mine, RunLayout{runDir}, 1, QString(), ResumeFrom()).trainerPath,
             QStringLiteral("/opt/td/torchdeck-train"));
    QCOMPARE(attemptSpec(mine, RunLayout{runDir}, 1, binary, ResumeFrom()).trainerPath, binary);
}

void TestRunLayout::keepsTheUsersMetricsAndCheckpointDir_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("metrics");
    QTest::addColumn<QString>("checkpoints");
    const RunLayout layout{runDir};
    QTest::addRow("both spaced") << words("--metrics /data/m.jsonl --checkpoint-dir /data/ck --epochs 3")
                                 << QStringLiteral("/data/m.jsonl") << QStringLiteral("/data/ck");
    QTest::addRow("both with =") << words("--metrics=/data/m.jsonl --checkpoint-dir=/data/ck")
                                 << QStringLiteral("/data/m.jsonl") << QStringLiteral("/data/ck");
    QTest::addRow("metrics only") << words("--epochs 3 --metrics m.jsonl") << QStringLiteral("m.jsonl")
                                  << layout.checkpointDirectory();
    QTest::addRow("checkpoints only") << words("--checkpoint-dir=ck") << layout.metricsPath(4) << QStringLiteral("ck");
    QTest::addRow("a longer flag is not metrics")
        << words("--metrics-every 5") << layout.metricsPath(4) << layout.checkpointDirectory();
}

void TestRunLayout::keepsTheUsersMetricsAndCheckpointDir()
{
    QFETCH(QStringList, args);
    QFETCH(QString, metrics);
    QFETCH(QString, checkpoints);
    JobSpec mine = trainerSpec();
    mine.trainerArgs = args;
    const JobSpec spec = attemptSpec(mine, RunLayout{runDir}, 4, binary, ResumeFrom());
    QCOMPARE(torchdeck::trainerOption(spec.trainerArgs, QStringLiteral("--metrics")), metrics);
    QCOMPARE(torchdeck::trainerOption(spec.trainerArgs, QStringLiteral("--checkpoint-dir")), checkpoints);
    QCOMPARE(occurrences(spec.trainerArgs, QStringLiteral("--metrics")), 1);
    QCOMPARE(occurrences(spec.trainerArgs, QStringLiteral("--checkpoint-dir")), 1);
    // What the user passed comes first, unchanged.
    QCOMPARE(spec.trainerArgs.mid(0, args.size()), args);
}

void TestRunLayout::replacesResume_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addRow("none before") << words("--epochs 3");
    QTest::addRow("spaced") << words("--resume /old/ck-1.pt --epochs 3");
    QTest::addRow("with =") << words("--epochs 3 --resume=/old/ck-1.pt");
    QTest::addRow("several") << words("--resume none --epochs 3 --resume=auto --resume /x.pt");
    QTest::addRow("dangling at the end") << words("--epochs 3 --resume");
}

void TestRunLayout::replacesResume()
{
    QFETCH(QStringList, args);
    JobSpec mine = trainerSpec();
    mine.trainerArgs = args;
    for (const QString &resume : {QStringLiteral("auto"), QStringLiteral("none"), QStringLiteral("/runs/r/ck 9.pt")}) {
        const JobSpec spec = attemptSpec(mine, RunLayout{runDir}, 2, binary, ResumeFrom::fromText(resume));
        const RunLayout layout{runDir};
        QCOMPARE(occurrences(spec.trainerArgs, QStringLiteral("--resume")), 1);
        const qsizetype at = spec.trainerArgs.indexOf(QStringLiteral("--resume"));
        QVERIFY(at >= 0);
        QCOMPARE(spec.trainerArgs.value(at + 1), resume);
        QCOMPARE(torchdeck::trainerOption(spec.trainerArgs, QStringLiteral("--epochs")), QStringLiteral("3"));
        QVERIFY(!spec.trainerArgs.contains(QStringLiteral("/old/ck-1.pt")));
        // The run's own files are still passed, whatever the user's words looked like.
        QCOMPARE(spec.trainerArgs.mid(spec.trainerArgs.size() - 4),
                 (QStringList{QStringLiteral("--metrics"), layout.metricsPath(2), QStringLiteral("--checkpoint-dir"),
                              layout.checkpointDirectory()}));
        QCOMPARE(spec.trainerArgs.size(), 2 + 2 + 4); // --epochs 3, --resume X, the layout's two
    }
}

void TestRunLayout::emptyResumeKeepsTheUsers()
{
    JobSpec mine = trainerSpec();
    mine.trainerArgs = words("--resume /old/ck-1.pt --epochs 3");
    const JobSpec spec = attemptSpec(mine, RunLayout{runDir}, 2, binary, ResumeFrom());
    QCOMPARE(spec.trainerArgs.mid(0, 4), mine.trainerArgs);
    QCOMPARE(torchdeck::trainerOption(spec.trainerArgs, QStringLiteral("--resume")), QStringLiteral("/old/ck-1.pt"));
    QCOMPARE(occurrences(spec.trainerArgs, QStringLiteral("--resume")), 1);
}

void TestRunLayout::customCommandGetsTheRunsVariables()
{
    JobSpec custom;
    custom.name = QStringLiteral("mine");
    custom.commandKind = CommandKind::Custom;
    custom.customCommand = QStringLiteral("python train.py --metrics x --resume y");
    custom.trainerArgs = words("--epochs 3"); // left from a template; not run
    custom.environment = {{QStringLiteral("TORCHDECK_CHECKPOINT_DIR"), QStringLiteral("/scratch/mine")}};
    const JobSpec spec = attemptSpec(custom, RunLayout{runDir}, 5, binary, ResumeFrom::latest());

    // The command's words stay the user's; the run's places come as variables, a name the user set kept.
    JobSpec expected = custom;
    expected.workingDirectory = runDir;
    expected.outputPath = runDir + QStringLiteral("/attempt-5-%j.out");
    expected.traceFile = runDir + QStringLiteral("/attempt-5.job");
    expected.environment += QList<EnvironmentVariable>{
        {QStringLiteral("TORCHDECK_RUN_ID"), QStringLiteral("r-7f3a")},
        {QStringLiteral("TORCHDECK_ATTEMPT"), QStringLiteral("5")},
        {QStringLiteral("TORCHDECK_METRICS_FILE"), runDir + QStringLiteral("/metrics-5.jsonl")},
        {QStringLiteral("TORCHDECK_RESUME"), QStringLiteral("1")}};
    QCOMPARE(json(spec), json(expected));
    QVERIFY(spec == expected);
    QCOMPARE(spec.trainerPath, QStringLiteral("torchdeck-train"));
    QCOMPARE(environmentValue(spec, QStringLiteral("TORCHDECK_METRICS_FILE")),
             runDir + QStringLiteral("/metrics-5.jsonl"));

    // From scratch: no TORCHDECK_RESUME.
    const JobSpec fresh = attemptSpec(custom, RunLayout{runDir}, 0, binary, ResumeFrom::scratch());
    QCOMPARE(environmentValue(fresh, QStringLiteral("TORCHDECK_RESUME")), QString());
    QCOMPARE(environmentValue(fresh, QStringLiteral("TORCHDECK_ATTEMPT")), QStringLiteral("0"));
}

void TestRunLayout::trainerOption_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("value");
    QTest::addRow("absent") << words("--model ae --lr 0.1") << QString();
    QTest::addRow("empty") << QStringList() << QString();
    QTest::addRow("spaced") << words("--model ae --epochs 4 --lr 0.1") << QStringLiteral("4");
    QTest::addRow("with =") << words("--model ae --epochs=4") << QStringLiteral("4");
    QTest::addRow("repeated, last wins") << words("--epochs 4 --epochs 9") << QStringLiteral("9");
    QTest::addRow("= then spaced") << words("--epochs=4 --epochs 9") << QStringLiteral("9");
    QTest::addRow("spaced then =") << words("--epochs 4 --epochs=9") << QStringLiteral("9");
    QTest::addRow("missing value at the end") << words("--model ae --epochs") << QString();
    QTest::addRow("empty after =") << words("--epochs=") << QString();
    QTest::addRow("a longer flag") << words("--epochs-warmup 3 --epochs-warmup=4") << QString();
    QTest::addRow("a value that is the flag's name") << words("--model --epochs") << QString();
    QTest::addRow("value holds =") << words("--epochs=a=b") << QStringLiteral("a=b");
    QTest::addRow("value with spaces") << QStringList{QStringLiteral("--epochs"), QStringLiteral("1 2 $(x)")}
                                       << QStringLiteral("1 2 $(x)");
    QTest::addRow("value looks like a flag")
        << QStringList{QStringLiteral("--epochs"), QStringLiteral("--lr")} << QStringLiteral("--lr");
}

void TestRunLayout::trainerOption()
{
    QFETCH(QStringList, args);
    QFETCH(QString, value);
    QCOMPARE(torchdeck::trainerOption(args, QStringLiteral("--epochs")), value);
}

void TestRunLayout::withTrainerOption_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QStringList>("expected");
    QTest::addRow("absent: appended") << words("--model ae") << words("--model ae --epochs 7");
    QTest::addRow("empty") << QStringList() << words("--epochs 7");
    QTest::addRow("spaced replaced") << words("--model ae --epochs 4 --lr 0.1")
                                     << words("--model ae --lr 0.1 --epochs 7");
    QTest::addRow("= replaced") << words("--epochs=4 --model ae") << words("--model ae --epochs 7");
    QTest::addRow("every occurrence") << words("--epochs 1 --model ae --epochs=2 --lr 0.1 --epochs 3")
                                      << words("--model ae --lr 0.1 --epochs 7");
    QTest::addRow("missing value at the end") << words("--model ae --epochs") << words("--model ae --epochs 7");
    QTest::addRow("a longer flag kept") << words("--epochs-warmup 3 --epochs-warmup=4")
                                        << words("--epochs-warmup 3 --epochs-warmup=4 --epochs 7");
    QTest::addRow("bare flags kept") << words("--channels-last --epochs 4 --amp bf16")
                                     << words("--channels-last --amp bf16 --epochs 7");
}

void TestRunLayout::withTrainerOption()
{
    QFETCH(QStringList, args);
    QFETCH(QStringList, expected);
    const QString flag = QStringLiteral("--epochs");
    const QStringList result = torchdeck::withTrainerOption(args, flag, QStringLiteral("7"));
    QCOMPARE(result, expected);
    QCOMPARE(torchdeck::trainerOption(result, flag), QStringLiteral("7"));

    // Any value, verbatim, and setting twice is setting once.
    const QString odd = QStringLiteral("a b'c \"$(rm -rf ~)\"\n=");
    const QStringList twice =
        torchdeck::withTrainerOption(torchdeck::withTrainerOption(args, flag, QStringLiteral("1")), flag, odd);
    QCOMPARE(torchdeck::trainerOption(twice, flag), odd);
    QCOMPARE(occurrences(twice, flag), 1);
    QCOMPARE(twice.size(), expected.size());
}

TORCHDECK_TEST_MAIN(TestRunLayout)
#include "tst_runlayout.moc"
