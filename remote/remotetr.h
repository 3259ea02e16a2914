#pragma once

#include <QCoreApplication>

namespace torchdeck::remote {

// The translation context of the remote layer's texts a person reads (Qt Creator's Tr::tr idiom), for
// code that is no QObject: remote::Tr::tr("...") from namespace torchdeck, Tr::tr("...") inside
// torchdeck::remote.
struct Tr {
    Q_DECLARE_TR_FUNCTIONS(torchdeck::remote)
};

} // namespace torchdeck::remote
