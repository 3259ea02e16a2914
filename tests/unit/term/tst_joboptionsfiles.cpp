// parseJobOptions: the trainer's options, and job files (JobSpec JSON) with the command line over them.
#include "joboptionstest.h"
#include "testmain.h"

#include <QFile>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>
#include <memory>

using namespace torchdeck;
using namespace torchdeck::term;
using namespace torchdeck::term::testing;

class TestJobOptionsFiles : public QObject {
    Q_OBJECT
private slots:
    void init();
    void everyTrainerOptionGoesToTheTrainer();
    void trainerOptions_data();
    void trainerOptions();
    void jobFileIsTheBase();
    void commandLineOverridesTheJobFileFlagByFlag();
    void badJobFile_data();
    void badJobFile();
    void defaultName_data();
    void defaultName();

private:
    QString writeJobFile(const QByteArray &bytes);
    std::unique_ptr<QTemporaryDir> m_dir;
};

void TestJobOptionsFiles::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
}

QString TestJobOptionsFiles::writeJobFile(const QByteArray &bytes)
{
    const QString path = m_dir->filePath(QStringLiteral("my job.json"));
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) || file.write(bytes) != bytes.size())
        return {};
    return path;
}

void TestJobOptionsFiles::everyTrainerOptionGoesToTheTrainer()
{
    const char *const flags[] = {"--model",     "--data",           "--epochs",           "--batch-size", "--lr",
                                 "--optimizer", "--seed",           "--checkpoint-every", "--keep",       "--threads",
                                 "--limit",     "--log-every",      "--backend",          "--amp",        "--bucket-mb",
                                 "--device",    "--nproc-per-node", "--weight-decay",     "--momentum"};
    for (const char *flag : flags) {
        const QString name = QString::fromLatin1(flag);
        const JobOptions options = parse({name, QStringLiteral("v 1")});
        QVERIFY2(options.error.isEmpty(), qPrintable(name + u' ' + options.error));
        QCOMPARE(options.spec.trainerArgs, (QStringList{name, QStringLiteral("v 1")}));
        QCOMPARE(options.spec.commandKind, CommandKind::Trainer);
        // Nothing else of the job changed.
        JobSpec expected = plain();
        expected.name = options.spec.name;
        expected.trainerArgs = options.spec.trainerArgs;
        QCOMPARE(json(options.spec), json(expected));
    }
}

void TestJobOptionsFiles::trainerOptions_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QStringList>("trainerArgs");
    QTest::addRow("in order") << words("--model ae --epochs 4 --lr 0.01") << words("--model ae --epochs 4 --lr 0.01");
    QTest::addRow("repeated: the last") << words("--epochs 4 --lr 0.1 --epochs 6") << words("--lr 0.1 --epochs 6");
    QTest::addRow("negative value") << words("--lr -0.5 --epochs 2") << words("--lr -0.5 --epochs 2");
    QTest::addRow("--channels-last is bare")
        << words("--channels-last --epochs 2 --amp bf16") << words("--channels-last --epochs 2 --amp bf16");
    QTest::addRow("--channels-last at the end")
        << words("--epochs 2 --channels-last") << words("--epochs 2 --channels-last");
    QTest::addRow("--trainer-arg, any flag")
        << words("--trainer-arg --warmup --trainer-arg 5 --epochs 2") << words("--warmup 5 --epochs 2");
    QTest::addRow("--trainer-arg with =") << words("--trainer-arg --warmup=5") << words("--warmup=5");
    QTest::addRow("--trainer-arg bare flag")
        << words("--trainer-arg --no-shuffle --epochs 2") << words("--no-shuffle --epochs 2");
    QTest::addRow("mixed with job options")
        << words("--nodes 2 --epochs 3 --requeue --model toy --time 10") << words("--epochs 3 --model toy");
    QTest::addRow("hostile value") << QStringList{QStringLiteral("--data"), QStringLiteral("mnist:/d/'x' $(id)\n")}
                                   << QStringList{QStringLiteral("--data"), QStringLiteral("mnist:/d/'x' $(id)\n")};
}

