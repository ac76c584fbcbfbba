#include "floe/iceberg/update/fast_append.h"

#include "floe/iceberg/table.h"

namespace floe::iceberg {

FastAppend& FastAppend::AppendFile(DataFile file, std::optional<int32_t> spec_id) {
  AddDataFile(std::move(file), SpecIdOrDefault(spec_id));
  return *this;
}

}  // namespace floe::iceberg
