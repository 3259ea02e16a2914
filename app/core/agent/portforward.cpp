#include "core/agent/portforward.h"

#include "core/agent/cborfields.h"

#include <algorithm>

namespace torchdeck {

namespace {
constexpr int maxPort = 65535;
} // namespace

QCborMap portForwardToCbor(const PortForward &forward)
{
    return {{QStringLiteral("cluster"), forward.cluster},
            {QStringLiteral("run"), forward.runId},
            {QStringLiteral("node"), forward.node},
            {QStringLiteral("address"), forward.address},
            {QStringLiteral("remote_port"), forward.remotePort},
            {QStringLiteral("local_port"), forward.localPort},
            {QStringLiteral("connections"), forward.connections},
            {QStringLiteral("served"), forward.served},
            {QStringLiteral("last_error"), forward.lastError}};
}

std::optional<PortForward> portForwardFromCbor(const QCborMap &map, QString *error)
{
    CborFields fields(map);
    PortForward forward;
    forward.cluster = fields.text(QStringLiteral("cluster"), true, 1024);
    forward.runId = fields.text(QStringLiteral("run"), true, 128);
    forward.node = fields.text(QStringLiteral("node"), false, 1024);
    forward.address = fields.text(QStringLiteral("address"), false, 1024);
    forward.remotePort = int(fields.integer(QStringLiteral("remote_port"), 1, maxPort));
    forward.localPort = int(fields.integer(QStringLiteral("local_port"), 1, maxPort));
    forward.connections = int(fields.integer(QStringLiteral("connections"), 0, 1 << 30));
    forward.served = fields.integer(QStringLiteral("served"), 0, qint64(1) << 53);
    forward.lastError = fields.text(QStringLiteral("last_error"), false, 4096);
    if (!fields.ok()) {
        if (error)
            *error = fields.error();
        return std::nullopt;
    }
    return forward;
}

std::optional<int> parsePort(const QString &text)
{
    constexpr int maxDigits = 5;
    if (text.isEmpty() || text.size() > maxDigits ||
        !std::all_of(text.cbegin(), text.cend(), [](QChar c) { return c.isDigit() && c.unicode() < 128; }))
        return std::nullopt;
    const int port = text.toInt();
    return port >= 1 && port <= maxPort ? std::optional<int>(port) : std::nullopt;
}

} // namespace torchdeck
