#pragma once

#include "core/metrics/metricevent.h"

#include <QByteArrayView>
#include <QList>
#include <QString>

namespace torchdeck {

// One scalar of a TensorBoard event file: Summary.Value `tag` of the Event at `step`.
struct TfScalar {
    QString tag;
    qint64 step = 0;
    double wallTime = kNoValue; // Unix seconds
    double value = kNoValue;
};

// Reads TensorBoard event files (events.out.tfevents.*) as they grow, without libprotobuf. A file is a
// sequence of TFRecords: uint64 LE length, uint32 masked CRC-32C of the length, the data (a serialized
// Event), uint32 masked CRC-32C of the data. Scalars are Summary.Value simple_value, or a one-element float
// or double TensorProto (TF2's tf.summary.scalar, torch's new_style); images, histograms, text are skipped.
//
// The reader keeps no bytes: feed() takes the file's bytes from offset() on, and a record not yet complete
// at their end stays unread (offset() stops before it) for the caller to pass again with more bytes.
class TfEventReader {
public:
    explicit TfEventReader(qint64 offset = 0);

    // `bytes` continue the file at offset().
    QList<TfScalar> feed(QByteArrayView bytes);

    // File offset of the first record not read yet: where a tail resumes.
    qint64 offset() const { return m_offset; }
    qint64 records() const { return m_records; }     // records framed with valid CRCs
    qint64 corrupt() const { return m_corrupt; }     // records whose CRC failed
    qint64 malformed() const { return m_malformed; } // records with valid CRCs but a broken Event
    // Why reading stopped (a record's length cannot be trusted, so nothing after it can be framed); empty
    // while the file reads. Once set, feed() returns nothing.
    QString problem() const { return m_problem; }
    // The file_version of the file's first Event ("brain.Event:2"); empty before it is read.
    QString fileVersion() const { return m_fileVersion; }

    // Larger records are taken for corrupt framing: scalars events are a few hundred bytes.
    static constexpr quint64 kMaxRecordBytes = quint64(64) * 1024 * 1024;

private:
    bool parseEvent(QByteArrayView data, QList<TfScalar> *scalars);

    qint64 m_offset = 0;
    qint64 m_records = 0;
    qint64 m_corrupt = 0;
    qint64 m_malformed = 0;
    QString m_problem;
    QString m_fileVersion;
};

} // namespace torchdeck
