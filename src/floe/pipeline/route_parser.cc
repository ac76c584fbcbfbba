// route: of a pipeline file.

#include "floe/pipeline/block_reader.h"
#include "floe/pipeline/section_parsers.h"

namespace floe::pipeline {
namespace {

const std::vector<std::string> kRouteKeys = {"source-table", "sink-table", "replace-symbol",
                                             "description", "source-table-column"};

Result<Route> ParseRoute(const DocumentValue& item, size_t index) {
  std::string path = "route[" + std::to_string(index) + "]";
  FLOE_ASSIGN_OR_RETURN(
      BlockReader r,
      BlockReader::OfMapping(item, path, "a mapping (source-table: ..., sink-table: ...)"));
  r.Declare(kRouteKeys, {});
  FLOE_RETURN_IF_ERROR(r.Finish());
  Route route;
  FLOE_ASSIGN_OR_RETURN(auto selector, r.Parsed("source-table", ParseTableSelector));
  if (!selector) return r.FailBlock("needs 'source-table' (a db.table pattern)");
  route.source_table = std::move(*selector);
  FLOE_ASSIGN_OR_RETURN(auto sink, r.String("sink-table"));
  if (!sink) return r.FailBlock("needs 'sink-table' (namespace.table)");
  route.sink_table = *sink;
  FLOE_ASSIGN_OR_RETURN(auto symbol, r.String("replace-symbol"));
  if (symbol) route.replace_symbol = *symbol;
  FLOE_ASSIGN_OR_RETURN(auto description, r.String("description"));
  if (description) route.description = *description;
  FLOE_ASSIGN_OR_RETURN(auto column, r.String("source-table-column"));
  if (column) {
    if (column->empty() || column->find('.') != std::string::npos) {
      return r.Fail(*r.Get("source-table-column"), "'{}' is not a column name (non-empty, no '.')",
                    *column);
    }
    route.source_table_column = *column;
  }
  // Check the sink table's shape with the symbol standing for a table name.
  std::string sample = route.sink_table;
  if (!route.replace_symbol.empty()) {
    for (size_t pos = sample.find(route.replace_symbol); pos != std::string::npos;
         pos = sample.find(route.replace_symbol, pos + 1)) {
      sample.replace(pos, route.replace_symbol.size(), "t");
    }
  }
  auto id = iceberg::TableIdentifier::Parse(sample);
  if (!id) {
    return r.Fail(*r.Get("sink-table"), "'{}' is not namespace.table: {}", route.sink_table,
                  id.error().message());
  }
  return route;
}

}  // namespace

Result<std::vector<Route>> ParseRouteSection(const DocumentEntry& section) {
  std::vector<Route> routes;
  if (section.value.is_null()) return routes;
  if (!section.value.is_list()) {
    return InvalidArgument(
        "{}: route: expected a list of routes (- source-table: ..., "
        "sink-table: ...), found {}",
        section.value.origin.ToString(), KindName(section.value.kind));
  }
  for (size_t i = 0; i < section.value.items.size(); ++i) {
    FLOE_ASSIGN_OR_RETURN(Route route, ParseRoute(section.value.items[i], i));
    routes.push_back(std::move(route));
  }
  return routes;
}

}  // namespace floe::pipeline
