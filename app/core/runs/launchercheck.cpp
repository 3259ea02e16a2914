#include "core/runs/launchercheck.h"

#include "core/coretr.h"
#include "core/jobs/launchcommand.h"

#include <QHash>

namespace torchdeck {

QString pyTorchLauncherProbeScript(const QStringList &moduleLines)
{
    // The Python torchrun runs with (its #! line), else python3: its torch version, and whether its --redirects
    // default parses (PyTorch 1.13 on Python 3.11 does not: Std.from_str("0") is None there).
    return moduleLines.join(u'\n') + QStringLiteral(R"(
t=$(command -v torchrun 2>/dev/null || true)
py=python3
if [ -n "$t" ]; then l=$(head -n 1 "$t"); case "$l" in '#!'*python*) py=${l#'#!'} ;; esac; fi
echo "torchrun ${t:-none}"
$py - <<'EOF'
import sys
print("python", sys.version.split()[0])
try:
    import torch
except Exception as e:
    print("torch none", e)
    sys.exit(0)
print("torch", torch.__version__)
try:
    from torch.distributed.elastic.multiprocessing.api import Std
    print("broken", Std.from_str("0") is None)
except Exception:
    print("broken unknown")
EOF
)");
}

CheckItem pyTorchLauncherItem(const QString &probeOutput)
{
    const QString name = core::Tr::tr("PyTorch launcher");
    QHash<QString, QString> found;
    for (const QString &line : probeOutput.split(u'\n', Qt::SkipEmptyParts)) {
        const qsizetype space = line.indexOf(u' ');
        if (space > 0)
            found.insert(line.left(space), line.mid(space + 1).trimmed());
    }
    const QString torch = found.value(QStringLiteral("torch"));
    const QString python = found.value(QStringLiteral("python"));
    if (torch.isEmpty())
        return {name, true, core::Tr::tr("could not run python3: %1").arg(probeOutput.trimmed().left(200)), true};
    if (torch.startsWith(u"none"))
        return {name, true,
                core::Tr::tr("no PyTorch for python3 after the modules: users' own scripts need a module or "
                             "environment that provides it (the bundled trainer does not)"),
                true};
    const QStringList version = torch.split(u'.');
    const int major = version.value(0).toInt();
    const int minor = version.value(1).toInt();
    const QString what = core::Tr::tr("PyTorch %1 on Python %2").arg(torch, python);
    if (major < 1 || (major == 1 && minor < 9))
        return {
            name, true,
            core::Tr::tr("%1 has no torchrun (it came with 1.9): use srun with one task per rank, or mpirun").arg(what),
            true};
    if (found.value(QStringLiteral("broken")) == u"True")
        return {name, true,
                core::Tr::tr("%1: its torchrun cannot start any job (Python 3.11 broke the default of "
                             "--redirects in PyTorch 1.13). Load a newer PyTorch, or use srun with one task per rank")
                    .arg(what),
                true};
    const QString torchrun = found.value(QStringLiteral("torchrun"));
    const QString launcher = torchrun.isEmpty() || torchrun == u"none"
                                 ? core::Tr::tr("no torchrun on PATH: python3 -m torch.distributed.run")
                                 : core::Tr::tr("torchrun at %1").arg(torchrun);
    return {name, true,
            core::Tr::tr("%1, %2; generated lines use %3 (every torchrun accepts them)")
                .arg(launcher, what, torchrunOptionNames().join(QStringLiteral(", ")))};
}

} // namespace torchdeck
