#pragma once

#include <QChartView>

namespace torchdeck {

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

signals:
    void zoomChanged(bool zoomed); // the owner redraws: refit on reset, resample the visible range on zoom

protected:
    void wheelEvent(QWheelEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void mouseDoubleClickEvent(QMouseEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;

private:
    void setZoomed(bool zoomed);

    bool m_zoomed = false;
    bool m_panning = false;
    QPoint m_lastPan;
};

} // namespace torchdeck
