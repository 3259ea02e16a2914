// A run's files (core/runs/runfiles.h): the paths refused before anything is sent, and the listing, checksum and
// removal commands run by a real shell on real files, with a hostile name and symlinks that lead out.
#include "core/runs/runfiles.h"
#include "testmain.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace torchdeck;

namespace {
struct ShellRun {
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

ShellRun runUnderSh(const QString &command)
{
    QProcess shell;
    shell.start(QStringLiteral("/bin/sh"), {QStringLiteral("-c"), command});
    shell.waitForFinished(10000);
    return {shell.exitCode(), shell.readAllStandardOutput(), shell.readAllStandardError()};
}

void write(const QString &path, const QByteArray &bytes)
{
    QDir().mkpath(path.section(u'/', 0, -2));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(bytes);
}
} // namespace

class RunFilesTest : public QObject {
    Q_OBJECT
    QTemporaryDir m_work;
    QString m_run;
    const QString m_id = QStringLiteral("1b9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed");

private slots:
    void aPullThatCannotFitIsRefused()
    {
        QList<RemoteFileSum> files(2);
        files[0].bytes = qint64(3) << 30;
        files[1].bytes = qint64(1) << 30;
        const qint64 gib = qint64(1) << 30;
        QVERIFY(localSpaceProblem(files, {}, 5 * gib, QStringLiteral("/d")).isEmpty());
        const QString problem = localSpaceProblem(files, {}, 4 * gib, QStringLiteral("/d"));
        QVERIFY2(problem.contains(QStringLiteral("need 4.00 GiB more")) && problem.contains(QStringLiteral("/d has")),
                 qPrintable(problem));
        // What an earlier try left counts: only the rest is needed.
        QVERIFY(localSpaceProblem(files, {2 * gib, 0}, 3 * gib, QStringLiteral("/d")).isEmpty());
        QVERIFY(localSpaceProblem(files, {}, -1, QStringLiteral("/d")).isEmpty()); // unknown: not refused
    }
    void init()
    {
        m_run = m_work.path() + QStringLiteral("/runs/") + m_id;
        QDir(m_run).removeRecursively();
        write(m_run + QStringLiteral("/attempt-0-41.out"), "log\n");
        write(m_run + QStringLiteral("/metrics-1.jsonl"), "{}\n");
        write(m_run + QStringLiteral("/checkpoints/checkpoint-0000000020.pt"), QByteArray(3000, 'x'));
        write(m_run + QStringLiteral("/it's a \"model\" $(x).pt"), "weights");
        write(m_work.path() + QStringLiteral("/secret"), "not the run's");
        QFile::link(m_work.path() + QStringLiteral("/secret"), m_run + QStringLiteral("/out-link"));
        QFile::link(m_run + QStringLiteral("/metrics-1.jsonl"), m_run + QStringLiteral("/in-link"));
    }

