#include "term/runfilescommands.h"

#include "core/agent/agentops.h"
#include "core/duration.h"
#include "core/runs/checkpointinventory.h"
#include "core/runs/runfiles.h"
#include "core/transferrate.h"
#include "term/progressprinter.h"
#include "term/runrefresh.h"
#include "term/terminalfront.h"
#include "term/termtr.h"

#include <QCborMap>
#include <QDateTime>
#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QSet>
#include <QSocketNotifier>
#include <QTimer>
#include <array>
#include <limits>
#include <memory>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

namespace torchdeck::term {

namespace {
constexpr int listTimeoutMs = 180000;
constexpr int noTimeout = std::numeric_limits<int>::max(); // a pull of many GB takes what it takes; Ctrl-C stops it

QString size(qint64 bytes)
{
    if (bytes < 0)
        return QStringLiteral("-");
    if (bytes < 1024)
        return QStringLiteral("%1 B").arg(bytes);
    const char *units[] = {"KiB", "MiB", "GiB", "TiB"};
    double value = double(bytes) / 1024.0;
    int unit = 0;
    while (value >= 1024.0 && unit < 3) {
        value /= 1024.0;
        ++unit;
    }
    return QStringLiteral("%1 %2").arg(value, 0, 'f', 1).arg(QLatin1String(units[unit]));
}

QJsonObject fileJson(const agent::RunFileEntry &file)
{
    return {{QStringLiteral("path"), file.path},
            {QStringLiteral("kind"), file.kind},
            {QStringLiteral("bytes"), file.bytes},
            {QStringLiteral("time"), double(file.timeMs) / 1000.0},
            {QStringLiteral("link_target"), file.linkTarget},
            {QStringLiteral("attempt"), file.attempt},
            {QStringLiteral("latest"), file.latest},
            {QStringLiteral("best"), file.best}};
}

void printFiles(QTextStream &out, const agent::RunFiles::Reply &listing)
{
    out << Tr::tr("%1\n").arg(listing.directory);
    out << Tr::tr("SIZE        WRITTEN              ATTEMPT  FILE\n");
    for (const agent::RunFileEntry &file : listing.files) {
        QStringList marks;
        if (file.latest)
            marks.append(Tr::tr("latest"));
        if (file.best)
            marks.append(Tr::tr("best val loss"));
        QString name = file.path + (file.kind == u"d" ? QStringLiteral("/") : QString());
        if (file.kind == u"l")
            name += QStringLiteral(" -> ") + file.linkTarget;
        if (!marks.isEmpty())
            name += QStringLiteral("  (%1)").arg(marks.join(QStringLiteral(", ")));
        out << QStringLiteral("%1  %2  %3  %4\n")
                   .arg(file.kind == u"d" ? QString() : size(file.bytes), -10)
                   .arg(QDateTime::fromMSecsSinceEpoch(file.timeMs).toString(QStringLiteral("yyyy-MM-dd HH:mm:ss")),
                        -19)
                   .arg(file.attempt >= 0 ? QString::number(file.attempt) : QStringLiteral("-"), -7)
                   .arg(name);
    }
}

// The bytes, rate and time left of the file being pulled, beside the bar.
class PullProgress {
public:
    explicit PullProgress(QTextStream &err)
        : m_printer(err)
    {
    }
    void step(const QString &file, qint64 done, qint64 total)
    {
        m_rate.step(file, done);
        QString detail;
        if (m_rate.bytesPerSecond() > 0)
            detail = Tr::tr("%1/s, %2 left")
                         .arg(size(qint64(m_rate.bytesPerSecond())), formatDuration(m_rate.secondsLeft(total)));
        m_printer.step(file, done, total, detail);
    }
    void finish() { m_printer.finish(); }

private:
    ProgressPrinter m_printer;
    TransferRate m_rate;
};
} // namespace

namespace {
// The cluster `--on` names (the run's own when empty), where the run must have had a job: a run continued on
// another cluster has a directory on each. Empty, said, when it never ran there.
QString clusterOn(TermContext &context, const RunRecord &run, const QString &on)
{
    if (on.isEmpty() || on == run.cluster)
        return run.cluster;
    const auto jobs = context.store().jobs(run.id);
    if (!jobs.ok()) {
        context.error(jobs.error);
        return {};
    }
    const QStringList ranOn = clustersRanOn(run.cluster, jobs.value);
    if (ranOn.contains(on))
        return on;
    context.error(
        Tr::tr("run %1 never ran on %2 (it ran on %3)").arg(shortRunId(run.id), on, ranOn.join(QStringLiteral(", "))));
    return {};
}
} // namespace

int runFilesCommand(const QStringList &args, QTextStream &out, QTextStream &err)
{
    TermContext context(QStringLiteral("files"), out, err);
    const QString usage = Tr::tr("usage: torchdeck files RUN [PATH] [--on CLUSTER] [--json]");
    QStringList operands;
    QString on;
    bool json = false;
    for (qsizetype i = 0; i < args.size(); ++i) {
        const QString &arg = args.at(i);
        if (arg == u"--json")
            json = true;
        else if (arg == u"--on" && i + 1 < args.size())
            on = args.at(++i);
        else if (!arg.startsWith(u'-') && operands.size() < 2)
            operands.append(arg);
        else {
            context.error(Tr::tr("unexpected argument '%1' (%2)").arg(arg, usage));
            return UsageError;
        }
    }
    if (operands.isEmpty()) {
        context.error(usage);
        return UsageError;
    }
    const auto run = context.openRun(operands.first());
    if (!run)
        return Failure;
    const QString cluster = clusterOn(context, *run, on);
    if (cluster.isEmpty() || !context.connect(cluster))
        return Failure;
    const OperationOutcome listed =
        context.wait(context.agent().runFiles(cluster, run->id, operands.value(1)), listTimeoutMs);
    if (!listed.ok)
        return Failure;
    const agent::RunFiles::Reply listing = listed.reply<agent::RunFiles>().value_or(agent::RunFiles::Reply{});
    if (json) {
        QJsonArray files;
        for (const agent::RunFileEntry &file : listing.files)
            files.append(fileJson(file));
        out << QJsonDocument(
                   QJsonObject{{QStringLiteral("directory"), listing.directory}, {QStringLiteral("files"), files}})
                   .toJson(QJsonDocument::Compact)
            << '\n'
            << Qt::flush;
        return Ok;
    }
    printFiles(out, listing);
    const QString there = cluster == run->cluster ? QString() : QStringLiteral(" --on ") + cluster;
    out << Tr::tr("copy to this machine with: torchdeck pull %1 FILE...%2 [--to DIR]\n").arg(shortRunId(run->id), there)
        << Qt::flush;
    return Ok;
}

namespace {
// Where a checkpoint named by step or file lies: a run continued on another cluster has some on each. "latest" is
// the run's own cluster's (where a resume starts from), "best" the cluster of the one `checkpoints` marks.
QString clusterOfCheckpoint(TermContext &context, const RunRecord &run, const QString &checkpoint)
{
    if (checkpoint.isEmpty() || checkpoint == u"latest")
        return run.cluster;
    const auto records = context.store().checkpoints(run.id);
    const auto jobs = context.store().jobs(run.id);
    if (!records.ok() || !jobs.ok())
        return run.cluster;
    const CheckpointPlaces places(run.cluster, jobs.value);
    if (checkpoint == u"best") {
        // As recorded: the session there picks among those still present.
        const auto series = context.store().runSeries(run.id);
        for (const CheckpointEntry &entry : markCheckpoints(records.value, places, places.asRecorded(records.value),
                                                            series.ok() ? series.value : RunSeries{}))
            if (entry.best)
                return entry.cluster;
        return run.cluster;
    }
    const QString path = checkpointNamed(records.value, checkpoint);
    for (const CheckpointRecord &record : records.value)
        if (record.path == path)
            return places.of(record);
    return run.cluster;
}
} // namespace

int runPullCommand(const QStringList &args, QTextStream &out, QTextStream &err)
{
    TermContext context(QStringLiteral("pull"), out, err);
    const QString usage = Tr::tr(
        "usage: torchdeck pull RUN [FILE...] [--checkpoint latest|best|STEP] [--on CLUSTER] [--to DIR] [--json]");
    QStringList operands;
    QString checkpoint;
    QString on;
    QString to = QDir::currentPath();
    bool json = false;
    for (qsizetype i = 0; i < args.size(); ++i) {
        const QString &arg = args.at(i);
        if (arg == u"--json")
            json = true;
        else if (arg == u"--checkpoint" && i + 1 < args.size())
            checkpoint = args.at(++i);
        else if (arg == u"--to" && i + 1 < args.size())
            to = QDir::current().absoluteFilePath(args.at(++i));
        else if (arg == u"--on" && i + 1 < args.size())
            on = args.at(++i);
        else if (!arg.startsWith(u'-') || arg == u"-")
            operands.append(arg);
        else {
            context.error(Tr::tr("unexpected argument '%1' (%2)").arg(arg, usage));
            return UsageError;
        }
    }
    if (operands.isEmpty() || (operands.size() == 1 && checkpoint.isEmpty())) {
        context.error(usage);
        return UsageError;
    }
    const auto run = context.openRun(operands.first());
    if (!run)
        return Failure;
    // --on: that cluster's files and checkpoints ("latest" there is its own latest).
    const QString cluster = !on.isEmpty()          ? clusterOn(context, *run, on)
                            : operands.size() == 1 ? clusterOfCheckpoint(context, *run, checkpoint)
                                                   : run->cluster;
    if (cluster.isEmpty() || !context.connect(cluster))
        return Failure;
    PullProgress progress(context.err());
    SessionOperation *pull = context.agent().pull(cluster, run->id, operands.mid(1), checkpoint, to);
    QObject::connect(pull, &SessionOperation::progress, pull,
                     [&progress](const QString &file, qint64 done, qint64 total) { progress.step(file, done, total); });
    const OperationOutcome pulled = context.wait(pull, noTimeout);
    progress.finish();
    if (!pulled.ok)
        return Failure;
    const agent::Pull::Reply reply = pulled.reply<agent::Pull>().value_or(agent::Pull::Reply{});
    if (json) {
        QJsonArray files;
        for (const agent::PulledFile &file : reply.pulled)
            files.append(QJsonObject{{QStringLiteral("path"), file.path},
                                     {QStringLiteral("local"), file.local},
                                     {QStringLiteral("bytes"), file.bytes},
                                     {QStringLiteral("sha256"), file.sha256},
                                     {QStringLiteral("resumed_at"), file.resumedAt},
                                     {QStringLiteral("already_there"), file.alreadyThere},
                                     {QStringLiteral("kept_as"), file.keptAs}});
        out << QJsonDocument(files).toJson(QJsonDocument::Compact) << '\n' << Qt::flush;
        return Ok;
    }
    for (const agent::PulledFile &file : reply.pulled) {
        QString how;
        if (file.alreadyThere)
            how = Tr::tr(" (already there, the same)");
        else if (file.resumedAt > 0)
            how = Tr::tr(" (resumed at %1)").arg(size(file.resumedAt));
        out << Tr::tr("%1  %2  sha256 %3%4\n").arg(file.local, size(file.bytes), file.sha256, how);
        if (!file.keptAs.isEmpty())
            out << Tr::tr("  a different file was there: kept as %1\n").arg(file.keptAs);
    }
    out << Qt::flush;
    return Ok;
}

namespace {
std::pair<int, int> terminalSize()
{
    winsize size{};
    if (::ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) != 0 || size.ws_col == 0)
        return {80, 24};
    return {size.ws_col, size.ws_row};
}

// The terminal in raw mode while it lives (keys, Ctrl-C included, go to the remote shell as they are typed), as it
// was after.
class RawTerminal {
public:
    RawTerminal()
        : m_saved(::tcgetattr(STDIN_FILENO, &m_before) == 0)
    {
        if (!m_saved)
            return;
        termios raw = m_before;
        ::cfmakeraw(&raw);
        ::tcsetattr(STDIN_FILENO, TCSADRAIN, &raw);
    }
    ~RawTerminal()
    {
        if (m_saved)
            ::tcsetattr(STDIN_FILENO, TCSADRAIN, &m_before);
    }
    RawTerminal(const RawTerminal &) = delete;
    RawTerminal &operator=(const RawTerminal &) = delete;

private:
    termios m_before{};
    bool m_saved;
};

// A login shell in the run's running job through the agent's connection, on this terminal until it ends: its exit
// code is the command's.
int interactiveShell(TermContext &context, const RunRecord &run, const QString &node)
{
    const auto [cols, rows] = terminalSize();
    SessionOperation *shell = context.agent().jobShell(run.cluster, run.id, node, cols, rows);
    QSocketNotifier keys(STDIN_FILENO, QSocketNotifier::Read);
    QObject::connect(&keys, &QSocketNotifier::activated, shell, [shell, &keys] {
        std::array<char, 4096> buffer{};
        const ssize_t n = ::read(STDIN_FILENO, buffer.data(), buffer.size());
        if (n > 0)
            shell->input(QByteArray(buffer.data(), qsizetype(n)));
        else
            keys.setEnabled(false); // the terminal is gone: the shell ends with the connection's close
    });
    QTimer resized; // SIGWINCH would need a handler of its own: a look four times a second costs nothing
    auto size = std::make_shared<std::pair<int, int>>(cols, rows);
    QObject::connect(&resized, &QTimer::timeout, shell, [shell, size] {
        const std::pair<int, int> now = terminalSize();
        if (now != *size) {
            *size = now;
            shell->input({}, now.first, now.second);
        }
    });
    resized.start(250);
    const RawTerminal raw;
    const OperationOutcome ended = context.wait(shell, noTimeout, {}, [](const QString &name, const QCborMap &args) {
        if (const auto data = eventOf<agent::DataEvent>(name, args)) {
            for (qsizetype at = 0; at < data->bytes.size();) {
                const ssize_t n = ::write(STDOUT_FILENO, data->bytes.constData() + at, size_t(data->bytes.size() - at));
                if (n <= 0)
                    break;
                at += n;
            }
        }
    });
    if (!ended.ok)
        return Failure;
    const qint64 code = ended.reply<agent::JobShell>().value_or(agent::JobShell::Reply{}).exitCode;
    return code < 0 ? int(Failure) : int(code);
}
} // namespace

