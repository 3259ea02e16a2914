#pragma once

#include <QString>

namespace torchdeck {

// A store call's outcome: a value, or the database's message. Nothing in the store aborts or throws.
template <typename T> struct StoreResult {
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

struct StoreStatus {
    QString error;

    bool ok() const { return error.isEmpty(); }
    static StoreStatus failure(const QString &message) { return {message}; }
};

} // namespace torchdeck
