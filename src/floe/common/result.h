#pragma once
/// floe's error vocabulary: every function below the CLI that can fail returns
/// `Result<T>` or `Status`. Exceptions never cross a module's API.
///
/// The error policy (docs/errors.md): return an `Error` for anything a caller
/// or user can cause (bad input, missing file, lost server); `assert` only
/// programmer errors; bad bytes are `ErrorCode::kCorruption`, never a crash.

#include <expected>
#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>

namespace floe {

/// What went wrong, phrased as what the caller should do about it.
enum class ErrorCode {
  kInvalidArgument,     ///< The request itself is wrong; do not retry.
  kNotFound,            ///< The named object does not exist.
  kAlreadyExists,       ///< Creating something that exists.
  kIo,                  ///< The storage or network failed; may be retried.
  kTimedOut,            ///< Gave up waiting; may be retried.
  kCorruption,          ///< Bytes that do not follow their format.
  kSchemaIncompatible,  ///< A value or change does not fit the schema.
  kCommitConflict,      ///< Lost an optimistic commit race: reload and retry.
  kCommitStateUnknown,  ///< A commit may or may not have happened: reload and check.
  kNotSupported,        ///< Valid, but not something floe does (yet).
  kCancelled,           ///< Stopped on request.
  kStale,               ///< What was read changed at its source meanwhile: read it again.
  kInternal,            ///< A bug in floe.
};

/// The stable lower-case name of a code, e.g. "corruption".
std::string_view ErrorCodeName(ErrorCode code);

/// An error: a code, a message that names the object (file and offset, table,
/// field id, binlog position, ...), and context added at module boundaries.
class [[nodiscard]] Error {
 public:
  Error(ErrorCode code, std::string message) : code_(code), message_(std::move(message)) {}

  ErrorCode code() const { return code_; }
  const std::string& message() const { return message_; }

  /// Prefixes context, outermost first: "reading manifest m1.avro: <message>".
  Error& AddContext(std::string_view context);
  Error WithContext(std::string_view context) && {
    AddContext(context);
    return std::move(*this);
  }

  /// "corruption: <message>".
  std::string ToString() const;

 private:
  ErrorCode code_;
  std::string message_;
};

template <typename T>
using Result = std::expected<T, Error>;
using Status = Result<void>;

/// The success value of a `Status`.
inline Status Ok() { return {}; }

/// Builds an `std::unexpected<Error>` with an fmt-formatted message.
template <typename... Args>
std::unexpected<Error> MakeError(ErrorCode code, fmt::format_string<Args...> format,
                                 Args&&... args) {
  return std::unexpected<Error>(Error(code, fmt::format(format, std::forward<Args>(args)...)));
}

#define FLOE_ERROR_FN_(name, code)                                                  \
  template <typename... Args>                                                       \
  std::unexpected<Error> name(fmt::format_string<Args...> format, Args&&... args) { \
    return MakeError(code, format, std::forward<Args>(args)...);                    \
  }
FLOE_ERROR_FN_(InvalidArgument, ErrorCode::kInvalidArgument)
FLOE_ERROR_FN_(NotFound, ErrorCode::kNotFound)
FLOE_ERROR_FN_(AlreadyExists, ErrorCode::kAlreadyExists)
FLOE_ERROR_FN_(IoError, ErrorCode::kIo)
FLOE_ERROR_FN_(TimedOut, ErrorCode::kTimedOut)
FLOE_ERROR_FN_(Corruption, ErrorCode::kCorruption)
FLOE_ERROR_FN_(SchemaIncompatible, ErrorCode::kSchemaIncompatible)
FLOE_ERROR_FN_(CommitConflict, ErrorCode::kCommitConflict)
FLOE_ERROR_FN_(CommitStateUnknown, ErrorCode::kCommitStateUnknown)
FLOE_ERROR_FN_(NotSupported, ErrorCode::kNotSupported)
FLOE_ERROR_FN_(Cancelled, ErrorCode::kCancelled)
FLOE_ERROR_FN_(InternalError, ErrorCode::kInternal)
#undef FLOE_ERROR_FN_

}  // namespace floe

#define FLOE_CONCAT_INNER_(a, b) a##b
#define FLOE_CONCAT_(a, b) FLOE_CONCAT_INNER_(a, b)

/// Returns the error of a `Result`/`Status` expression from the calling function.
#define FLOE_RETURN_IF_ERROR(expr)                                              \
  do {                                                                          \
    auto&& floe_status_ = (expr);                                               \
    if (!floe_status_) return std::unexpected(std::move(floe_status_).error()); \
  } while (false)

/// Like FLOE_RETURN_IF_ERROR, prefixing context to the error on the way out.
#define FLOE_RETURN_IF_ERROR_CTX(expr, ...)                                       \
  do {                                                                            \
    auto&& floe_status_ = (expr);                                                 \
    if (!floe_status_)                                                            \
      return std::unexpected(                                                     \
          std::move(floe_status_).error().WithContext(fmt::format(__VA_ARGS__))); \
  } while (false)

#define FLOE_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr)         \
  auto tmp = (expr);                                        \
  if (!tmp) return std::unexpected(std::move(tmp).error()); \
  lhs = std::move(*tmp)

/// `FLOE_ASSIGN_OR_RETURN(auto x, Compute());` declares x from a Result or returns its error.
#define FLOE_ASSIGN_OR_RETURN(lhs, expr) \
  FLOE_ASSIGN_OR_RETURN_IMPL_(FLOE_CONCAT_(floe_result_, __LINE__), lhs, expr)
