#include "term/console/keydecoder.h"

namespace torchdeck::term {

namespace {

constexpr char kEsc = 0x1b;
constexpr qsizetype kMaxSequence = 32; // longer "sequences" are noise: the ESC is taken alone
constexpr char32_t kReplacement = 0xfffd;

bool keyForFinal(char final, Key *key)
{
    switch (final) {
    case 'A':
        *key = {Key::Up};
        return true;
    case 'B':
        *key = {Key::Down};
        return true;
    case 'C':
        *key = {Key::Right};
        return true;
    case 'D':
        *key = {Key::Left};
        return true;
    case 'H':
        *key = {Key::Home};
        return true;
    case 'F':
        *key = {Key::End};
        return true;
    default:
        return false;
    }
}

// "ESC [ 5 ~" and friends (the VT220 editing keys); modifiers after ';' are ignored.
bool keyForTilde(QByteArrayView params, Key *key)
{
    const qsizetype semicolon = params.indexOf(';');
    switch (params.first(semicolon < 0 ? params.size() : semicolon).toInt()) {
    case 1:
    case 7:
        *key = {Key::Home};
        return true;
    case 4:
    case 8:
        *key = {Key::End};
        return true;
    case 5:
        *key = {Key::PageUp};
        return true;
    case 6:
        *key = {Key::PageDown};
        return true;
    default:
        return false;
    }
}

qsizetype utf8Length(uchar lead)
{
    if (lead >= 0xc2 && lead <= 0xdf)
        return 2;
    if (lead >= 0xe0 && lead <= 0xef)
        return 3;
    if (lead >= 0xf0 && lead <= 0xf4)
        return 4;
    return 0; // not a lead byte
}

} // namespace

qsizetype KeyDecoder::decodeOne(QList<Key> *keys, bool final) const
{
    const QByteArrayView b(m_pending);
    const auto c = static_cast<uchar>(b[0]);
    if (c == kEsc) {
        if (b.size() == 1) {
            if (!final)
                return 0;
            keys->append(Key{Key::Escape});
            return 1;
        }
        if (b[1] == '[' || b[1] == 'O') {
            qsizetype j = 2;
            if (b[1] == '[') {
                while (j < b.size() && j < kMaxSequence && b[j] >= 0x20 && b[j] <= 0x3f)
                    ++j; // parameters and intermediates
            }
            if (j == b.size() && !final && j < kMaxSequence)
                return 0;
            if (j < b.size() && b[j] >= 0x40 && b[j] <= 0x7e) {
                Key key;
                const bool known = b[j] == '~' ? keyForTilde(b.sliced(2, j - 2), &key) : keyForFinal(b[j], &key);
                if (known)
                    keys->append(key);
                return j + 1; // unknown sequences (function keys, reports) are swallowed whole
            }
        }
        keys->append(Key{Key::Escape}); // a lone ESC, or Alt+key: the next byte stands on its own
        return 1;
    }
    if (c < 0x80) {
        switch (c) {
        case 0x03:
            keys->append(Key{Key::CtrlC});
            break;
        case '\r':
        case '\n':
            keys->append(Key{Key::Enter});
            break;
        case '\t':
            keys->append(Key{Key::Tab});
            break;
        case 0x08:
        case 0x7f:
            keys->append(Key{Key::Backspace});
            break;
        default:
            keys->append(Key::character(c));
            break;
        }
        return 1;
    }
    const qsizetype length = utf8Length(c);
    if (length == 0) {
        keys->append(Key::character(kReplacement));
        return 1;
    }
    if (b.size() < length && !final) {
        bool continuing = true; // a broken prefix need not wait
        for (qsizetype i = 1; i < b.size(); ++i)
            continuing = continuing && (static_cast<uchar>(b[i]) & 0xc0) == 0x80;
        if (continuing)
            return 0;
    }
    char32_t cp = c & (0xff >> (length + 1));
    for (qsizetype i = 1; i < length; ++i) {
        if (i >= b.size() || (static_cast<uchar>(b[i]) & 0xc0) != 0x80) {
            keys->append(Key::character(kReplacement));
            return i;
        }
        cp = (cp << 6) | (static_cast<uchar>(b[i]) & 0x3f);
    }
    keys->append(Key::character(cp));
    return length;
}

QList<Key> KeyDecoder::feed(QByteArrayView bytes)
{
    m_pending.append(bytes);
    QList<Key> keys;
    while (!m_pending.isEmpty()) {
        const qsizetype used = decodeOne(&keys, false);
        if (used == 0)
            break;
        m_pending.remove(0, used);
    }
    return keys;
}

QList<Key> KeyDecoder::flush()
{
    QList<Key> keys;
    while (!m_pending.isEmpty())
        m_pending.remove(0, decodeOne(&keys, true));
    return keys;
}

} // namespace torchdeck::term
