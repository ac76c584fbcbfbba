#include "floe/sink/sink_options.h"

#include "floe/iceberg/table_properties.h"

namespace floe::sink {

Result<DistributionMode> ParseDistributionMode(std::string_view text) {
  if (text == "none") return DistributionMode::kNone;
  if (text == "hash") return DistributionMode::kHash;
  if (text == "range") return DistributionMode::kRange;
  return InvalidArgument("{}: '{}' is not one of none, hash, range",
                         iceberg::table_properties::kWriteDistributionMode, text);
}

std::string_view DistributionModeName(DistributionMode mode) {
  switch (mode) {
    case DistributionMode::kNone:
      return "none";
    case DistributionMode::kHash:
      return "hash";
    case DistributionMode::kRange:
      return "range";
  }
  return "none";
}

}  // namespace floe::sink
