// The protocol's table (core/agent/agentops.h, agentevents.h): every operation's request and reply and every
// event round-trips with all its fields set; a required field that is missing is refused by its name; a field of
// the wrong type names itself; an unknown field is ignored.
#include "core/agent/agentevents.h"
#include "core/agent/agentops.h"
#include "testmain.h"

#include <QTest>
#include <functional>

using namespace torchdeck;
using namespace torchdeck::agent;

namespace {

template <class T, class V, class = void> struct HasFields : std::false_type {
};
template <class T, class V>
struct HasFields<T, V, std::void_t<decltype(T::fields(std::declval<T &>(), std::declval<V &>()))>> : std::true_type {
};

// Sets every field to something other than its default, and notes which are required.
class Filler {
public:
    QStringList required;

    void text(const QString &key, QString &value, Need need = Need::Optional, qsizetype maxLength = kTextLimit)
    {
        note(key, need);
        value = QString(key + QStringLiteral("-it's $(x)")).left(maxLength);
    }
    void optionalText(const QString &key, std::optional<QString> &value, qsizetype = kTextLimit) { value = key; }
    void texts(const QString &key, QStringList &value, qsizetype = kListLimit) { value = {key, key + u'2'}; }
    template <class I> void integer(const QString &key, I &value, qint64 low, qint64 high, Need need = Need::Optional)
    {
        note(key, need);
        value = I(std::min(high, low + 2));
    }
    void flag(const QString &, bool &value) { value = !value; }
    void bytes(const QString &key, QByteArray &value) { value = key.toUtf8() + QByteArray(1, '\0'); }
    template <class T> void value(const QString &key, T &value, Need need = Need::Required)
    {
        note(key, need);
        fill(value);
    }
    template <class T> void list(const QString &, QList<T> &values, qsizetype = kListLimit)
    {
        T value{};
        fill(value);
        values = {value, value};
    }

private:
    void note(const QString &key, Need need)
    {
        if (need == Need::Required)
            required.append(key);
    }
    template <class T> void fill(T &value)
    {
        if constexpr (HasFields<T, Filler>::value) {
            Filler inner;
            T::fields(value, inner);
        } else {
            value = sample(value);
        }
    }
    static LaunchRequest sample(const LaunchRequest &)
    {
        LaunchRequest request;
        request.profile = defaultProfile(QStringLiteral("alpha"));
        request.spec.name = QStringLiteral("ae");
        request.runId = QStringLiteral("r1");
        return request;
    }
    static LaunchResult sample(const LaunchResult &)
    {
        return {QStringLiteral("r1"), 2, QStringLiteral("7_1"), {}, {}};
    }
    static ClusterCheckSettings sample(const ClusterCheckSettings &)
    {
        ClusterCheckSettings settings;
        settings.partition = QStringLiteral("gpu");
        return settings;
    }
    static CheckItem sample(const CheckItem &) { return {QStringLiteral("LibTorch"), true, QStringLiteral("found")}; }
    static PortForward sample(const PortForward &)
    {
        PortForward forward;
        forward.cluster = QStringLiteral("alpha");
        forward.runId = QStringLiteral("r1");
        forward.remotePort = 8888;
        forward.localPort = 40000;
        return forward;
    }
    static HostKeyCheck sample(const HostKeyCheck &value) { return value; }
    static CredentialPrompt sample(const CredentialPrompt &value) { return value; }
    static AgentStatus sample(const AgentStatus &)
    {
        AgentStatus status;
        status.pid = 42;
        status.version = QStringLiteral("1.0+1");
        return status;
    }
    static QList<MetricEvent> sample(const QList<MetricEvent> &) { return {}; }
    static JobSpecError sample(const JobSpecError &)
    {
        return {QStringLiteral("wallTimeSeconds"), QStringLiteral("Partition 'short' allows at most 00:30:00")};
    }
    static ConnectionState sample(ConnectionState) { return ConnectionState::Connected; }
};

struct Codec {
    QCborMap filled;                                                               // every field set
    QStringList required;                                                          // the keys its declaration requires
    std::function<std::optional<QCborMap>(const QCborMap &, QString *)> roundTrip; // decoded, encoded again
};

template <class T> Codec codecOf()
{
    T value{};
    Filler filler;
    T::fields(value, filler);
    return {encodeFields(value), filler.required, [](const QCborMap &map, QString *error) -> std::optional<QCborMap> {
                const std::optional<T> decoded = decodeFields<T>(map, error);
                return decoded ? std::optional<QCborMap>(encodeFields(*decoded)) : std::nullopt;
            }};
}

QList<std::pair<QString, Codec>> allCodecs()
{
    QList<std::pair<QString, Codec>> codecs;
    std::apply(
        [&codecs](auto... op) {
            ((codecs.append({QString::fromUtf16(decltype(op)::name) + QStringLiteral(" request"),
                             codecOf<typename decltype(op)::Request>()}),
              codecs.append({QString::fromUtf16(decltype(op)::name) + QStringLiteral(" reply"),
                             codecOf<typename decltype(op)::Reply>()})),
             ...);
        },
        Operations{});
    std::apply(
        [&codecs](auto... event) {
            (codecs.append(
                 {QString::fromUtf16(decltype(event)::name) + QStringLiteral(" event"), codecOf<decltype(event)>()}),
             ...);
        },
        Events{});
    return codecs;
}

} // namespace

