#include "core/jobs/jobscript.h"
#include "core/profiles/accountlimits.h"
#include "core/profiles/clusterprofile.h"
#include "core/profiles/partitionshape.h"
#include "gui/jobform.h"
#include "gui/scriptpreview.h"
#include "testmain.h"

#include <QAbstractItemModel>
#include <QCompleter>
#include <QDir>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>

using namespace torchdeck;

namespace {
ClusterCaps capsFor(SchedulerKind scheduler)
{
    ClusterCaps caps;
    caps.scheduler = scheduler;
    return caps;
}

// A spec that uses only what the form has fields for, trainer flags in the form's order.
JobSpec trainerSpec()
{
    JobSpec spec;
    spec.name = QStringLiteral("resnet-run");
    spec.nodes = 2;
    spec.tasksPerNode = 4;
    spec.gpusPerNode = 4;
    spec.cpusPerTask = 8;
    spec.memory = QStringLiteral("64G");
    spec.wallTimeSeconds = 2 * 3600 + 30 * 60;
    spec.partition = QStringLiteral("gpu");
    spec.account = QStringLiteral("proj42");
    spec.modules = {QStringLiteral("cmake"), QStringLiteral("pytorch/2.1")};
    spec.launch = LaunchMethod::SrunPerNodeLauncher;
    spec.checkpointSignal = QStringLiteral("USR2");
    spec.trainerArgs = {QStringLiteral("--model"),      QStringLiteral("resnet50"),
                        QStringLiteral("--data"),       QStringLiteral("synthetic:512"),
                        QStringLiteral("--epochs"),     QStringLiteral("90"),
                        QStringLiteral("--batch-size"), QStringLiteral("256"),
                        QStringLiteral("--lr"),         QStringLiteral("0.1"),
                        QStringLiteral("--optimizer"),  QStringLiteral("sgd"),
                        QStringLiteral("--threads"),    QStringLiteral("2"),
                        QStringLiteral("--log-every"),  QStringLiteral("16")};
    return spec;
}
} // namespace

Q_DECLARE_METATYPE(torchdeck::JobSpec) // core's tests declare it in their own header, not core

class TestJobForm : public QObject {
    Q_OBJECT
private slots:
    void rendersTheSameScriptAsCore_data()
    {
        QTest::addColumn<JobSpec>("spec");
        QTest::addColumn<int>("scheduler");
        QTest::addRow("slurm, per-node launcher, GPUs") << trainerSpec() << int(SchedulerKind::Slurm);
        JobSpec pbs = trainerSpec();
        pbs.launch = LaunchMethod::Mpirun;
        pbs.gpusPerNode = 0;
        pbs.checkpointSignal = QStringLiteral("USR1");
        QTest::addRow("pbs, mpirun") << pbs << int(SchedulerKind::Pbs);
        JobSpec local = trainerSpec();
        local.nodes = 1;
        local.tasksPerNode = 1;
        local.gpusPerNode = 0;
        local.launch = LaunchMethod::Local;
        local.checkpointSignalEnabled = false;
        local.checkpointSignal.clear();
        local.partition.clear();
        local.account.clear();
        QTest::addRow("local, no signal") << local << int(SchedulerKind::Local);
        JobSpec custom;
        custom.name = QStringLiteral("mine");
        custom.commandKind = CommandKind::Custom;
        custom.trainerArgs.clear();
        custom.customCommand = QStringLiteral("python train.py --tag \"it's $(whoami)\"");
        custom.wallTimeSeconds = 600;
        QTest::addRow("custom command, hostile quoting") << custom << int(SchedulerKind::Slurm);
        JobSpec perNode = custom; // seed 004's launcher, with its default signal (INT)
        perNode.launch = LaunchMethod::SrunPerNodeLauncher;
        perNode.perNodeLauncher = QStringLiteral("python -m torch.distributed.launch");
        QTest::addRow("custom command, torch.distributed.launch") << perNode << int(SchedulerKind::Slurm);
    }

