#include "floe/iceberg/update/fast_append.h"

#include "floe/iceberg/table.h"

namespace floe::iceberg {

FastAppend& FastAppend::AppendFile(DataFile file) {
  return AppendFile(std::move(file), table_->metadata().default_spec_id);
}

FastAppend& FastAppend::AppendFile(DataFile file, int32_t spec_id) {
  AddDataFile(std::move(file), spec_id);
  return *this;
}

}  // namespace floe::iceberg
