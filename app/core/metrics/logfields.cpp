#include "core/metrics/logfields.h"

#include <QRegularExpression>

namespace torchdeck {

namespace {

// A number as Python and C++ print it, including nan and inf, and with thousands separators (f"{n:,}").
#define TD_NUM                                                                                                         \
    R"((?:[-+]?\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\d,])|[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?|[-+]?(?:nan|inf)))"

const QRegularExpression &dictPair()
{
    static const QRegularExpression re(
        QStringLiteral(R"((['"])([^'"\n]{1,80})\1\s*:\s*(['"]?)()" TD_NUM R"()\3(?=\s*[,}]))"));
    return re;
}

// "name: value", "name=value", "name = value"; "Epoch 3", "nll_loss 3.2" and a table's "| wps 12000 |"; "Name
// value (average)". The value may be "[3]", "[100/938]", "3/10", "tensor(0.5", a one-element "tensor([0.5])" (an
// all-reduced loss) or a numpy scalar, "np.float32(0.5)".
const QRegularExpression &field()
{
    static const QRegularExpression re(QStringLiteral(
        R"((?<![\w@.\-]))"
        R"((?:(?<name>[A-Za-z_][\w@.\-/]*(?:[ ][A-Za-z_][\w@\-]*){0,2}?)\s*[:=]\s*)"
        R"(|(?<sname>(?i:epoch|step|iter|iteration|batch|global|update|num_updates|loss|acc|accuracy|lr|ppl)(?![\w@])|)"
        R"([A-Za-z][\w.\-]*[_@][\w@.\-]*)[ \t]+)"
        R"(|(?<aname>[A-Za-z_][\w@.\-]*)[ \t]+(?=[-+]?[\d.]+(?:[eE][-+]?\d+)?\s*\(\s*[-+]?[\d.]))"
        R"(|(?<=\| )(?<cname>[A-Za-z][\w@.\-]*)[ \t]+(?=[-+]?[\d.]+(?:[eE][-+]?\d+)?\s*(?:\||$)))"
        R"())"
        R"((?:\[\s*(?<bdone>\d+)\s*/\s*(?<btotal>\d+)\s*\]|\[\s*(?<bvalue>)" TD_NUM R"()\s*\])"
        R"(|tensor\(\s*(?<tvalue>)" TD_NUM R"()|tensor\(\s*\[\s*(?<t1value>)" TD_NUM R"()\s*\])"
        R"(|(?:np|numpy)\.(?:u?int|float|double|longdouble|half|single)\d*\(\s*(?<nvalue>)" TD_NUM R"()\s*\))"
        R"(|(?<value>)" TD_NUM R"()(?:\s*/\s*(?<total>\d+)(?![\d.]))?))"
        R"((?:\s*\(\s*(?<average>)" TD_NUM R"()\s*\))?(?<percent>\s*%)?(?:s|sec|secs|seconds)?(?![\w.@]))"));
    return re;
}

// tqdm's and Keras' furniture, blanked before the fields are read: times, rates, percentages, ETA.
const QRegularExpression &furniture()
{
    static const QRegularExpression re(QStringLiteral(
        R"(\(\s*\d+(?:\.\d+)?%\s*\))"                                                  // "(11%)"
        R"(|\b\d+(?:\.\d+)?%(?=\|))"                                                   // tqdm's "45%|"
        R"(|\d{1,3}(?::\d\d){1,2}(?:[.,]\d+)?(?:<(?:\d{1,3}(?::\d\d){1,2}|\?))?)"      // times, tqdm's "00:05<00:06"
        R"(|)" TD_NUM R"(\s*(?:it/s|s/it|ms/step|s/step|us/step|ms/sample|s/epoch)\b)" // rates
        R"(|\?it/s)"
        R"(|\bdevice=(['"])[^'"]*\1)")); // a tensor's "device='cuda:0'"
    return re;
}

const QRegularExpression &timeForEpoch()
{
    // TensorFlow's tutorials: "Time taken for epoch 3 is 20.5 sec", "Time for epoch 3 is 20.5 sec".
    static const QRegularExpression re(QStringLiteral(
        R"((?i)\btime (?:taken )?for epoch (\d+)(?: is| was|:)?\s*()" TD_NUM R"()\s*(?:s|sec|secs|seconds)\b)"));
    return re;
}

double number(QStringView text, bool *decimal = nullptr)
{
    bool ok = false;
    const double value = text.contains(u',') ? text.toString().remove(u',').toDouble(&ok) : text.toDouble(&ok);
    if (decimal)
        *decimal = text.contains(u'.') || text.contains(u'e') || text.contains(u'E');
    return ok ? value : kNoValue;
}

void blank(QString *work, qsizetype from, qsizetype to)
{
    for (qsizetype i = from; i < to && i < work->size(); ++i)
        (*work)[i] = u' ';
}

QString sectionOf(QStringView before)
{
    static const QRegularExpression word(
        QStringLiteral(R"((?i)(?<![\w])(test|valid|validation|val|eval|evaluation|dev|train|training)(?![\w]))"));
    QString section;
    for (const QRegularExpressionMatch &m : word.globalMatch(before)) {
        const QString w = m.captured(1).toLower();
        section = w.startsWith(u"train") ? QStringLiteral("train") : QStringLiteral("valid");
    }
    return section;
}

bool readDict(QStringView text, LogFields *out)
{
    const qsizetype open = text.indexOf(u'{');
    if (open < 0 || text.lastIndexOf(u'}') < open)
        return false;
    for (const QRegularExpressionMatch &m : dictPair().globalMatch(text, open)) {
        LogField f;
        f.name = m.captured(2);
        f.value = number(m.capturedView(4), &f.decimal);
        out->fields.append(f);
    }
    out->dict = !out->fields.isEmpty();
    return out->dict;
}

} // namespace

LogFields logFields(QStringView text)
{
    LogFields out;
    if (readDict(text, &out))
        return out;
    QString work = text.toString();

    if (const QRegularExpressionMatch m = timeForEpoch().match(work); m.hasMatch()) {
        out.fields.append({QStringLiteral("epoch"), number(m.capturedView(1))});
        out.fields.append({QStringLiteral("time"), number(m.capturedView(2))});
        blank(&work, m.capturedStart(0), m.capturedEnd(0));
    }
    // torchtune's bar: "1|10|Loss: 2.345:  10%|..." is epoch|global step|...
    static const QRegularExpression tuneBar(QStringLiteral(R"(^\s*(\d+)\|(\d+)\|)"));
    if (const QRegularExpressionMatch m = tuneBar.match(work); m.hasMatch()) {
        out.fields.append({QStringLiteral("epoch"), number(m.capturedView(1))});
        out.fields.append({QStringLiteral("step"), number(m.capturedView(2))});
        blank(&work, m.capturedStart(0), m.capturedEnd(0));
    }
    static const QRegularExpression samples(QStringLiteral("(" TD_NUM R"()\s*samples/s(?:ec)?\b)"));
    if (const QRegularExpressionMatch m = samples.match(work); m.hasMatch()) {
        out.samplesPerSecond = number(m.capturedView(1));
        blank(&work, m.capturedStart(0), m.capturedEnd(0));
    }
    static const QRegularExpression bar(QStringLiteral(R"(\d%\||\[[=>.]{3,}\]|\x{2501})"));
    out.progressBar = bar.match(work).hasMatch();
    for (const QRegularExpressionMatch &m : furniture().globalMatch(text.toString()))
        blank(&work, m.capturedStart(0), m.capturedEnd(0));
    static const QRegularExpression pair(QStringLiteral(R"(^\s*\[\s*(\d+)\s*,\s*(\d+)\s*\])"));
    if (const QRegularExpressionMatch m = pair.match(work); m.hasMatch()) {
        out.pairEpoch = m.capturedView(1).toLongLong();
        out.pairBatch = m.capturedView(2).toLongLong();
        blank(&work, m.capturedStart(0), m.capturedEnd(0));
    }

    qsizetype firstStart = -1;
    QString firstName;
    QString rest = work;
    for (const QRegularExpressionMatch &m : field().globalMatch(work)) {
        LogField f;
        for (const char16_t *group : {u"name", u"sname", u"aname", u"cname"}) {
            if (m.hasCaptured(QStringView(group)))
                f.name = m.captured(QStringView(group)).trimmed();
        }
        if (m.hasCaptured(u"bdone")) {
            f.value = number(m.capturedView(u"bdone"));
            f.total = m.capturedView(u"btotal").toLongLong();
        } else if (m.hasCaptured(u"bvalue")) {
            f.value = number(m.capturedView(u"bvalue"), &f.decimal);
        } else if (m.hasCaptured(u"tvalue") || m.hasCaptured(u"t1value") || m.hasCaptured(u"nvalue")) {
            const QStringView value = m.hasCaptured(u"tvalue")    ? m.capturedView(u"tvalue")
                                      : m.hasCaptured(u"t1value") ? m.capturedView(u"t1value")
                                                                  : m.capturedView(u"nvalue");
            f.value = number(value, &f.decimal);
        } else {
            f.value = number(m.capturedView(u"value"), &f.decimal);
            if (m.hasCaptured(u"total"))
                f.total = m.capturedView(u"total").toLongLong();
        }
        if (m.hasCaptured(u"average"))
            f.average = number(m.capturedView(u"average"));
        if (m.hasCaptured(u"percent")) {
            f.value /= 100.0;
            f.average /= 100.0;
        }
        if (firstStart < 0) {
            firstStart = m.capturedStart(0);
            firstName = f.name;
        }
        blank(&rest, m.capturedStart(0), m.capturedEnd(0));
        out.fields.append(f);
    }

    static const QRegularExpression bracketed(QStringLiteral(R"(\[\s*(\d+)\s*/\s*(\d+)\s*\])"));
    static const QRegularExpression bare(QStringLiteral(R"((?:^|(?<=[\s|:]))(\d+)\s*/\s*(\d+)(?=\s|\[|$))"));
    QRegularExpressionMatch position = bracketed.match(rest);
    if (!position.hasMatch())
        position = bare.match(rest);
    if (position.hasMatch()) {
        out.done = position.capturedView(1).toLongLong();
        out.total = position.capturedView(2).toLongLong();
        if (firstStart < 0 || position.capturedStart(0) < firstStart)
            firstStart = position.capturedStart(0);
    }
    const qsizetype end = firstStart < 0 ? work.size() : firstStart;
    out.section = sectionOf(QString(work.left(end) + u' ' + firstName));
    return out;
}

} // namespace torchdeck

#undef TD_NUM
