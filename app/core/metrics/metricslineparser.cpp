#include "core/metrics/metricslineparser.h"

#include "core/coretr.h"

#include <cmath>
#include <simdjson.h>
#include <string>
#include <string_view>

namespace torchdeck {

namespace od = simdjson::ondemand;
using simdjson::error_code;

namespace {

bool isBlank(QByteArrayView line)
{
    for (const char c : line) {
        if (c != ' ' && c != '\t' && c != '\r')
            return false;
    }
    return true;
}

bool isNull(od::value &v)
{
    od::json_type type;
    return v.type().get(type) == simdjson::SUCCESS && type == od::json_type::null;
}

error_code readDouble(od::value v, double *out)
{
    if (isNull(v)) {
        *out = kNoValue;
        return simdjson::SUCCESS;
    }
    return v.get_double().get(*out);
}

// An array of numbers (the trainer's per-rank keys), at most a million: a hostile line cannot grow it further.
error_code readNumbers(od::value v, QList<double> *out)
{
    od::array array;
    if (const error_code e = v.get_array().get(array))
        return e;
    out->clear();
    for (auto item : array) {
        double value = kNoValue;
        if (const error_code e = readDouble(item.value(), &value))
            return e;
        if (out->size() >= 1000000)
            return simdjson::CAPACITY;
        out->append(value);
    }
    return simdjson::SUCCESS;
}

error_code readInt(od::value v, qint64 *out)
{
    if (isNull(v)) {
        *out = kNoCount;
        return simdjson::SUCCESS;
    }
    od::number number;
    if (const error_code e = v.get_number().get(number))
        return e;
    switch (number.get_number_type()) {
    case od::number_type::signed_integer:
        *out = number.get_int64();
        return simdjson::SUCCESS;
    case od::number_type::floating_point_number: {
        // 42.0 is a count too; 42.5 is not.
        const double d = number.get_double();
        if (!std::isfinite(d) || d != std::floor(d) || std::fabs(d) > 9.0e15)
            return simdjson::INCORRECT_TYPE;
        *out = static_cast<qint64>(d);
        return simdjson::SUCCESS;
    }
    default:
        return simdjson::NUMBER_OUT_OF_RANGE;
    }
}

error_code readString(od::value v, QString *out)
{
    if (isNull(v)) {
        out->clear();
        return simdjson::SUCCESS;
    }
    std::string_view text;
    if (const error_code e = v.get_string().get(text))
        return e;
    *out = QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
    return simdjson::SUCCESS;
}

error_code readResume(od::value v, MetricEvent *e)
{
    if (isNull(v))
        return simdjson::SUCCESS;
    od::object resume;
    if (const error_code err = v.get_object().get(resume))
        return err;
    e->resumed = true;
    for (auto field : resume) {
        std::string_view key;
        if (const error_code err = field.unescaped_key().get(key))
            return err;
        error_code err = simdjson::SUCCESS;
        if (key == "path")
            err = readString(field.value(), &e->resumePath);
        else if (key == "epoch")
            err = readInt(field.value(), &e->resumeEpoch);
        else if (key == "step")
            err = readInt(field.value(), &e->resumeStep);
        else if (key == "skipped")
            err = readInt(field.value(), &e->resumeSkipped);
        if (err)
            return err;
    }
    return simdjson::SUCCESS;
}

bool eventKind(std::string_view name, MetricEventKind *kind)
{
    if (name == "step")
        *kind = MetricEventKind::Step;
    else if (name == "epoch")
        *kind = MetricEventKind::Epoch;
    else if (name == "checkpoint")
        *kind = MetricEventKind::Checkpoint;
    else if (name == "start")
        *kind = MetricEventKind::Start;
    else if (name == "stop")
        *kind = MetricEventKind::Stop;
    else
        return false;
    return true;
}

ParsedMetricsLine malformed(const QString &why)
{
    ParsedMetricsLine result;
    result.status = MetricsLineStatus::Malformed;
    result.error = why;
    return result;
}

ParsedMetricsLine malformed(error_code e)
{
    return malformed(QString::fromLatin1(simdjson::error_message(e)));
}

} // namespace

struct MetricsLineParser::Impl {
    od::parser parser;
    std::string padded; // simdjson reads up to SIMDJSON_PADDING bytes past the end of the text
};

MetricsLineParser::MetricsLineParser()
    : d(std::make_unique<Impl>())
{
}

MetricsLineParser::~MetricsLineParser() = default;

ParsedMetricsLine MetricsLineParser::parse(QByteArrayView line)
{
    if (isBlank(line))
        return {};
    const size_t length = static_cast<size_t>(line.size());
    d->padded.assign(line.data(), length);
    d->padded.resize(length + simdjson::SIMDJSON_PADDING);

    od::document doc;
    if (const error_code e = d->parser.iterate(d->padded.data(), length, d->padded.size()).get(doc))
        return malformed(e);
    od::object object;
    if (const error_code e = doc.get_object().get(object))
        return malformed(e);

    ParsedMetricsLine result;
    MetricEvent &ev = result.event;
    qint64 version = kNoCount;
    std::string_view eventName;
    bool hasEvent = false;
    for (auto field : object) {
        std::string_view key;
        if (const error_code e = field.unescaped_key().get(key))
            return malformed(e);
        od::value v = field.value();
        error_code e = simdjson::SUCCESS;
        // Most frequent keys of step lines first.
        if (key == "loss" || key == "train_loss")
            e = readDouble(v, &ev.loss);
        else if (key == "step")
            e = readInt(v, &ev.step);
        else if (key == "epoch")
            e = readInt(v, &ev.epoch);
        else if (key == "lr")
            e = readDouble(v, &ev.lr);
        else if (key == "samples_per_s")
            e = readDouble(v, &ev.samplesPerSecond);
        else if (key == "time")
            e = readDouble(v, &ev.time);
        else if (key == "event") {
            e = v.get_string().get(eventName);
            hasEvent = e == simdjson::SUCCESS;
            // The view points into the parser's string buffer, which later strings do not overwrite.
        } else if (key == "schema" || key == "v")
            e = readInt(v, &version);
        else if (key == "epoch_step")
            e = readInt(v, &ev.epochStep);
        else if (key == "steps_per_epoch")
            e = readInt(v, &ev.stepsPerEpoch);
        else if (key == "epochs")
            e = readInt(v, &ev.epochs);
        else if (key == "val_loss")
            e = readDouble(v, &ev.valLoss);
        else if (key == "val_accuracy")
            e = readDouble(v, &ev.valAccuracy);
        else if (key == "seconds")
            e = readDouble(v, &ev.seconds);
        else if (key == "path")
            e = readString(v, &ev.path);
        else if (key == "bytes")
            e = readInt(v, &ev.bytes);
        else if (key == "reason")
            e = readString(v, &ev.reason);
        else if (key == "exit_code") {
            qint64 code = 0;
            e = readInt(v, &code);
            ev.exitCode = static_cast<int>(code);
        } else if (key == "world_size") {
            qint64 size = 0;
            e = readInt(v, &size);
            ev.worldSize = static_cast<int>(size);
        } else if (key == "model")
            e = readString(v, &ev.model);
        else if (key == "dataset")
            e = readString(v, &ev.dataset);
        else if (key == "resume")
            e = readResume(v, &ev);
        else if (key == "signal")
            e = readString(v, &ev.signal);
        else if (key == "message")
            e = readString(v, &ev.message);
        else if (key == "rank_compute_s")
            e = readNumbers(v, &ev.rankComputeSeconds);
        else if (key == "rank_wait_s")
            e = readNumbers(v, &ev.rankWaitSeconds);
        // Unknown keys are skipped by moving on to the next field.
        if (e)
            return malformed(core::Tr::tr("field \"%1\": %2")
                                 .arg(QString::fromUtf8(key.data(), static_cast<qsizetype>(key.size())),
                                      QString::fromLatin1(simdjson::error_message(e))));
    }
    const char *trailing = nullptr;
    if (doc.current_location().get(trailing) == simdjson::SUCCESS)
        return malformed(core::Tr::tr("text after the JSON object"));

    if (version == kNoCount)
        return malformed(core::Tr::tr("no schema version"));
    if (version < 1)
        return malformed(core::Tr::tr("invalid schema version %1").arg(version));
    if (!hasEvent)
        return malformed(core::Tr::tr("no event name"));
    ev.schema = static_cast<int>(qMin<qint64>(version, 1 << 30));
    if (version > kMetricsSchemaVersion) {
        result.status = MetricsLineStatus::FutureVersion;
        return result;
    }
    if (!eventKind(eventName, &ev.kind)) {
        result.status = MetricsLineStatus::UnknownEvent;
        result.error = QString::fromUtf8(eventName.data(), static_cast<qsizetype>(eventName.size()));
        return result;
    }
    if (ev.kind == MetricEventKind::Step && ev.step < 0)
        return malformed(core::Tr::tr("step event without a step"));
    if (ev.kind == MetricEventKind::Epoch && ev.epoch < 0)
        return malformed(core::Tr::tr("epoch event without an epoch"));
    result.status = MetricsLineStatus::Event;
    return result;
}

ParsedMetricsLine parseMetricsLine(QByteArrayView line)
{
    thread_local MetricsLineParser parser;
    return parser.parse(line);
}

} // namespace torchdeck
