#include "floe/pipeline/partition_key.h"

#include <cctype>

#include "floe/common/ascii.h"

namespace floe::pipeline {
namespace {

/// Rewrites Flink CDC's `name[N](col)` as `name(N, col)`; other text is kept.
std::string RewriteBracketParameters(std::string_view terms) {
  std::string out;
  size_t i = 0;
  while (i < terms.size()) {
    size_t open = terms.find('[', i);
    if (open == std::string_view::npos) break;
    size_t close = terms.find(']', open);
    if (close == std::string_view::npos || close + 1 >= terms.size() || terms[close + 1] != '(') {
      break;
    }
    out.append(terms, i, open - i);
    out += '(';
    out.append(TrimAsciiSpace(terms.substr(open + 1, close - open - 1)));
    out += ", ";
    i = close + 2;
  }
  out.append(terms, i);
  return out;
}

/// A column as the term parser reads it back: bare when it is a plain
/// (possibly dotted) name, else in backquotes.
std::string QuoteColumn(const std::string& column) {
  bool plain = !column.empty() && std::isdigit(static_cast<unsigned char>(column[0])) == 0;
  for (char c : column) {
    plain = plain && (std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '.');
  }
  if (plain) return column;
  std::string out = "`";
  for (char c : column) out += c == '`' ? std::string("``") : std::string(1, c);
  return out + "`";
}

std::string TermText(const iceberg::TransformTerm& term) {
  const iceberg::Transform& t = term.transform;
  std::string column = QuoteColumn(term.column);
  switch (t.kind()) {
    case iceberg::TransformKind::kIdentity:
      return column;
    case iceberg::TransformKind::kBucket:
      return "bucket(" + std::to_string(t.param()) + ", " + column + ")";
    case iceberg::TransformKind::kTruncate:
      return "truncate(" + std::to_string(t.param()) + ", " + column + ")";
    default:
      return t.ToString() + "(" + column + ")";
  }
}

}  // namespace

Result<std::vector<TablePartitionKey>> ParsePartitionKeys(std::string_view text) {
  std::vector<TablePartitionKey> keys;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(';', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view entry = TrimAsciiSpace(text.substr(start, end - start));
    start = end + 1;
    if (entry.empty()) continue;
    size_t colon = entry.find(':');
    if (colon == std::string_view::npos) {
      return InvalidArgument("'{}' has no ':': write db.table:column,transform(column),...", entry);
    }
    std::string_view table = TrimAsciiSpace(entry.substr(0, colon));
    std::string_view terms = TrimAsciiSpace(entry.substr(colon + 1));
    TablePartitionKey key;
    FLOE_ASSIGN_OR_RETURN(key.table, iceberg::TableIdentifier::Parse(table));
    if (PartitionKeyFor(keys, key.table) != nullptr) {
      return InvalidArgument("table {} is named twice", table);
    }
    if (terms.empty()) return InvalidArgument("'{}' has no partition terms after ':'", entry);
    std::string rewritten = RewriteBracketParameters(terms);
    iceberg::TermParser parser(rewritten);
    while (true) {
      auto term = parser.ParseTerm();
      if (!term) {
        return InvalidArgument("table {}: '{}': {}", table, terms, term.error().message());
      }
      if (!term->alias.empty()) {
        return InvalidArgument("table {}: '{}': AS names are not part of partition.key", table,
                               terms);
      }
      key.spec_text += (key.spec_text.empty() ? "" : ", ") + TermText(*term);
      key.terms.push_back(std::move(*term));
      if (parser.AtEnd()) break;
      if (!parser.EatChar(',')) {
        return InvalidArgument("table {}: '{}': expected ',' or the end {}", table, terms,
                               parser.Where());
      }
    }
    keys.push_back(std::move(key));
  }
  return keys;
}

const TablePartitionKey* PartitionKeyFor(const std::vector<TablePartitionKey>& keys,
                                         const iceberg::TableIdentifier& table) {
  for (const auto& key : keys) {
    if (key.table == table) return &key;
  }
  return nullptr;
}

}  // namespace floe::pipeline
