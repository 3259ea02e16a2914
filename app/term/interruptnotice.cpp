#include "term/interruptnotice.h"

#include <cstring>
#include <unistd.h>

namespace torchdeck::term {

namespace {
constexpr std::array<int, 3> kSignals{SIGINT, SIGTERM, SIGHUP};

// The handler may only write what is ready: the text is copied here before it is installed.
char g_notice[1024];
size_t g_length = 0;

void sayAndEnd(int signal)
{
    [[maybe_unused]] const ssize_t written = ::write(STDERR_FILENO, g_notice, g_length);
    struct sigaction fallback {};
    fallback.sa_handler = SIG_DFL;
    ::sigaction(signal, &fallback, nullptr);
    ::raise(signal); // ends the process with the signal's own status (130 for Ctrl-C)
}
} // namespace

InterruptNotice::InterruptNotice(const QString &notice)
{
    const QByteArray text = QString(u'\n' + notice + u'\n').toUtf8();
    g_length = std::min<size_t>(size_t(text.size()), sizeof g_notice);
    std::memcpy(g_notice, text.constData(), g_length);
    for (size_t i = 0; i < kSignals.size(); ++i) {
        if (::sigaction(kSignals[i], nullptr, &m_before[i]) != 0 || m_before[i].sa_handler == SIG_IGN)
            continue;
        struct sigaction handler {};
        handler.sa_handler = sayAndEnd;
        sigfillset(&handler.sa_mask); // one notice, whichever signals come together
        m_installed[i] = ::sigaction(kSignals[i], &handler, nullptr) == 0;
    }
}

InterruptNotice::~InterruptNotice()
{
    for (size_t i = 0; i < kSignals.size(); ++i)
        if (m_installed[i])
            ::sigaction(kSignals[i], &m_before[i], nullptr);
}

} // namespace torchdeck::term
