#include "core/code/codesnapshot.h"
#include "testmain.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace torchdeck;

class TestCodeSnapshot : public QObject {
    Q_OBJECT

    static void write(const QDir &dir, const QString &path, const QByteArray &content)
    {
        QVERIFY(dir.mkpath(QFileInfo(dir.filePath(path)).path()));
        QFile file(dir.filePath(path));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(content);
    }

    static QStringList paths(const QList<CodeFile> &files)
    {
        QStringList out;
        for (const CodeFile &file : files)
            out.append(file.path);
        return out;
    }

    static bool git(const QDir &dir, const QStringList &args)
    {
        QProcess process;
        process.setWorkingDirectory(dir.path());
        process.start(QStringLiteral("git"), QStringList{QStringLiteral("-c"), QStringLiteral("user.name=t"),
                                                         QStringLiteral("-c"), QStringLiteral("user.email=t@t")} +
                                                 args);
        return process.waitForFinished() && process.exitCode() == 0;
    }

private slots:
    void ignoredPaths_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<bool>("directory");
        QTest::addColumn<QStringList>("patterns");
        QTest::addColumn<bool>("ignored");
        const QStringList defaults = defaultCodeIgnorePatterns();
        QTest::addRow("a script") << "train.py" << false << defaults << false;
        QTest::addRow("bytecode") << "pkg/mod.pyc" << false << defaults << true;
        QTest::addRow("in a cache dir") << "pkg/__pycache__/mod.py" << false << defaults << true;
        QTest::addRow("git dir") << ".git" << true << defaults << true;
        QTest::addRow("a file named like a dir pattern") << "venv" << false << defaults << false;
        QTest::addRow("glob in a subfolder") << "data/x.npy" << false << QStringList{QStringLiteral("*.npy")} << true;
        QTest::addRow("anchored path") << "data/raw/a" << false << QStringList{QStringLiteral("/data/raw")} << true;
        QTest::addRow("anchored name") << "data/x" << false << QStringList{QStringLiteral("/data")} << true;
        QTest::addRow("anchored name deeper")
            << "pkg/data/__init__.py" << false << QStringList{QStringLiteral("/data")} << false;
        QTest::addRow("local outputs") << "lightning_logs/version_0/metrics.csv" << false << defaults << true;
        QTest::addRow("anchored path elsewhere")
            << "src/data/raw/a" << false << QStringList{QStringLiteral("/data/raw")} << false;
        QTest::addRow("star stops at slash") << "a/b/c.txt" << false << QStringList{QStringLiteral("a/*.txt")} << false;
    }

    void ignoredPaths()
    {
        QFETCH(QString, path);
        QFETCH(bool, directory);
        QFETCH(QStringList, patterns);
        QFETCH(bool, ignored);
        QCOMPARE(isIgnoredCodePath(path, directory, patterns), ignored);
    }

    void folderLeavesOutIgnoredFiles()
    {
        QTemporaryDir tmp;
        const QDir dir(tmp.path());
        write(dir, QStringLiteral("train.py"), "print('hi')\n");
        write(dir, QStringLiteral("pkg/model.py"), "x = 1\n");
        write(dir, QStringLiteral("pkg/__pycache__/model.cpython-311.pyc"), "junk");
        write(dir, QStringLiteral("data/big.npy"), "0123456789");
        write(dir, QStringLiteral("with space & 'quote'.txt"), "odd name\n");
        write(dir, kCodeIgnoreFile, "# data stays on the cluster\ndata/\n");
        QVERIFY(QFile::link(dir.filePath(QStringLiteral("train.py")), dir.filePath(QStringLiteral("link.py"))));
        QVERIFY(QFile::link(dir.filePath(QStringLiteral("pkg")), dir.filePath(QStringLiteral("pkglink"))));
        QTemporaryDir elsewhere; // a link out of the folder: sent as the file it points to, and said
        QFile outside(QDir(elsewhere.path()).filePath(QStringLiteral("shared.py")));
        QVERIFY(outside.open(QIODevice::WriteOnly) && outside.write("x = 1\n") > 0);
        outside.close();
        QVERIFY(QFile::link(outside.fileName(), dir.filePath(QStringLiteral("shared.py"))));
        const CodeListing listing = listCodeFiles(tmp.path());
        QVERIFY2(listing.ok(), qPrintable(listing.error));
        QCOMPARE(listing.source, QStringLiteral("folder"));
        QCOMPARE(paths(listing.files),
                 (QStringList{kCodeIgnoreFile, QStringLiteral("link.py"), QStringLiteral("pkg/model.py"),
                              QStringLiteral("shared.py"), QStringLiteral("train.py"),
                              QStringLiteral("with space & 'quote'.txt")}));
        QCOMPARE(listing.linksOutside, QStringList{QStringLiteral("shared.py")});
    }

    void gitWorkTreeListsWhatGitTracks()
    {
        QTemporaryDir tmp;
        const QDir dir(tmp.path());
        QVERIFY(git(dir, {QStringLiteral("init"), QStringLiteral("-q")}));
        write(dir, QStringLiteral(".gitignore"), "outputs/\n");
        write(dir, QStringLiteral("train.py"), "print('hi')\n");
        write(dir, QStringLiteral("outputs/ckpt.pt"), "weights");
        write(dir, QStringLiteral("new.py"), "untracked but not ignored\n");
        write(dir, QStringLiteral("gone.py"), "deleted after the commit\n");
        QVERIFY(git(dir, {QStringLiteral("add"), QStringLiteral(".gitignore"), QStringLiteral("train.py"),
                          QStringLiteral("gone.py")}));
        QVERIFY(git(dir, {QStringLiteral("commit"), QStringLiteral("-qm"), QStringLiteral("x")}));
        QVERIFY(QFile::remove(dir.filePath(QStringLiteral("gone.py"))));
        const CodeListing listing = listCodeFiles(tmp.path());
        QVERIFY2(listing.ok(), qPrintable(listing.error));
        QCOMPARE(listing.source, QStringLiteral("git"));
        QCOMPARE(paths(listing.files),
                 (QStringList{QStringLiteral(".gitignore"), QStringLiteral("new.py"), QStringLiteral("train.py")}));
    }

    void idFollowsContentAndMode()
    {
        QTemporaryDir tmp;
        const QDir dir(tmp.path());
        write(dir, QStringLiteral("train.py"), "print('hi')\n");
        write(dir, QStringLiteral("run.sh"), "#!/bin/sh\n");
        const CodeSnapshot first = makeCodeSnapshot(tmp.path());
        QVERIFY2(first.ok(), qPrintable(first.error));
        QCOMPARE(first.id.size(), 20);
        QCOMPARE(makeCodeSnapshot(tmp.path()).id, first.id);
        QCOMPARE(first.files.constFirst().hash,
                 QStringLiteral("a8076d3d28d21e02012b20eaf7dbf75409a6277134439025f282e368e3305abf")); // sha256sum
        QCOMPARE(first.totalBytes(), qint64(22));

        QFile::setPermissions(dir.filePath(QStringLiteral("run.sh")),
                              QFile::permissions(dir.filePath(QStringLiteral("run.sh"))) | QFile::ExeOwner);
        const CodeSnapshot executable = makeCodeSnapshot(tmp.path());
        QVERIFY(executable.id != first.id);
        const QString object = codeObjectName(executable.files.constFirst());
        QVERIFY(object.endsWith(u'x'));
        QCOMPARE(codeObjectSha256(object), executable.files.constFirst().hash);
        QCOMPARE(codeObjectMode(object), 0555);
        QCOMPARE(codeObjectMode(codeObjectName(first.files.constFirst())), 0444);

        write(dir, QStringLiteral("train.py"), "print('bye')\n");
        QVERIFY(makeCodeSnapshot(tmp.path()).id != executable.id);
    }

    void manifestListsObjectsAndPaths()
    {
        const QList<CodeFile> files{{QStringLiteral("a b/c\nd.py"), 1, false, QStringLiteral("aa")},
                                    {QStringLiteral("run.sh"), 2, true, QStringLiteral("bb")}};
        const QByteArray manifest = codeManifest(files);
        // Per file its object name (an executable's marked x) and path, each ended by NUL.
        QCOMPARE(manifest, QByteArray("aa\0a b/c\nd.py\0bbx\0run.sh\0", 25));
    }

    void refusesWhatIsNoCode()
    {
        QCOMPARE(makeCodeSnapshot(QStringLiteral("/nonexistent/folder")).error,
                 QStringLiteral("/nonexistent/folder is no folder"));
        QTemporaryDir tmp;
        QVERIFY(makeCodeSnapshot(tmp.path()).error.contains(QStringLiteral("has no files")));
        const CodeSnapshot stopped =
            makeCodeSnapshot(QStringLiteral(TORCHDECK_TEST_DATA "/scripts"), [](qint64, qint64) { return false; });
        QCOMPARE(stopped.error, QStringLiteral("stopped"));
    }
};

TORCHDECK_TEST_MAIN(TestCodeSnapshot)
#include "tst_codesnapshot.moc"
