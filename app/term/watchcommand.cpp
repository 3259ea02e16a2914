#include "term/watchcommand.h"

#include "term/termcontext.h"
#include "term/terminalfront.h"
#include "term/termtr.h"
#include "term/watch.h"

#include <unistd.h>

namespace torchdeck::term {

int runWatchCommand(const QStringList &args, QTextStream &out, QTextStream &err)
{
    TermContext context(QStringLiteral("watch"), out, err);
    QStringList runTexts;
    bool plain = ::isatty(STDOUT_FILENO) != 1;
    bool untilDone = false;
    double interval = 2.0;
    for (qsizetype i = 0; i < args.size(); ++i) {
        const QString &arg = args.at(i);
        if (arg == u"--plain") {
            plain = true;
        } else if (arg == u"--until-done") {
            untilDone = true;
        } else if (arg == u"--interval" && i + 1 < args.size()) {
            bool ok = false;
            interval = args.at(++i).toDouble(&ok);
            if (!ok || interval < 0.2) {
                context.error(Tr::tr("--interval wants seconds, at least 0.2"));
                return UsageError;
            }
        } else if (!arg.startsWith(u'-')) {
            runTexts.append(arg);
        } else {
            context.error(Tr::tr("unexpected argument '%1' (usage: torchdeck watch [RUN...] [--interval S] "
                                 "[--plain] [--until-done])")
                              .arg(arg));
            return UsageError;
        }
    }
    if (!context.open())
        return Failure;
    QStringList runIds;
    for (const QString &text : std::as_const(runTexts)) {
        const QList<RunRecord> runs = context.findRuns(text, true); // a sweep: its runs
        if (runs.isEmpty())
            return Failure;
        for (const RunRecord &run : runs)
            runIds.append(run.id);
    }
    // Without a terminal to stop it, a plain watch ends when its runs have.
    Watch watch(context, runIds, plain, untilDone || (plain && ::isatty(STDIN_FILENO) != 1));
    return watch.run(int(interval * 1000));
}

} // namespace torchdeck::term
