#include "term/render/table.h"
#include "term/render/textwidth.h"
#include "testmain.h"

#include <QTest>

using namespace torchdeck::term;

namespace {

Table runs(int count)
{
    Table t;
    t.columns = {
        {QStringLiteral("RUN"), false, 4}, {QStringLiteral("NAME"), false, 4}, {QStringLiteral("LOSS"), true, 4}};
    for (int i = 0; i < count; ++i)
        t.rows.append({QStringLiteral("r%1").arg(i), QStringLiteral("name-%1").arg(i), QString::number(i * 0.5)});
    t.emptyText = QStringLiteral("no runs yet");
    return t;
}

void checkBox(const QStringList &lines, int cols, int rows)
{
    QCOMPARE(lines.size(), qsizetype(rows));
    for (const QString &line : lines)
        QCOMPARE(displayWidth(line), cols);
}

} // namespace

class TestTable : public QObject {
    Q_OBJECT
private slots:
    void naturalWidthsWhenThereIsRoom();
    void longCellsEndWithEllipsis();
    void columnsDropWhenNarrow();
    void selectedRowIsReversedAndInView();
    void emptyTableSaysSo();
    void hostileCellsAreNeutralised();
    void boxIsExactAtEverySize();
};

void TestTable::naturalWidthsWhenThereIsRoom()
{
    const QStringList lines = renderTable(runs(2), 40, 3, false);
    checkBox(lines, 40, 3);
    QCOMPARE(stripAnsi(lines[0]).trimmed(), QStringLiteral("RUN  NAME    LOSS"));
    QCOMPARE(stripAnsi(lines[2]).trimmed(), QStringLiteral("r1   name-1   0.5"));
}

void TestTable::longCellsEndWithEllipsis()
{
    Table t = runs(1);
    t.rows[0][1] = QStringLiteral("a very long run name that cannot fit");
    const QStringList lines = renderTable(t, 24, 2, false);
    checkBox(lines, 24, 2);
    const QString row = stripAnsi(lines[1]);
    QVERIFY2(row.contains(u"a very long ru\u2026"), qPrintable(row));
    QVERIFY(row.trimmed().endsWith(u'0'));
}

void TestTable::columnsDropWhenNarrow()
{
    const QStringList lines = renderTable(runs(1), 10, 2, false);
    checkBox(lines, 10, 2);
    QCOMPARE(stripAnsi(lines[0]).trimmed(), QStringLiteral("RUN NAME"));
}

void TestTable::selectedRowIsReversedAndInView()
{
    Table t = runs(10);
    t.selected = 7;
    const QStringList lines = renderTable(t, 30, 4, true);
    checkBox(lines, 30, 4);
    QVERIFY(stripAnsi(lines[1]).startsWith(u"r5 "));
    QVERIFY(stripAnsi(lines[3]).startsWith(u"r7 "));
    QVERIFY(lines[3].startsWith(QStringLiteral("\x1b[7m")));
    QVERIFY(!lines[2].contains(QStringLiteral("\x1b[7m")));
    QCOMPARE(tableFirstRow(10, 1, 3), 0);
    QCOMPARE(tableFirstRow(10, 9, 3), 7);
    QCOMPARE(tableFirstRow(2, 1, 3), 0);
    QCOMPARE(tableFirstRow(10, -1, 3), 0);
}

void TestTable::emptyTableSaysSo()
{
    const QStringList lines = renderTable(runs(0), 30, 3, false);
    checkBox(lines, 30, 3);
    QCOMPARE(stripAnsi(lines[1]).trimmed(), QStringLiteral("no runs yet"));
}

void TestTable::hostileCellsAreNeutralised()
{
    Table t = runs(1);
    t.rows[0][1] = QStringLiteral("x\x1b[2J\x1b]0;title\x07y\nz");
    const QStringList lines = renderTable(t, 40, 2, false);
    QVERIFY(stripAnsi(lines[1]).contains(u"xy z"));
    QVERIFY(!lines[1].contains(QStringLiteral("[2J")));
    QVERIFY(!lines[1].contains(u"title"));
}

void TestTable::boxIsExactAtEverySize()
{
    Table t = runs(20);
    t.selected = 19;
    t.rows[3][1] = QStringLiteral("\u65e5\u672c\u8a9e\u306e\u540d\u524d");
    for (const auto &[cols, rows] : {std::pair{0, 0}, {1, 1}, {3, 2}, {9, 5}, {17, 8}, {80, 30}})
        checkBox(renderTable(t, cols, rows, true), cols, rows);
}

TORCHDECK_TEST_MAIN(TestTable)
#include "tst_table.moc"
