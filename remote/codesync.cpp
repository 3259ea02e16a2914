#include "remote/codesync.h"

#include "core/code/coderemote.h"
#include "core/jobs/runlayout.h"
#include "remote/commandstep.h"
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
    m_steps.add(
        {tr("Reading the code in %1").arg(m_localDirectory), {}, [this](const StepHandle &step) { hash(step); }});
    m_steps.add({{}, {}, [this](const StepHandle &step) { prepareStore(step); }});
    m_steps.add({{}, {}, [this](const StepHandle &step) { uploadManifest(step); }});
    m_steps.add({{}, {}, [this](const StepHandle &step) { findMissing(step); }});
    m_steps.add({{}, {}, [this](const StepHandle &step) { uploadNext(step); }});
    connect(&m_steps, &StepSequence::progress, this, &CodeSync::progress);
    connect(&m_steps, &StepSequence::failed, this, &CodeSync::failed);
    connect(&m_steps, &StepSequence::finished, this, [this] { emit finished(m_result); });
}

CodeSync::~CodeSync()
{
    *m_hashing = false; // a hashing thread still running stops at its next file
}

void CodeSync::start()
{
    m_result = {};
    m_missing.clear();
    m_missingBytes = 0;
    m_steps.start();
}

void CodeSync::hash(const StepHandle &step)
{
    // Hashing a big folder takes seconds: the window stays responsive meanwhile.
    const auto running = m_hashing;
    const QString directory = m_localDirectory;
    const QPointer<CodeSync> self(this);
    offThread<CodeSnapshot>(
        step.context(),
        [running, self, directory] {
            return makeCodeSnapshot(directory, [running, self](qint64 done, qint64 total) {
                inMainThread<CodeSync>(
                    self, [done, total](CodeSync *sync) { emit sync->progress(tr("Hashing the code"), done, total); });
                return running->load();
            });
        },
        [this, step](const CodeSnapshot &snapshot) {
            if (!snapshot.ok())
                return step.fail(snapshot.error);
            m_snapshot = snapshot;
            m_result.snapshotId = snapshot.id;
            m_result.files = int(snapshot.files.size());
            m_result.linksOutside = snapshot.linksOutside;
            step.done();
        });
}

void CodeSync::run(const StepHandle &step, const QString &what, const QString &command,
                   const std::function<void(const QByteArray &)> &then)
{
    runCommandStep(m_connection, step, what, command, then);
}

void CodeSync::prepareStore(const StepHandle &step)
{
    const CodeStore store{WorkLayout{m_workDirectory}.codeStore()};
    run(step, tr("making the code folder on the cluster"), store.prepareCommand(), [this, step](const QByteArray &out) {
        m_root = QString::fromUtf8(out.trimmed());
        step.done();
    });
}

void CodeSync::uploadManifest(const StepHandle &step)
{
    emit progress(tr("Comparing snapshot %1 with the cluster's").arg(m_snapshot.id), 0, 0);
    // Uploaded once: replacing it would take it away for a moment from a submission of the same code.
    run(step, tr("looking for the code's manifest"), CodeStore{m_root}.manifestPresentCommand(m_snapshot.id),
        [this, step](const QByteArray &out) {
            if (out.trimmed() == "present")
                return step.done();
            if (!m_connection)
                return step.fail(tr("uploading the code: no connection"));
            RemoteUpload *upload = m_connection->uploadData(codeManifest(m_snapshot.files),
                                                            CodeStore{m_root}.manifestPath(m_snapshot.id), 0600);
            connect(upload, &RemoteUpload::failed, step.context(),
                    [step](const QString &error) { step.fail(tr("uploading the code's manifest: %1").arg(error)); });
            connect(upload, &RemoteUpload::finished, step.context(), [step] { step.done(); });
        });
}

void CodeSync::findMissing(const StepHandle &step)
{
    run(step, tr("comparing the code with the cluster's"), CodeStore{m_root}.missingObjectsCommand(m_snapshot.id),
        [this, step](const QByteArray &out) {
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
            step.done();
        });
}

void CodeSync::uploadNext(const StepHandle &step)
{
    if (m_missing.isEmpty())
        return step.done();
    if (!m_connection)
        return step.fail(tr("uploading the code: no connection"));
    const CodeFile file = m_missing.takeFirst();
    const QString path = QDir(m_snapshot.directory).filePath(file.path);
    offThread<ReadObject>(
        step.context(), [path, file] { return readObject(path, file); },
        [this, step, file](const ReadObject &read) { upload(step, file, read); });
}

void CodeSync::upload(const StepHandle &step, const CodeFile &file, const ReadObject &read)
{
    if (!read.error.isEmpty())
        return step.fail(read.error);
    if (!m_connection)
        return step.fail(tr("uploading the code: no connection"));
    RemoteUpload *upload = m_connection->uploadData(read.content, CodeStore{m_root}.objectPath(codeObjectName(file)),
                                                    file.executable ? 0555 : 0444);
    connect(upload, &RemoteUpload::failed, step.context(),
            [step, file](const QString &error) { step.fail(tr("uploading %1: %2").arg(file.path, error)); });
    connect(upload, &RemoteUpload::finished, step.context(), [this, step](qint64 bytes) {
        ++m_result.uploadedFiles;
        m_result.uploadedBytes += bytes;
        emit progress(tr("Uploading the code (%1)").arg(m_snapshot.id), m_result.uploadedBytes, m_missingBytes);
        uploadNext(step); // one object after another: the SFTP channel is one
    });
}

} // namespace torchdeck::remote
