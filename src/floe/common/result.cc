#include "floe/common/result.h"

namespace floe {

std::string_view ErrorCodeName(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalidArgument:
      return "invalid argument";
    case ErrorCode::kNotFound:
      return "not found";
    case ErrorCode::kAlreadyExists:
      return "already exists";
    case ErrorCode::kIo:
      return "i/o error";
    case ErrorCode::kTimedOut:
      return "timed out";
    case ErrorCode::kCorruption:
      return "corruption";
    case ErrorCode::kSchemaIncompatible:
      return "schema incompatible";
    case ErrorCode::kCommitConflict:
      return "commit conflict";
    case ErrorCode::kCommitStateUnknown:
      return "commit state unknown";
    case ErrorCode::kNotSupported:
      return "not supported";
    case ErrorCode::kCancelled:
      return "cancelled";
    case ErrorCode::kStale:
      return "stale";
    case ErrorCode::kInternal:
      return "internal error";
  }
  return "unknown error";
}

Error& Error::AddContext(std::string_view context) {
  message_ = fmt::format("{}: {}", context, message_);
  return *this;
}

std::string Error::ToString() const {
  return fmt::format("{}: {}", ErrorCodeName(code_), message_);
}

}  // namespace floe
