#pragma once

#include <QCoreApplication>

namespace torchdeck::term {

// The translation context of the terminal front's texts a person reads (Qt Creator's Tr::tr idiom).
struct Tr {
    Q_DECLARE_TR_FUNCTIONS(torchdeck::term)
};

} // namespace torchdeck::term
