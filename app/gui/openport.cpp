#include "gui/openport.h"

#include "client/agentclient.h"
#include "client/sessionoperation.h"
#include "core/agent/agentops.h"

#include <QCoreApplication>
#include <QInputDialog>
#include <QMessageBox>
#include <QPointer>

namespace torchdeck {

namespace {
struct Tr {
    Q_DECLARE_TR_FUNCTIONS(torchdeck::OpenPort)
};

constexpr int defaultPort = 8000; // python3 -m http.server's
} // namespace

void openPort(QWidget *parent, AgentClient *agent, const QString &cluster, const QString &runId)
{
    bool ok = false;
    const int port = QInputDialog::getInt(parent, Tr::tr("Open port"),
                                          Tr::tr("Port on the run's first node (a server your job started):"),
                                          defaultPort, 1, 65535, 1, &ok);
    if (!ok)
        return;
    SessionOperation *started = agent->startForward(cluster, runId, port, 0);
    const QPointer<QWidget> window(parent);
    QObject::connect(started, &SessionOperation::failed, parent, [window, port](const QString &error) {
        QMessageBox::warning(window, Tr::tr("Cannot open port %1").arg(port), error);
    });
    onReply<agent::Forward>(started, parent, [window](const agent::ForwardReply &reply) {
        const PortForward *forward = &reply.forward;
        QMessageBox box(
            QMessageBox::Information, Tr::tr("Port %1 of %2").arg(forward->remotePort).arg(forward->node),
            Tr::tr("<a href=\"%1\">%1</a> reaches port %2 of %3 (%4) until it is stopped with <tt>torchdeck "
                   "forward --stop %5</tt>.")
                .arg(forward->url())
                .arg(forward->remotePort)
                .arg(forward->node.toHtmlEscaped(), forward->address.toHtmlEscaped())
                .arg(forward->localPort),
            QMessageBox::Ok, window);
        box.setTextFormat(Qt::RichText);
        box.setTextInteractionFlags(Qt::TextBrowserInteraction);
        box.exec();
    });
}

} // namespace torchdeck
