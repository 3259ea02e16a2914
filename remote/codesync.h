#pragma once

#include "core/code/codesnapshot.h"
#include "remote/stepsequence.h"

#include <QObject>
#include <QPointer>

namespace torchdeck::remote {

class Connection;
struct ReadObject;

struct CodeSyncResult {
    QString snapshotId;
    int files = 0;
    int uploadedFiles = 0; // objects the cluster did not have
    qint64 uploadedBytes = 0;
    QStringList linksOutside; // files sent as what a link to outside the folder points to
};

// Puts a local project folder on a cluster as a content-addressed snapshot (core/code/coderemote.h), a
// StepSequence:
//   hash the files (off the event loop) -> make <work>/code -> upload the manifest unless it is there -> ask
//   which objects are missing -> upload those alone, each read and checked against its hash off the
//   event loop.
// Unchanged files are never sent again, whichever snapshot had them first. stop() ends it, silently.
class CodeSync : public QObject {
    Q_OBJECT
public:
    CodeSync(Connection *connection, QString localDirectory, QString workDirectory, QObject *parent = nullptr);
    ~CodeSync() override;

    void start();
    void stop() { m_steps.stop(); }

signals:
    void progress(const QString &step, qint64 done, qint64 total);
    void finished(const torchdeck::remote::CodeSyncResult &result);
    void failed(const QString &error);

private:
    void hash(const StepHandle &step);
    void run(const StepHandle &step, const QString &what, const QString &command,
             const std::function<void(const QByteArray &)> &then);
    void prepareStore(const StepHandle &step);
    void uploadManifest(const StepHandle &step);
    void findMissing(const StepHandle &step);
    void uploadNext(const StepHandle &step);
    void upload(const StepHandle &step, const CodeFile &file, const ReadObject &read);

    QPointer<Connection> m_connection;
    QString m_localDirectory;
    QString m_workDirectory; // absolute, on the cluster
    QString m_root;
    CodeSnapshot m_snapshot;
    QList<CodeFile> m_missing;
    qint64 m_missingBytes = 0;
    CodeSyncResult m_result;
    std::shared_ptr<std::atomic<bool>> m_hashing = std::make_shared<std::atomic<bool>>(true);
    StepSequence m_steps;
};

} // namespace torchdeck::remote

Q_DECLARE_METATYPE(torchdeck::remote::CodeSyncResult)
