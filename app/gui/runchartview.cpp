#include "gui/runchartview.h"

#include <QLineSeries>
#include <QMouseEvent>
#include <QToolTip>
#include <QWheelEvent>
#include <cmath>

namespace torchdeck {

namespace {
constexpr double kWheelStep = 1.25; // one wheel notch
}

RunChartView::RunChartView(QChart *chart, QWidget *parent)
    : QChartView(chart, parent)
{
    setRubberBand(QChartView::RectangleRubberBand);
    setMouseTracking(true);
    setFocusPolicy(Qt::ClickFocus);
    // No static tooltip: hovering shows the nearest point's values instead.
}

void RunChartView::setZoomed(bool zoomed)
{
    m_zoomed = zoomed;
    emit zoomChanged(zoomed);
}

void RunChartView::resetZoom()
{
    chart()->zoomReset();
    setZoomed(false);
}

void RunChartView::zoomBy(double factor, QPointF center)
{
    const QRectF area = chart()->plotArea();
    const QPointF c = chart()->mapFromScene(mapToScene(center.toPoint()));
    QRectF zoomed(0, 0, area.width() / factor, area.height() / factor);
    // Keep the point under the cursor where it is.
    zoomed.moveLeft(c.x() - (c.x() - area.left()) / factor);
    zoomed.moveTop(c.y() - (c.y() - area.top()) / factor);
    chart()->zoomIn(zoomed);
    setZoomed(true);
}

void RunChartView::panBy(QPointF pixels)
{
    chart()->scroll(-pixels.x(), pixels.y());
    setZoomed(true);
}

QString RunChartView::pointTextNear(QPoint position, int radius) const
{
    const QPointF scene = mapToScene(position);
    double best = double(radius) * radius;
    QString text;
    for (QAbstractSeries *series : chart()->series()) {
        auto *line = qobject_cast<QXYSeries *>(series);
        if (!line || !line->isVisible())
            continue;
        const QList<QPointF> points = line->points();
        for (const QPointF &p : points) {
            const QPointF at = chart()->mapToScene(chart()->mapToPosition(p, line));
            const double d = (at.x() - scene.x()) * (at.x() - scene.x()) + (at.y() - scene.y()) * (at.y() - scene.y());
            if (d < best) {
                best = d;
                text = QStringLiteral("%1: %2, %3").arg(line->name()).arg(p.x(), 0, 'g', 8).arg(p.y(), 0, 'g', 5);
            }
        }
    }
    return text;
}

void RunChartView::wheelEvent(QWheelEvent *event)
{
    const double notches = event->angleDelta().y() / 120.0;
    if (notches == 0)
        return QChartView::wheelEvent(event);
    zoomBy(std::pow(kWheelStep, notches), event->position());
    event->accept();
}

void RunChartView::mousePressEvent(QMouseEvent *event)
{
    if (event->button() == Qt::MiddleButton ||
        (event->button() == Qt::LeftButton && event->modifiers().testFlag(Qt::ShiftModifier))) {
        m_panning = true;
        m_lastPan = event->position().toPoint();
        setCursor(Qt::ClosedHandCursor);
        return event->accept();
    }
    QChartView::mousePressEvent(event);
}

void RunChartView::mouseMoveEvent(QMouseEvent *event)
{
    if (m_panning) {
        const QPoint now = event->position().toPoint();
        panBy(now - m_lastPan);
        m_lastPan = now;
        return event->accept();
    }
    QChartView::mouseMoveEvent(event);
    if (event->buttons() == Qt::NoButton) {
        const QString text = pointTextNear(event->position().toPoint());
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(event->globalPosition().toPoint(), text, this);
    }
}

void RunChartView::mouseReleaseEvent(QMouseEvent *event)
{
    if (m_panning) {
        m_panning = false;
        unsetCursor();
        return event->accept();
    }
    // The rubber band zooms in on a left release and out on a right click, inside QChartView.
    const bool band = event->button() == Qt::LeftButton || event->button() == Qt::RightButton;
    QChartView::mouseReleaseEvent(event);
    if (band && chart()->isZoomed())
        setZoomed(true);
}

void RunChartView::mouseDoubleClickEvent(QMouseEvent *event)
{
    if (event->button() == Qt::LeftButton) {
        resetZoom();
        return event->accept();
    }
    QChartView::mouseDoubleClickEvent(event);
}

void RunChartView::keyPressEvent(QKeyEvent *event)
{
    if (event->key() == Qt::Key_Escape && m_zoomed) {
        resetZoom();
        return event->accept();
    }
    QChartView::keyPressEvent(event);
}

} // namespace torchdeck
