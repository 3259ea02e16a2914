#pragma once

#include <QCborMap>
#include <QCborValue>
#include <QObject>
#include <functional>

namespace torchdeck {

// One long operation of a cluster session, in the vocabulary every long operation shares: started,
// progress, output, event (what an operation reports of its own: a script rendered, a job submitted, a check's
// line, log bytes), and exactly one of finished or failed; stop() asks it to end early. Results and events are
// CBOR (core/agent/agentcodec.h decodes them), because an operation runs in the agent and a front sees it
// through the socket: the agent's session and the front's handle are both SessionOperations. Nothing is
// emitted before the event loop runs again, so a caller connects after the call that made it. Deletes itself
// after finished or failed.
class SessionOperation : public QObject {
    Q_OBJECT
public:
    explicit SessionOperation(QObject *parent = nullptr);

    void stop();
    bool isDone() const { return m_done; }

    // For the one that runs it.
    void reportProgress(const QString &step, qint64 done, qint64 total);
    void reportOutput(const QString &text);
    void reportEvent(const QString &name, const QCborMap &args = {});
    void finish(const QCborValue &result = QCborMap{});
    void fail(const QString &error);
    // Called once by stop(); the default ends the operation as failed.
    void setStopHandler(std::function<void()> handler) { m_stopHandler = std::move(handler); }

    // An operation already over: it reports its failure (or result) once the event loop runs.
    static SessionOperation *alreadyFailed(const QString &error, QObject *parent = nullptr);
    static SessionOperation *alreadyFinished(const QCborValue &result = QCborMap{}, QObject *parent = nullptr);

signals:
    void started();
    void progress(const QString &step, qint64 done, qint64 total);
    void output(const QString &text);
    void event(const QString &name, const QCborMap &args);
    void finished(const QCborValue &result);
    void failed(const QString &error);

private:
    void later(std::function<void()> emitIt);

    bool m_done = false;
    std::function<void()> m_stopHandler;
};

} // namespace torchdeck
