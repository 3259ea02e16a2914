#include "remote/logging.h"

Q_LOGGING_CATEGORY(lcRemote, "torchdeck.remote", QtInfoMsg)