    void directoryFromJobs()
    {
        JobRecord job;
        job.stdoutPath = QStringLiteral("/scratch/u/td/runs/") + m_id + QStringLiteral("/attempt-0-7.out");
        QCOMPARE(runDirectoryOf(m_id, {job}, QStringLiteral("/home/u/td")),
                 QStringLiteral("/scratch/u/td/runs/") + m_id);
        QCOMPARE(runDirectoryOf(m_id, {}, QStringLiteral("/home/u/td")), QStringLiteral("/home/u/td/runs/") + m_id);
        QCOMPARE(runDirectoryOf(m_id, {}, QString()), QString());
        // Continued on cluster b: each cluster's directory is its own jobs'; a job saved without a cluster counts.
        JobRecord onA = job;
        onA.cluster = QStringLiteral("a");
        JobRecord onB;
        onB.cluster = QStringLiteral("b");
        onB.stdoutPath = QStringLiteral("/work-b/runs/") + m_id + QStringLiteral("/attempt-1-3.out");
        QCOMPARE(runDirectoryOn(QStringLiteral("b"), m_id, {onA, onB}, QStringLiteral("/home/u/td")),
                 QStringLiteral("/work-b/runs/") + m_id);
        QCOMPARE(runDirectoryOn(QStringLiteral("a"), m_id, {onA, onB}, QStringLiteral("/home/u/td")),
                 QStringLiteral("/scratch/u/td/runs/") + m_id);
        QCOMPARE(runDirectoryOn(QStringLiteral("c"), m_id, {onA, onB}, QStringLiteral("/home/u/td")),
                 QStringLiteral("/home/u/td/runs/") + m_id);
        QCOMPARE(runDirectoryOn(QStringLiteral("c"), m_id, {job}, QStringLiteral("/home/u/td")),
                 QStringLiteral("/scratch/u/td/runs/") + m_id);
        // The clusters it ran on: its own first (b), each once; a job saved without a cluster adds none.
        QCOMPARE(clustersRanOn(QStringLiteral("b"), {onA, job, onB, onA}),
                 (QStringList{QStringLiteral("b"), QStringLiteral("a")}));
        QCOMPARE(clustersRanOn(QStringLiteral("a"), {job}), QStringList{QStringLiteral("a")});
        QCOMPARE(
            pathInRun(m_id, QStringLiteral("/scratch/td/runs/") + m_id + QStringLiteral("/checkpoints/step_64.pt")),
            QStringLiteral("checkpoints/step_64.pt"));
        QCOMPARE(pathInRun(m_id, QStringLiteral("/scratch/td/runs/other/checkpoints/step_64.pt")), QString());
    }

    void pathsCleanedOrRefused()
    {
        QCOMPARE(cleanRunPath(QStringLiteral("")).path, QString());
        QCOMPARE(cleanRunPath(QStringLiteral("./checkpoints//a.pt")).path, QStringLiteral("checkpoints/a.pt"));
        QVERIFY(cleanRunPath(QStringLiteral("../..")).error.contains(u".."));
        QVERIFY(cleanRunPath(QStringLiteral("checkpoints/../../x")).error.contains(u".."));
        QVERIFY(cleanRunPath(QStringLiteral("/etc/passwd")).error.contains(QStringLiteral("relative")));
        QVERIFY(!cleanRunPath(QStringLiteral("~/x")).error.isEmpty());
    }

    void listsTheRunMarked()
    {
        const ShellRun listed = runUnderSh(listRunFilesCommand(m_run, {}));
        QCOMPARE(listed.exitCode, 0);
        QList<RunFile> files = parseRunFiles(listed.out);
        CheckpointEntry entry;
        entry.record.path = m_run + QStringLiteral("/checkpoints/checkpoint-0000000020.pt");
        entry.record.attempt = 2;
        entry.latest = true;
        markRunFiles(files, m_run, {entry}, {});
        QStringList paths;
        for (const RunFile &file : files)
            paths.append(file.path);
        QCOMPARE(paths, QStringList({QStringLiteral("attempt-0-41.out"), QStringLiteral("checkpoints"),
                                     QStringLiteral("checkpoints/checkpoint-0000000020.pt"), QStringLiteral("in-link"),
                                     QStringLiteral("it's a \"model\" $(x).pt"), QStringLiteral("metrics-1.jsonl"),
                                     QStringLiteral("out-link")}));
        QCOMPARE(files.at(0).attempt, 0);
        QCOMPARE(files.at(1).kind, 'd');
        QCOMPARE(files.at(2).bytes, 3000);
        QCOMPARE(files.at(2).attempt, 2);
        QVERIFY(files.at(2).latest);
        QCOMPARE(files.at(5).attempt, 1);
        QCOMPARE(files.at(6).kind, 'l');
        QVERIFY(files.at(2).time > 1.6e9);

        const ShellRun sub = runUnderSh(listRunFilesCommand(m_run, QStringLiteral("checkpoints")));
        QCOMPARE(parseRunFiles(sub.out).size(), 2);
    }

