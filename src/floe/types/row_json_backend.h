#pragma once
/// Internal to floe::types: the JSON row parser's per-kernel backends (see
/// row_json_parse.inc). Not part of the module's API.

#include <memory>
#include <string_view>

#include "floe/common/arena.h"
#include "floe/types/schema.h"
#include "floe/types/value.h"

namespace floe::types {

class RowParserBackend {
 public:
  virtual ~RowParserBackend() = default;
  virtual Result<Row> Parse(std::string_view json, Arena* arena) = 0;
};

namespace haswell_backend {
std::unique_ptr<RowParserBackend> MakeBackend(const Schema& schema);
}
namespace fallback_backend {
std::unique_ptr<RowParserBackend> MakeBackend(const Schema& schema);
}

}  // namespace floe::types
