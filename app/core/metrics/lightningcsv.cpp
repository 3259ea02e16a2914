#include "core/metrics/lightningcsv.h"

#include "core/metrics/scalarmapping.h"

#include <QByteArrayView>
#include <QStringList>
#include <utility>

namespace torchdeck {

namespace {

// One RFC 4180 record from *pos on: false when no complete one (ended by '\n' outside quotes) is left.
bool nextRecord(QByteArrayView text, qsizetype *pos, QList<QByteArray> *cells)
{
    cells->clear();
    QByteArray cell;
    bool quoted = false;
    bool cellStart = true;
    for (qsizetype i = *pos; i < text.size(); ++i) {
        const char c = text[i];
        if (quoted) {
            if (c != '"')
                cell += c;
            else if (i + 1 < text.size() && text[i + 1] == '"')
                cell += text[++i];
            else
                quoted = false;
            continue;
        }
        if (c == '"' && cellStart) {
            quoted = true;
        } else if (c == ',') {
            cells->append(cell);
            cell.clear();
            cellStart = true;
            continue;
        } else if (c == '\n') {
            if (cell.endsWith('\r'))
                cell.chop(1);
            cells->append(cell);
            *pos = i + 1;
            return true;
        } else {
            cell += c;
        }
        cellStart = false;
    }
    return false;
}

} // namespace

QList<MetricEvent> LightningCsvReader::read(const QByteArray &wholeFile, qsizetype rowsAlreadyRead)
{
    QList<MetricEvent> events;
    m_rows = 0;
    qsizetype pos = wholeFile.startsWith("\xEF\xBB\xBF") ? 3 : 0; // a UTF-8 byte order mark
    QList<QByteArray> cells;
    if (!nextRecord(wholeFile, &pos, &cells))
        return events;
    QStringList names;
    QList<ScalarRole> roles;
    for (const QByteArray &cell : std::as_const(cells)) {
        names.append(QString::fromUtf8(cell.trimmed()));
        roles.append(scalarRole(names.last()));
    }
    while (nextRecord(wholeFile, &pos, &cells)) {
        if (cells.size() == 1 && cells.first().trimmed().isEmpty())
            continue; // a blank line is no row
        if (++m_rows <= rowsAlreadyRead)
            continue;
        ScalarGroup group;
        for (qsizetype i = 0; i < qMin(cells.size(), roles.size()); ++i) {
            const QByteArray cell = cells[i].trimmed();
            if (cell.isEmpty())
                continue;
            bool ok = false;
            const double value = cell.toDouble(&ok);
            if (ok)
                group.add(roles[i], names[i], value);
            else
                ++m_malformed;
        }
        MetricEvent position;
        position.step = group.step;
        position.epoch = MetricEvent::has(group.epoch) ? group.epoch + 1 : kNoCount;
        group.appendEvents(position, position.epoch, position.step, &events);
    }
    return events;
}

} // namespace torchdeck
