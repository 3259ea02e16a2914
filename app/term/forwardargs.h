#pragma once

#include <QString>
#include <QStringList>

namespace torchdeck::term {

// What `torchdeck forward` was asked: RUN REMOTE_PORT [LOCAL_PORT], --list, or --stop RUN|LOCAL_PORT.
struct ForwardArgs {
    enum class Action { Start, List, Stop } action = Action::Start;
    QString run;        // Start; Stop when the target is not a port
    int remotePort = 0; // Start
    int localPort = 0;  // Start (0: a free one); Stop when the target is a port
    bool json = false;
    QString error; // a usage error, in words
};

ForwardArgs parseForwardArgs(const QStringList &args);

} // namespace torchdeck::term
