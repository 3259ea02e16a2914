#include "core/scheduler/sacctparser.h"
#include "core/scheduler/schedulercommands.h"
#include "core/scheduler/squeueparser.h"
#include "fixture.h"
#include "testmain.h"

#include <QRegularExpression>
#include <QTest>

using namespace torchdeck;
using namespace torchdeck::testing;

Q_DECLARE_METATYPE(torchdeck::SchedulerCommands)

class TestSchedulerCommands : public QObject {
    Q_OBJECT
private slots:
    void slurmCommandLines();
    void captureScriptUsesTheSameFormats();
    void onePollIsOneCommand_data();
    void onePollIsOneCommand();
    void queriesParseTheirOutput();
    void controllerHistoryKeepsOnlyTheAskedJobs();
    void namedHistoryLooksBackFromTheRun();
    void noIdsNothingToRun();
    void pbsCommandLines();
    void actions();
    void submitWithDependency();
    void stderrVerdicts();

private:
    static QStringList manyIds(int count, const QString &suffix = {});
};

QStringList TestSchedulerCommands::manyIds(int count, const QString &suffix)
{
    QStringList ids;
    for (int i = 0; i < count; ++i)
        ids.append(QString::number(1000 + i) + suffix);
    return ids;
}

void TestSchedulerCommands::slurmCommandLines()
{
    const SchedulerCommands slurm = SchedulerCommands::slurm();
    QCOMPARE(slurm.kind(), SchedulerKind::Slurm);
    QCOMPARE(
        slurm.submit(QStringLiteral("/home/a/my job.sh")).argv,
        QStringList({QStringLiteral("sbatch"), QStringLiteral("--parsable"), QStringLiteral("/home/a/my job.sh")}));
    QCOMPARE(slurm.query({QStringLiteral("5"), QStringLiteral("6")}).argv,
             QStringList({QStringLiteral("squeue"), QStringLiteral("--noheader"), QStringLiteral("--states=all"),
                          QStringLiteral("--array"), QStringLiteral("--jobs=5,6"),
                          QStringLiteral("--Format=") + squeueFormat()}));
    QCOMPARE(squeueFormat(), QStringLiteral("JobID:0|,State:0|,Reason:0|,RestartCnt:0|,exit_code:0|,TimeLimit:0|,"
                                            "TimeUsed:0|,NodeList:0|,Partition:0|,SubmitTime:0|,StartTime:0|,"
                                            "EndTime:0|,ArrayJobID:0|,ArrayTaskID:0|,Name:0"));
    QCOMPARE(slurm.queryFinished({QStringLiteral("5")}).argv,
             QStringList({QStringLiteral("sacct"), QStringLiteral("--parsable2"), QStringLiteral("--noheader"),
                          QStringLiteral("--allocations"), QStringLiteral("--jobs=5"),
                          QStringLiteral("--format=") + sacctFormat()}));
    QCOMPARE(SchedulerCommands::slurm(SlurmHistory::CompletionFile).queryFinished({QStringLiteral("5")}).argv.at(1),
             QStringLiteral("-c"));
    QCOMPARE(SchedulerCommands::slurm(SlurmHistory::Controller).queryFinished({QStringLiteral("5")}).argv,
             QStringList({QStringLiteral("scontrol"), QStringLiteral("--oneliner"), QStringLiteral("show"),
                          QStringLiteral("job")}));
}

