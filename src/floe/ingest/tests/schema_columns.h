#pragma once
/// Test helpers: a schema's top-level columns as lists, for assertions.

#include <cstdint>
#include <string>
#include <vector>

#include "floe/types/schema.h"

namespace floe::ingest::test {

inline std::vector<std::string> Names(const types::Schema& s) {
  std::vector<std::string> out;
  for (const auto& f : s.fields()) out.push_back(f.name);
  return out;
}
inline std::vector<int32_t> Ids(const types::Schema& s) {
  std::vector<int32_t> out;
  for (const auto& f : s.fields()) out.push_back(f.id);
  return out;
}
inline std::vector<std::string> TypeNames(const types::Schema& s) {
  std::vector<std::string> out;
  for (const auto& f : s.fields()) out.push_back(f.type->ToString());
  return out;
}

}  // namespace floe::ingest::test
