#include "gui/colorscheme.h"
#include "gui/logpanel.h"
#include "gui/mainwindow.h"
#include "gui/newjobdialog.h"
#include "gui/runcharts.h"
#include "gui/runview.h"
#include "testmain.h"

#include <QAction>
#include <QApplication>
#include <QChart>
#include <QMenu>
#include <QPlainTextEdit>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>

using namespace torchdeck;

namespace {
double luminance(const QColor &c)
{
    const auto channel = [](double v) { return v <= 0.03928 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * channel(c.redF()) + 0.7152 * channel(c.greenF()) + 0.0722 * channel(c.blueF());
}

// WCAG contrast ratio: 4.5 is the floor for body text.
double contrast(const QColor &a, const QColor &b)
{
    const double la = luminance(a), lb = luminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

void choose(MainWindow &window, const QString &scheme)
{
    auto *menu = window.findChild<QMenu *>(QStringLiteral("colourMenu"));
    QVERIFY(menu);
    for (QAction *action : menu->actions()) {
        if (action->data().toString() == scheme)
            return action->trigger();
    }
    QFAIL("no such colour scheme");
}
} // namespace

// Light and dark palettes from the window's Colours menu: the charts' theme and colours and the log follow,
// the log stays readable, the choice is remembered, and the window and the new-job dialog fit a 1366x768
// screen.
class TestColorScheme : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(m_home.isValid());
        qputenv("TORCHDECK_DATA_DIR", QFile::encodeName(m_home.path()));
        qputenv("TORCHDECK_CONFIG_DIR", QFile::encodeName(m_home.path()));
        qputenv("TORCHDECK_SSH_CONFIG", QFile::encodeName(m_home.filePath(QStringLiteral("none"))));
        QSettings().clear();
    }

    void darkPaletteReachesChartsAndLog()
    {
        MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        RunCharts *charts = window.runView()->charts();
        for (QChart *chart : charts->charts())
            QCOMPARE(chart->theme(), QChart::ChartThemeLight);

        choose(window, QStringLiteral("dark"));
        QCOMPARE(QApplication::palette().color(QPalette::Window), darkPalette().color(QPalette::Window));
        const QPalette dark = darkPalette();
        QTRY_COMPARE(charts->charts().constFirst()->theme(),
                     QChart::ChartThemeDark); // palette events are posted
        for (QChart *chart : charts->charts()) {
            QCOMPARE(chart->theme(), QChart::ChartThemeDark);
            QCOMPARE(chart->backgroundBrush().color(), dark.color(QPalette::Base));
            QVERIFY(contrast(chart->titleBrush().color(), chart->backgroundBrush().color()) >= 4.5);
        }
        auto *log = window.runView()->logPanel()->findChild<QPlainTextEdit *>();
        QVERIFY(log);
        QCOMPARE(log->palette().color(QPalette::Active, QPalette::Base),
                 dark.color(QPalette::Base)); // enabled once a run is shown
        QVERIFY(contrast(log->palette().color(QPalette::Active, QPalette::Text),
                         log->palette().color(QPalette::Active, QPalette::Base)) >= 4.5);
        QCOMPARE(QSettings().value(QStringLiteral("view/colorScheme")).toString(), QStringLiteral("dark"));

        choose(window, QStringLiteral("light"));
        QTRY_COMPARE(charts->charts().constFirst()->theme(), QChart::ChartThemeLight);
        QTRY_COMPARE(log->palette().color(QPalette::Active, QPalette::Base),
                     lightPalette().color(QPalette::Active, QPalette::Base));
        for (QChart *chart : charts->charts())
            QCOMPARE(chart->theme(), QChart::ChartThemeLight);
        QVERIFY(contrast(log->palette().color(QPalette::Active, QPalette::Text),
                         log->palette().color(QPalette::Active, QPalette::Base)) >= 4.5);
        choose(window, QStringLiteral("dark"));
    }

    void theChoiceIsRememberedAndTheWindowFitsALaptop()
    {
        QApplication::setPalette(lightPalette());
        QCOMPARE(QSettings().value(QStringLiteral("view/colorScheme")).toString(), QStringLiteral("dark"));
        MainWindow window; // reads view/colorScheme = dark
        QCOMPARE(QApplication::palette().color(QPalette::Window), darkPalette().color(QPalette::Window));
        const QSize minimum = window.minimumSizeHint();
        QVERIFY2(minimum.width() <= 1366 && minimum.height() <= 768 - 40,
                 qPrintable(QStringLiteral("%1x%2").arg(minimum.width()).arg(minimum.height())));
        window.resize(1366, 728);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QCOMPARE(window.size(), QSize(1366, 728));
        QVERIFY(window.runView()->charts()->stepChartView()->height() >= 140);
        NewJobDialog *dialog = window.openNewJob(); // the form scrolls rather than outgrow the screen
        QVERIFY2(dialog->minimumSizeHint().height() <= 728,
                 qPrintable(QString::number(dialog->minimumSizeHint().height())));
        QVERIFY(dialog->height() <= 728);
        dialog->close();
        choose(window, QStringLiteral("system"));
        QCOMPARE(QSettings().value(QStringLiteral("view/colorScheme")).toString(), QStringLiteral("system"));
    }

private:
    QTemporaryDir m_home;
};

TORCHDECK_TEST_MAIN(TestColorScheme)
#include "tst_colorscheme.moc"
