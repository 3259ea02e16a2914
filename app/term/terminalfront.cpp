#include "term/terminalfront.h"

#include "term/checkcommand.h"
#include "term/clusterscommand.h"

#include <QTextStream>

namespace torchdeck::term {

namespace {

void printUsage(QTextStream &out)
{
    out << "Usage: torchdeck [COMMAND [OPTIONS]]\n"
           "\n"
           "Without a command, torchdeck opens the desktop dashboard.\n"
           "\n"
           "Commands:\n"
           "  clusters [--json]   list the clusters of your ssh config (~/.ssh/config, or $TORCHDECK_SSH_CONFIG)\n"
           "  check CLUSTER       connect and check everything a job needs: quoting, SFTP, scheduler commands,\n"
           "                      cmake and a compiler, LibTorch, the work directory\n"
           "                      [--scheduler slurm|pbs|local] [--work-dir DIR] [--libtorch PREFIX]\n"
           "\n"
           "Options:\n"
           "  -h, --help          show this help\n"
           "  --version           show the version\n";
}

} // namespace

bool isTerminalInvocation(const QStringList &args)
{
    return !args.isEmpty();
}

int runTerminal(const QStringList &args)
{
    QTextStream out(stdout);
    QTextStream err(stderr);
    const QString command = args.value(0);
    const QStringList rest = args.mid(1);
    if (command == u"-h" || command == u"--help" || command == u"help") {
        printUsage(out);
        return Ok;
    }
    if (command == u"--version") {
        out << "torchdeck " << TORCHDECK_VERSION << '\n';
        return Ok;
    }
    if (command == u"clusters")
        return runClustersCommand(rest, out, err);
    if (command == u"check")
        return runCheckCommand(rest, out, err);
    err << "torchdeck: unknown command '" << command << "' (see torchdeck --help)\n";
    return UsageError;
}

} // namespace torchdeck::term