void TestJobOptionsFiles::trainerOptions()
{
    QFETCH(QStringList, args);
    QFETCH(QStringList, trainerArgs);
    const JobOptions options = parse(args);
    QVERIFY2(options.error.isEmpty(), qPrintable(options.error));
    QCOMPARE(options.spec.trainerArgs, trainerArgs);
}

void TestJobOptionsFiles::jobFileIsTheBase()
{
    JobSpec saved;
    saved.name = QStringLiteral("from-file");
    saved.nodes = 3;
    saved.partition = QStringLiteral("gpu");
    saved.modules = {QStringLiteral("cuda/12")};
    saved.environment = {{QStringLiteral("A"), QStringLiteral("1")}};
    saved.trainerArgs = words("--model resnet18 --epochs=10 --channels-last");
    const QString path = writeJobFile(QJsonDocument(saved.toJson()).toJson());
    QVERIFY(!path.isEmpty());

    const JobOptions asSaved = parse({QStringLiteral("--job"), path});
    QVERIFY2(asSaved.error.isEmpty(), qPrintable(asSaved.error));
    QCOMPARE(json(asSaved.spec), json(saved));
    QVERIFY(asSaved.spec == saved);

    // Job options override the file wherever they stand, before or after --job.
    for (const QStringList &args :
         {QStringList{QStringLiteral("--nodes"), QStringLiteral("5"), QStringLiteral("--job"), path},
          QStringList{QStringLiteral("--job"), path, QStringLiteral("--nodes"), QStringLiteral("5")}}) {
        const JobOptions options = parse(args);
        QVERIFY2(options.error.isEmpty(), qPrintable(options.error));
        JobSpec expected = saved;
        expected.nodes = 5;
        QCOMPARE(json(options.spec), json(expected));
    }
}

void TestJobOptionsFiles::commandLineOverridesTheJobFileFlagByFlag()
{
    const QString path = writeJobFile(R"({
        "name": "from-file",
        "trainerArgs": ["--model", "ae", "--epochs=10", "--lr", "0.1", "--channels-last", "--seed", "1", "--epochs", "12"]
    })");
    QVERIFY(!path.isEmpty());
    const JobOptions merged = parse(QStringList{QStringLiteral("--job"), path} +
                                    words("--epochs 3 --seed 7 --trainer-arg --warmup --trainer-arg 2"));
    QVERIFY2(merged.error.isEmpty(), qPrintable(merged.error));
    QCOMPARE(merged.spec.name, QStringLiteral("from-file"));
    // Untouched flags keep their place; every earlier --epochs (either form) gives way to the one given.
    QCOMPARE(merged.spec.trainerArgs, words("--model ae --lr 0.1 --channels-last --epochs 3 --seed 7 --warmup 2"));

    // No trainer option on the command line: the file's words exactly, repeats and all.
    const JobOptions kept = parse({QStringLiteral("--job"), path, QStringLiteral("--nodes"), QStringLiteral("2")});
    QVERIFY2(kept.error.isEmpty(), qPrintable(kept.error));
    QCOMPARE(kept.spec.trainerArgs, words("--model ae --epochs=10 --lr 0.1 --channels-last --seed 1 --epochs 12"));

    // The command line's model replaces the file's; the file's name stays.
    const JobOptions model = parse({QStringLiteral("--job"), path, QStringLiteral("--model"), QStringLiteral("toy")});
    QVERIFY2(model.error.isEmpty(), qPrintable(model.error));
    QCOMPARE(model.spec.trainerArgs.count(QStringLiteral("--model")), 1);
    QCOMPARE(model.spec.trainerArgs.mid(model.spec.trainerArgs.size() - 2), words("--model toy"));
    QCOMPARE(model.spec.name, QStringLiteral("from-file"));
}