    void perNodeLauncherIsTypedForACustomCommand()
    {
        JobForm form;
        form.setCaps(capsFor(SchedulerKind::Slurm));
        auto *launcher = qobject_cast<QLineEdit *>(form.field(QStringLiteral("perNodeLauncher")));
        QVERIFY(launcher);
        QVERIFY(!launcher->isEnabled()); // the trainer brings its own per-node launcher
        JobSpec spec = form.spec();
        spec.commandKind = CommandKind::Custom;
        spec.customCommand = QStringLiteral("python3 main.py");
        spec.launch = LaunchMethod::SrunPerNodeLauncher;
        form.setSpec(spec);
        QVERIFY(launcher->isEnabled());
        QVERIFY2(form.previewScript().contains(QStringLiteral("#SBATCH --signal=INT@")),
                 qPrintable(form.previewScript()));
        launcher->clear();
        QTest::keyClicks(launcher, QStringLiteral("python3 -m torch.distributed.launch"));
        QVERIFY2(form.previewScript().contains(QStringLiteral("python3 -m torch.distributed.launch --nnodes=")),
                 qPrintable(form.previewScript()));
        QVERIFY(form.previewScript().contains(QStringLiteral("--no_python --use_env")));
        QVERIFY(form.previewScript().contains(QStringLiteral("main.py --local_rank=\"$LOCAL_RANK\"")));
    }

    void codeFolderIsChosenForACustomCommand()
    {
        JobForm form;
        form.setCaps(capsFor(SchedulerKind::Slurm));
        auto *code = qobject_cast<QLineEdit *>(form.field(QStringLiteral("code")));
        QVERIFY(code);
        QVERIFY(!code->isEnabled()); // the bundled trainer is deployed by torchdeck
        JobSpec spec = form.spec();
        spec.commandKind = CommandKind::Custom;
        spec.customCommand = QStringLiteral("python3 train.py");
        form.setSpec(spec);
        QVERIFY(code->isEnabled());
        code->setText(QStringLiteral("/no/such/project"));
        QCOMPARE(form.errors().size(), 1);
        QCOMPARE(form.errors().constFirst().field, QStringLiteral("code"));
        QVERIFY(!code->styleSheet().isEmpty());
        QTemporaryDir folder;
        const QString project = folder.path();
        code->setText(project);
        QVERIFY(form.errors().isEmpty());
        QCOMPARE(form.spec().codeDirectory, QDir(project).absolutePath());
        JobForm again; // a template or a resubmission brings its folder back
        again.setSpec(form.spec());
        QCOMPARE(qobject_cast<QLineEdit *>(again.field(QStringLiteral("code")))->text(), QDir(project).absolutePath());
    }

    void rendersTheSameScriptAsCore()
    {
        QFETCH(JobSpec, spec);
        QFETCH(int, scheduler);
        JobForm form;
        form.setCaps(capsFor(SchedulerKind(scheduler)));
        form.setSpec(spec);
        const JobSpec made = form.spec();
        if (spec.commandKind == CommandKind::Custom)
            spec.trainerArgs = made.trainerArgs; // unused by a custom command
        QCOMPARE(made.toJson(), spec.toJson());
        const ScriptResult core = renderJobScript(spec, form.caps());
        QVERIFY2(core.ok(), qPrintable(formatJobSpecErrors(core.errors)));
        QVERIFY(form.errors().isEmpty());
        QCOMPARE(form.previewScript(), core.script);
    }

    void typingUpdatesThePreview()
    {
        JobForm form;
        form.setCaps(capsFor(SchedulerKind::Slurm));
        QSignalSpy changed(&form, &JobForm::specChanged);
        auto *partition = qobject_cast<QLineEdit *>(form.field(QStringLiteral("partition")));
        QVERIFY(partition);
        QTest::keyClicks(partition, QStringLiteral("batch"));
        QCOMPARE(changed.count(), 5);
        QVERIFY(form.previewScript().contains(QStringLiteral("#SBATCH --partition=batch")));
        QCOMPARE(form.previewScript(), renderJobScript(form.spec(), form.caps()).script);
        auto *nodes = qobject_cast<QSpinBox *>(form.field(QStringLiteral("nodes")));
        nodes->setValue(3);
        QVERIFY(form.previewScript().contains(QStringLiteral("--nodes=3")));
    }

    void errorsAreInlineAndMarkTheField()
    {
        JobForm form;
        form.setCaps(capsFor(SchedulerKind::Slurm));
        auto *wall = qobject_cast<QLineEdit *>(form.field(QStringLiteral("wallTimeSeconds")));
        wall->setText(QStringLiteral("soon"));
        QVERIFY(!form.errors().isEmpty());
        QCOMPARE(form.errors().constFirst().field, QStringLiteral("wallTimeSeconds"));
        QVERIFY(!wall->styleSheet().isEmpty());
        QCOMPARE(form.previewScript(), QString());
        wall->setText(QStringLiteral("00:10:00"));
        QVERIFY(form.errors().isEmpty());
        QVERIFY(wall->styleSheet().isEmpty());

        auto *memory = qobject_cast<QLineEdit *>(form.field(QStringLiteral("memory")));
        memory->setText(QStringLiteral("lots of it"));
        const QList<JobSpecError> expected = renderJobScript(form.spec(), form.caps()).errors;
        QVERIFY(!expected.isEmpty());
        QCOMPARE(form.errors(), expected);
        QVERIFY(!memory->styleSheet().isEmpty());
    }

