// The command table and what is generated from it: --help, a command's help, the man page and the shell
// completions list every command and option; the job parser accepts every job and trainer option listed.
#include "term/commandhelp.h"
#include "term/commandtable.h"
#include "term/completionscripts.h"
#include "term/joboptions.h"
#include "testmain.h"

#include <QSet>
#include <QTest>

using namespace torchdeck::term;

class TestCommandTable : public QObject {
    Q_OBJECT
private slots:
    void namesAreUniqueAndWellFormed();
    void everyCommandIsInEveryText();
    void everyOptionIsInItsCommandsTexts();
    void jobParserAcceptsTheListedOptions_data();
    void jobParserAcceptsTheListedOptions();
    void helpIsAskedOnlyByABareFlag_data();
    void helpIsAskedOnlyByABareFlag();
    void manPageEscapesRoff();
    void helpFitsTheTerminal();
};

namespace {

QList<OptionSpec> allOptions()
{
    QList<OptionSpec> options = globalOptions();
    for (const CommandSpec &command : commandSpecs())
        options << optionsOf(command);
    return options;
}

} // namespace

void TestCommandTable::namesAreUniqueAndWellFormed()
{
    QSet<QString> commands;
    for (const CommandSpec &command : commandSpecs()) {
        QVERIFY2(!commands.contains(command.name), qPrintable(command.name));
        commands.insert(command.name);
        QVERIFY(!command.summary.isEmpty());
        QVERIFY2(command.run || command.name == u"help", qPrintable(command.name)); // help: the table itself
        QSet<QString> options;
        for (const OptionSpec &option : optionsOf(command)) {
            QVERIFY2(option.name.startsWith(QStringLiteral("--")), qPrintable(command.name + u' ' + option.name));
            QVERIFY2(!options.contains(option.name), qPrintable(command.name + u' ' + option.name));
            options.insert(option.name);
            QVERIFY2(!option.help.isEmpty(), qPrintable(option.name));
            QCOMPARE(option.completion == Completion::Choices, !option.choices.isEmpty());
            if (option.completion != Completion::None)
                QVERIFY2(!option.value.isEmpty(), qPrintable(option.name + QStringLiteral(": a flag has no value")));
        }
    }
}

void TestCommandTable::everyCommandIsInEveryText()
{
    const QString usage = usageText();
    const QString man = manPage(QStringLiteral("9.9"));
    const QString bash = bashCompletion();
    const QString zsh = zshCompletion();
    const QString fish = fishCompletion();
    for (const CommandSpec &command : commandSpecs()) {
        const QString name = command.name;
        const bool listed = !command.hidden;
        QCOMPARE(usage.contains(QStringLiteral("\n  ") + name + u' '), listed);
        QCOMPARE(man.contains(QStringLiteral(".TP\n\\fB") + QString(name).replace(u'-', QStringLiteral("\\-"))),
                 listed);
        QCOMPARE(bash.contains(QStringLiteral("    ") + name + QStringLiteral(")\n")), listed);
        QCOMPARE(zsh.contains(QStringLiteral("    ") + name + QStringLiteral(") _arguments")), listed);
        QCOMPARE(fish.contains(QStringLiteral("__fish_seen_subcommand_from ") + name + u'\''), listed);
    }
}

void TestCommandTable::everyOptionIsInItsCommandsTexts()
{
    const QString man = manPage(QStringLiteral("9.9"));
    for (const CommandSpec &command : commandSpecs()) {
        if (command.hidden)
            continue;
        const QString help = commandHelpText(command);
        for (const OptionSpec &option : optionsOf(command)) {
            QVERIFY2(help.contains(QStringLiteral("  ") + optionSynopsis(option)),
                     qPrintable(command.name + u' ' + option.name));
            QVERIFY2(man.contains(QString(option.name).replace(u'-', QStringLiteral("\\-"))), qPrintable(option.name));
        }
    }
    const QString zsh = zshCompletion();
    for (const OptionSpec &option : allOptions()) {
        const bool listed = zsh.contains(option.name + u'[') || zsh.contains(option.name + QStringLiteral("}'["));
        QVERIFY2(listed, qPrintable(option.name));
    }
}

void TestCommandTable::jobParserAcceptsTheListedOptions_data()
{
    QTest::addColumn<QStringList>("args");
    for (const OptionSpec &option : jobOptionSpecs() + trainerOptionSpecs()) {
        if (option.name == u"--job" || option.name == u"--code")
            continue; // they read the file system; packaging.options gives them real ones
        QString value = option.choices.value(0, QStringLiteral("1"));
        if (option.value == u"NAME=VALUE")
            value = QStringLiteral("A=1");
        else if (option.value == u"CLUSTER=CMD")
            value = QStringLiteral("hpc=python3 train.py");
        else if (option.value == u"RUNTIME:IMAGE")
            value = QStringLiteral("apptainer:image.sif");
        QStringList args{QStringLiteral("hpc"), option.name};
        if (!option.value.isEmpty())
            args.append(value);
        QTest::addRow("%s", qPrintable(option.name)) << args;
    }
}

void TestCommandTable::jobParserAcceptsTheListedOptions()
{
    QFETCH(QStringList, args);
    const JobOptions parsed =
        parseJobOptions(args, {QStringLiteral("--json"), QStringLiteral("--edit")}, {QStringLiteral("--chain")});
    QVERIFY2(parsed.error.isEmpty(), qPrintable(parsed.error));
}

void TestCommandTable::helpIsAskedOnlyByABareFlag_data()
{
    QTest::addColumn<QString>("command");
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<bool>("help");
    const auto words = [](const char *text) { return QString::fromUtf8(text).split(u' ', Qt::SkipEmptyParts); };
    QTest::newRow("--help") << "submit" << words("--help") << true;
    QTest::newRow("-h after operands") << "logs" << words("myrun -f -h") << true;
    QTest::newRow("a trainer flag's value") << "submit" << words("hpc --trainer-arg --help") << false;
    QTest::newRow("a run named -h") << "logs" << words("--attempt -h") << false;
    QTest::newRow("none") << "runs" << words("--json") << false;
}

void TestCommandTable::helpIsAskedOnlyByABareFlag()
{
    QFETCH(QString, command);
    QFETCH(QStringList, args);
    QFETCH(bool, help);
    QCOMPARE(asksForHelp(*findCommand(command), args), help);
}

void TestCommandTable::manPageEscapesRoff()
{
    const QString man = manPage(QStringLiteral("1.2.3"));
    QVERIFY(man.startsWith(QStringLiteral(".\\\" Generated")));
    QVERIFY(man.contains(QStringLiteral(".TH TORCHDECK 1 \"\" \"torchdeck 1.2.3\"")));
    for (const QString &line : man.split(u'\n')) {
        // A text line starting with a dot or quote would be read as a request; hyphens are escaped.
        if (!line.startsWith(u'.'))
            QVERIFY2(!line.startsWith(u'\'') && !line.contains(QStringLiteral(" --")), qPrintable(line));
    }
}

void TestCommandTable::helpFitsTheTerminal()
{
    const QStringList lines = usageText().split(u'\n');
    for (const QString &line : lines)
        QVERIFY2(line.size() <= 115, qPrintable(line));
}

TORCHDECK_TEST_MAIN(TestCommandTable)
#include "tst_commandtable.moc"
