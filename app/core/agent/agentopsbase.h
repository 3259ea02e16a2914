#pragma once

#include "core/agent/agentfields.h"

#include <QStringList>

namespace torchdeck::agent {

// What the protocol's operations share (core/agent/agentops.h): their scope, the requests that name a cluster or a
// run, the limits of their fields.

enum class Scope { Agent, Cluster };

struct Empty {
    template <class S, class V> static void fields(S &, V &) {}
};

inline constexpr qint64 kMaxPollMs = 24 * 3600 * 1000;
inline constexpr qsizetype kClusterName = 1024;
inline constexpr qsizetype kRunId = 128;

struct ClusterRequest {
    QString cluster;
    template <class S, class V> static void fields(S &s, V &v)
    {
        v.text(QStringLiteral("cluster"), s.cluster, Need::Required, kClusterName);
    }
};
struct RunRequest {
    QString cluster;
    QString run;
    template <class S, class V> static void fields(S &s, V &v)
    {
        ClusterRequest::fields(s, v);
        v.text(QStringLiteral("run"), s.run, Need::Required, kRunId);
    }
};
struct RunsRequest {
    QString cluster;
    QStringList runs;
    template <class S, class V> static void fields(S &s, V &v)
    {
        ClusterRequest::fields(s, v);
        v.texts(QStringLiteral("runs"), s.runs, 10000);
    }
};

} // namespace torchdeck::agent
