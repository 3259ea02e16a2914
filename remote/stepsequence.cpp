#include "remote/stepsequence.h"

#include <QTimer>

namespace torchdeck::remote {

StepHandle::StepHandle(StepSequence *sequence, quint64 token)
    : m_sequence(sequence)
    , m_token(token)
{
}

void StepHandle::done() const
{
    if (m_sequence)
        m_sequence->stepDone(m_token);
}

void StepHandle::fail(const QString &detail) const
{
    if (m_sequence)
        m_sequence->stepFailed(m_token, detail);
}

void StepHandle::doneAll() const
{
    if (m_sequence)
        m_sequence->stepDoneAll(m_token);
}

QObject *StepHandle::context() const
{
    return m_sequence;
}

StepSequence::StepSequence(QObject *parent)
    : QObject(parent)
{
}

void StepSequence::add(Step step)
{
    m_declared.append(std::move(step));
}

void StepSequence::then(QList<Step> steps)
{
    for (Step &step : steps)
        m_steps.insert(m_inserted++, std::move(step));
}

void StepSequence::start()
{
    stop();
    m_steps = m_declared;
    m_running = true;
    emit started();
    runNext();
}

void StepSequence::stop()
{
    m_running = false;
    m_steps.clear();
    ++m_token;
}

void StepSequence::runNext()
{
    if (!m_running)
        return;
    if (m_steps.isEmpty()) {
        m_running = false;
        return emit finished();
    }
    m_current = m_steps.takeFirst();
    m_inserted = 0;
    const StepHandle handle(this, ++m_token);
    if (!m_current.title.isEmpty())
        emit progress(m_current.title, 0, 0);
    m_current.run(handle);
}

void StepSequence::stepDone(quint64 token)
{
    if (!m_running || token != m_token)
        return;
    ++m_token; // a second call from the same step is stale
    // Not from inside the step's own call stack: a step that finishes at once must not recurse.
    QTimer::singleShot(0, this, &StepSequence::runNext);
}

void StepSequence::stepDoneAll(quint64 token)
{
    if (!m_running || token != m_token)
        return;
    m_steps.clear();
    stepDone(token);
}

void StepSequence::stepFailed(quint64 token, const QString &detail)
{
    if (!m_running || token != m_token)
        return;
    stop();
    emit failed(m_current.errorText.isEmpty() ? detail : m_current.errorText + QStringLiteral(": ") + detail);
}

std::function<void()> afterAll(int count, std::function<void()> then)
{
    if (count <= 0) {
        then();
        return [] {};
    }
    auto left = std::make_shared<int>(count);
    return [left, then = std::move(then)] {
        if (*left > 0 && --*left == 0)
            then();
    };
}

} // namespace torchdeck::remote
