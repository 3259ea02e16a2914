#pragma once

#include <QByteArray>
#include <QString>
#include <array>
#include <csignal>

namespace torchdeck::term {

// While it lives, SIGINT, SIGTERM and SIGHUP end the command as they would, after `notice` on stderr: for what the
// agent goes on doing once the command is gone (a submission). A signal ignored when it came (nohup) stays ignored.
class InterruptNotice {
public:
    explicit InterruptNotice(const QString &notice);
    ~InterruptNotice();
    InterruptNotice(const InterruptNotice &) = delete;
    InterruptNotice &operator=(const InterruptNotice &) = delete;

private:
    std::array<struct sigaction, 3> m_before{};
    std::array<bool, 3> m_installed{};
};

} // namespace torchdeck::term
