#pragma once

#include <QString>

class QWidget;

namespace torchdeck {

class AgentClient;

// The run view's "Open port...": asks for a port on the run's node and has the agent forward a local port to
// it (as `torchdeck forward` does); the answer is the local URL, or why the forward was refused, in a message
// box. The forward stays with the agent until stopped (`torchdeck forward --stop`), even after the window
// closes.
void openPort(QWidget *parent, AgentClient *agent, const QString &cluster, const QString &runId);

} // namespace torchdeck
