#pragma once

#include <libssh/sftp.h>
#include <memory>

namespace torchdeck::remote {

struct SftpSessionDeleter {
    void operator()(sftp_session sftp) const { sftp_free(sftp); }
};
struct SftpFileDeleter {
    void operator()(sftp_file file) const { sftp_close(file); }
};
struct SftpAttributesDeleter {
    void operator()(sftp_attributes attributes) const { sftp_attributes_free(attributes); }
};

using SftpSessionHandle = std::unique_ptr<sftp_session_struct, SftpSessionDeleter>;
using SftpFileHandle = std::unique_ptr<sftp_file_struct, SftpFileDeleter>;
using SftpAttributesHandle = std::unique_ptr<sftp_attributes_struct, SftpAttributesDeleter>;

} // namespace torchdeck::remote
