#include "core/metrics/patternparser.h"

#include "core/coretr.h"

#include <QSet>
#include <algorithm>

namespace torchdeck {

namespace {

// A number as Python and C++ print it, including nan and inf.
#define TD_NUM R"([-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?|[-+]?(?:nan|inf))"

const QSet<QString> &knownGroups()
{
    static const QSet<QString> groups{
        QStringLiteral("epoch"),      QStringLiteral("epochs"),   QStringLiteral("step"),
        QStringLiteral("epoch_step"), QStringLiteral("steps"),    QStringLiteral("loss"),
        QStringLiteral("val_loss"),   QStringLiteral("accuracy"), QStringLiteral("val_accuracy"),
        QStringLiteral("lr"),         QStringLiteral("seconds")};
    return groups;
}

double capturedDouble(const QRegularExpressionMatch &m, QStringView group)
{
    const QStringView text = m.capturedView(group);
    if (text.isEmpty())
        return kNoValue;
    bool ok = false;
    const double value = text.toDouble(&ok);
    return ok ? value : kNoValue;
}

// PCRE2's backtracking limit, in the pattern itself: a catastrophic user pattern fails a line quickly instead
// of holding the tracker (PCRE2's default is 10 000 000).
constexpr QStringView kMatchLimit = u"(*LIMIT_MATCH=200000)";

// srun --label writes "R: " before each line of rank R: only rank 0's lines count, without the label.
std::optional<QStringView> rankZerosLine(QStringView line)
{
    qsizetype digits = 0;
    while (digits < line.size() && digits < 6 && line[digits].isDigit())
        ++digits;
    if (digits == 0 || !line.mid(digits).startsWith(u": "))
        return line;
    if (line.left(digits).toInt() != 0)
        return std::nullopt;
    return line.mid(digits + 2);
}

qint64 capturedCount(const QRegularExpressionMatch &m, QStringView group)
{
    const QStringView text = m.capturedView(group);
    bool ok = false;
    const qint64 value = text.isEmpty() ? kNoCount : text.toLongLong(&ok);
    return ok && value >= 0 ? value : kNoCount;
}

} // namespace

QList<LogPattern> PatternParser::defaultPatterns()
{
    return {
        // torchdeck-train's own stdout: "epoch 1 step 5/100 (global 105): loss = 0.123, lr = 0.001, ..."
        {QStringLiteral("torchdeck step"),
         QStringLiteral(R"(^epoch (?<epoch>\d+) step (?<epoch_step>\d+)/(?<steps>\d+) \(global (?<step>\d+)\): )"
                        R"(loss = (?<loss>)" TD_NUM R"()(?:, lr = (?<lr>)" TD_NUM R"())?)"),
         1},
        // Tutorials and torchdeck-train: "epoch: 3/10, loss = 0.0421[, val_loss = ..][, val_accuracy = ..]"
        {QStringLiteral("epoch x/y, loss"),
         QStringLiteral(R"((?i)\bepoch\s*[:=]?\s*(?<epoch>\d+)\s*/\s*(?<epochs>\d+)[\s,;|:\-]*(?:train[_ ]?)?)"
                        R"(loss\s*[:=]\s*(?<loss>)" TD_NUM R"())"
                        R"((?:.*?\bval[_ ]?loss\s*[:=]\s*(?<val_loss>)" TD_NUM R"())?)"
                        R"((?:.*?\bval[_ ]?acc(?:uracy)?\s*[:=]\s*(?<accuracy>)" TD_NUM R"())?)"
                        R"((?:.*?\btime\s*[:=]\s*(?<seconds>)" TD_NUM R"()\s*s)?)"),
         1},
        // PyTorch tutorials: "Epoch [3/10], Step [100/938], Loss: 0.0421"
        {QStringLiteral("Epoch [x/y] Step [i/n] Loss"),
         QStringLiteral(R"((?i)\bepoch\s*\[\s*(?<epoch>\d+)\s*/\s*(?<epochs>\d+)\s*\]\s*,?\s*)"
                        R"(step\s*\[\s*(?<epoch_step>\d+)\s*/\s*(?<steps>\d+)\s*\]\s*,?\s*loss\s*:\s*(?<loss>)" TD_NUM
                        R"())"),
         1},
        // Lightning's progress bar: "Epoch 2:  45%|####   | 420/938 [00:05<00:06, 80.1it/s, loss=0.31, ...]"
        {QStringLiteral("Lightning progress bar"),
         QStringLiteral(R"(\bEpoch (?<epoch>\d+):.*?\b(?<epoch_step>\d+)/(?<steps>\d+)\s*\[.*?)"
                        R"(\b(?:train_loss(?:_step)?|loss)=(?<loss>)" TD_NUM R"())"),
         0},
        // "epoch 3 ... loss: 0.04 ... val_loss: 0.05"
        {QStringLiteral("epoch N ... loss"),
         QStringLiteral(
             R"((?i)\bepoch\s*[:=]?\s*(?<epoch>\d+)\b(?!\s*/).*?\b(?:train[_ ]?)?loss\s*[:=]\s*(?<loss>)" TD_NUM
             R"()(?:.*?\bval[_ ]?loss\s*[:=]\s*(?<val_loss>)" TD_NUM R"())?)"
             R"((?:.*?\bval[_ ]?acc(?:uracy)?\s*[:=]\s*(?<accuracy>)" TD_NUM R"())?)"),
         1},
        // Keras' fit(): "Epoch 3/10" on its own line, then "469/469 [=====] - 2s 4ms/step - loss: 0.12 -
        // accuracy: 0.95 - val_loss: 0.10 - val_accuracy: 0.96" (Keras 3: a bar of ━, accuracy first).
        {QStringLiteral("Keras progress"),
         QStringLiteral(R"(^\s*(?<epoch_step>\d+)/(?<steps>\d+) (?:\[[=>.]*\]|\S+)\s.*?\bloss: (?<loss>)" TD_NUM
                        R"()(?:(?=.*?\bval_loss: (?<val_loss>)" TD_NUM R"()))?)"
                        R"((?:(?=.*?\bval_acc(?:uracy)?: (?<val_accuracy>)" TD_NUM R"()))?)"),
         1, true},
        // Lightning-like key=value logging without an epoch: "train_loss=0.042"
        {QStringLiteral("[step=N] train_loss=x"),
         QStringLiteral(R"((?:\bstep[=:]\s*(?<step>\d+)\b.*?)?\btrain_loss(?:_step)?=(?<loss>)" TD_NUM R"())"
                        R"((?:.*?\blr=(?<lr>)" TD_NUM R"())?)"),
         1},
    };
}

PatternParser::PatternParser()
{
    for (const LogPattern &pattern : defaultPatterns()) {
        QString error;
        if (auto compiled = compile(pattern, &error))
            m_compiled.append(*compiled);
        else
            qFatal("built-in log pattern %s: %s", qUtf8Printable(pattern.name), qUtf8Printable(error));
    }
}

std::optional<PatternParser::Compiled> PatternParser::compile(const LogPattern &pattern, QString *error)
{
    QRegularExpression regex(kMatchLimit + pattern.regex);
    if (!regex.isValid()) {
        *error = core::Tr::tr("pattern \"%1\": %2 at offset %3")
                     .arg(pattern.name, regex.errorString())
                     .arg(std::max<qsizetype>(0, regex.patternErrorOffset() - kMatchLimit.size()));
        return std::nullopt;
    }
    bool hasValue = false;
    for (const QString &group : regex.namedCaptureGroups()) {
        if (group.isEmpty())
            continue;
        if (!knownGroups().contains(group)) {
            *error = core::Tr::tr("pattern \"%1\": unknown group \"%2\"").arg(pattern.name, group);
            return std::nullopt;
        }
        hasValue =
            hasValue || group == u"loss" || group == u"val_loss" || group == u"accuracy" || group == u"val_accuracy";
    }
    if (!hasValue) {
        *error = core::Tr::tr("pattern \"%1\" captures no loss, val_loss or accuracy").arg(pattern.name);
        return std::nullopt;
    }
    regex.optimize();
    return Compiled{pattern, regex};
}

QString PatternParser::validate(const LogPattern &pattern)
{
    QString error;
    compile(pattern, &error);
    return error;
}

QString PatternParser::setPatterns(const QList<LogPattern> &patterns)
{
    QList<Compiled> compiled;
    for (const LogPattern &pattern : patterns) {
        QString error;
        auto one = compile(pattern, &error);
        if (!one)
            return error;
        compiled.append(*one);
    }
    m_compiled = compiled;
    return {};
}

QList<LogPattern> PatternParser::patterns() const
{
    QList<LogPattern> result;
    for (const Compiled &c : m_compiled)
        result.append(c.pattern);
    return result;
}

std::optional<MetricEvent> PatternParser::parse(QStringView line)
{
    m_lastEndsEpoch = false;
    static const QRegularExpression header(QStringLiteral(R"(^\s*Epoch (\d+)/(\d+)\s*$)"));
    if (const QRegularExpressionMatch m = header.match(line); m.hasMatch()) {
        m_headerEpoch = m.captured(1).toLongLong();
        m_headerEpochs = m.captured(2).toLongLong();
        return std::nullopt;
    }
    for (const Compiled &c : m_compiled) {
        const QRegularExpressionMatch m = c.regex.match(line);
        if (!m.hasMatch())
            continue;
        MetricEvent e;
        e.epoch = capturedCount(m, u"epoch");
        if (e.epoch >= 0)
            e.epoch += 1 - c.pattern.epochBase;
        e.epochs = capturedCount(m, u"epochs");
        e.step = capturedCount(m, u"step");
        e.epochStep = capturedCount(m, u"epoch_step");
        e.stepsPerEpoch = capturedCount(m, u"steps");
        e.loss = capturedDouble(m, u"loss");
        e.valLoss = capturedDouble(m, u"val_loss");
        e.valAccuracy = capturedDouble(m, u"accuracy");
        if (!MetricEvent::has(e.valAccuracy))
            e.valAccuracy = capturedDouble(m, u"val_accuracy");
        e.lr = capturedDouble(m, u"lr");
        e.seconds = capturedDouble(m, u"seconds");
        if (c.pattern.epochFromHeader && e.epoch < 0 && m_headerEpoch > 0) {
            e.epoch = m_headerEpoch;
            e.epochs = m_headerEpochs;
            m_lastEndsEpoch = e.epochStep >= 0 && e.epochStep == e.stepsPerEpoch;
        }

        const bool stepLine = e.step >= 0 || e.epochStep >= 0;
        if (!stepLine && e.epoch >= 0) {
            e.kind = MetricEventKind::Epoch;
            return e;
        }
        e.kind = MetricEventKind::Step;
        if (e.step < 0 && e.epochStep >= 0 && e.stepsPerEpoch > 0 && e.epoch >= 1)
            e.step = (e.epoch - 1) * e.stepsPerEpoch + e.epochStep;
        if (e.step < 0)
            e.step = m_implicitStep + 1;
        m_implicitStep = qMax(m_implicitStep, e.step);
        return e;
    }
    return std::nullopt;
}

QList<MetricEvent> PatternParser::parseLine(QByteArrayView line)
{
    QList<MetricEvent> events;
    const QString text = QString::fromUtf8(line);
    const std::optional<QStringView> own = rankZerosLine(text);
    if (!own)
        return events;
    bool endsEpoch = false;
    for (const QStringView segment : own->tokenize(u'\r', Qt::SkipEmptyParts)) {
        std::optional<MetricEvent> e = parse(segment);
        if (!e)
            continue;
        endsEpoch = m_lastEndsEpoch;
        if (!events.isEmpty() && events.last().kind == e->kind && events.last().step == e->step &&
            events.last().epoch == e->epoch)
            events.last() = *e;
        else
            events.append(*e);
    }
    if (endsEpoch) {
        // The last step's running loss is the epoch's mean train loss; validation comes with it.
        MetricEvent epoch = events.last();
        epoch.kind = MetricEventKind::Epoch;
        events.last().valLoss = kNoValue;
        events.last().valAccuracy = kNoValue;
        events.append(epoch);
    }
    return events;
}

} // namespace torchdeck

#undef TD_NUM
