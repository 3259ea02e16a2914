#include "core/runs/checkpointbranch.h"

#include "core/shellquote.h"
#include "core/store/runstore.h"

#include <QRegularExpression>

namespace torchdeck {

namespace {
QString fileName(const QString &path)
{
    return path.section(u'/', -1);
}
QString parentOf(const QString &path)
{
    return path.section(u'/', 0, -2);
}
} // namespace

QString CheckpointBranch::asideDirectory() const
{
    return supersededCheckpointDirectory(liveDirectory, attempt);
}

qint64 CheckpointBranch::chosenStep() const
{
    static const QRegularExpression name(QStringLiteral("\\Acheckpoint-(\\d{1,18})\\.pt\\z"));
    const auto match = name.match(fileName(chosen));
    return match.hasMatch() ? match.captured(1).toLongLong() : -1;
}

QString CheckpointBranch::command() const
{
    // A choice without a step in its name cannot be ordered: everything live moves aside, and the first
    // checkpoint the branch writes becomes the newest.
    const qint64 step = chosenStep();
    const bool inLive = parentOf(chosen) == liveDirectory;
    QString script =
        QStringLiteral("live=%1; aside=%2; chosen=%3; step=%4; if ! test -f \"$chosen\"; then "
                       "printf '%s is no longer on the cluster\\n' \"$chosen\" >&2; exit 1; fi; "
                       "mkdir -p \"$live\" && cd \"$live\" || exit 1; "
                       "for f in checkpoint-*.pt; do test -f \"$f\" || continue; "
                       "n=${f#checkpoint-}; n=${n%.pt}; case $n in ''|*[!0-9]*) continue ;; esac; "
                       "n=$(expr \"$n\" + 0); ")
            .arg(shellQuote(liveDirectory), shellQuote(asideDirectory()), shellQuote(chosen), QString::number(step));
    // The chosen file itself stays; another of the same step is replaced by the copy of the choice.
    script += inLive ? QStringLiteral("if test \"$step\" -ge 0 && test \"$n\" -le \"$step\"; then continue; fi; ")
                     : QStringLiteral("if test \"$step\" -ge 0 && test \"$n\" -lt \"$step\"; then continue; fi; ");
    script += QStringLiteral("mkdir -p \"$aside\" && mv -f -- \"$f\" \"$aside/\" || exit 1; "
                             "if test -f \"$f.json\"; then mv -f -- \"$f.json\" \"$aside/\" || exit 1; fi; "
                             "printf 'moved %s\\n' \"$f\"; done");
    if (!inLive && step >= 0) {
        // Sidecar last, as the trainer writes them: a .pt without its sidecar reads as torn.
        script += QStringLiteral(
            "; name=${chosen##*/}; cp -p -- \"$chosen\" \".tmp-$name\" && mv -f -- \".tmp-$name\" \"$name\" "
            "|| exit 1; if test -f \"$chosen.json\"; then cp -p -- \"$chosen.json\" \".tmp-$name.json\" && "
            "mv -f -- \".tmp-$name.json\" \"$name.json\" || exit 1; fi; printf 'copied %s\\n' \"$name\"");
    }
    return script;
}

StoreStatus CheckpointBranch::apply(RunStore &store, const QString &runId, const QByteArray &commandOutput) const
{
    const auto recorded = store.checkpoints(runId);
    if (!recorded.ok())
        return StoreStatus::failure(recorded.error);
    auto recordOf = [&](const QString &path) {
        for (const CheckpointRecord &c : recorded.value) {
            if (c.path == path)
                return c;
        }
        CheckpointRecord unknown;
        unknown.runId = runId;
        unknown.path = path;
        return unknown;
    };
    for (const QString &line : QString::fromUtf8(commandOutput).split(u'\n', Qt::SkipEmptyParts)) {
        const QString name = line.section(u' ', 1);
        StoreStatus saved;
        if (line.startsWith(QStringLiteral("moved "))) {
            CheckpointRecord moved = recordOf(liveDirectory + u'/' + name);
            saved = store.removeCheckpoint(runId, moved.path);
            moved.path = asideDirectory() + u'/' + name;
            moved.best = false;
            if (saved.ok())
                saved = store.saveCheckpoint(moved);
        } else if (line.startsWith(QStringLiteral("copied "))) {
            CheckpointRecord copy = recordOf(chosen);
            copy.path = liveDirectory + u'/' + name;
            copy.best = false;
            saved = store.saveCheckpoint(copy);
        }
        if (!saved.ok())
            return saved;
    }
    return {};
}

} // namespace torchdeck
