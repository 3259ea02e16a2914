#pragma once

// Private to torchdeck_session: the remote side of a ClusterSession, for the session's own operations
// (submissions, run actions, files, checks). No public header includes this one.
#include "remote/connection.h"
#include "remote/runtracker.h"
#include "session/clustersession.h"

namespace torchdeck {

struct ClusterSession::Parts {
    explicit Parts(const remote::ConnectionSettings &settings)
        : connection(settings)
    {
    }
    remote::Connection connection;
    remote::RunTracker *tracker = nullptr; // a child of the session
};

struct SessionInternals {
    static remote::Connection &connection(ClusterSession &session) { return session.m_parts->connection; }
    static remote::RunTracker &tracker(ClusterSession &session) { return *session.m_parts->tracker; }
};

} // namespace torchdeck
