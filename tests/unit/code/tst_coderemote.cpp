#include "core/code/coderemote.h"
#include "core/code/codesnapshot.h"
#include "testmain.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <sys/stat.h>

using namespace torchdeck;

// The commands a cluster runs, run here by a real shell on a real folder.
class TestCodeRemote : public QObject {
    Q_OBJECT

    // An object name: a SHA-256 in hex.
    static QString object(char c) { return QString(64, QLatin1Char(c)); }

    struct Shell {
        int exitCode = -1;
        QString out;
        QString err;
    };

    static Shell sh(const QString &command)
    {
        QProcess process;
        process.start(QStringLiteral("sh"), {QStringLiteral("-c"), command});
        process.waitForFinished(60000);
        return {process.exitCode(), QString::fromUtf8(process.readAllStandardOutput()),
                QString::fromUtf8(process.readAllStandardError())};
    }

    static void write(const QString &path, const QByteArray &content, QFile::Permissions mode = {})
    {
        QDir().mkpath(QFileInfo(path).path());
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(content);
        file.close();
        if (mode)
            QVERIFY(file.setPermissions(mode));
    }

    static ino_t inode(const QString &path)
    {
        struct stat info {};
        return ::stat(QFile::encodeName(path).constData(), &info) == 0 ? info.st_ino : 0;
    }

    // A snapshot of three files uploaded to `store`, two of them with the same content.
    static QString upload(const CodeStore &store, bool withObjects = true)
    {
        const QList<CodeFile> files{{QStringLiteral("a dir/it's.py"), 2, false, object('a')},
                                    {QStringLiteral("copy.py"), 2, false, object('a')},
                                    {QStringLiteral("run.sh"), 3, true, object('b')}};
        const QByteArray manifest = codeManifest(files);
        const QString id = codeSnapshotIdOf(manifest);
        write(store.manifestPath(id), manifest);
        if (withObjects) {
            write(store.objectPath(object('a')), "aa", QFile::ReadOwner);
            write(store.objectPath(object('b') + u'x'), "bbb", QFile::ReadOwner | QFile::ExeOwner);
        }
        return id;
    }

private slots:
    void snapshotIds()
    {
        QVERIFY(isCodeSnapshotId(QStringLiteral("0123456789abcdef0123")));
        QVERIFY(!isCodeSnapshotId(QStringLiteral("0123456789abcdef012")));
        QVERIFY(!isCodeSnapshotId(QStringLiteral("0123456789abcdef012; rm -rf ~")));
    }

    void preparesAndFindsMissingObjects()
    {
        QTemporaryDir tmp;
        const CodeStore store{tmp.filePath(QStringLiteral("work dir/code"))};
        const Shell prepared = sh(store.prepareCommand());
        QCOMPARE(prepared.exitCode, 0);
        QCOMPARE(prepared.out.trimmed(), QDir(store.root).canonicalPath());
        const QString id = upload(store, false);
        QCOMPARE(sh(store.missingObjectsCommand(id)).out,
                 object('a') + QStringLiteral("\n") + object('b') + QStringLiteral("x\n"));
        write(store.objectPath(object('a')), "aa");
        QCOMPARE(sh(QStringLiteral("touch -d '2 hours ago' '%1'").arg(store.objectPath(object('a')))).exitCode, 0);
        QCOMPARE(sh(store.missingObjectsCommand(id)).out, object('b') + QStringLiteral("x\n"));
        // What the submission counts on is fresh again: a prune spares it.
        QVERIFY(QFileInfo(store.objectPath(object('a'))).lastModified().secsTo(QDateTime::currentDateTime()) < 60);

        QCOMPARE(sh(store.manifestPresentCommand(id)).out, QStringLiteral("present\n"));
        QCOMPARE(sh(store.manifestPresentCommand(QStringLiteral("0123456789abcdef0123"))).out, QString());
    }

    void linksTheRunsCopy()
    {
        QTemporaryDir tmp;
        const CodeStore store{tmp.filePath(QStringLiteral("code"))};
        const QString id = upload(store);
        const QString run = tmp.filePath(QStringLiteral("runs/r1"));
        QVERIFY(QDir().mkpath(run));
        const Shell linked = sh(store.linkCommand(id, run));
        QVERIFY2(linked.exitCode == 0, qPrintable(linked.err));
        const QString code = run + QStringLiteral("/code");
        QCOMPARE(inode(code + QStringLiteral("/a dir/it's.py")), inode(store.objectPath(object('a'))));
        QCOMPARE(inode(code + QStringLiteral("/copy.py")), inode(store.objectPath(object('a'))));
        QVERIFY(QFileInfo(code + QStringLiteral("/run.sh")).isExecutable());
        QCOMPARE(QDir(run).entryList(QDir::AllEntries | QDir::NoDotAndDotDot), QStringList{QStringLiteral("code")});

        // A resume finds it there and leaves it (and what the run wrote into it) alone.
        write(code + QStringLiteral("/outputs.txt"), "mine");
        QCOMPARE(sh(store.linkCommand(id, run)).exitCode, 0);
        QVERIFY(QFile::exists(code + QStringLiteral("/outputs.txt")));
    }

