#pragma once

#include "core/clustercheckitem.h"
#include "core/connectionquestions.h"
#include "core/connectionstate.h"
#include "core/metrics/metricevent.h"
#include "core/runs/launchrequest.h"

#include <QCborArray>
#include <QCborMap>
#include <QDateTime>
#include <optional>

namespace torchdeck {

// The value types that cross the agent's socket, as CBOR maps. Each decoder checks every field (the peer
// is trusted no more than a file) and returns nothing, with the reason in `error`, when one is wrong.

QCborMap hostKeyToCbor(const HostKeyCheck &key);
std::optional<HostKeyCheck> hostKeyFromCbor(const QCborMap &map, QString *error);

QCborMap credentialPromptToCbor(const CredentialPrompt &prompt);
std::optional<CredentialPrompt> credentialPromptFromCbor(const QCborMap &map, QString *error);

QCborMap checkItemToCbor(const CheckItem &item);
std::optional<CheckItem> checkItemFromCbor(const QCborMap &map, QString *error);
QCborMap checkSettingsToCbor(const ClusterCheckSettings &settings);
std::optional<ClusterCheckSettings> checkSettingsFromCbor(const QCborMap &map, QString *error);

// The request with its profile (a front may submit with a profile it has not saved).
QCborMap launchRequestToCbor(const LaunchRequest &request);
std::optional<LaunchRequest> launchRequestFromCbor(const QCborMap &map, QString *error);
QCborMap launchResultToCbor(const LaunchResult &result);
std::optional<LaunchResult> launchResultFromCbor(const QCborMap &map, QString *error);

QCborArray metricEventsToCbor(const QList<MetricEvent> &events);
std::optional<QList<MetricEvent>> metricEventsFromCbor(const QCborArray &array, QString *error);

std::optional<ConnectionState> connectionStateFromCbor(const QCborValue &value);

// What `torchdeck agent status` shows.
struct AgentClusterStatus {
    QString name;
    ConnectionState state = ConnectionState::Disconnected;
    QString detail;
    int runsWatched = 0;   // unfinished runs of the cluster
    bool needsYou = false; // a question waits for a front (host key, password, one-time code)
    int pollMs = 0;
    ConnectionLoad load;
    int nextPollMs = -1; // -1: no poll planned (not connected)
};
struct AgentClientStatus {
    QString front; // "window", "term", ...
    qint64 pid = 0;
    bool interactive = false;
};
struct AgentStatus {
    qint64 pid = 0;
    QString version;
    QString executable;
    QDateTime started;
    QString dataDirectory;
    QString socketPath;
    int idleExitMinutes = 0;
    int submissionsInFlight = 0;
    QList<AgentClusterStatus> clusters;
    QList<AgentClientStatus> clients;
};
QCborMap agentStatusToCbor(const AgentStatus &status);
std::optional<AgentStatus> agentStatusFromCbor(const QCborMap &map, QString *error);

} // namespace torchdeck
