#include "term/terminalprompts.h"

#include "client/agentclient.h"
#include "term/termtr.h"

#include <cstdio>
#include <fcntl.h>
#include <termios.h>
#include <unistd.h>

namespace torchdeck::term {

namespace {
// Owns the /dev/tty descriptor, and restores the echo flag even when reading fails.
class Tty {
public:
    Tty()
        : m_fd(::open("/dev/tty", O_RDWR | O_CLOEXEC))
    {
    }
    ~Tty()
    {
        if (m_echoOff)
            tcsetattr(m_fd, TCSANOW, &m_saved);
        if (m_fd >= 0)
            ::close(m_fd);
    }
    Tty(const Tty &) = delete;
    Tty &operator=(const Tty &) = delete;

    bool ok() const { return m_fd >= 0; }
    void write(const QByteArray &text) const
    {
        if (::write(m_fd, text.constData(), size_t(text.size())) < 0)
            return;
    }
    void echoOff()
    {
        if (tcgetattr(m_fd, &m_saved) != 0)
            return;
        termios quiet = m_saved;
        quiet.c_lflag &= ~tcflag_t(ECHO);
        m_echoOff = tcsetattr(m_fd, TCSANOW, &quiet) == 0;
    }
    std::optional<QByteArray> readLine() const
    {
        QByteArray line;
        char c = 0;
        while (true) {
            const ssize_t n = ::read(m_fd, &c, 1);
            if (n <= 0)
                return std::nullopt; // EOF or Ctrl-D: cancelled
            if (c == '\n')
                return line;
            line.append(c);
        }
    }

private:
    int m_fd;
    termios m_saved{};
    bool m_echoOff = false;
};
} // namespace

bool hasTerminal()
{
    return Tty().ok();
}

std::optional<QString> readLineFromTerminal(const QString &prompt, bool echo)
{
    Tty tty;
    if (!tty.ok())
        return std::nullopt;
    tty.write(prompt.toUtf8());
    if (!echo)
        tty.echoOff();
    std::optional<QByteArray> line = tty.readLine();
    if (!echo)
        tty.write("\n");
    if (!line)
        return std::nullopt;
    QString text = QString::fromUtf8(*line);
    line->fill('\0');
    return text;
}

void answerOnTerminal(AgentClient &agent)
{
    QObject::connect(&agent, &AgentClient::hostKeyConfirmationNeeded, &agent,
                     [&agent](const QString &cluster, const HostKeyCheck &key) {
                         const std::optional<QString> answer = readLineFromTerminal(
                             Tr::tr("The host key of %1 is not known.\n  %2 %3\nTrust it and remember it? [y/N] ")
                                 .arg(cluster, key.keyType, key.fingerprintSha256),
                             true);
                         agent.answerHostKey(cluster, answer && answer->trimmed().toLower().startsWith(u'y'));
                     });
    QObject::connect(&agent, &AgentClient::credentialNeeded, &agent,
                     [&agent](const QString &cluster, const CredentialPrompt &prompt) {
                         QString text = prompt.text.trimmed();
                         if (!prompt.instruction.isEmpty())
                             text = prompt.instruction.trimmed() + u'\n' + text;
                         agent.answerCredential(
                             cluster,
                             readLineFromTerminal(QStringLiteral("%1 %2 ").arg(prompt.host + u':', text), prompt.echo));
                     });
}

} // namespace torchdeck::term
