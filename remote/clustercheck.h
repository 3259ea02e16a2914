#pragma once

#include "core/clustercheckitem.h"
#include "core/profiles/clusterprofile.h"
#include "core/schedulerkind.h"
#include "remote/stepsequence.h"

#include <QList>
#include <QMetaType>
#include <QObject>
#include <QPointer>
#include <QString>
#include <functional>

namespace torchdeck::remote {

class Connection;

// "Check cluster": on an open connection, one line per check, a declared sequence of steps in order, each
// independent of the others' failure: shell quoting round trip, SFTP, scheduler commands, cmake and a C++
// compiler, LibTorch, work directory writable, and the PyTorch users' own scripts would get (torchrun and its
// spellings; a warning at most: the bundled trainer does not need it), whether the login node reaches the other
// clusters the profile says it reaches, and where asked whether a job may requeue itself. (Reachability and
// authentication of this cluster are the connection's own states.)
class ClusterCheck : public QObject {
    Q_OBJECT
public:
    ClusterCheck(Connection *connection, ClusterCheckSettings settings, QObject *parent = nullptr);
    void start();

signals:
    void itemChecked(const torchdeck::CheckItem &item);
    void finished(const QList<torchdeck::CheckItem> &items);

private:
    void runShell(const StepHandle &step, const QString &name, const QString &script,
                  const std::function<CheckItem(int exitCode, const QString &out, const QString &err)> &judge);
    void report(const StepHandle &step, const CheckItem &item);
    void checkQuoting(const StepHandle &step);
    void checkSftp(const StepHandle &step);
    void checkScheduler(const StepHandle &step);
    void checkToolchain(const StepHandle &step);
    void checkLibTorch(const StepHandle &step);
    void checkWorkDirectory(const StepHandle &step);
    void checkPyTorchLauncher(const StepHandle &step);
    void checkFairShare(const StepHandle &step);
    void checkQuota(const StepHandle &step);
    void checkPartitions(const StepHandle &step); // Slurm: sinfo, kept in the profile by the fronts
    void checkAccounts(const StepHandle &step);   // Slurm: sacctmgr, where the site keeps accounting
    void checkRequeue(const StepHandle &step);    // only when the settings ask for it (core/runs/requeueprobe.h)
    void checkReach(const StepHandle &step, const QString &line); // one per reach of the profile

    QPointer<Connection> m_connection;
    ClusterCheckSettings m_settings;
    StepSequence m_steps;
    QList<CheckItem> m_items;
};

} // namespace torchdeck::remote