int runShellCommand(const QStringList &args, QTextStream &out, QTextStream &err)
{
    TermContext context(QStringLiteral("shell"), out, err);
    const QString usage = Tr::tr("usage: torchdeck shell RUN [--node NODE] [--command CMD]");
    QString runText;
    QString node;
    std::optional<QString> command;
    for (qsizetype i = 0; i < args.size(); ++i) {
        const QString &arg = args.at(i);
        if (arg == u"--node" && i + 1 < args.size())
            node = args.at(++i);
        else if (arg == u"--command" && i + 1 < args.size())
            command = args.at(++i);
        else if (!arg.startsWith(u'-') && runText.isEmpty())
            runText = arg;
        else {
            context.error(Tr::tr("unexpected argument '%1' (%2)").arg(arg, usage));
            return UsageError;
        }
    }
    if (runText.isEmpty()) {
        context.error(usage);
        return UsageError;
    }
    const auto run = context.openRun(runText);
    if (!run)
        return Failure;
    if (!command && (::isatty(STDIN_FILENO) != 1 || ::isatty(STDOUT_FILENO) != 1)) {
        context.error(Tr::tr("an interactive shell needs a terminal; --command CMD runs one command without one"));
        return UsageError;
    }
    if (!context.connect(run->cluster))
        return Failure;
    if (!command)
        return interactiveShell(context, *run, node);
    const OperationOutcome ran =
        context.wait(context.agent().jobCommand(run->cluster, run->id, node, *command), noTimeout);
    if (!ran.ok)
        return Failure;
    const agent::JobCommand::Reply reply = ran.reply<agent::JobCommand>().value_or(agent::JobCommand::Reply{});
    out << QString::fromUtf8(reply.out) << Qt::flush;
    err << QString::fromUtf8(reply.err) << Qt::flush;
    return reply.exitCode < 0 ? int(Failure) : int(reply.exitCode);
}

