#pragma once

#include <QChartView>
#include <QList>

namespace torchdeck {

// A labelled vertical line on a chart: where one attempt (job) of the run ended and the next began.
struct ChartMarker {
    double x = 0;
    QString label;   // "job 101 (wall time)"
    int attempt = 0; // the attempt that ended there
};

// A chart view the user can look into: wheel zooms around the cursor, a dragged rectangle zooms to it,
// the middle button (or Shift+left) drags the view, double-click or Escape resets to "fit all". While
// zoomed the owner keeps the axes where the user put them. Hovering shows the nearest drawn point.
// Part of the Qt Charts corner of the GUI (see runcharts.h).
class RunChartView : public QChartView {
    Q_OBJECT
public:
    explicit RunChartView(QChart *chart, QWidget *parent = nullptr);

    bool isZoomed() const { return m_zoomed; }
    void resetZoom();
    void zoomBy(double factor, QPointF center); // factor > 1 zooms in; center in widget coordinates
    void panBy(QPointF pixels);
    // The line point nearest to a widget position within `radius` pixels, as "series: x, y"; empty if none.
    QString pointTextNear(QPoint position, int radius = 24) const;

    void setMarkers(const QList<ChartMarker> &markers);
    QList<ChartMarker> markers() const { return m_markers; }
    int markerNear(QPoint position, int radius = 5) const; // index into markers(), -1: none
    // A vertical line at x (the same step hovered on another chart of the run); NaN: none.
    void setCrosshair(double x);
    double crosshair() const { return m_crosshair; }

signals:
    void zoomChanged(bool zoomed); // the owner redraws: refit on reset, resample the visible range on zoom
    void hovered(double x);        // the x under the cursor in the plot area; NaN when it leaves
    void markerClicked(int attempt);

protected:
    void wheelEvent(QWheelEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void mouseDoubleClickEvent(QMouseEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;
    void leaveEvent(QEvent *event) override;
    void drawForeground(QPainter *painter, const QRectF &rect) override;

private:
    double xAt(QPoint position) const; // data x of a widget position; NaN outside the plot area
    double sceneX(double x) const;     // scene x of a data x; NaN while the chart has no series
    double widgetX(double x) const;    // widget x of a data x
    void setZoomed(bool zoomed);

    bool m_zoomed = false;
    bool m_panning = false;
    QPoint m_lastPan;
    QList<ChartMarker> m_markers;
    double m_crosshair;
};

} // namespace torchdeck