    void aPartitionsLimitsAreChecked()
    {
        // The partitions `check` read: offered as choices, the chosen one's limits shown, a wall time beyond them
        // refused by the field.
        ClusterProfile profile = defaultProfile(QStringLiteral("c"));
        QString ignored;
        profile.partitions =
            parseSinfoPartitions("debug*|infinite|1|4|2000|(null)\nshort|30:00|1|4|2000|(null)\n", &ignored);
        profile.partitionsReadAt = QDateTime::currentDateTime();
        JobForm form;
        form.setCaps(profile.caps());
        auto *partition = qobject_cast<QLineEdit *>(form.field(QStringLiteral("partition")));
        QVERIFY(partition && partition->completer());
        QCOMPARE(partition->completer()->model()->rowCount(), 2);
        auto *wall = qobject_cast<QLineEdit *>(form.field(QStringLiteral("wallTimeSeconds")));
        wall->setText(QStringLiteral("01:00:00"));
        QVERIFY(form.errors().isEmpty()); // the default partition, debug: no limit
        partition->setText(QStringLiteral("short"));
        QCOMPARE(form.errors().size(), 1);
        QCOMPARE(form.errors().constFirst().field, QStringLiteral("wallTimeSeconds"));
        QVERIFY(form.errors().constFirst().message.contains(QStringLiteral("at most 00:30:00")));
        QVERIFY(!wall->styleSheet().isEmpty());
        QCOMPARE(form.previewScript(), QString());
        bool limitsShown = false;
        for (const QLabel *label : form.findChildren<QLabel *>())
            limitsShown =
                limitsShown || (label->isVisibleTo(&form) && label->text().startsWith(QStringLiteral("short: 30 min")));
        QVERIFY(limitsShown);
        wall->setText(QStringLiteral("00:20:00"));
        QVERIFY(form.errors().isEmpty());
    }

    void accountsAndGpuTypesAreChoices()
    {
        // What the agent read (sinfo, sacctmgr): the accounts and GPU types offered; one the user may not charge,
        // a GPU type the partition lacks and more GPUs per task than its nodes have refused by their fields.
        ClusterProfile profile = defaultProfile(QStringLiteral("c"));
        QString ignored;
        profile.partitions =
            parseSinfoPartitions("cpu*|infinite|8|64|256000|(null)\ngpu|2-00:00:00|4|64|512000|gpu:a100:4\n", &ignored);
        profile.accounts = parseSacctmgrAssociations("def-lab|||normal||\nrrg-big|||normal||\n");
        profile.partitionsReadAt = QDateTime::currentDateTime();
        JobForm form;
        form.setCaps(profile.caps());
        auto *account = qobject_cast<QLineEdit *>(form.field(QStringLiteral("account")));
        auto *gpuType = qobject_cast<QLineEdit *>(form.field(QStringLiteral("gpuType")));
        auto *perTask = qobject_cast<QSpinBox *>(form.field(QStringLiteral("gpusPerTask")));
        auto *partition = qobject_cast<QLineEdit *>(form.field(QStringLiteral("partition")));
        QVERIFY(account && gpuType && perTask && partition);
        QVERIFY(account->completer() && gpuType->completer());
        QCOMPARE(account->completer()->model()->rowCount(), 2);
        QCOMPARE(gpuType->completer()->model()->index(0, 0).data().toString(), QStringLiteral("a100"));
        account->setText(QStringLiteral("someone-else"));
        QCOMPARE(form.errors().size(), 1);
        QCOMPARE(form.errors().constFirst().field, QStringLiteral("account"));
        account->setText(QStringLiteral("def-lab"));
        partition->setText(QStringLiteral("gpu"));
        perTask->setValue(1);
        gpuType->setText(QStringLiteral("h100"));
        QCOMPARE(form.errors().size(), 1);
        QCOMPARE(form.errors().constFirst().field, QStringLiteral("gpuType"));
        gpuType->setText(QStringLiteral("a100"));
        QVERIFY(form.errors().isEmpty());
        QVERIFY2(form.previewScript().contains(QStringLiteral("#SBATCH --gpus-per-task=a100:1\n")),
                 qPrintable(form.previewScript()));
        auto *tasks = qobject_cast<QSpinBox *>(form.field(QStringLiteral("tasksPerNode")));
        tasks->setValue(5); // 5 GPUs a node, where the partition's have 4
        QCOMPARE(form.errors().size(), 1);
        QCOMPARE(form.errors().constFirst().field, QStringLiteral("gpusPerTask"));
        QVERIFY(!perTask->styleSheet().isEmpty());
    }

