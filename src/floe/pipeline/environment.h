#pragma once
/// Where `${VAR}` in a pipeline file is looked up: the process environment
/// when a pipeline runs, a fixed map in tests. A small value type; copy it
/// freely. `Get` of the process environment reads it at call time and is as
/// thread-safe as getenv (safe while nobody calls setenv).

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace floe::pipeline {

class Environment {
 public:
  /// The process environment (getenv).
  static Environment Process();
  /// Exactly the given variables; anything else is unset.
  static Environment FromMap(std::map<std::string, std::string> variables);

  /// The value of `name`, or nullopt when it is not set. A variable set to
  /// the empty string is set.
  std::optional<std::string> Get(std::string_view name) const;

 private:
  explicit Environment(std::function<std::optional<std::string>(const std::string&)> lookup)
      : lookup_(std::move(lookup)) {}
  std::function<std::optional<std::string>(const std::string&)> lookup_;
};

}  // namespace floe::pipeline
