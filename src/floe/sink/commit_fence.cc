#include "floe/sink/commit_fence.h"

#include "floe/sink/sink_options.h"

namespace floe::sink {

Result<std::vector<iceberg::TableUpdate>> FencedPosition::Apply(const iceberg::TableMetadata& base,
                                                                iceberg::OperationContext&) {
  if (producer_ == nullptr) return InternalError("a fenced commit without its snapshot");
  FLOE_ASSIGN_OR_RETURN(std::string position, fence_->PositionFor(table_key_, checkpoint_, base));
  producer_->SetSummaryProperty(std::string(kSummarySourcePosition), std::move(position));
  return std::vector<iceberg::TableUpdate>{};
}

}  // namespace floe::sink
