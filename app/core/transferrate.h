#pragma once

#include <QElapsedTimer>
#include <QString>

namespace torchdeck {

// The rate and time left of one file of a transfer, from the progress reports that name it; a file resumed from
// its part counts only the bytes moved since (the part's bytes came earlier). Both fronts' bars use it.
class TransferRate {
public:
    void step(const QString &file, qint64 done)
    {
        if (file != m_file) {
            m_file = file;
            m_clock.start();
            m_startBytes = done;
        }
        const double seconds = double(m_clock.elapsed()) / 1000.0;
        m_rate = seconds > 0.2 ? double(done - m_startBytes) / seconds : 0.0; // too early to say before
        m_done = done;
    }
    double bytesPerSecond() const { return m_rate; }
    // 0 while the rate is not known yet.
    double secondsLeft(qint64 total) const { return m_rate > 0 ? double(total - m_done) / m_rate : 0.0; }

private:
    QString m_file;
    QElapsedTimer m_clock;
    qint64 m_startBytes = 0;
    qint64 m_done = 0;
    double m_rate = 0.0;
};

} // namespace torchdeck
