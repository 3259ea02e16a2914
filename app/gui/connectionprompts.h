#pragma once

class QWidget;

namespace torchdeck {
namespace remote {
class Connection;
}

// Answers the connection's questions with window-modal dialogs that never block the event loop: the host
// key (SHA256 fingerprint, trust or refuse) and passphrases, passwords and 2FA codes (hidden unless the
// server says they may echo). Nothing typed is kept.
void answerWithDialogs(remote::Connection *connection, QWidget *parent);

} // namespace torchdeck
