// runtime/base/status.h — Status: what a generated function returns (ok, or the error's text).
#pragma once

#include <string>
#include <utility>

namespace tcert {

/// The outcome of a call of a generated function (runtime/program/generated.h): success, or a failure
/// with its message, lower-case and without a trailing period, as tcert::Error's (e.g. "input
/// A: in.h5 has no dataset A"). A generated function returns the same Status on every rank of
/// its communicator (see run_generated()). Cheap to copy.
class [[nodiscard]] Status {
 public:
  /// Success.
  Status() = default;
  static Status success() { return Status(); }
  /// A failure; `message` must not be empty.
  static Status failure(std::string message) { return Status(std::move(message)); }

  bool ok() const { return message_.empty(); }
  explicit operator bool() const { return ok(); }
  /// The error's text; "" on success.
  const std::string& message() const { return message_; }

 private:
  explicit Status(std::string message) : message_(message.empty() ? "unknown error" : std::move(message)) {}
  std::string message_;
};

}  // namespace tcert
