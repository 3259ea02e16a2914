#include "gui/colorscheme.h"

#include <QActionGroup>
#include <QApplication>
#include <QMenu>
#include <QSettings>
#include <QStyle>
#include <QStyleFactory>
#include <memory>

namespace torchdeck {

namespace {
// The palette and style the application started with, for "System".
struct SystemLook {
    QPalette palette;
    QString style;
};

SystemLook &systemLook()
{
    static SystemLook look{QApplication::palette(), QApplication::style()->name()};
    return look;
}
} // namespace

QPalette lightPalette()
{
    const std::unique_ptr<QStyle> fusion(QStyleFactory::create(QStringLiteral("Fusion")));
    return fusion->standardPalette();
}

QPalette darkPalette()
{
    QPalette p;
    const QColor window(0x2b, 0x2d, 0x30), base(0x1e, 0x1f, 0x22), text(0xe6, 0xe6, 0xe6), dim(0x8a, 0x8d, 0x91);
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, QColor(0x26, 0x28, 0x2b));
    p.setColor(QPalette::ToolTipBase, QColor(0x3c, 0x3f, 0x41));
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::PlaceholderText, dim);
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, QColor(0x3c, 0x3f, 0x41));
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, QColor(0xff, 0x6b, 0x6b));
    p.setColor(QPalette::Link, QColor(0x6c, 0xb6, 0xff));
    p.setColor(QPalette::Highlight, QColor(0x2f, 0x65, 0xca));
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Light, QColor(0x4a, 0x4d, 0x50));
    p.setColor(QPalette::Midlight, QColor(0x3f, 0x42, 0x45));
    p.setColor(QPalette::Mid, QColor(0x33, 0x35, 0x38));
    p.setColor(QPalette::Dark, QColor(0x18, 0x19, 0x1b));
    p.setColor(QPalette::Shadow, Qt::black);
    for (QPalette::ColorRole role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
        p.setColor(QPalette::Disabled, role, dim);
    return p;
}

void applyColorScheme(ColorScheme scheme)
{
    const SystemLook &system = systemLook(); // taken before the first change
    if (scheme == ColorScheme::System) {
        QApplication::setStyle(system.style);
        QApplication::setPalette(system.palette);
        return;
    }
    QApplication::setStyle(QStringLiteral("Fusion"));
    QApplication::setPalette(scheme == ColorScheme::Dark ? darkPalette() : lightPalette());
}

QMenu *colorSchemeMenu(QWidget *parent)
{
    auto *menu = new QMenu(QObject::tr("&Colours"), parent);
    auto *group = new QActionGroup(menu);
    const ColorScheme saved = colorSchemeFromName(QSettings().value(QStringLiteral("view/colorScheme")).toString());
    const std::pair<ColorScheme, QString> choices[] = {{ColorScheme::System, QObject::tr("&System")},
                                                       {ColorScheme::Light, QObject::tr("&Light")},
                                                       {ColorScheme::Dark, QObject::tr("&Dark")}};
    for (const auto &[scheme, label] : choices) {
        QAction *action = menu->addAction(label);
        action->setCheckable(true);
        action->setChecked(scheme == saved);
        action->setData(colorSchemeName(scheme));
        group->addAction(action);
        QObject::connect(action, &QAction::triggered, menu, [scheme = scheme] {
            applyColorScheme(scheme);
            QSettings().setValue(QStringLiteral("view/colorScheme"), colorSchemeName(scheme));
        });
    }
    if (saved != ColorScheme::System)
        applyColorScheme(saved);
    return menu;
}

ColorScheme colorSchemeFromName(const QString &name)
{
    if (name == u"light")
        return ColorScheme::Light;
    if (name == u"dark")
        return ColorScheme::Dark;
    return ColorScheme::System;
}

QString colorSchemeName(ColorScheme scheme)
{
    switch (scheme) {
    case ColorScheme::Light:
        return QStringLiteral("light");
    case ColorScheme::Dark:
        return QStringLiteral("dark");
    case ColorScheme::System:
        break;
    }
    return QStringLiteral("system");
}

} // namespace torchdeck