    void saysWhenTheSnapshotIsGone()
    {
        QTemporaryDir tmp;
        const CodeStore store{tmp.filePath(QStringLiteral("code"))};
        const QString id = upload(store, false);
        const QString run = tmp.filePath(QStringLiteral("run"));
        QVERIFY(QDir().mkpath(run));
        const Shell objectGone = sh(store.linkCommand(id, run));
        QCOMPARE(objectGone.exitCode, 3);
        QVERIFY2(objectGone.err.contains(QStringLiteral("code snapshot %1 is no longer on this cluster").arg(id)),
                 qPrintable(objectGone.err));
        QVERIFY(!QFileInfo::exists(run + QStringLiteral("/code")));
        QCOMPARE(QDir(run).entryList(QDir::AllEntries | QDir::NoDotAndDotDot), QStringList{}); // no staging left
        const Shell manifestGone = sh(store.linkCommand(QStringLiteral("0123456789abcdef0123"), run));
        QCOMPARE(manifestGone.exitCode, 3);
        QVERIFY(manifestGone.err.contains(QStringLiteral("its manifest was pruned")));
    }

    void refusesPathsOutOfTheRun()
    {
        QTemporaryDir tmp;
        const CodeStore store{tmp.filePath(QStringLiteral("code"))};
        for (const QString &path :
             {QStringLiteral("../escape.py"), QStringLiteral("/etc/x"), QStringLiteral("a/../../b")}) {
            const QByteArray manifest = codeManifest({{path, 2, false, object('a')}});
            const QString id = codeSnapshotIdOf(manifest);
            write(store.manifestPath(id), manifest);
            write(store.objectPath(object('a')), "aa");
            const QString run = tmp.filePath(QStringLiteral("runs/") + id);
            QVERIFY(QDir().mkpath(run));
            const Shell linked = sh(store.linkCommand(id, run));
            QCOMPARE(linked.exitCode, 4);
            QVERIFY(linked.err.contains(QStringLiteral("unsafe path")));
            QVERIFY(!QFileInfo::exists(tmp.filePath(QStringLiteral("runs/escape.py"))));
        }
    }

    void listsAndPrunes()
    {
        QTemporaryDir tmp;
        const CodeStore store{tmp.filePath(QStringLiteral("code"))};
        const QString kept = upload(store);
        const QByteArray other = codeManifest({{QStringLiteral("old.py"), 2, false, object('c')}});
        const QString old = codeSnapshotIdOf(other);
        write(store.manifestPath(old), other);
        write(store.objectPath(object('c')), "cc");
        const QByteArray fresh = codeManifest({{QStringLiteral("new.py"), 2, false, object('d')}});
        const QString young = codeSnapshotIdOf(fresh);
        write(store.manifestPath(young), fresh);
        write(store.objectPath(object('d')), "dd");
        write(store.objectPath(object('e')), "orphan");
        write(store.objectPath(object('f')), "uploaded just now, its manifest not yet");
        for (const QString &id : {kept, old})
            QCOMPARE(sh(QStringLiteral("touch -d '2 hours ago' '%1'").arg(store.manifestPath(id))).exitCode, 0);
        for (const char c : {'c', 'e'})
            QCOMPARE(sh(QStringLiteral("touch -d '2 hours ago' '%1'").arg(store.objectPath(object(c)))).exitCode, 0);

        const QStringList listed = sh(store.listCommand()).out.split(u'\n', Qt::SkipEmptyParts);
        QCOMPARE(listed.size(), 3);
        QVERIFY(listed.filter(QStringLiteral("manifest %1 3 7 ").arg(kept)).size() == 1);

        const Shell pruned = sh(store.pruneCommand({kept}));
        QVERIFY2(pruned.exitCode == 0, qPrintable(pruned.err));
        QCOMPARE(pruned.out, QStringLiteral("deleted manifest %1\ndeleted objects 2 8\n").arg(old));
        QVERIFY(QFile::exists(store.manifestPath(kept)));
        QVERIFY(QFile::exists(store.manifestPath(young))); // under an hour old: maybe a submission in flight
        QVERIFY(QFile::exists(store.objectPath(object('d'))));
        QVERIFY(!QFile::exists(store.objectPath(object('c'))));
        QVERIFY(!QFile::exists(store.objectPath(object('e'))));
        QVERIFY(QFile::exists(store.objectPath(object('a'))));
        QVERIFY(QFile::exists(store.objectPath(object('f'))));
    }
};

TORCHDECK_TEST_MAIN(TestCodeRemote)
#include "tst_coderemote.moc"
