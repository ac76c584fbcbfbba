#include "floe/iceberg/sort_order.h"

#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "floe/iceberg/partition_field.h"

namespace floe::iceberg {

std::string_view SortDirectionName(SortDirection d) {
  return d == SortDirection::kAsc ? "asc" : "desc";
}

std::string_view NullOrderName(NullOrder n) {
  return n == NullOrder::kNullsFirst ? "nulls-first" : "nulls-last";
}

Result<SortDirection> ParseSortDirection(std::string_view s) {
  if (s == "asc" || s == "ASC") return SortDirection::kAsc;
  if (s == "desc" || s == "DESC") return SortDirection::kDesc;
  return InvalidArgument("sort direction must be \"asc\" or \"desc\", got \"{}\"", s);
}

Result<NullOrder> ParseNullOrder(std::string_view s) {
  if (s == "nulls-first" || s == "NULLS_FIRST") return NullOrder::kNullsFirst;
  if (s == "nulls-last" || s == "NULLS_LAST") return NullOrder::kNullsLast;
  return InvalidArgument("null order must be \"nulls-first\" or \"nulls-last\", got \"{}\"", s);
}

Status SortOrder::Validate(const types::Schema& schema) const {
  if (fields_.empty()) return Ok();
  if (order_id_ == 0) {
    return InvalidArgument("sort order id 0 is reserved for the unsorted order");
  }
  for (size_t i = 0; i < fields_.size(); ++i) {
    const auto& f = fields_[i];
    if (f.transform.is_unknown()) continue;
    const types::NestedField* source = schema.FindField(f.source_id);
    if (source == nullptr) {
      return InvalidArgument("sort field {}: source column id {} is not in the schema", i,
                             f.source_id);
    }
    if (!source->type->is_primitive()) {
      return InvalidArgument("sort field {}: column '{}' is not a primitive", i,
                             schema.FindColumnName(f.source_id));
    }
    if (!f.transform.CanTransform(*source->type)) {
      return InvalidArgument(
          "sort field {}: transform {} cannot be applied to column '{}' of type {}", i,
          f.transform.ToString(), schema.FindColumnName(f.source_id), source->type->ToString());
    }
  }
  return Ok();
}

bool SortOrder::SatisfiesOrderOf(const SortOrder& other) const {
  if (other.fields_.size() > fields_.size()) return false;
  for (size_t i = 0; i < other.fields_.size(); ++i) {
    const auto& mine = fields_[i];
    const auto& theirs = other.fields_[i];
    if (mine.source_id != theirs.source_id || mine.direction != theirs.direction ||
        mine.null_order != theirs.null_order ||
        !mine.transform.SatisfiesOrderOf(theirs.transform)) {
      return false;
    }
  }
  return true;
}

std::string SortOrder::ToString() const {
  std::vector<std::string> fields;
  for (const auto& f : fields_) {
    std::string term = f.transform.is_identity()
                           ? fmt::format("{}", f.source_id)
                           : fmt::format("{}({})", f.transform.ToString(), f.source_id);
    term += f.direction == SortDirection::kAsc ? " ASC" : " DESC";
    term += f.null_order == NullOrder::kNullsFirst ? " NULLS FIRST" : " NULLS LAST";
    fields.push_back(std::move(term));
  }
  return fmt::format("[{}]", fmt::join(fields, ", "));
}

Result<SortOrder> ParseSortOrderText(std::string_view text, const types::Schema& schema,
                                     int32_t order_id) {
  TermParser parser(text);
  if (parser.AtEnd()) return SortOrder();
  if (order_id <= 0) return InvalidArgument("a sort order with fields needs an id > 0");
  std::vector<SortField> fields;
  while (true) {
    FLOE_ASSIGN_OR_RETURN(TransformTerm term, parser.ParseTerm());
    if (!term.alias.empty()) {
      return InvalidArgument("sort order at position {}: AS is not allowed in a sort order",
                             term.position + 1);
    }
    auto exact = ResolveColumn(schema, term.column, true);
    Result<ResolvedColumn> column =
        exact ? std::move(exact) : ResolveColumn(schema, term.column, false);
    if (!column) {
      return InvalidArgument("sort order at position {}: {}", term.position + 1,
                             column.error().message());
    }
    if (!term.transform.CanTransform(*column->field->type)) {
      return InvalidArgument(
          "sort order at position {}: transform {} cannot be applied to column '{}' of type {}",
          term.position + 1, term.transform.ToString(), column->name,
          column->field->type->ToString());
    }
    SortField field;
    field.transform = term.transform;
    field.source_id = column->field_id;
    if (parser.EatKeyword("desc")) {
      field.direction = SortDirection::kDesc;
    } else {
      parser.EatKeyword("asc");
    }
    field.null_order =
        field.direction == SortDirection::kAsc ? NullOrder::kNullsFirst : NullOrder::kNullsLast;
    if (parser.EatKeyword("nulls")) {
      if (parser.EatKeyword("first")) {
        field.null_order = NullOrder::kNullsFirst;
      } else if (parser.EatKeyword("last")) {
        field.null_order = NullOrder::kNullsLast;
      } else {
        return InvalidArgument("sort order: expected FIRST or LAST after NULLS {}", parser.Where());
      }
    }
    fields.push_back(std::move(field));
    if (parser.AtEnd()) break;
    if (!parser.EatChar(',')) {
      return InvalidArgument("sort order: expected ',' or end {}", parser.Where());
    }
  }
  return SortOrder(order_id, std::move(fields));
}

}  // namespace floe::iceberg