    void listingRefusesWhatLeadsOut()
    {
        const ShellRun out = runUnderSh(listRunFilesCommand(m_run, QStringLiteral("out-link")));
        QCOMPARE(out.exitCode, 5);
        QVERIFY(out.err.contains("outside"));
        QVERIFY(parseRunFiles(out.out).isEmpty());
        QCOMPARE(runUnderSh(listRunFilesCommand(m_run, QStringLiteral("nothing"))).exitCode, 4);
        QCOMPARE(runUnderSh(listRunFilesCommand(m_run + QStringLiteral("-gone"), {})).exitCode, 3);
    }

    void sumsWhatIsInside()
    {
        const QStringList asked = {QStringLiteral("it's a \"model\" $(x).pt"), QStringLiteral("out-link"),
                                   QStringLiteral("in-link"), QStringLiteral("checkpoints"), QStringLiteral("nothing")};
        const ShellRun run = runUnderSh(sumRunFilesCommand(m_run, asked));
        QCOMPARE(run.exitCode, 0);
        const QList<RemoteFileSum> sums = parseRunFileSums(run.out, asked);
        QCOMPARE(sums.size(), 5);
        QCOMPARE(sums.at(0).bytes, 7);
        QCOMPARE(sums.at(0).sha256,
                 QString::fromLatin1(QCryptographicHash::hash("weights", QCryptographicHash::Sha256).toHex()));
        QCOMPARE(sums.at(0).realPath, QDir(m_run).canonicalPath() + QStringLiteral("/it's a \"model\" $(x).pt"));
        QVERIFY(sums.at(1).error.contains(QStringLiteral("outside")));
        QVERIFY(sums.at(2).error.isEmpty());
        QVERIFY(sums.at(2).realPath.endsWith(QStringLiteral("/metrics-1.jsonl")));
        QVERIFY(sums.at(3).error.contains(QStringLiteral("not a file")));
        QVERIFY(sums.at(4).error.contains(QStringLiteral("no file")));
        // A torn answer names nothing it did not say.
        QVERIFY(!parseRunFileSums(run.out.left(20), asked).at(0).error.isEmpty());
    }

    // The straight copy's shell, run here with an `ssh` that runs its command locally (the real one is in
    // across.resume_on): a file copied whole gets its mode and name; a checksum that differs leaves nothing behind.
    void straightCopyChecksBeforeTheFileTakesItsName()
    {
        const QString bin = m_work.path() + QStringLiteral("/bin");
        write(bin + QStringLiteral("/ssh"), "#!/bin/sh\nprintf '%s ' \"$@\" >>\"$(dirname \"$0\")/ssh-args\"\n"
                                            "for last; do :; done\nexec sh -c \"$last\"\n");
        QFile(bin + QStringLiteral("/ssh")).setPermissions(QFileDevice::ReadOwner | QFileDevice::ExeOwner);
        const QString from = m_work.path() + QStringLiteral("/there/checkpoint 1's.pt");
        write(from, "weights");
        const QString sha =
            QString::fromLatin1(QCryptographicHash::hash("weights", QCryptographicHash::Sha256).toHex());
        const QString to = m_work.path() + QStringLiteral("/here/runs/r/checkpoint 1's.pt");
        const QString path = QStringLiteral("PATH=") + bin + QStringLiteral(":$PATH\n");

        StraightFile file{from, to, sha, 0444, QStringLiteral("the checkpoint")};
        const ShellRun copied = runUnderSh(path + straightCopyCommand(QStringLiteral("-p 22 me@a"), {file}));
        QCOMPARE(copied.exitCode, 0);
        QFile result(to);
        QVERIFY(result.open(QIODevice::ReadOnly));
        QCOMPARE(result.readAll(), QByteArray("weights"));
        QCOMPARE(result.permissions() & (QFileDevice::WriteOwner | QFileDevice::ReadOwner), QFileDevice::ReadOwner);
        QFile args(bin + QStringLiteral("/ssh-args"));
        QVERIFY(args.open(QIODevice::ReadOnly));
        QVERIFY(args.readAll().startsWith("-n -o BatchMode=yes -o ConnectTimeout=15 -p 22 me@a cat -- "));

        file.to = m_work.path() + QStringLiteral("/here/runs/r/other.pt");
        file.sha256 = QString(64, u'0');
        const ShellRun differs = runUnderSh(path + straightCopyCommand(QStringLiteral("me@a"), {file}));
        QCOMPARE(differs.exitCode, 1);
        QVERIFY2(differs.err.contains("the checkpoint was not copied whole"), differs.err.constData());
        QCOMPARE(QDir(m_work.path() + QStringLiteral("/here/runs/r")).entryList(QDir::Files),
                 QStringList{QStringLiteral("checkpoint 1's.pt")}); // neither other.pt nor a partial file
    }

