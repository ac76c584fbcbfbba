#include "floe/pipeline/environment.h"

#include <cstdlib>

namespace floe::pipeline {

Environment Environment::Process() {
  return Environment([](const std::string& name) -> std::optional<std::string> {
    const char* value = std::getenv(name.c_str());
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  });
}

Environment Environment::FromMap(std::map<std::string, std::string> variables) {
  return Environment(
      [vars = std::move(variables)](const std::string& name) -> std::optional<std::string> {
        auto it = vars.find(name);
        if (it == vars.end()) return std::nullopt;
        return it->second;
      });
}

std::optional<std::string> Environment::Get(std::string_view name) const {
  return lookup_(std::string(name));
}

}  // namespace floe::pipeline
