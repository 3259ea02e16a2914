#include "gui/runchartview.h"

#include <QLineSeries>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>
#include <cmath>

namespace torchdeck {

namespace {
constexpr double kWheelStep = 1.25; // one wheel notch
}

RunChartView::RunChartView(QChart *chart, QWidget *parent)
    : QChartView(chart, parent)
    , m_crosshair(qQNaN())
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
    const QXYSeries *nearest = nullptr;
    QPointF point;
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
                nearest = line;
                point = p;
            }
        }
    }
    if (!nearest)
        return {};
    QString text =
        QStringLiteral("%1: %2, %3").arg(nearest->name()).arg(point.x(), 0, 'g', 8).arg(point.y(), 0, 'g', 5);
    // A smoothed curve and its raw one: the value under the cursor shows both.
    for (QAbstractSeries *series : chart()->series()) {
        auto *twin = qobject_cast<QXYSeries *>(series);
        if (!twin || twin == nearest || !twin->isVisible() ||
            (twin->property("twinOf") != nearest->name() && nearest->property("twinOf") != twin->name()))
            continue;
        const QList<QPointF> points = twin->points();
        const auto at = std::lower_bound(points.cbegin(), points.cend(), point.x(),
                                         [](const QPointF &p, double x) { return p.x() < x; });
        if (at != points.cend())
            text += QStringLiteral(" \u00b7 %1 %2").arg(twin->property("twinLabel").toString()).arg(at->y(), 0, 'g', 5);
    }
    return text;
}

void RunChartView::setMarkers(const QList<ChartMarker> &markers)
{
    m_markers = markers;
    viewport()->update();
}

void RunChartView::setCrosshair(double x)
{
    if (x == m_crosshair || (std::isnan(x) && std::isnan(m_crosshair)))
        return;
    m_crosshair = x;
    viewport()->update();
}

double RunChartView::sceneX(double x) const
{
    const QList<QAbstractSeries *> series = chart()->series();
    if (series.isEmpty())
        return qQNaN();
    return chart()->mapToScene(chart()->mapToPosition(QPointF(x, 0), series.constFirst())).x();
}

double RunChartView::widgetX(double x) const
{
    return mapFromScene(QPointF(sceneX(x), 0)).x();
}

double RunChartView::xAt(QPoint position) const
{
    const QList<QAbstractSeries *> series = chart()->series();
    const QPointF inChart = chart()->mapFromScene(mapToScene(position));
    if (series.isEmpty() || !chart()->plotArea().contains(inChart))
        return qQNaN();
    return chart()->mapToValue(inChart, series.constFirst()).x();
}

int RunChartView::markerNear(QPoint position, int radius) const
{
    for (qsizetype i = 0; i < m_markers.size(); ++i) {
        if (std::abs(widgetX(m_markers.at(i).x) - position.x()) <= radius)
            return int(i);
    }
    return -1;
}

void RunChartView::drawForeground(QPainter *painter, const QRectF &rect)
{
    QChartView::drawForeground(painter, rect);
    if (chart()->series().isEmpty())
        return;
    const QRectF area = chart()->mapRectToScene(chart()->plotArea());
    painter->save();
    const QColor ink = palette().color(QPalette::WindowText);
    QColor faint = ink;
    faint.setAlphaF(0.45);
    for (const ChartMarker &marker : std::as_const(m_markers)) {
        const double x = sceneX(marker.x);
        if (x < area.left() || x > area.right())
            continue;
        painter->setPen(QPen(faint, 1, Qt::DashLine));
        painter->drawLine(QPointF(x, area.top()), QPointF(x, area.bottom()));
        painter->setPen(ink);
        QFont font = painter->font();
        font.setPointSizeF(font.pointSizeF() * 0.8);
        painter->setFont(font);
        // Left of the line: it names the job that ended there.
        const QRectF box(x - 204, area.top() + 2, 200, painter->fontMetrics().height());
        painter->drawText(box, Qt::AlignRight | Qt::AlignVCenter, marker.label);
    }
    if (!std::isnan(m_crosshair)) {
        const double x = sceneX(m_crosshair);
        if (x >= area.left() && x <= area.right()) {
            painter->setPen(QPen(faint, 1));
            painter->drawLine(QPointF(x, area.top()), QPointF(x, area.bottom()));
        }
    }
    painter->restore();
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
    if (event->button() == Qt::LeftButton && event->modifiers() == Qt::NoModifier) {
        if (const int marker = markerNear(event->position().toPoint()); marker >= 0) {
            emit markerClicked(m_markers.at(marker).attempt);
            return event->accept();
        }
    }
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
    emit hovered(xAt(event->position().toPoint()));
    if (event->buttons() == Qt::NoButton) {
        if (markerNear(event->position().toPoint()) >= 0)
            setCursor(Qt::PointingHandCursor);
        else
            unsetCursor();
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

void RunChartView::leaveEvent(QEvent *event)
{
    QChartView::leaveEvent(event);
    emit hovered(qQNaN());
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
