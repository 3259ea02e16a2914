#pragma once

#include <QCoreApplication>

namespace torchdeck::core {

// The translation context of the core's texts a person reads (Qt Creator's Tr::tr idiom):
// core::Tr::tr("...") from namespace torchdeck, Tr::tr("...") inside torchdeck::core.
struct Tr {
    Q_DECLARE_TR_FUNCTIONS(torchdeck::core)
};

} // namespace torchdeck::core
