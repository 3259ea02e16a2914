// libFuzzer: what a front or an agent reads from the other end of the local socket. The bytes as a stream of
// frames (cut at every length libFuzzer picks) and as one frame's payload; each message decoded, and its
// arguments and result read as every request, reply and event of the protocol's table (core/agent/agentops.h,
// agentevents.h), which read every value type that crosses the socket. No crash, no sanitizer report, no
// allocation beyond the frame limit.
#include "core/agent/agentevents.h"
#include "core/agent/agentops.h"
#include "core/agent/agentprotocol.h"

#include <QByteArray>

using namespace torchdeck;

namespace {
void readAs(const QCborMap &map)
{
    QString error;
    std::apply(
        [&](auto... op) {
            ((void(agent::decodeFields<typename decltype(op)::Request>(map, &error)),
              void(agent::decodeFields<typename decltype(op)::Reply>(map, &error))),
             ...);
        },
        agent::Operations{});
    std::apply([&](auto... event) { (void(agent::decodeFields<decltype(event)>(map, &error)), ...); }, agent::Events{});
}

void decode(const QByteArray &payload)
{
    QString error;
    const std::optional<AgentMessage> message = decodeAgentMessage(payload, &error);
    if (!message)
        return;
    readAs(message->args);
    readAs(message->result.toMap());
    for (auto it = message->args.cbegin(); it != message->args.cend(); ++it)
        readAs(it.value().toMap());
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QByteArray bytes(reinterpret_cast<const char *>(data), qsizetype(size));
    decode(bytes);
    AgentFrameReader reader;
    const qsizetype cut = bytes.isEmpty() ? 0 : qsizetype(quint8(bytes.at(0))) % (bytes.size() + 1);
    for (const QByteArray &part : {bytes.left(cut), bytes.mid(cut)}) {
        reader.append(part);
        while (const std::optional<QByteArray> payload = reader.next())
            decode(*payload);
    }
    return 0;
}