void TestSchedulerCommands::captureScriptUsesTheSameFormats()
{
    // The fixtures are only worth something if they were captured with the formats torchdeck runs.
    QFile script(QStringLiteral(TORCHDECK_TEST_DATA "/../../scripts/capture-scheduler-outputs"));
    QVERIFY(script.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(script.readAll());
    const auto assigned = [&](const QString &name) {
        const QRegularExpression pattern(u'^' + name + QStringLiteral("='([^']*)'$"),
                                         QRegularExpression::MultilineOption);
        return pattern.match(text).captured(1);
    };
    QCOMPARE(assigned(QStringLiteral("SQUEUE_FORMAT")), squeueFormat());
    QCOMPARE(assigned(QStringLiteral("SACCT_FORMAT")), sacctFormat());
}

void TestSchedulerCommands::onePollIsOneCommand_data()
{
    QTest::addColumn<SchedulerCommands>("commands");
    QTest::addColumn<QString>("suffix");
    QTest::addRow("slurm") << SchedulerCommands::slurm() << QString();
    QTest::addRow("slurm jobcomp") << SchedulerCommands::slurm(SlurmHistory::CompletionFile) << QString();
    QTest::addRow("slurm controller") << SchedulerCommands::slurm(SlurmHistory::Controller) << QString();
    QTest::addRow("pbs pro") << SchedulerCommands::pbs(PbsDialect::PbsPro) << QStringLiteral(".pbs01");
    QTest::addRow("torque") << SchedulerCommands::pbs(PbsDialect::Torque) << QString();
    QTest::addRow("local") << SchedulerCommands::local(QStringLiteral("/tmp/state")) << QString();
}

void TestSchedulerCommands::onePollIsOneCommand()
{
    QFETCH(SchedulerCommands, commands);
    QFETCH(QString, suffix);
    const QStringList ids = manyIds(100, suffix);
    for (const QueryCommand &query : {commands.query(ids), commands.queryFinished(ids)}) {
        // One argv (one process) names every id, or lists every job (scontrol) and filters.
        QVERIFY(!query.argv.isEmpty());
        QVERIFY(query.parse);
        const QString line = query.argv.join(u' ');
        if (query.argv.first() != u"scontrol") {
            for (const QString &id : ids)
                QVERIFY2(line.contains(id), qPrintable(id));
        }
        QVERIFY(query.argv.size() < 120); // no per-id options
    }
    const QStringList cancel = commands.cancel(ids); // one command cancels them all
    QVERIFY(cancel.size() > 100 && cancel.size() < 105);
}

void TestSchedulerCommands::queriesParseTheirOutput()
{
    const QStringList ids = {QStringLiteral("1")};
    JobListResult result =
        SchedulerCommands::slurm().query(ids).parse(fixture(QStringLiteral("slurm-squeue-final.txt")));
    QVERIFY(result.ok() && result.jobs.size() == 15);
    result = SchedulerCommands::slurm(SlurmHistory::CompletionFile)
                 .queryFinished(ids)
                 .parse(fixture(QStringLiteral("slurm-sacct-c-parsable.txt")));
    QVERIFY(result.ok() && result.jobs.size() == 15);
    result =
        SchedulerCommands::pbs(PbsDialect::PbsPro).query(ids).parse(fixture(QStringLiteral("pbspro-qstat-f-json.txt")));
    QVERIFY(result.ok() && result.jobs.size() == 8);
    QCOMPARE(result.find(QStringLiteral("1233.pbs01"))->state, JobState::Timeout);
    result = SchedulerCommands::pbs(PbsDialect::Torque)
                 .queryFinished(ids)
                 .parse(fixture(QStringLiteral("torque-wrapper-qstat-f-final.txt")));
    QVERIFY(result.ok() && result.jobs.size() == 15);
    result = SchedulerCommands::pbs(PbsDialect::Torque).query(ids).parse(fixture(QStringLiteral("torque-qstat-f.txt")));
    QCOMPARE(result.find(QStringLiteral("180.host"))->state, JobState::Timeout); // Torque's -11
    result = SchedulerCommands::local(QStringLiteral("s")).query(ids).parse("1 exited 0\n");
    QCOMPARE(result.jobs.constFirst().state, JobState::Completed);
}

void TestSchedulerCommands::controllerHistoryKeepsOnlyTheAskedJobs()
{
    const JobListResult all = SchedulerCommands::slurm(SlurmHistory::Controller)
                                  .queryFinished({QStringLiteral("1")})
                                  .parse(fixture(QStringLiteral("slurm-scontrol-final.txt")));
    QVERIFY(all.jobs.isEmpty());
    const QString someId =
        QString::fromUtf8(fixture(QStringLiteral("slurm-scontrol-final.txt"))).section(u' ', 0, 0).section(u'=', 1);
    const JobListResult one = SchedulerCommands::slurm(SlurmHistory::Controller)
                                  .queryFinished({someId})
                                  .parse(fixture(QStringLiteral("slurm-scontrol-final.txt")));
    QCOMPARE(one.jobs.size(), 1);
    QCOMPARE(one.jobs.constFirst().id, someId);
}

// A submission whose reply was lost is looked for in the history too: by its name, from its run's creation (a day
// earlier: sacct reads the cluster's own zone), never only today (sacct's default).
void TestSchedulerCommands::namedHistoryLooksBackFromTheRun()
{
    const QDateTime created(QDate(2026, 11, 3), QTime(1, 30), Qt::UTC);
    const QueryCommand accounting = SchedulerCommands::slurm().queryNamedHistory(QStringLiteral("ae.r1.0"), created);
    QCOMPARE(accounting.argv.mid(0, 5),
             (QStringList{QStringLiteral("sacct"), QStringLiteral("--parsable2"), QStringLiteral("--noheader"),
                          QStringLiteral("--allocations"), QStringLiteral("--starttime=2026-11-02T01:30:00")}));
    QCOMPARE(accounting.argv.at(5), QStringLiteral("--name=ae.r1.0"));
    QCOMPARE(SchedulerCommands::slurm(SlurmHistory::CompletionFile)
                 .queryNamedHistory(QStringLiteral("x"), created)
                 .argv.mid(0, 2),
             (QStringList{QStringLiteral("sacct"), QStringLiteral("-c")}));
    // Only the jobs of that name: sacct -c may not filter by name.
    const QByteArray captured = fixture(QStringLiteral("slurm-sacct-c-parsable.txt"));
    const JobListResult all = parseSacct(captured);
    QVERIFY(!all.jobs.isEmpty());
    const QString name = all.jobs.constFirst().name;
    const JobListResult named =
        SchedulerCommands::slurm(SlurmHistory::CompletionFile).queryNamedHistory(name, created).parse(captured);
    QVERIFY(!named.jobs.isEmpty());
    for (const JobInfo &job : named.jobs)
        QCOMPARE(job.name, name);
    QVERIFY(SchedulerCommands::slurm(SlurmHistory::CompletionFile)
                .queryNamedHistory(QStringLiteral("no such name"), created)
                .parse(captured)
                .jobs.isEmpty());
    // Where the queue's answer covers the history (PBS's -x, the controller, local runs), nothing more is run.
    QVERIFY(SchedulerCommands::slurm(SlurmHistory::Controller).queryNamedHistory(name, created).argv.isEmpty());
    QVERIFY(SchedulerCommands::pbs(PbsDialect::PbsPro).queryNamedHistory(name, created).argv.isEmpty());
    QVERIFY(SchedulerCommands::local(QStringLiteral("s")).queryNamedHistory(name, created).argv.isEmpty());
}

void TestSchedulerCommands::noIdsNothingToRun()
{
    for (const SchedulerCommands &commands : {SchedulerCommands::slurm(), SchedulerCommands::pbs(PbsDialect::Torque),
                                              SchedulerCommands::local(QStringLiteral("s"))}) {
        QVERIFY(commands.query({}).argv.isEmpty()); // squeue --jobs= would list every job of the cluster
        QVERIFY(commands.queryFinished({}).argv.isEmpty());
        QVERIFY(commands.query({}).parse(QByteArray()).jobs.isEmpty());
        QVERIFY(commands.cancel({}).isEmpty());
    }
}

void TestSchedulerCommands::pbsCommandLines()
{
    const QStringList ids = {QStringLiteral("1.s"), QStringLiteral("2.s")};
    QCOMPARE(SchedulerCommands::pbs(PbsDialect::PbsPro).query(ids).argv,
             QStringList({QStringLiteral("qstat"), QStringLiteral("-f"), QStringLiteral("-F"), QStringLiteral("json"),
                          QStringLiteral("-x"), QStringLiteral("1.s"), QStringLiteral("2.s")}));
    QCOMPARE(
        SchedulerCommands::pbs(PbsDialect::Torque).query(ids).argv,
        QStringList({QStringLiteral("qstat"), QStringLiteral("-f"), QStringLiteral("1.s"), QStringLiteral("2.s")}));
    QCOMPARE(SchedulerCommands::pbs(PbsDialect::Torque).submit(QStringLiteral("job.pbs")).argv,
             QStringList({QStringLiteral("qsub"), QStringLiteral("job.pbs")}));
    QCOMPARE(SchedulerCommands::pbs(PbsDialect::PbsPro).submit(QStringLiteral("job.pbs")).parse("7.s\n").jobId,
             QStringLiteral("7.s"));
}

void TestSchedulerCommands::actions()
{
    const QStringList ids = {QStringLiteral("5"), QStringLiteral("6")};
    const SchedulerCommands slurm = SchedulerCommands::slurm();
    QCOMPARE(slurm.cancel(ids), QStringList({QStringLiteral("scancel"), QStringLiteral("5"), QStringLiteral("6")}));
    QCOMPARE(slurm.requeue(ids),
             QStringList({QStringLiteral("scontrol"), QStringLiteral("requeue"), QStringLiteral("5,6")}));
    QCOMPARE(slurm.hold(ids), QStringList({QStringLiteral("scontrol"), QStringLiteral("hold"), QStringLiteral("5,6")}));
    QCOMPARE(slurm.release(ids),
             QStringList({QStringLiteral("scontrol"), QStringLiteral("release"), QStringLiteral("5,6")}));
    const SchedulerCommands pbs = SchedulerCommands::pbs(PbsDialect::PbsPro);
    QCOMPARE(pbs.cancel(ids), QStringList({QStringLiteral("qdel"), QStringLiteral("5"), QStringLiteral("6")}));
    QCOMPARE(pbs.requeue(ids), QStringList({QStringLiteral("qrerun"), QStringLiteral("5"), QStringLiteral("6")}));
    QCOMPARE(pbs.hold(ids), QStringList({QStringLiteral("qhold"), QStringLiteral("5"), QStringLiteral("6")}));
    QCOMPARE(pbs.release(ids), QStringList({QStringLiteral("qrls"), QStringLiteral("5"), QStringLiteral("6")}));
    const SchedulerCommands local = SchedulerCommands::local(QStringLiteral("s"));
    QCOMPARE(local.cancel(ids), QStringList({QStringLiteral("kill"), QStringLiteral("-TERM"), QStringLiteral("--"),
                                             QStringLiteral("-5"), QStringLiteral("-6")}));
    QVERIFY(local.supports(SchedulerAction::Cancel));
    QVERIFY(!local.supports(SchedulerAction::Requeue));
    QVERIFY(local.requeue(ids).isEmpty());
    QVERIFY(local.hold(ids).isEmpty());
    QVERIFY(slurm.supports(SchedulerAction::Hold) && pbs.supports(SchedulerAction::Release));
}

void TestSchedulerCommands::submitWithDependency()
{
    SubmitDependency after;
    after.kind = SubmitDependency::AfterNotOk;
    after.jobIds = {QStringLiteral("41"), QStringLiteral("42")};
    QCOMPARE(SchedulerCommands::slurm().submit(QStringLiteral("next.sh"), after).argv,
             QStringList({QStringLiteral("sbatch"), QStringLiteral("--parsable"),
                          QStringLiteral("--dependency=afternotok:41:42"), QStringLiteral("next.sh")}));
    after.kind = SubmitDependency::AfterAny;
    after.jobIds = {QStringLiteral("41.s")};
    QCOMPARE(SchedulerCommands::pbs(PbsDialect::PbsPro).submit(QStringLiteral("next.pbs"), after).argv,
             QStringList({QStringLiteral("qsub"), QStringLiteral("-W"), QStringLiteral("depend=afterany:41.s"),
                          QStringLiteral("next.pbs")}));
}

void TestSchedulerCommands::stderrVerdicts()
{
    QVERIFY(reportsUnknownJob(fixture(QStringLiteral("slurm-squeue-unknown-id-stderr.txt"))));
    QVERIFY(reportsUnknownJob("qstat: Unknown Job Id 99.pbs01\n"));
    QVERIFY(!reportsUnknownJob("slurm_load_jobs error: Unable to contact slurm controller\n"));
}

TORCHDECK_TEST_MAIN(TestSchedulerCommands)
#include "tst_schedulercommands.moc"