int runDeleteCommand(const QStringList &args, QTextStream &out, QTextStream &err)
{
    TermContext context(QStringLiteral("delete"), out, err);
    bool remote = false;
    bool dryRun = false;
    bool json = false;
    bool yes = false;
    QStringList named;
    for (const QString &arg : args) {
        if (arg == u"--remote")
            remote = true;
        else if (arg == u"--yes")
            yes = true;
        else if (arg == u"--dry-run")
            dryRun = true;
        else if (arg == u"--json")
            json = true;
        else if (!arg.startsWith(u'-'))
            named.append(arg);
        else {
            context.error(
                Tr::tr(
                    "unexpected argument '%1' (usage: torchdeck delete RUN... [--remote] [--dry-run] [--yes] [--json])")
                    .arg(arg));
            return UsageError;
        }
    }
    if (named.isEmpty()) {
        context.error(Tr::tr("usage: torchdeck delete RUN... [--remote] [--dry-run] [--yes] [--json]"));
        return UsageError;
    }
    if (!context.open())
        return Failure;
    QMap<QString, QStringList> byCluster;
    QSet<QString> asked; // the clusters the deletion needs: the records of ended runs go without them
    for (const QString &text : named) {
        const auto run = context.findRun(text);
        if (!run)
            return Failure; // nothing goes when one is not found: a typo never deletes the others alone
        if (!byCluster[run->cluster].contains(run->id))
            byCluster[run->cluster].append(run->id);
        if (remote || !run->hasEnded())
            asked.insert(run->cluster);
    }
    int result = Ok;
    QJsonArray deletions;
    const auto pass = [&](bool dry) {
        result = Ok;
        deletions = {};
        for (auto it = byCluster.cbegin(); it != byCluster.cend(); ++it) {
            if (asked.contains(it.key()) && !context.connect(it.key())) {
                result = Failure;
                continue;
            }
            const OperationOutcome deleted =
                context.wait(context.agent().deleteRuns(it.key(), it.value(), remote, dry), noTimeout);
            if (!deleted.ok) {
                result = Failure;
                continue;
            }
            for (const agent::RunDeletion &d :
                 deleted.reply<agent::DeleteRuns>().value_or(agent::DeleteRuns::Reply{}).runs) {
                QJsonArray elsewhere;
                for (const agent::RunDirectoryElsewhere &e : d.elsewhere)
                    elsewhere.append(QJsonObject{{QStringLiteral("cluster"), e.cluster},
                                                 {QStringLiteral("directory"), e.directory},
                                                 {QStringLiteral("bytes"), e.bytes},
                                                 {QStringLiteral("removed_directory"), e.removedDirectory},
                                                 {QStringLiteral("problem"), e.problem}});
                deletions.append(QJsonObject{{QStringLiteral("run"), d.run},
                                             {QStringLiteral("cluster"), it.key()},
                                             {QStringLiteral("name"), d.name},
                                             {QStringLiteral("directory"), d.directory},
                                             {QStringLiteral("bytes"), d.bytes},
                                             {QStringLiteral("removed_directory"), d.removedDirectory},
                                             {QStringLiteral("removed_record"), d.removedRecord},
                                             {QStringLiteral("elsewhere"), elsewhere}});
                if (json)
                    continue;
                const QString what = QStringLiteral("%1 (%2)").arg(shortRunId(d.run), d.name);
                const auto directory = [](const QString &path, const QString &cluster, qint64 bytes,
                                          const QString &problem = {}) {
                    if (!problem.isEmpty())
                        return Tr::tr(" and its directory on %1 (not asked: %2)").arg(cluster, problem);
                    return Tr::tr(" and %1 on %2 (%3)")
                        .arg(path.isEmpty() ? Tr::tr("its directory") : path, cluster,
                             bytes >= 0 ? size(bytes) : Tr::tr("already gone"));
                };
                QString where;
                if (remote) {
                    where = directory(d.directory, it.key(), d.bytes);
                    for (const agent::RunDirectoryElsewhere &e : d.elsewhere)
                        where += directory(e.directory, e.cluster, e.bytes, e.problem);
                }
                out << (dry ? Tr::tr("would delete run %1: its record%2\n").arg(what, where)
                            : Tr::tr("deleted run %1: its record%2\n").arg(what, where));
            }
        }
        out << Qt::flush;
    };
    // On a terminal, what --remote removes for good is said, with its size, and asked for first.
    if (remote && !dryRun && !yes && !json && ::isatty(STDIN_FILENO) == 1) {
        pass(true);
        if (result != Ok)
            return result;
        for (const QJsonValue &deletion : std::as_const(deletions))
            for (const QJsonValue &e : deletion[QStringLiteral("elsewhere")].toArray())
                if (!e[QStringLiteral("problem")].toString().isEmpty()) {
                    context.error(
                        Tr::tr("nothing deleted: the directory on %1 cannot be removed now (%2)")
                            .arg(e[QStringLiteral("cluster")].toString(), e[QStringLiteral("problem")].toString()));
                    return Failure;
                }
        out << Tr::tr("Delete these runs and their directories? [y/N] ") << Qt::flush;
        QTextStream in(stdin);
        if (!in.readLine().trimmed().toLower().startsWith(u'y')) {
            out << Tr::tr("nothing deleted\n") << Qt::flush;
            return Failure;
        }
    }
    pass(dryRun);
    if (json)
        out << QJsonDocument(deletions).toJson(QJsonDocument::Compact) << '\n';
    else if (!remote && result == Ok && !dryRun)
        out << Tr::tr("its files stay on the cluster (delete with --remote to remove them too)\n");
    out << Qt::flush;
    return result;
}

} // namespace torchdeck::term
