#pragma once

#include "core/runs/checkpointinventory.h"

#include <QList>
#include <QString>

namespace torchdeck {

// A run's files on the cluster as `torchdeck files`, `pull` and `delete` reach them: every path is taken relative to
// the run's directory and checked twice, here (no absolute path, no "..") and on the cluster (its real path, symlinks
// resolved, inside the run's real directory), so nothing outside the run can be listed, read or removed through it.

// The run's directory: the folder <...>/runs/<run id> its jobs' files lie in, else the work directory's.
QString runDirectoryOf(const QString &runId, const QList<JobRecord> &jobs, const QString &workDirectory);
// The same on one cluster: only its jobs' paths count (a run continued elsewhere has a directory on each).
QString runDirectoryOn(const QString &cluster, const QString &runId, const QList<JobRecord> &jobs,
                       const QString &workDirectory);

// The clusters a run's jobs ran on: its own (`runCluster`) first, then the others in the order of its jobs.
QStringList clustersRanOn(const QString &runCluster, const QList<JobRecord> &jobs);

// Where a path on the cluster lies inside the run's directory ("checkpoints/step_64.pt"); empty when it lies outside.
QString pathInRun(const QString &runId, const QString &absolutePath);

// `relative` cleaned ("a//b/./c" -> "a/b/c"; empty or "." -> ""), or an error in words.
struct RunPath {
    QString path;
    QString error;
};
RunPath cleanRunPath(const QString &relative);

struct RunFile {
    QString path;    // relative to the run's directory
    char kind = 'f'; // f file, d directory, l symlink, ? other
    qint64 bytes = -1;
    double time = 0; // Unix seconds
    QString linkTarget;
    int attempt = -1;    // which attempt wrote it, as its name or the checkpoint record says; -1: none known
    bool latest = false; // the latest checkpoint (a resume starts from it)
    bool best = false;   // the checkpoint with the lowest validation loss
};

// Lists `relative` (a directory: everything under it; a file: itself) and prints it NUL-separated; exits 3 when the
// run's directory is gone, 4 when the path is missing, 5 when it leads outside (stderr says which in words).
QString listRunFilesCommand(const QString &runDirectory, const QString &relative);
QList<RunFile> parseRunFiles(const QByteArray &commandOutput);
// Marks each file's attempt, and the latest and best checkpoint among `checkpoints` (markCheckpoints's marks).
void markRunFiles(QList<RunFile> &files, const QString &runDirectory, const QList<CheckpointEntry> &checkpoints,
                  const QList<JobRecord> &jobs);

// For each path (relative, cleaned): its real path, size and SHA-256 on the cluster, or why it cannot be pulled.
struct RemoteFileSum {
    QString path; // relative, as asked
    QString realPath;
    qint64 bytes = -1;
    QString sha256; // lowercase hex
    QString error;
};
QString sumRunFilesCommand(const QString &runDirectory, const QStringList &relativePaths);
QList<RemoteFileSum> parseRunFileSums(const QByteArray &commandOutput, const QStringList &relativePaths);
// Why a pull of `files` cannot fit in a local folder with `available` bytes free, the bytes already there
// (`localBytes`, each file's or its partial copy's size; missing: none) counted; empty when it fits with 64 MiB to
// spare.
QString localSpaceProblem(const QList<RemoteFileSum> &files, const QList<qint64> &localBytes, qint64 available,
                          const QString &folder);

// One file copied from another cluster's login node to this one's (`resume --on` and moves with a profile's reach).
struct StraightFile {
    QString from;   // absolute, there
    QString to;     // absolute, here
    QString sha256; // what it must hash to here before it takes its name
    int mode = 0600;
    QString label; // how messages name it
};
// The login-node command that copies each file with `ssh -o BatchMode=yes <reach> cat` into a partial file beside its
// target, checks its SHA-256 and gives it its mode and name; it stops, leaving nothing half-copied, at the first that
// cannot be fetched or differs. `reach` is the profile's (ClusterProfile::reach): the user's own ssh arguments.
QString straightCopyCommand(const QString &reach, const QList<StraightFile> &files);
// The ssh a login node runs to reach another cluster with a profile's reach arguments: never asks, gives up in 15 s.
QString sshWithReach(const QString &reach);
// The login-node command that makes `target`'s folder and removes what an earlier copy of `target` left there when its
// connection dropped: SFTP's TARGET.part-X, the straight copy's TARGET.torchdeck-XXXXXX. Any login shell (zsh's
// nomatch included): find matches the names, not the shell. Only for a file no other copy writes meanwhile (a run's
// own).
QString removeCopyLeftoversCommand(const QString &target);

// Prints the run directory's size in bytes (du), or "-" when it is gone: a line, so several can be asked in one
// command.
QString runDirectorySizeCommand(const QString &runDirectory);
// Removes the run's directory, only when its real path is <...>/runs/<run id>, and prints "removed", "gone" or
// "refused" (exit 5, stderr says why), in a subshell so that several can be chained: whatever the store says, nothing
// else goes. Hard links into the code store leave its objects for the other runs.
QString removeRunDirectoryCommand(const QString &runDirectory, const QString &runId);

} // namespace torchdeck
