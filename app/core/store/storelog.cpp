#include "core/store/storelog.h"

Q_LOGGING_CATEGORY(lcStore, "torchdeck.store", QtInfoMsg)
