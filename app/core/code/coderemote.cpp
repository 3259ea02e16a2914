#include "core/code/coderemote.h"

#include "core/shellquote.h"

#include <QRegularExpression>

namespace torchdeck {

namespace {

// The scripts need bash (read -d ''), whatever the login shell is.
QString inBash(const QString &script)
{
    return QStringLiteral("bash -c ") + shellQuote(QStringLiteral("set -eu\n") + script);
}

} // namespace

bool isCodeSnapshotId(const QString &id)
{
    static const QRegularExpression pattern(QStringLiteral("^[0-9a-f]{20}$"));
    return pattern.match(id).hasMatch();
}

QString CodeStore::prepareCommand() const
{
    const QString dir = shellQuote(root);
    return QStringLiteral("umask 077 && mkdir -p %1/objects %1/manifests && cd %1 && pwd -P").arg(dir);
}

QString CodeStore::manifestPresentCommand(const QString &id) const
{
    return QStringLiteral("cd %1 && if [ -f manifests/%2 ]; then touch manifests/%2 && echo present; fi")
        .arg(shellQuote(root), id);
}

QString CodeStore::missingObjectsCommand(const QString &id) const
{
    // The objects found are touched: a prune spares what a submission in flight counts on.
    return inBash(QStringLiteral("cd %1\n"
                                 "present=$(mktemp); trap 'rm -f \"$present\"' EXIT\n"
                                 "while IFS= read -r -d '' object && IFS= read -r -d '' path; do\n"
                                 "  if [ -f \"objects/$object\" ]; then printf '%s\\n' \"$object\" >>\"$present\"\n"
                                 "  else printf '%s\\n' \"$object\"; fi\n"
                                 "done < manifests/%2 | sort -u\n"
                                 "(cd objects && sort -u \"$present\" | xargs -r touch -c --)")
                      .arg(shellQuote(root), id));
}

QString CodeStore::linkCommand(const QString &id, const QString &runDirectory) const
{
    // Paths come from the user's folder: none may leave the run's code folder.
    return inBash(QStringLiteral("run=%1; code=\"$run/%3\"; store=%2; id=%4\n"
                                 "[ -d \"$code\" ] && exit 0\n"
                                 "gone() { echo \"code snapshot $id is no longer on this cluster ($1): submit "
                                 "the run again with --code\" >&2; exit 3; }\n"
                                 "[ -f \"$store/manifests/$id\" ] || gone 'its manifest was pruned'\n"
                                 "stage=\"$code.part-$$\"; rm -rf \"$stage\"; mkdir -p \"$stage\"\n"
                                 "trap 'rm -rf \"$stage\"' EXIT\n"
                                 "while IFS= read -r -d '' object && IFS= read -r -d '' path; do\n"
                                 "  case \"/$path/\" in */../*|*/./*|//*) echo \"unsafe path in snapshot: $path\" "
                                 ">&2; exit 4;; esac\n"
                                 "  [ -f \"$store/objects/$object\" ] || gone \"$path was pruned\"\n"
                                 "  case \"$path\" in */*) mkdir -p \"$stage/${path%/*}\";; esac\n"
                                 "  ln \"$store/objects/$object\" \"$stage/$path\" 2>/dev/null || cp "
                                 "\"$store/objects/$object\" \"$stage/$path\"\n"
                                 "done < \"$store/manifests/$id\"\n"
                                 "mv -T \"$stage\" \"$code\" 2>/dev/null || [ -d \"$code\" ]\n"
                                 "trap - EXIT; rm -rf \"$stage\"")
                      .arg(shellQuote(runDirectory), shellQuote(root), kRunCodeFolder, id));
}

QString CodeStore::listCommand() const
{
    return inBash(QStringLiteral("cd %1 2>/dev/null || exit 0\n"
                                 "for m in manifests/*; do\n"
                                 "  [ -f \"$m\" ] || continue\n"
                                 "  files=0; bytes=0\n"
                                 "  while IFS= read -r -d '' object && IFS= read -r -d '' path; do\n"
                                 "    files=$((files + 1))\n"
                                 "    size=$(stat -c %s \"objects/$object\" 2>/dev/null || echo 0)\n"
                                 "    bytes=$((bytes + size))\n"
                                 "  done < \"$m\"\n"
                                 "  echo \"manifest ${m#manifests/} $files $bytes $(stat -c %Y \"$m\")\"\n"
                                 "done")
                      .arg(shellQuote(root)));
}

QString CodeStore::pruneCommand(const QStringList &keep) const
{
    QStringList ids;
    for (const QString &id : keep) {
        if (isCodeSnapshotId(id))
            ids.append(id);
    }
    return inBash(QStringLiteral("cd %1 2>/dev/null || exit 0\n"
                                 "keep=' %2 '\n"
                                 "for m in $(find manifests -maxdepth 1 -type f -mmin +60 -printf '%f\\n'); do\n"
                                 "  case \"$keep\" in *\" $m \"*) continue;; esac\n"
                                 "  rm -f \"manifests/$m\" && echo \"deleted manifest $m\"\n"
                                 "done\n"
                                 "used=$(mktemp); trap 'rm -f \"$used\"' EXIT\n"
                                 "for m in manifests/*; do\n"
                                 "  [ -f \"$m\" ] || continue\n"
                                 "  while IFS= read -r -d '' object && IFS= read -r -d '' path; do\n"
                                 "    printf '%s\\n' \"$object\"\n"
                                 "  done < \"$m\"\n"
                                 "done | sort -u > \"$used\"\n"
                                 "count=0; bytes=0\n"
                                 "find objects -maxdepth 1 -type f -name '*.part-*' -mmin +60 -delete\n"
                                 "for o in $(find objects -maxdepth 1 -type f -mmin +60 -regextype posix-extended "
                                 "-regex '.*/[0-9a-f]{64}x?' -printf '%f\\n' | sort | comm -23 - \"$used\"); do\n"
                                 "  size=$(stat -c %s \"objects/$o\"); rm -f \"objects/$o\"\n"
                                 "  count=$((count + 1)); bytes=$((bytes + size))\n"
                                 "done\n"
                                 "echo \"deleted objects $count $bytes\"")
                      .arg(shellQuote(root), ids.join(u' ')));
}

} // namespace torchdeck
