#pragma once

#include <QObject>
#include <functional>
#include <memory>

// The unit tests of a component are one executable (tests/unit/CMakeLists.txt: fewer links and moc runs to build);
// each test class registers itself under its file's name, and the executable runs the one its first argument
// names, with Qt Test's arguments after it: `unit_jobs runlayout -v2` (ctest: unit.runlayout).
namespace torchdeck::testing {
int registerTest(const char *sourceFile, std::function<std::unique_ptr<QObject>()> make);
}

// In place of QTEST_MAIN / QTEST_GUILESS_MAIN, at the end of a tst_<name>.cpp.
#define TORCHDECK_TEST_MAIN(TestClass)                                                                                 \
    static const int torchdeck_registered_##TestClass =                                                                \
        torchdeck::testing::registerTest(__FILE__, [] { return std::unique_ptr<QObject>(new TestClass); });
