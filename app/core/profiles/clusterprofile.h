#pragma once

#include "core/clustercheckitem.h"
#include "core/jobs/clustercaps.h"
#include "core/scheduler/schedulercommands.h"

#include <QDateTime>
#include <QJsonObject>
#include <QString>
#include <QStringList>

namespace torchdeck {

// Whether a job may requeue itself on the cluster (scontrol requeue, qrerun): what `torchdeck check` found with
// a tiny job that tries it. New runs use in-job requeue where it is allowed, else the agent restarts them from
// outside (core/runs/restartmechanism.h).
enum class InJobRequeue { Unknown, Allowed, Refused };
QString inJobRequeueName(InJobRequeue value); // unknown | allowed | refused
std::optional<InJobRequeue> inJobRequeueFromName(const QString &name);

// What torchdeck knows about one cluster beyond the ssh config: how to schedule, where to work, how to
// build the trainer. The name is the ssh config's Host alias (the connection comes from there).
struct ClusterProfile {
    QString name;
    SchedulerKind scheduler = SchedulerKind::Slurm;
    PbsDialect pbsDialect = PbsDialect::PbsPro;
    SlurmHistory slurmHistory = SlurmHistory::Accounting;
    QString account;
    QString partition; // Slurm partition or PBS queue; empty: the scheduler's default
    QString workDirectory = QStringLiteral("~/.torchdeck"); // remote; runs and trainer builds live under it
    QStringList modules; // `module load` each before a build and in job scripts (when the job names none)
    QString libtorch = QStringLiteral("auto"); // CMAKE_PREFIX_PATH on the cluster, or "auto"
    QString trainerBinary;                     // a torchdeck-train already on the cluster: no upload, no build
    bool buildInJob = false; // build the trainer in a short job (Slurm: srun) instead of on the login node
    int buildCpus = 4;       // the build job's CPUs
    QStringList logPatterns; // for users' own commands, after a job's own (core/metrics/logmetrics.h)
    QString notifyCommand;   // a local shell command the agent runs with each run's notice as JSON on stdin
    // "CLUSTER=SSH ARGUMENTS": this login node reaches CLUSTER's with `ssh ARGUMENTS` and the keys it has there, so a
    // run continued here from CLUSTER copies its checkpoint straight from there (`torchdeck profile --reach`).
    QStringList reach;
    int waitNoticeSeconds = 3600; // tell the user of a job the scheduler keeps waiting longer; 0: never
    // The scheduler is asked (squeue, sacct, qstat) at most this often, whatever a front wishes: sites limit it.
    int minPollSeconds = 10;
    InJobRequeue inJobRequeue = InJobRequeue::Unknown;
    // The cluster's shape as the agent or `torchdeck check` last read it, and when: the partitions (Slurm: sinfo;
    // PBS: the queues, qstat -Qf; core/profiles/partitionshape.h), the user's accounts and the QOS (sacctmgr,
    // core/profiles/accountlimits.h).
    QList<PartitionCaps> partitions;
    QList<AccountAccess> accounts;
    QList<QosLimits> qos;
    QDateTime partitionsReadAt;
    // Takes `other`'s shape when it was read later (two writers of the profile file: the newest read wins).
    void adoptNewerShape(const ClusterProfile &other);
    // Whether the shape is recent enough to check a job against (read in the last half day; a local cluster's
    // always is); an older one the agent reads again before a submission.
    bool shapeIsFresh() const;
    // The profile without its shape: a job checked against it is not refused by limits that may have changed.
    ClusterProfile withoutShape() const;

    QJsonObject toJson() const; // without the name
    // Unknown keys are ignored (a newer torchdeck wrote them); a bad value names its key in `error`.
    static ClusterProfile fromJson(const QString &name, const QJsonObject &object, QString *error);

    SchedulerCommands commands(const QString &localStateDir = {}) const;
    // What validation and rendering know of the cluster from this profile: the one place that builds it.
    ClusterCaps caps() const;
    // What "Check cluster" looks at on this cluster.
    ClusterCheckSettings checkSettings() const;
    QString libtorchPrefix() const { return libtorch == u"auto" ? QString() : libtorch; }
    // `module load <module>` for each module, quoted, for the shell lines run before a build or a check.
    QStringList moduleLoadLines() const;
    // The ssh arguments that reach `cluster` from this login node (reach); empty: none given.
    QString reachArgs(const QString &cluster) const;
};
bool operator==(const ClusterProfile &a, const ClusterProfile &b);

// One line of ClusterProfile::reach, "CLUSTER=SSH ARGUMENTS", split; `cluster` is empty where the line is not of
// that form (no '=', or nothing before it). The one reader of such lines: the profile, its validation, `profile
// --reach`.
struct ReachLine {
    QString cluster;
    QString sshArgs; // trimmed; empty after "CLUSTER=": forget that cluster's line (`--reach CLUSTER=`)
};
ReachLine parseReachLine(const QString &line);
// `reach` with each of `given` in place of the line of its cluster, in order; one with empty arguments removes it.
QStringList mergeReach(QStringList reach, const QStringList &given);

// The built-in profile of a name: the sandbox's (Slurm without accounting, runs under its own directory),
// or the defaults.
ClusterProfile defaultProfile(const QString &name);

QString schedulerKindName(SchedulerKind kind); // slurm | pbs | local
std::optional<SchedulerKind> schedulerKindFromName(const QString &name);
QString slurmHistoryName(SlurmHistory history); // accounting | completion-file | controller
std::optional<SlurmHistory> slurmHistoryFromName(const QString &name);

} // namespace torchdeck