    // What a copy broken off left beside its target goes, nothing else; with none left it succeeds all the same.
    void removesWhatABrokenCopyLeft()
    {
        const QString dir = m_work.path() + QStringLiteral("/left/checkpoints");
        for (const char *name : {"c[1].pt", "c[1].pt.part-1a2b3c4d", "c[1].pt.torchdeck-AbC123", "c[1].pt.json.part-9",
                                 "c1.pt.part-1", "other.pt.part-5"})
            write(dir + u'/' + QString::fromLatin1(name), "x");
        const QString target = dir + QStringLiteral("/c[1].pt");
        QCOMPARE(runUnderSh(removeCopyLeftoversCommand(target)).exitCode, 0);
        QCOMPARE(QDir(dir).entryList(QDir::Files, QDir::Name),
                 (QStringList{QStringLiteral("c1.pt.part-1"), QStringLiteral("c[1].pt"),
                              QStringLiteral("c[1].pt.json.part-9"), QStringLiteral("other.pt.part-5")}));
        QCOMPARE(runUnderSh(removeCopyLeftoversCommand(target)).exitCode, 0);
        QCOMPARE(runUnderSh(removeCopyLeftoversCommand(m_work.path() + QStringLiteral("/new/dir/c.pt"))).exitCode, 0);
        QVERIFY(QDir(m_work.path() + QStringLiteral("/new/dir")).exists());
    }

    void removesOnlyARunDirectory()
    {
        const QString other = m_work.path() + QStringLiteral("/not-runs");
        write(other + QStringLiteral("/keep"), "x");
        const ShellRun refused = runUnderSh(removeRunDirectoryCommand(other, m_id));
        QCOMPARE(refused.exitCode, 5);
        QCOMPARE(refused.out.trimmed(), QByteArray("refused"));
        QVERIFY(QFile::exists(other + QStringLiteral("/keep")));
        // A run directory that is a symlink to elsewhere is not followed out.
        const QString linked = m_work.path() + QStringLiteral("/runs/linked");
        QFile::link(other, linked);
        QCOMPARE(runUnderSh(removeRunDirectoryCommand(linked, QStringLiteral("linked"))).exitCode, 5);
        QVERIFY(QFile::exists(other + QStringLiteral("/keep")));

        QCOMPARE(runUnderSh(runDirectorySizeCommand(m_run)).out.trimmed().toLongLong() > 3000, true);
        const ShellRun removed = runUnderSh(removeRunDirectoryCommand(m_run, m_id));
        QCOMPARE(removed.exitCode, 0);
        QCOMPARE(removed.out.trimmed(), QByteArray("removed"));
        QVERIFY(!QFileInfo::exists(m_run));
        QVERIFY(QFile::exists(m_work.path() + QStringLiteral("/secret")));
        QCOMPARE(runUnderSh(removeRunDirectoryCommand(m_run, m_id)).out.trimmed(), QByteArray("gone"));
        QCOMPARE(runUnderSh(runDirectorySizeCommand(m_run)).out.trimmed(), QByteArray("-"));
    }
};

TORCHDECK_TEST_MAIN(RunFilesTest)
#include "tst_runfiles.moc"
