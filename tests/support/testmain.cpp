#include "testmain.h"

#include <QCoreApplication>
#ifdef TORCHDECK_TEST_WIDGETS
#include <QApplication>
#endif
#include <QFileInfo>
#include <QMap>
#include <QTest>
#include <cstdio>
#include <vector>

namespace torchdeck::testing {

namespace {
QMap<QString, std::function<std::unique_ptr<QObject>()>> &tests()
{
    static QMap<QString, std::function<std::unique_ptr<QObject>()>> registered;
    return registered;
}
} // namespace

int registerTest(const char *sourceFile, std::function<std::unique_ptr<QObject>()> make)
{
    const QString name = QFileInfo(QString::fromLocal8Bit(sourceFile)).completeBaseName().mid(4); // tst_<name>
    tests().insert(name, std::move(make));
    return int(tests().size());
}

} // namespace torchdeck::testing

int main(int argc, char *argv[])
{
#ifdef TORCHDECK_TEST_WIDGETS
    QApplication app(argc, argv); // the window's tests
#else
    QCoreApplication app(argc, argv);
#endif
    const QString name = argc > 1 ? QString::fromLocal8Bit(argv[1]) : QString();
    const auto found = torchdeck::testing::tests().constFind(name);
    if (found == torchdeck::testing::tests().cend()) {
        std::fprintf(stderr, "usage: %s TEST [Qt Test arguments]; its tests: %s\n", argv[0],
                     qPrintable(torchdeck::testing::tests().keys().join(QStringLiteral(", "))));
        return 2;
    }
    const std::unique_ptr<QObject> test = (*found)();
    std::vector<char *> arguments{argv[0]};
    for (int i = 2; i < argc; ++i)
        arguments.push_back(argv[i]);
    return QTest::qExec(test.get(), int(arguments.size()), arguments.data());
}
