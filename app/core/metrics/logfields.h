#pragma once

#include "core/metrics/metricevent.h"

#include <QList>
#include <QString>
#include <QStringView>

namespace torchdeck {

// One named number as a script printed it: "loss: 0.12", "lr=3e-4", "Loss 2.3e+00 (2.4e+00)", "'epoch': 0.5".
struct LogField {
    QString name;              // as printed ("Average loss", "Acc@1")
    double value = kNoValue;   // "97%" reads 0.97
    qint64 total = kNoCount;   // "epoch: 3/10", "Step [100/938]": the 10, the 938
    double average = kNoValue; // "Loss 2.3 (2.4)": the running average in parentheses
    bool decimal = false;      // printed with a fraction or exponent ("'epoch': 1.0" is a fractional epoch)
};

// What the general reader finds in one line, before the names mean anything.
struct LogFields {
    QList<LogField> fields;
    // An unnamed position: "[6400/60000 (11%)]", tqdm's "| 420/938 [", Keras' "469/469 [===", fairseq's
    // "epoch 001:   100 / 1000".
    qint64 done = kNoCount;
    qint64 total = kNoCount;
    qint64 pairEpoch = kNoCount; // "[1,  2000] loss: ..." (the PyTorch CIFAR-10 tutorial): epoch, batch
    qint64 pairBatch = kNoCount;
    double samplesPerSecond = kNoValue; // "812.5 samples/s"
    bool progressBar = false;           // a tqdm or Keras bar: its line at the epoch's last step sums the epoch
    bool dict = false;                  // a Python dict or JSON object printed whole
    // The pass the line is about, from the words before its first value: "test", "valid", "train"...; empty
    // when none is named.
    QString section;
};

// The named numbers of a line (rank labels and timestamps already read past: ownLogText). Pure; bounded
// work per character.
LogFields logFields(QStringView text);

} // namespace torchdeck
