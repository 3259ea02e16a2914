#pragma once

// Owning handles for libssh objects: each is freed exactly once, in the right order, on every path.
#include <libssh/libssh.h>
#include <memory>

namespace torchdeck::remote {

struct SessionDeleter {
    void operator()(ssh_session session) const
    {
        if (ssh_is_connected(session))
            ssh_disconnect(session);
        ssh_free(session);
    }
};
struct ChannelDeleter {
    void operator()(ssh_channel channel) const { ssh_channel_free(channel); }
};
struct KeyDeleter {
    void operator()(ssh_key key) const { ssh_key_free(key); }
};
struct HashDeleter {
    void operator()(unsigned char *hash) const { ssh_clean_pubkey_hash(&hash); }
};
struct CStringDeleter {
    void operator()(char *text) const { ssh_string_free_char(text); }
};

using SessionHandle = std::unique_ptr<ssh_session_struct, SessionDeleter>;
using ChannelHandle = std::unique_ptr<ssh_channel_struct, ChannelDeleter>;
using KeyHandle = std::unique_ptr<ssh_key_struct, KeyDeleter>;
using HashHandle = std::unique_ptr<unsigned char, HashDeleter>;
using CStringHandle = std::unique_ptr<char, CStringDeleter>;

} // namespace torchdeck::remote
