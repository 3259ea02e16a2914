#include "core/metrics/patternparser.h"

#include "core/coretr.h"
#include "core/metrics/generalreader.h"
#include "core/metrics/logprefix.h"

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
         1, true},
        // Tutorials and torchdeck-train: "epoch: 3/10, loss = 0.0421[, val_loss = ..][, val_accuracy = ..]"
        {QStringLiteral("epoch x/y, loss"),
         QStringLiteral(R"((?i)\bepoch\s*[:=]?\s*(?<epoch>\d+)\s*/\s*(?<epochs>\d+)[\s,;|:\-]*(?:train[_ ]?)?)"
                        R"(loss\s*[:=]\s*(?<loss>)" TD_NUM R"())"
                        R"((?:.*?\bval[_ ]?loss\s*[:=]\s*(?<val_loss>)" TD_NUM R"())?)"
                        R"((?:.*?\bval[_ ]?acc(?:uracy)?\s*[:=]\s*(?<accuracy>)" TD_NUM R"())?)"
                        R"((?:.*?\btime\s*[:=]\s*(?<seconds>)" TD_NUM R"()\s*s)?)"),
         1, true},
        // PyTorch tutorials: "Epoch [3/10], Step [100/938], Loss: 0.0421"
        {QStringLiteral("Epoch [x/y] Step [i/n] Loss"),
         QStringLiteral(R"((?i)\bepoch\s*\[\s*(?<epoch>\d+)\s*/\s*(?<epochs>\d+)\s*\]\s*,?\s*)"
                        R"(step\s*\[\s*(?<epoch_step>\d+)\s*/\s*(?<steps>\d+)\s*\]\s*,?\s*loss\s*:\s*(?<loss>)" TD_NUM
                        R"())"),
         1, true},
        // Lightning's progress bar: "Epoch 2:  45%|####   | 420/938 [00:05<00:06, 80.1it/s, loss=0.31, ...]"
        {QStringLiteral("Lightning progress bar"),
         QStringLiteral(R"(\bEpoch (?<epoch>\d+):.*?\b(?<epoch_step>\d+)/(?<steps>\d+)\s*\[.*?)"
                        R"(\b(?:train_loss(?:_step)?|loss)=(?<loss>)" TD_NUM R"())"),
         0, true},
        // "epoch 3 ... loss: 0.04 ... val_loss: 0.05"
        {QStringLiteral("epoch N ... loss"),
         QStringLiteral(
             R"((?i)\bepoch\s*[:=]?\s*(?<epoch>\d+)\b(?!\s*/).*?\b(?:train[_ ]?)?loss\s*[:=]\s*(?<loss>)" TD_NUM
             R"()(?:.*?\bval[_ ]?loss\s*[:=]\s*(?<val_loss>)" TD_NUM R"())?)"
             R"((?:.*?\bval[_ ]?acc(?:uracy)?\s*[:=]\s*(?<accuracy>)" TD_NUM R"())?)"),
         1, true},
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
         1, true},
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
    bool captures = false;
    for (const QString &group : regex.namedCaptureGroups()) {
        if (group.isEmpty())
            continue;
        if (!knownGroups().contains(group)) {
            *error = core::Tr::tr("pattern \"%1\": unknown group \"%2\"").arg(pattern.name, group);
            return std::nullopt;
        }
        captures = true;
    }
    if (!captures) {
        *error = core::Tr::tr("pattern \"%1\" captures no value (loss, val_loss, accuracy) and no context (epoch, "
                              "step, seconds)")
                     .arg(pattern.name);
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

bool PatternParser::isContextPattern(const LogPattern &pattern)
{
    const QRegularExpression regex(pattern.regex);
    for (const QString &group : regex.namedCaptureGroups()) {
        if (group == u"loss" || group == u"val_loss" || group == u"accuracy" || group == u"val_accuracy" ||
            group == u"lr")
            return false;
    }
    return true;
}

namespace {

LineReading readingOf(const QRegularExpressionMatch &m, const LogPattern &pattern)
{
    LineReading r;
    r.epochBase = pattern.epochBase;
    if (const qint64 epoch = capturedCount(m, u"epoch"); epoch >= 0)
        r.epoch = double(epoch);
    r.epochs = capturedCount(m, u"epochs");
    r.step = capturedCount(m, u"step");
    r.epochStep = capturedCount(m, u"epoch_step");
    r.stepsPerEpoch = capturedCount(m, u"steps");
    r.loss = capturedDouble(m, u"loss");
    r.valLoss = capturedDouble(m, u"val_loss");
    r.valAccuracy = capturedDouble(m, u"accuracy");
    if (!MetricEvent::has(r.valAccuracy))
        r.valAccuracy = capturedDouble(m, u"val_accuracy");
    r.lr = capturedDouble(m, u"lr");
    r.seconds = capturedDouble(m, u"seconds");
    // A value group that matched a printed nan still makes the line one of values.
    for (QStringView group : {u"loss", u"val_loss", u"accuracy", u"val_accuracy"})
        r.nonFinite = r.nonFinite || (m.capturedLength(group) > 0 && !MetricEvent::has(capturedDouble(m, group)));
    // Keras' and Lightning's bars: the line at the epoch's last step sums up the epoch.
    r.progressBar = pattern.builtIn && r.epochStep >= 0;
    return r;
}

} // namespace

QList<MetricEvent> PatternParser::parseSegment(QStringView segment, LineExplanation *explanation)
{
    std::optional<LineReading> reading;
    QString rule;
    qsizetype next = 0;
    for (; next < m_compiled.size() && !m_compiled.at(next).pattern.builtIn && !reading; ++next) {
        const Compiled &c = m_compiled.at(next);
        if (const QRegularExpressionMatch m = c.regex.match(segment); m.hasMatch()) {
            reading = readingOf(m, c.pattern);
            rule = core::Tr::tr("pattern \"%1\"").arg(c.pattern.name);
        }
    }
    if (!reading) {
        if (const std::optional<QStringView> own = ownLogText(segment)) {
            reading = generalReading(*own);
            rule = core::Tr::tr("general reader");
        }
    }
    for (; next < m_compiled.size() && !reading; ++next) {
        const Compiled &c = m_compiled.at(next);
        if (const QRegularExpressionMatch m = c.regex.match(segment); m.hasMatch()) {
            reading = readingOf(m, c.pattern);
            rule = core::Tr::tr("built-in pattern \"%1\"").arg(c.pattern.name);
        }
    }
    if (!reading)
        return {};
    QString note;
    QList<MetricEvent> events = m_context.take(*reading, &note);
    if (explanation) {
        if (!explanation->rules.contains(rule))
            explanation->rules.append(rule);
        explanation->context = !reading->hasValues() && !reading->summary;
        if (!note.isEmpty())
            explanation->note = note;
    }
    return events;
}

std::optional<MetricEvent> PatternParser::parse(QStringView line)
{
    const QList<MetricEvent> events = parseSegment(line, nullptr);
    if (events.isEmpty())
        return std::nullopt;
    return events.first();
}

QList<MetricEvent> PatternParser::parseLine(QByteArrayView line, LineExplanation *explanation)
{
    QList<MetricEvent> events;
    const QString text = QString::fromUtf8(line);
    const std::optional<QStringView> own = rankZerosLine(text);
    if (!own || !ownLogText(*own)) {
        if (explanation)
            explanation->note = core::Tr::tr("another rank's line");
        return events;
    }
    for (const QStringView segment : own->tokenize(u'\r', Qt::SkipEmptyParts)) {
        for (const MetricEvent &e : parseSegment(segment, explanation)) {
            // A bar rewritten in place: the last refresh of a step (or of an epoch's summary) wins.
            auto same = std::find_if(events.begin(), events.end(), [&e](const MetricEvent &earlier) {
                return earlier.kind == e.kind && earlier.step == e.step && earlier.epoch == e.epoch;
            });
            if (same != events.end())
                *same = e;
            else
                events.append(e);
        }
    }
    if (explanation)
        explanation->events = events;
    return events;
}

} // namespace torchdeck

#undef TD_NUM
