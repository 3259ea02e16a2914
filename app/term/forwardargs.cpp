#include "term/forwardargs.h"

#include "core/agent/portforward.h"
#include "term/termtr.h"

namespace torchdeck::term {

namespace {
QString usage()
{
    return Tr::tr("usage: torchdeck forward RUN REMOTE_PORT [LOCAL_PORT] | --list | --stop RUN|LOCAL_PORT");
}

ForwardArgs refused(const QString &why)
{
    ForwardArgs parsed;
    parsed.error = why;
    return parsed;
}
} // namespace

ForwardArgs parseForwardArgs(const QStringList &args)
{
    ForwardArgs parsed;
    QStringList operands;
    bool list = false;
    QString stop;
    bool stopGiven = false;
    for (qsizetype i = 0; i < args.size(); ++i) {
        const QString &arg = args.at(i);
        if (arg == u"--list") {
            list = true;
        } else if (arg == u"--json") {
            parsed.json = true;
        } else if (arg == u"--stop") {
            if (i + 1 >= args.size())
                return refused(Tr::tr("--stop needs a run or a local port (%1)").arg(usage()));
            stop = args.at(++i);
            stopGiven = true;
        } else if (arg.startsWith(u'-')) {
            return refused(Tr::tr("unknown option '%1' (%2)").arg(arg, usage()));
        } else {
            operands.append(arg);
        }
    }
    if (list && stopGiven)
        return refused(Tr::tr("--list or --stop, not both (%1)").arg(usage()));
    if (list || stopGiven) {
        if (!operands.isEmpty())
            return refused(Tr::tr("unexpected argument '%1' (%2)").arg(operands.constFirst(), usage()));
        parsed.action = list ? ForwardArgs::Action::List : ForwardArgs::Action::Stop;
        // A number is a local port; anything else names a run (ids are hex, but 8 digits are no port).
        if (const std::optional<int> port = parsePort(stop))
            parsed.localPort = *port;
        else
            parsed.run = stop;
        return parsed;
    }
    if (operands.size() < 2 || operands.size() > 3)
        return refused(usage());
    parsed.run = operands.at(0);
    const std::optional<int> remote = parsePort(operands.at(1));
    if (!remote)
        return refused(Tr::tr("'%1' is no port: 1 to 65535 (%2)").arg(operands.at(1), usage()));
    parsed.remotePort = *remote;
    if (operands.size() == 3) {
        const std::optional<int> local = parsePort(operands.at(2));
        if (!local)
            return refused(Tr::tr("'%1' is no port: 1 to 65535 (%2)").arg(operands.at(2), usage()));
        parsed.localPort = *local;
    }
    return parsed;
}

} // namespace torchdeck::term
