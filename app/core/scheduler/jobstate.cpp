#include "core/scheduler/jobstate.h"

#include <QHash>

namespace torchdeck {

namespace {

struct StateName {
    JobState state;
    QStringView name;
};

constexpr StateName stateNames[] = {
    {JobState::Pending, u"pending"},     {JobState::Running, u"running"},     {JobState::Completing, u"completing"},
    {JobState::Completed, u"completed"}, {JobState::Failed, u"failed"},       {JobState::Cancelled, u"cancelled"},
    {JobState::Timeout, u"timeout"},     {JobState::Preempted, u"preempted"}, {JobState::Requeued, u"requeued"},
    {JobState::Unknown, u"unknown"},
};

// Slurm 22.05 squeue(1)/sacct(1) "JOB STATE CODES": code and name of each.
QHash<QString, JobState> makeSlurmStates()
{
    struct Entry {
        const char16_t *code;
        const char16_t *name;
        JobState state;
    };
    static constexpr Entry entries[] = {
        {u"PD", u"PENDING", JobState::Pending},
        {u"CF", u"CONFIGURING", JobState::Pending}, // nodes booting, the script has not started
        {u"RD", u"RESV_DEL_HOLD", JobState::Pending},
        {u"S", u"SUSPENDED", JobState::Pending}, // its CPUs are released; it waits to go on
        {u"R", u"RUNNING", JobState::Running},
        {u"RS", u"RESIZING", JobState::Running},
        {u"SI", u"SIGNALING", JobState::Running},
        {u"ST", u"STOPPED", JobState::Running}, // SIGSTOPped but keeps its allocation
        {u"CG", u"COMPLETING", JobState::Completing},
        {u"SO", u"STAGE_OUT", JobState::Completing},
        {u"CD", u"COMPLETED", JobState::Completed},
        {u"F", u"FAILED", JobState::Failed},
        {u"BF", u"BOOT_FAIL", JobState::Failed},
        {u"NF", u"NODE_FAIL", JobState::Failed},
        {u"OOM", u"OUT_OF_MEMORY", JobState::Failed},
        {u"CA", u"CANCELLED", JobState::Cancelled},
        {u"RV", u"REVOKED", JobState::Cancelled}, // a federation sibling started elsewhere
        {u"TO", u"TIMEOUT", JobState::Timeout},
        {u"DL", u"DEADLINE", JobState::Timeout},
        {u"PR", u"PREEMPTED", JobState::Preempted},
        {u"RQ", u"REQUEUED", JobState::Requeued},
        {u"RF", u"REQUEUE_FED", JobState::Requeued},
        {u"RH", u"REQUEUE_HOLD", JobState::Requeued},
        {u"SE", u"SPECIAL_EXIT", JobState::Requeued}, // requeued and held by an epilog's verdict
    };
    QHash<QString, JobState> states;
    for (const Entry &entry : entries) {
        states.insert(QString::fromUtf16(entry.code), entry.state);
        states.insert(QString::fromUtf16(entry.name), entry.state);
    }
    return states;
}

} // namespace

QString jobStateName(JobState state)
{
    for (const StateName &entry : stateNames) {
        if (entry.state == state)
            return entry.name.toString();
    }
    return QStringLiteral("unknown");
}

JobState jobStateFromName(const QString &text)
{
    for (const StateName &entry : stateNames) {
        if (entry.name == text)
            return entry.state;
    }
    return JobState::Unknown;
}

bool isFinal(JobState state)
{
    switch (state) {
    case JobState::Completed:
    case JobState::Failed:
    case JobState::Cancelled:
    case JobState::Timeout:
    case JobState::Preempted:
        return true;
    case JobState::Pending:
    case JobState::Running:
    case JobState::Completing:
    case JobState::Requeued:
    case JobState::Unknown:
        return false;
    }
    return false;
}

JobState slurmJobState(const QString &codeOrName)
{
    static const QHash<QString, JobState> states = makeSlurmStates();
    // "CANCELLED by 1000" (sacct), "CANCELLED+" (sacct's fixed width cut it): the first word is the state.
    QString word = codeOrName.trimmed().section(u' ', 0, 0);
    while (word.endsWith(u'+'))
        word.chop(1);
    return states.value(word.toUpper(), JobState::Unknown);
}

JobState pbsJobState(const QString &letter)
{
    const QString code = letter.trimmed();
    if (code.size() != 1)
        return JobState::Unknown;
    switch (code.at(0).unicode()) {
    case u'Q': // queued
    case u'H': // held
    case u'W': // waiting for its start time
    case u'T': // being moved
    case u'M': // moved to another server, queued there
    case u'S': // suspended by the server (resources given to a higher priority job)
    case u'U': // suspended because the workstation is busy
        return JobState::Pending;
    case u'R':
    case u'B': // array job: at least one subjob began
        return JobState::Running;
    case u'E':
        return JobState::Completing;
    case u'F': // PBS Pro finished (history), X finished subjob, C Torque completed
    case u'X':
    case u'C':
        return JobState::Completed;
    default:
        return JobState::Unknown;
    }
}

} // namespace torchdeck