void TestJobOptionsFiles::badJobFile_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("mentions");
    QTest::addRow("not JSON") << QByteArray("nodes = 2") << QStringLiteral("is not a JSON object");
    QTest::addRow("a list") << QByteArray("[1, 2]") << QStringLiteral("is not a JSON object: a list or value");
    QTest::addRow("a bad field") << QByteArray(R"({"nodes": "two"})") << QStringLiteral("bad job: nodes");
    QTest::addRow("trainerArgs not strings")
        << QByteArray(R"({"trainerArgs": ["--epochs", 3]})") << QStringLiteral("bad job: trainerArgs");
    QTest::addRow("a typo") << QByteArray(R"({"node": 2})")
                            << QStringLiteral("has keys no job has: node (a job's keys: ");
}

void TestJobOptionsFiles::badJobFile()
{
    QFETCH(QByteArray, bytes);
    QFETCH(QString, mentions);
    const QString path = writeJobFile(bytes);
    QVERIFY(!path.isEmpty());
    const JobOptions options = parse({QStringLiteral("--job"), path});
    QVERIFY2(options.error.contains(mentions), qPrintable(options.error));
    if (!mentions.startsWith(u"bad job"))
        QVERIFY2(options.error.contains(path), qPrintable(options.error));

    const QString missing = m_dir->filePath(QStringLiteral("no such.json"));
    const JobOptions absent = parse({QStringLiteral("--job"), missing});
    QVERIFY2(absent.error.startsWith(QStringLiteral("cannot read the job file ") + missing), qPrintable(absent.error));
}

void TestJobOptionsFiles::defaultName_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QByteArray>("jobFile"); // empty: none
    QTest::addColumn<QString>("name");
    QTest::addRow("no model") << words("--nodes 2") << QByteArray() << QStringLiteral("torchdeck-job");
    QTest::addRow("the model") << words("--model resnet18 --epochs 2") << QByteArray()
                               << QStringLiteral("train-resnet18");
    QTest::addRow("the last model") << words("--model ae --model toy-split") << QByteArray()
                                    << QStringLiteral("train-toy-split");
    QTest::addRow("--name wins") << words("--model ae --name mine") << QByteArray() << QStringLiteral("mine");
    QTest::addRow("the file's name wins")
        << words("--model ae") << QByteArray(R"({"name": "saved"})") << QStringLiteral("saved");
    QTest::addRow("--name over the file's")
        << words("--name mine") << QByteArray(R"({"name": "saved"})") << QStringLiteral("mine");
    QTest::addRow("the file's model") << words("--epochs 2") << QByteArray(R"({"trainerArgs": ["--model", "ae"]})")
                                      << QStringLiteral("train-ae");
    QTest::addRow("the file's model, nothing else given")
        << QStringList() << QByteArray(R"({"trainerArgs": ["--model=toy"]})") << QStringLiteral("train-toy");
    QTest::addRow("the command line's model over the file's")
        << words("--model resnet50") << QByteArray(R"({"trainerArgs": ["--model", "ae"]})")
        << QStringLiteral("train-resnet50");
    QTest::addRow("a template's empty name")
        << words("--model ae") << QByteArray(R"({"name": ""})") << QStringLiteral("train-ae");
}

void TestJobOptionsFiles::defaultName()
{
    QFETCH(QStringList, args);
    QFETCH(QByteArray, jobFile);
    QFETCH(QString, name);
    if (!jobFile.isEmpty()) {
        const QString path = writeJobFile(jobFile);
        QVERIFY(!path.isEmpty());
        args = QStringList{QStringLiteral("--job"), path} + args;
    }
    const JobOptions options = parse(args);
    QVERIFY2(options.error.isEmpty(), qPrintable(options.error));
    QCOMPARE(options.spec.name, name);
}

TORCHDECK_TEST_MAIN(TestJobOptionsFiles)
#include "tst_joboptionsfiles.moc"
