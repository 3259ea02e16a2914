#pragma once

class QWidget;

namespace torchdeck {

class AgentClient;
class KeychainSecrets;

// Answers the questions the agent's connections send this window with window-modal dialogs that never block
// the event loop: the host key (SHA256 fingerprint, trust or refuse) and passphrases, passwords and 2FA codes
// (hidden unless the server says they may echo). A password or passphrase is stored in the system keychain only when
// the user ticks "remember" in its dialog; a stored one answers once per connection attempt without asking. If the
// server asks again, or the attempt fails, it was wrong: it is removed from the keychain (the dialog opens,
// or the next attempt asks). Nothing typed is kept otherwise.
void answerWithDialogs(AgentClient *agent, QWidget *parent, KeychainSecrets *secrets);

} // namespace torchdeck