Q_DECLARE_METATYPE(Codec)

class TestAgentOps : public QObject {
    Q_OBJECT
private slots:
    void theTableNamesEachOperationOnce()
    {
        const QStringList names = operationNames();
        QCOMPARE(QSet<QString>(names.cbegin(), names.cend()).size(), names.size());
        QVERIFY(names.contains(QStringLiteral("hello")) && names.contains(QStringLiteral("submit")));
        QVERIFY(isSubmission(QStringLiteral("submit")) && isSubmission(QStringLiteral("submit_sweep")) &&
                isSubmission(QStringLiteral("resume")));
        QVERIFY(!isSubmission(QStringLiteral("cancel")) && !isSubmission(QStringLiteral("no such operation")));
    }

    void codecs_data()
    {
        QTest::addColumn<Codec>("codec");
        for (const auto &[name, codec] : allCodecs())
            QTest::addRow("%s", qPrintable(name)) << codec;
    }

    void codecs()
    {
        QFETCH(Codec, codec);
        QString error;
        // Every field set: read back as it was written.
        const std::optional<QCborMap> again = codec.roundTrip(codec.filled, &error);
        QVERIFY2(again, qPrintable(error));
        QCOMPARE(*again, codec.filled);
        // A field it does not know (a newer peer's) is ignored.
        QCborMap newer = codec.filled;
        newer.insert(QStringLiteral("added_in_a_later_version"), 12);
        QVERIFY2(codec.roundTrip(newer, &error), qPrintable(error));
        // A required field that is missing is refused, by its name.
        for (const QString &key : codec.required) {
            QCborMap missing = codec.filled;
            missing.remove(key);
            error.clear();
            QVERIFY2(!codec.roundTrip(missing, &error), qPrintable(key));
            QVERIFY2(error.contains(key), qPrintable(error));
        }
        // A field of the wrong type names itself.
        for (auto it = codec.filled.cbegin(); it != codec.filled.cend(); ++it) {
            QCborMap wrong = codec.filled;
            const bool isText = it.value().isString();
            wrong.insert(it.key(), isText ? QCborValue(QCborArray{1, 2}) : QCborValue(QStringLiteral("text")));
            error.clear();
            if (!codec.roundTrip(wrong, &error))
                QVERIFY2(error.contains(it.key().toString()), qPrintable(error));
        }
    }

    void garbageIsRefusedNotCrashed()
    {
        for (const auto &[name, codec] : allCodecs()) {
            QString error;
            for (const QCborMap &garbage : {QCborMap{}, QCborMap{{QStringLiteral("cluster"), QCborArray{}}},
                                            QCborMap{{QStringLiteral("runs"), QCborMap{}}}})
                static_cast<void>(codec.roundTrip(garbage, &error));
        }
    }
};

TORCHDECK_TEST_MAIN(TestAgentOps)
#include "tst_agentops.moc"
