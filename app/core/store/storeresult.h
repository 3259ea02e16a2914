#pragma once

#include <QString>

namespace torchdeck {

// A store call's outcome: a value, or the database's message. Nothing in the store aborts or throws; every
// caller decides what a failure means (nodiscard: ignoring one does not compile).
template <typename T> struct [[nodiscard]] StoreResult {
    T value{};
    QString error;

    bool ok() const { return error.isEmpty(); }
    static StoreResult failure(const QString &message)
    {
        StoreResult r;
        r.error = message;
        return r;
    }
};

struct [[nodiscard]] StoreStatus {
    QString error;

    bool ok() const { return error.isEmpty(); }
    static StoreStatus failure(const QString &message) { return {message}; }
};

} // namespace torchdeck