    void leadFollowsAShortWallTime()
    {
        JobForm form;
        form.setCaps(capsFor(SchedulerKind::Slurm));
        auto *wall = qobject_cast<QLineEdit *>(form.field(QStringLiteral("wallTimeSeconds")));
        auto *lead = qobject_cast<QSpinBox *>(form.field(QStringLiteral("signalLeadSeconds")));
        QVERIFY(wall && lead);
        QCOMPARE(lead->value(), 300); // the partition's wall time: the fixed lead
        const auto note = [&form] {
            for (QLabel *label : form.findChildren<QLabel *>()) {
                if (!label->isHidden() && label->text().contains(QStringLiteral("by default")))
                    return label->text();
            }
            return QString();
        };
        QCOMPARE(note(), QString());
        // A five-minute test job: a fifth of it, said beside the lead and in the script.
        wall->setText(QStringLiteral("00:05:00"));
        QCOMPARE(lead->value(), 60);
        QCOMPARE(form.spec().signalLeadSeconds, 60);
        QVERIFY(form.errors().isEmpty());
        QCOMPARE(note(), QStringLiteral("60 s by default: a fifth of the wall time"));
        QVERIFY2(form.previewScript().contains(QStringLiteral("#SBATCH --signal=B:USR1@60\n")),
                 qPrintable(form.previewScript()));
        wall->setText(QStringLiteral("02:00:00"));
        QCOMPARE(lead->value(), 300);
        QCOMPARE(note(), QString());
        // A lead the user sets stays whatever the wall time.
        lead->setValue(90);
        wall->setText(QStringLiteral("00:05:00"));
        QCOMPARE(lead->value(), 90);
        QCOMPARE(note(), QString());
        QVERIFY(form.previewScript().contains(QStringLiteral("#SBATCH --signal=B:USR1@90\n")));
    }

    void anEditedScriptStaysUntilReverted()
    {
        JobForm form;
        form.setCaps(capsFor(SchedulerKind::Slurm));
        ScriptPreview *preview = form.scriptPreview();
        QVERIFY(!preview->isEdited());
        QVERIFY(preview->editor()->isReadOnly());
        QSignalSpy editRequested(preview, &ScriptPreview::editRequested);
        QTest::mouseClick(preview->findChild<QPushButton *>(QStringLiteral("editScript")), Qt::LeftButton);
        QCOMPARE(editRequested.count(), 1);

        QSignalSpy edited(preview, &ScriptPreview::editedChanged);
        const QString fetched = form.previewScript() + QStringLiteral("# the run directory would be here\n");
        preview->beginEditing(fetched);
        QCOMPARE(edited.count(), 1);
        QVERIFY(preview->isEdited());
        QVERIFY(!preview->editor()->isReadOnly());
        QTest::keyClicks(preview->editor(), QStringLiteral("echo mine"));
        const QString mine = preview->text();
        QVERIFY(mine.contains(QStringLiteral("echo mine")));
        QVERIFY(preview->bannerText().contains(QStringLiteral("Edited script")));
        QVERIFY(!preview->bannerText().contains(QStringLiteral("fields changed")));

        // A field changes: the generated script follows it, the edited one stays and the banner says so.
        qobject_cast<QLineEdit *>(form.field(QStringLiteral("partition")))->setText(QStringLiteral("debug"));
        QCOMPARE(preview->text(), mine);
        QVERIFY(form.previewScript().contains(QStringLiteral("--partition=debug")));
        QVERIFY(preview->bannerText().contains(QStringLiteral("fields changed")));

        preview->revert();
        QCOMPARE(edited.count(), 2);
        QVERIFY(!preview->isEdited());
        QVERIFY(preview->editor()->isReadOnly());
        QCOMPARE(preview->text(), form.previewScript());
        QVERIFY(preview->bannerText().isEmpty());
    }
};

TORCHDECK_TEST_MAIN(TestJobForm)
#include "tst_jobform.moc"
