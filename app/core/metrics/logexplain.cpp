#include "core/metrics/logexplain.h"

#include "core/coretr.h"
#include "core/metrics/lineassembler.h"
#include "core/metrics/logmetrics.h"

namespace torchdeck {

QList<ExplainedLine> explainLog(QByteArrayView log, const QList<LogPattern> &patterns)
{
    QList<ExplainedLine> lines;
    PatternParser parser;
    if (!parser.setPatterns(patterns).isEmpty())
        return lines;
    LineAssembler assembler;
    assembler.append(log);
    QList<QByteArray> raw = assembler.takeLines();
    if (const QByteArray rest = assembler.takePartial(); !rest.isEmpty())
        raw.append(rest);
    LogProgress progress;
    for (qsizetype i = 0; i < raw.size(); ++i) {
        ExplainedLine line;
        line.number = i + 1;
        const QList<MetricEvent> events = parser.parseLine(raw.at(i), &line.explanation);
        if (line.explanation.rules.isEmpty() && line.explanation.note.isEmpty())
            continue; // no rule read it: most of a log
        line.text = QString::fromUtf8(raw.at(i));
        const QList<MetricEvent> kept = firstOfEachRank(events, 0, &progress);
        line.repeats = events.size() - kept.size();
        line.explanation.events = kept;
        lines.append(line);
    }
    return lines;
}

QString describeEvent(const MetricEvent &e)
{
    QStringList values;
    const std::pair<const char *, double> named[] = {
        {"loss", e.loss}, {"val_loss", e.valLoss}, {"accuracy", e.valAccuracy},
        {"lr", e.lr},     {"seconds", e.seconds},  {"samples/s", e.samplesPerSecond}};
    for (const auto &[name, value] : named) {
        if (MetricEvent::has(value))
            values.append(QStringLiteral("%1 %2").arg(QLatin1StringView(name), QString::number(value, 'g', 6)));
    }
    for (const NamedValue &extra : e.extras)
        values.append(QStringLiteral("%1 %2").arg(extra.name, QString::number(extra.value, 'g', 6)));
    // Shown from 1; a script counting from 0 printed one less, which is why its "Epoch 0" reads epoch 1.
    QString epoch = core::Tr::tr("epoch %1").arg(e.epoch);
    if (e.epochs >= 0)
        epoch += QStringLiteral("/%1").arg(e.epochs);
    if (e.epochFromZero)
        epoch += core::Tr::tr(", printed %1").arg(e.epoch - 1);
    QString where;
    if (e.kind == MetricEventKind::Epoch) {
        where = epoch;
    } else {
        where = e.stepCounted ? core::Tr::tr("step %1 (counted)").arg(e.step) : core::Tr::tr("step %1").arg(e.step);
        if (e.epoch >= 1)
            where += QStringLiteral(" (%1)").arg(epoch);
    }
    return where + QStringLiteral(": ") + values.join(QStringLiteral(", "));
}

QString explanationRules(const ExplainedLine &line)
{
    const QStringList &rules = line.explanation.rules;
    return rules.isEmpty() ? core::Tr::tr("nothing") : rules.join(QStringLiteral(", "));
}

QString explanationGives(const ExplainedLine &line)
{
    const LineExplanation &x = line.explanation;
    QStringList parts;
    for (const MetricEvent &e : x.events)
        parts.append(describeEvent(e));
    // A context line that gave no event says what it set ("context: epoch 3/10").
    if (x.context)
        parts.prepend(x.events.isEmpty() && !x.note.isEmpty() ? x.note : core::Tr::tr("context"));
    if (line.repeats > 0)
        parts.append(core::Tr::tr("%n repeat(s) of values given before, dropped", nullptr, int(line.repeats)));
    if (!x.note.isEmpty() && !x.context)
        parts.append(x.note);
    return parts.join(QStringLiteral("; "));
}

QString explanationText(const ExplainedLine &line)
{
    return explanationRules(line) + QStringLiteral(": ") + explanationGives(line);
}

} // namespace torchdeck
