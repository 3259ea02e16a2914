#include "core/runs/checkpointinventory.h"

#include "core/coretr.h"
#include "core/shellquote.h"

#include <QHash>
#include <algorithm>
#include <limits>

namespace torchdeck {

CheckpointPlaces::CheckpointPlaces(const QString &runCluster, const QList<JobRecord> &jobs)
    : m_runCluster(runCluster)
{
    for (const JobRecord &job : jobs)
        m_clusterOfAttempt.insert(job.attempt, job.cluster.isEmpty() ? runCluster : job.cluster);
}

QString CheckpointPlaces::of(const CheckpointRecord &checkpoint) const
{
    return m_clusterOfAttempt.value(checkpoint.attempt, m_runCluster);
}

QList<CheckpointRecord> CheckpointPlaces::on(const QString &cluster, const QList<CheckpointRecord> &checkpoints) const
{
    QList<CheckpointRecord> here;
    for (const CheckpointRecord &checkpoint : checkpoints)
        if (of(checkpoint) == cluster)
            here.append(checkpoint);
    return here;
}

QStringList CheckpointPlaces::clusters(const QList<CheckpointRecord> &checkpoints) const
{
    QStringList clusters;
    for (const CheckpointRecord &checkpoint : checkpoints) {
        const QString cluster = of(checkpoint);
        if (!clusters.contains(cluster))
            clusters.append(cluster);
    }
    if (clusters.removeOne(m_runCluster))
        clusters.prepend(m_runCluster);
    return clusters;
}

QHash<QString, QStringList> CheckpointPlaces::asRecorded(const QList<CheckpointRecord> &checkpoints) const
{
    QHash<QString, QStringList> present;
    for (const CheckpointRecord &checkpoint : checkpoints)
        present[of(checkpoint)].append(checkpoint.path);
    return present;
}

QString presentCheckpointsCommand(const QList<CheckpointRecord> &checkpoints)
{
    // The folders, not every path ever recorded: a long run's thousands of paths in one command line would
    // pass the kernel's limit on an argument (128 KiB).
    QStringList folders;
    for (const CheckpointRecord &checkpoint : checkpoints) {
        const QString folder = checkpoint.path.section(u'/', 0, -2);
        if (!folders.contains(folder))
            folders.append(folder);
    }
    QString command = QStringLiteral("for d in");
    for (const QString &folder : std::as_const(folders))
        command += u' ' + shellQuote(folder.isEmpty() ? QStringLiteral("/") : folder);
    return command + QStringLiteral("; do if test -d \"$d\"; then for f in \"$d\"/*.pt; do "
                                    "if test -f \"$f\"; then printf '%s\\n' \"$f\"; fi; done; fi; done");
}

QStringList parsePresentCheckpoints(const QByteArray &commandOutput)
{
    return QString::fromUtf8(commandOutput).split(u'\n', Qt::SkipEmptyParts);
}

QList<CheckpointEntry> markCheckpoints(const QList<CheckpointRecord> &checkpoints, const CheckpointPlaces &places,
                                       const QHash<QString, QStringList> &present, const RunSeries &series)
{
    QHash<qint64, double> valLoss;
    for (const QPointF &point : series.series(SeriesKind::ValLoss).visiblePoints())
        valLoss.insert(qint64(point.x()), point.y());
    QList<CheckpointEntry> entries;
    QHash<QString, qsizetype> latest; // by cluster: each has its own line of checkpoints to resume from
    qsizetype best = -1;
    double lowest = std::numeric_limits<double>::infinity();
    for (const CheckpointRecord &record : checkpoints) { // by step
        CheckpointEntry entry;
        entry.record = record;
        entry.cluster = places.of(record);
        const auto listed = present.constFind(entry.cluster);
        entry.checked = listed != present.cend();
        entry.present = entry.checked && listed->contains(record.path);
        entry.setAside = isSupersededCheckpoint(record.path);
        if (entry.present && !entry.setAside && record.valid) // a resume skips torn ones
            latest.insert(entry.cluster, entries.size());
        // A checkpoint's epoch counts the epochs done: the validation of that epoch is keyed by it too.
        const auto loss = valLoss.constFind(record.epoch);
        if (entry.present && loss != valLoss.cend() && (record.reason == u"epoch" || record.reason == u"final") &&
            *loss < lowest) {
            lowest = *loss;
            best = entries.size();
        }
        entries.append(entry);
    }
    for (const qsizetype index : std::as_const(latest))
        entries[index].latest = true;
    if (best >= 0)
        entries[best].best = true;
    return entries;
}

QList<CheckpointEntry> markCheckpoints(const QList<CheckpointRecord> &checkpoints, const QStringList &present,
                                       const RunSeries &series)
{
    return markCheckpoints(checkpoints, CheckpointPlaces{}, {{QString(), present}}, series);
}

CheckpointDeletion planCheckpointDeletion(const QList<CheckpointEntry> &entries, const QStringList &wanted)
{
    QList<CheckpointRecord> records;
    for (const CheckpointEntry &entry : entries)
        records.append(entry.record);
    CheckpointDeletion plan;
    for (const QString &what : wanted) {
        const QString path = checkpointNamed(records, what);
        if (path.isEmpty()) {
            plan.error = core::Tr::tr("no checkpoint '%1'").arg(what);
            return plan;
        }
        const auto entry = std::find_if(entries.cbegin(), entries.cend(),
                                        [&path](const CheckpointEntry &e) { return e.record.path == path; });
        if (entry->latest) {
            plan.error = core::Tr::tr("%1 is the latest checkpoint, the one a resume starts from: not deleting it")
                             .arg(path.section(u'/', -1));
            return plan;
        }
        plan.paths.append(path);
        plan.byCluster[entry->cluster].append(path);
    }
    return plan;
}

QString deleteCheckpointsCommand(const QStringList &paths)
{
    QString command = QStringLiteral("rm -f --");
    for (const QString &path : paths)
        command += u' ' + shellQuote(path) + u' ' + shellQuote(path + QStringLiteral(".json"));
    return command;
}

} // namespace torchdeck
