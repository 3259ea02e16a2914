#include "remote/codesync.h"

#include "core/code/coderemote.h"
#include "remote/connection.h"

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QSet>
#include <QThread>

namespace torchdeck::remote {

namespace {

// Runs `call` on the main thread's event loop, if `target` still exists then. The pointer is only copied
// here; it is read where the object lives.
template <typename T> void inMainThread(const QPointer<T> &target, std::function<void(T *)> call)
{
    QMetaObject::invokeMethod(
        QCoreApplication::instance(),
        [target, call] {
            if (target)
                call(target.data());
        },
        Qt::QueuedConnection);
}

// `work` on a thread of its own, then `done` with its result on the main thread while `context` lives.
template <typename Result>
void offThread(QObject *context, std::function<Result()> work, std::function<void(const Result &)> done)
{
    const QPointer<QObject> guard(context);
    QThread *thread = QThread::create([guard, work, done] {
        const Result result = work();
        inMainThread<QObject>(guard, [done, result](QObject *) { done(result); });
    });
    QObject::connect(thread, &QThread::finished, thread, &QObject::deleteLater);
    thread->start();
}

} // namespace

// A file to upload as read now, or why it cannot be: what was hashed is what is sent, or the snapshot lies.
struct ReadObject {
    QByteArray content;
    QString error;
};

namespace {

ReadObject readObject(const QString &path, const CodeFile &file)
{
    QFile in(path);
    if (!in.open(QIODevice::ReadOnly))
        return {{}, CodeSync::tr("cannot read %1: %2").arg(path, in.errorString())};
    const QByteArray content = in.readAll();
    if (QString::fromLatin1(QCryptographicHash::hash(content, QCryptographicHash::Sha256).toHex()) != file.hash)
        return {{}, CodeSync::tr("%1 changed while it was uploaded: submit again").arg(file.path)};
    return {content, {}};
}

} // namespace

CodeSync::CodeSync(Connection *connection, QString localDirectory, QString workDirectory, QObject *parent)
    : QObject(parent)
    , m_connection(connection)
    , m_localDirectory(std::move(localDirectory))
    , m_workDirectory(std::move(workDirectory))
{
    qRegisterMetaType<CodeSyncResult>();
}

CodeSync::~CodeSync()
{
    *m_hashing = false; // a hashing thread still running stops at its next file
}

void CodeSync::start()
{
    emit progress(tr("Reading the code in %1").arg(m_localDirectory), 0, 0);
    // Hashing a big folder takes seconds: the window stays responsive meanwhile.
    const auto running = m_hashing;
    const QString directory = m_localDirectory;
    const QPointer<CodeSync> self(this);
    offThread<CodeSnapshot>(
        this,
        [running, self, directory] {
            return makeCodeSnapshot(directory, [running, self](qint64 done, qint64 total) {
                inMainThread<CodeSync>(
                    self, [done, total](CodeSync *sync) { emit sync->progress(tr("Hashing the code"), done, total); });
                return running->load();
            });
        },
        [this](const CodeSnapshot &snapshot) { hashed(snapshot); });
}

void CodeSync::fail(const QString &error)
{
    m_stopped = true;
    emit failed(error);
}

void CodeSync::run(const QString &what, const QString &command, const std::function<void(const QByteArray &)> &then)
{
    if (!m_connection)
        return fail(tr("%1: no connection").arg(what));
    RemoteCommand *command_ = m_connection->run(command);
    connect(command_, &RemoteCommand::failed, this, [this, what](const QString &error) { fail(what + u": " + error); });
    connect(command_, &RemoteCommand::finished, this, [this, what, then](const ExecResult &result) {
        if (result.exitCode != 0)
            return fail(QStringLiteral("%1: %2").arg(what, QString::fromUtf8(result.err.trimmed())));
        then(result.out);
    });
}

void CodeSync::hashed(const CodeSnapshot &snapshot)
{
    if (m_stopped)
        return;
    if (!snapshot.ok())
        return fail(snapshot.error);
    m_snapshot = snapshot;
    m_result.snapshotId = snapshot.id;
    m_result.files = int(snapshot.files.size());
    CodeStore store{m_workDirectory + QStringLiteral("/code")};
    run(tr("making the code folder on the cluster"), store.prepareCommand(), [this](const QByteArray &out) {
        m_root = QString::fromUtf8(out.trimmed());
        uploadManifest();
    });
}

void CodeSync::uploadManifest()
{
    emit progress(tr("Comparing snapshot %1 with the cluster's").arg(m_snapshot.id), 0, 0);
    // Uploaded once: replacing it would take it away for a moment from a submission of the same code.
    run(tr("looking for the code's manifest"), CodeStore{m_root}.manifestPresentCommand(m_snapshot.id),
        [this](const QByteArray &out) {
            if (out.trimmed() == "present")
                return findMissing();
            sendManifest();
        });
}

void CodeSync::sendManifest()
{
    if (!m_connection)
        return fail(tr("uploading the code: no connection"));
    RemoteUpload *upload =
        m_connection->uploadData(codeManifest(m_snapshot.files), CodeStore{m_root}.manifestPath(m_snapshot.id), 0600);
    connect(upload, &RemoteUpload::failed, this,
            [this](const QString &error) { fail(tr("uploading the code's manifest: %1").arg(error)); });
    connect(upload, &RemoteUpload::finished, this, [this] { findMissing(); });
}

void CodeSync::findMissing()
{
    run(tr("comparing the code with the cluster's"), CodeStore{m_root}.missingObjectsCommand(m_snapshot.id),
        [this](const QByteArray &out) {
            QSet<QString> missing;
            for (const QByteArray &line : out.split('\n')) {
                if (!line.isEmpty())
                    missing.insert(QString::fromLatin1(line));
            }
            for (const CodeFile &file : std::as_const(m_snapshot.files)) {
                if (missing.remove(codeObjectName(file))) { // once per object, whatever files share it
                    m_missing.append(file);
                    m_missingBytes += file.size;
                }
            }
            uploadNext();
        });
}

void CodeSync::uploadNext()
{
    if (m_stopped)
        return;
    if (m_missing.isEmpty())
        return emit finished(m_result);
    if (!m_connection)
        return fail(tr("uploading the code: no connection"));
    const CodeFile file = m_missing.takeFirst();
    const QString path = QDir(m_snapshot.directory).filePath(file.path);
    offThread<ReadObject>(
        this, [path, file] { return readObject(path, file); },
        [this, file](const ReadObject &read) { upload(file, read); });
}

void CodeSync::upload(const CodeFile &file, const ReadObject &read)
{
    if (m_stopped)
        return;
    if (!read.error.isEmpty())
        return fail(read.error);
    if (!m_connection)
        return fail(tr("uploading the code: no connection"));
    RemoteUpload *upload = m_connection->uploadData(read.content, CodeStore{m_root}.objectPath(codeObjectName(file)),
                                                    file.executable ? 0555 : 0444);
    connect(upload, &RemoteUpload::failed, this,
            [this, file](const QString &error) { fail(tr("uploading %1: %2").arg(file.path, error)); });
    connect(upload, &RemoteUpload::finished, this, [this](qint64 bytes) {
        ++m_result.uploadedFiles;
        m_result.uploadedBytes += bytes;
        emit progress(tr("Uploading the code (%1)").arg(m_snapshot.id), m_result.uploadedBytes, m_missingBytes);
        uploadNext();
    });
}

} // namespace torchdeck::remote
