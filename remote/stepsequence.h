#pragma once

#include <QList>
#include <QObject>
#include <QPointer>
#include <QString>
#include <functional>
#include <memory>

namespace torchdeck::remote {

class StepSequence;

// What a running step is handed: it calls done() or fail() once, from whatever callback ends its work. A call
// from a step that is no longer the current one (the sequence was stopped or restarted) is ignored, so a late
// reply can never move a sequence on.
class StepHandle {
public:
    void done() const;
    void fail(const QString &detail) const;
    // Done, and so is the sequence: the steps after this one are not needed (finished follows).
    void doneAll() const;
    // For connections made by the step: they are dropped with the sequence.
    QObject *context() const;

private:
    friend class StepSequence;
    StepHandle(StepSequence *sequence, quint64 token);
    QPointer<StepSequence> m_sequence;
    quint64 m_token = 0;
};

// One step of a multi-step remote workflow: what it says while it runs, the words its failure starts with
// ("preparing the run directory: <what went wrong>") and what it does.
struct Step {
    QString title;     // shown as progress while it runs; empty: a step that says nothing
    QString errorText; // empty: the detail alone is the error
    std::function<void(const StepHandle &)> run;
};

// A declared sequence of small asynchronous steps (in the spirit of Qt Creator's Tasking module): each starts
// when the one before it is done; the first failure ends the sequence with that step's own error text.
// Steps may add steps after themselves (then()) when what follows depends on what they found. start() runs
// the declared steps from the first, so one sequence serves again and again (a tracker's passes). Never blocks.
class StepSequence : public QObject {
    Q_OBJECT
public:
    explicit StepSequence(QObject *parent = nullptr);

    void add(Step step);
    // Inserted right after the running step, for this run only: a follow-up that depends on its outcome.
    void then(QList<Step> steps);
    void start();
    // Drops the steps left; what the running step still delivers is ignored. No signal follows.
    void stop();
    bool isRunning() const { return m_running; }

signals:
    void started();
    void progress(const QString &title, qint64 done, qint64 total);
    void finished();
    void failed(const QString &error);

private:
    friend class StepHandle;
    void runNext();
    void stepDone(quint64 token);
    void stepFailed(quint64 token, const QString &detail);
    void stepDoneAll(quint64 token);

    QList<Step> m_declared;
    QList<Step> m_steps;      // left of this run
    qsizetype m_inserted = 0; // steps then() put before the rest, for the running step
    Step m_current;
    quint64 m_token = 0;
    bool m_running = false;
};

// Calls `then` once, after `count` calls of the returned function: for a step that waits on several
// operations at once. With a count of 0 `then` is called at once.
std::function<void()> afterAll(int count, std::function<void()> then);

} // namespace torchdeck::remote
