#include "gui/pullbar.h"

#include "client/agentclient.h"
#include "client/sessionoperation.h"
#include "core/agent/agentops.h"
#include "core/duration.h"
#include "core/transferrate.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QProgressBar>
#include <QPushButton>
#include <QStandardPaths>
#include <memory>

namespace torchdeck {

PullBar::PullBar(AgentClient *agent, QWidget *parent)
    : QWidget(parent)
    , m_agent(agent)
    , m_label(new QLabel)
    , m_bar(new QProgressBar)
{
    auto *stop = new QPushButton(tr("Stop"));
    stop->setToolTip(tr("Stop the download: what arrived is kept, and the next download of the file goes on from it"));
    connect(stop, &QPushButton::clicked, this, [this] {
        if (m_pulling)
            m_pulling->stop();
    });
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_label, 1);
    layout->addWidget(m_bar, 1);
    layout->addWidget(stop);
    hide();
}

bool PullBar::pull(const QString &cluster, const QString &runId, const QStringList &files, const QString &checkpoint,
                   QString to)
{
    if (m_pulling) {
        emit message(tr("A download is still going on"));
        return false;
    }
    if (to.isEmpty()) {
        const QString start = !m_lastDirectory.isEmpty()
                                  ? m_lastDirectory
                                  : QStandardPaths::writableLocation(QStandardPaths::DownloadLocation);
        to = QFileDialog::getExistingDirectory(this, tr("Download to"), start);
        if (to.isEmpty())
            return false;
    }
    m_lastDirectory = to;
    m_pulling = m_agent->pull(cluster, runId, files, checkpoint, to);
    m_label->setText(tr("Asking %1 for the checksums\u2026").arg(cluster));
    m_bar->setRange(0, 0);
    show();
    auto rates = std::make_shared<TransferRate>();
    connect(
        m_pulling, &SessionOperation::progress, this, [this, rates](const QString &file, qint64 done, qint64 total) {
            rates->step(file, done);
            const double rate = rates->bytesPerSecond();
            const QLocale locale;
            m_label->setText(
                rate > 0
                    ? tr("%1: %2 of %3, %4/s, %5 left")
                          .arg(file, locale.formattedDataSize(done), locale.formattedDataSize(total),
                               locale.formattedDataSize(qint64(rate)), formatDuration(rates->secondsLeft(total)))
                    : tr("%1: %2 of %3").arg(file, locale.formattedDataSize(done), locale.formattedDataSize(total)));
            m_bar->setRange(0, 1000);
            m_bar->setValue(total > 0 ? int(1000 * done / total) : 1000);
        });
    connect(m_pulling, &SessionOperation::failed, this, [this](const QString &error) {
        hide();
        emit message(tr("Download failed: %1").arg(error));
    });
    onReply<agent::Pull>(m_pulling, this, [this, to](const agent::Pull::Reply &reply) {
        hide();
        QStringList local;
        QStringList kept;
        for (const agent::PulledFile &file : reply.pulled) {
            local.append(file.local);
            if (!file.keptAs.isEmpty())
                kept.append(QFileInfo(file.keptAs).fileName());
        }
        const QString downloaded =
            tr("Downloaded %n file(s) to %1, checked by SHA-256", nullptr, int(local.size())).arg(to);
        emit message(kept.isEmpty() ? downloaded
                                    : tr("%1; the different files that were there are kept as %2")
                                          .arg(downloaded, kept.join(QStringLiteral(", "))));
        emit pulled(local);
    });
    return true;
}

} // namespace torchdeck
