#pragma once

#include <QObject>
#include <QString>
#include <sys/types.h>

class QSocketNotifier;

namespace torchdeck {

// The agent's listening socket, accepted by hand rather than by QLocalServer, which closes its socket and
// deletes its file on the first failed accept: one burst of connections past the descriptor limit would leave
// the agent deaf for good, holding the lock that keeps any other from starting. Here a failed accept is logged
// and listening goes on; past the descriptor limit, a spare descriptor is given up to take the connection and
// close it at once, so the front hears a refusal instead of waiting in the backlog.
class AgentListener : public QObject {
    Q_OBJECT
public:
    explicit AgentListener(QObject *parent = nullptr);
    ~AgentListener() override;

    // Listens at `path` (an old socket file there is replaced), readable by this user alone; the error, or empty.
    [[nodiscard]] QString listen(const QString &path);
    void close(); // and removes its file
    // Its file at the path is still the socket it listens on (not deleted, not replaced by another's).
    bool ownsItsPath() const;
    int refused() const { return m_refused; }
    // Says to a connection that it is refused for now (a flood, no descriptor left), and closes it: the front
    // tries again instead of taking it for an agent that stopped.
    static void refuse(int descriptor);

signals:
    // A new connection's descriptor, the caller's to own (QLocalSocket::setSocketDescriptor).
    void accepted(qintptr descriptor);

private:
    void acceptAll();
    bool refuseOne(); // past the descriptor limit: false when not even that can be done now

    int m_fd = -1;
    int m_spare = -1;
    QSocketNotifier *m_notifier = nullptr;
    QString m_path;
    dev_t m_device = 0;
    ino_t m_inode = 0;
    int m_refused = 0;
};

} // namespace torchdeck
