#include "core/scheduler/qstatjsonparser.h"

#include "core/coretr.h"
#include "core/scheduler/schedulertext.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <cmath>

namespace torchdeck {

using namespace schedulertext;

namespace {

QString textOf(const QJsonValue &value)
{
    switch (value.type()) {
    case QJsonValue::String:
        return value.toString();
    case QJsonValue::Double: {
        const double number = value.toDouble();
        if (std::floor(number) == number && std::abs(number) < 1e15)
            return QString::number(qint64(number));
        return QString::number(number);
    }
    case QJsonValue::Bool:
        return value.toBool() ? QStringLiteral("True") : QStringLiteral("False");
    default:
        return {};
    }
}

QHash<QString, QString> attributesOf(const QJsonObject &job)
{
    QHash<QString, QString> attributes;
    for (auto it = job.begin(); it != job.end(); ++it) {
        const QString key = it.key().toLower();
        if (it.value().isObject()) {
            const QJsonObject inner = it.value().toObject();
            for (auto in = inner.begin(); in != inner.end(); ++in)
                attributes.insert(key + u'.' + in.key().toLower(), textOf(in.value()));
        } else {
            attributes.insert(key, textOf(it.value()));
        }
    }
    return attributes;
}

} // namespace

JobListResult parseQstatJson(const QByteArray &output, PbsDialect dialect)
{
    JobListResult result;
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(output, &error);
    if (error.error != QJsonParseError::NoError) {
        result.errors.append(core::Tr::tr("not JSON: %1 at byte %2").arg(error.errorString()).arg(error.offset));
        return result;
    }
    if (!document.isObject()) {
        result.errors.append(core::Tr::tr("qstat's JSON is not an object"));
        return result;
    }
    const QJsonObject root = document.object();
    if (!root.contains(QStringLiteral("Jobs")))
        return result; // qstat leaves "Jobs" out when no job matched
    if (!root.value(QStringLiteral("Jobs")).isObject()) {
        result.errors.append(core::Tr::tr("\"Jobs\" is not an object"));
        return result;
    }
    const QJsonObject jobs = root.value(QStringLiteral("Jobs")).toObject();
    for (auto it = jobs.begin(); it != jobs.end(); ++it) {
        if (!isPbsJobId(it.key())) {
            result.errors.append(core::Tr::tr("job '%1': not a PBS job id").arg(it.key().left(40)));
            continue;
        }
        if (!it.value().isObject()) {
            result.errors.append(core::Tr::tr("job %1: its entry is not an object").arg(it.key()));
            continue;
        }
        const QHash<QString, QString> attributes = attributesOf(it.value().toObject());
        if (attributes.value(QStringLiteral("job_state")).isEmpty()) {
            result.errors.append(core::Tr::tr("job %1: no job_state").arg(it.key()));
            continue;
        }
        result.jobs.append(pbsJobFromAttributes(it.key(), attributes, dialect));
    }
    return result;
}

} // namespace torchdeck
