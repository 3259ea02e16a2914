// `torchdeck runs` with 1,000 stored runs (issue 5: <= 200 ms), timed as the user sees it: the real binary,
// a fresh process each time. The reference is `torchdeck --version` in the same script: process start and
// Qt's own start-up, which the runs table pays too.
#include "core/store/runstore.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QProcess>
#include <QTemporaryDir>
#include <QTextStream>
#include <QUuid>
#include <algorithm>

namespace {
constexpr int runCount = 1000;
constexpr int repeats = 9;

double medianMs(const QStringList &args, const QString &dataDir, QString *output)
{
    QList<double> times;
    for (int i = 0; i < repeats; ++i) {
        QProcess process;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("TORCHDECK_DATA_DIR"), dataDir);
        env.insert(QStringLiteral("TORCHDECK_CONFIG_DIR"), dataDir);
        process.setProcessEnvironment(env);
        QElapsedTimer timer;
        timer.start();
        process.start(QStringLiteral(TORCHDECK_BIN), args);
        process.waitForFinished(60000);
        times.append(double(timer.nsecsElapsed()) / 1e6);
        *output = QString::fromUtf8(process.readAllStandardOutput());
    }
    std::sort(times.begin(), times.end());
    return times.at(times.size() / 2);
}
} // namespace

int main(int argc, char *argv[])
{
    const QCoreApplication app(argc, argv);
    QTextStream out(stdout);
    QTemporaryDir dir;
    torchdeck::RunStore store;
    if (!store.open(dir.path() + QStringLiteral("/runs.sqlite")).ok())
        return 1;
    for (int i = 0; i < runCount; ++i) {
        torchdeck::RunRecord run;
        run.id = QUuid::createUuid().toString(QUuid::WithoutBraces);
        run.name = QStringLiteral("run-%1").arg(i);
        run.cluster = i % 3 == 0 ? QStringLiteral("cluster-a") : QStringLiteral("cluster-b");
        run.state = QStringLiteral("completed");
        run.epochsDone = 10;
        run.epochsTotal = 10;
        run.lastLoss = 0.01 * (i % 17);
        run.specJson = QStringLiteral("{}");
        if (!store.addRun(run).ok())
            qFatal("cannot add run %d", i);
        for (int attempt = 0; attempt < 2; ++attempt) {
            const torchdeck::StoreStatus saved = store.saveJob({run.id,
                                                                attempt,
                                                                QString::number(1000 + 2 * i + attempt),
                                                                {},
                                                                QStringLiteral("completed"),
                                                                0,
                                                                {},
                                                                QStringLiteral("/scratch/x.out"),
                                                                {},
                                                                QStringLiteral("/scratch/m.jsonl"),
                                                                {},
                                                                {}});
            if (!saved.ok())
                qFatal("%s", qPrintable(saved.error));
        }
    }
    store.close();
    QString table;
    QString version;
    const double runs = medianMs({QStringLiteral("runs")}, dir.path(), &table);
    const double reference = medianMs({QStringLiteral("--version")}, dir.path(), &version);
    const qsizetype lines = table.count(u'\n');
    out << "torchdeck runs, " << runCount << " stored runs (" << lines << " lines): median "
        << QString::number(runs, 'f', 1)
        << " ms (target <= 200 ms); torchdeck --version (start-up alone): " << QString::number(reference, 'f', 1)
        << " ms; ratio " << QString::number(runs / reference, 'f', 2) << "x\n";
    return lines == runCount + 1 ? 0 : 1;
}
