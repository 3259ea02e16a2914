#pragma once

#include <QByteArray>
#include <QList>
#include <QMetaType>

namespace torchdeck::term {

struct Key {
    enum Code : quint8 {
        Char,
        Up,
        Down,
        Left,
        Right,
        PageUp,
        PageDown,
        Home,
        End,
        Enter,
        Escape,
        Tab,
        Backspace,
        CtrlC
    };
    Code code = Char;
    char32_t ch = 0; // Char: the character (a control character as itself, e.g. 0x04 for Ctrl-D)

    static Key character(char32_t c) { return {Char, c}; }
    bool operator==(const Key &o) const { return code == o.code && ch == o.ch; }
    bool operator!=(const Key &o) const { return !(*this == o); }
};

// Turns the bytes read from a terminal in raw mode into keys. Reads may split an escape sequence or a UTF-8
// character: the incomplete tail waits for the next feed(). A lone ESC cannot be told from the start of a
// sequence, so it waits too, until flush() (the caller's short timeout) makes it Escape.
class KeyDecoder {
public:
    QList<Key> feed(QByteArrayView bytes);
    QList<Key> flush();
    bool hasPending() const { return !m_pending.isEmpty(); }

private:
    // Decodes one key from the front of m_pending: the bytes it took, 0 when incomplete.
    qsizetype decodeOne(QList<Key> *keys, bool final) const;

    QByteArray m_pending;
};

} // namespace torchdeck::term

Q_DECLARE_METATYPE(torchdeck::term::Key)
