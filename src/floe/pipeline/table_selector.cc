#include "floe/pipeline/table_selector.h"

#include <algorithm>

#include "floe/common/ascii.h"

namespace floe::pipeline {
namespace {

/// Splits at commas outside (), [] and {}; a backslash escapes the next character.
std::vector<std::string_view> SplitPatterns(std::string_view text) {
  std::vector<std::string_view> parts;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\\') {
      ++i;
    } else if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if ((c == ')' || c == ']' || c == '}') && depth > 0) {
      --depth;
    } else if (c == ',' && depth == 0) {
      parts.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  parts.push_back(text.substr(start));
  return parts;
}

/// std::regex compiles and matches recursively: bound what it is given.
Status CheckRegexSize(const std::string& regex, std::string_view pattern, std::string_view side) {
  if (regex.size() > kMaxRegexLength) {
    return InvalidArgument("pattern '{}...': the {} regex is longer than {} characters",
                           pattern.substr(0, 40), side, kMaxRegexLength);
  }
  int depth = 0;
  int max_depth = 0;
  for (size_t i = 0; i < regex.size(); ++i) {
    if (regex[i] == '\\') {
      ++i;
    } else if (regex[i] == '(') {
      max_depth = std::max(max_depth, ++depth);
    } else if (regex[i] == ')') {
      --depth;
    }
  }
  if (max_depth > kMaxRegexNesting) {
    return InvalidArgument("pattern '{}': the {} regex nests groups deeper than {}",
                           pattern.substr(0, 80), side, kMaxRegexNesting);
  }
  return Ok();
}

Result<std::shared_ptr<const std::regex>> Compile(const std::string& regex,
                                                  std::string_view pattern, std::string_view side) {
  FLOE_RETURN_IF_ERROR(CheckRegexSize(regex, pattern, side));
  try {
    return std::make_shared<const std::regex>(regex, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    return InvalidArgument("pattern '{}': the {} regex '{}' is not valid: {}", pattern, side, regex,
                           e.what());
  }
}

Result<TablePattern> ParsePattern(std::string_view text) {
  TablePattern pattern;
  pattern.text = std::string(text);
  std::string parts[2];
  int part = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\\' && i + 1 < text.size() && text[i + 1] == '.') {
      parts[part] += '.';
      ++i;
    } else if (c == '\\' && i + 1 < text.size()) {
      parts[part] += c;
      parts[part] += text[++i];
    } else if (c == '.') {
      if (part == 1) {
        return InvalidArgument(
            "pattern '{}' has more than one unescaped '.': write db.table, with '\\.' for a "
            "regex '.' (any character)",
            text);
      }
      part = 1;
    } else {
      parts[part] += c;
    }
  }
  if (part == 0) {
    return InvalidArgument(
        "pattern '{}' has no database part: write db.table (e.g. shop.orders or shop.\\.*)", text);
  }
  if (parts[0].empty() || parts[1].empty()) {
    return InvalidArgument("pattern '{}' has an empty {} part", text,
                           parts[0].empty() ? "database" : "table");
  }
  pattern.db_regex = parts[0];
  pattern.table_regex = parts[1];
  FLOE_ASSIGN_OR_RETURN(pattern.db, Compile(pattern.db_regex, text, "database"));
  FLOE_ASSIGN_OR_RETURN(pattern.table, Compile(pattern.table_regex, text, "table"));
  return pattern;
}

bool FullMatch(const std::regex& regex, std::string_view text) {
  try {
    return std::regex_match(text.begin(), text.end(), regex);
  } catch (const std::regex_error&) {
    // Only error_complexity / error_stack can come from matching; a pattern
    // too complex for a name is no match.
    return false;
  }
}

}  // namespace

bool TablePattern::Matches(std::string_view db_name, std::string_view table_name) const {
  return FullMatch(*db, db_name) && FullMatch(*table, table_name);
}

bool TableSelector::Matches(std::string_view db, std::string_view table) const {
  for (const auto& pattern : patterns) {
    if (pattern.Matches(db, table)) return true;
  }
  return false;
}

Result<TableSelector> ParseTableSelector(std::string_view text) {
  TableSelector selector;
  selector.text = std::string(text);
  if (TrimAsciiSpace(text).empty())
    return InvalidArgument("no table pattern (write db.table, ...)");
  for (std::string_view part : SplitPatterns(text)) {
    std::string_view trimmed = TrimAsciiSpace(part);
    if (trimmed.empty()) {
      return InvalidArgument("'{}' has an empty pattern between commas", text);
    }
    FLOE_ASSIGN_OR_RETURN(TablePattern pattern, ParsePattern(trimmed));
    selector.patterns.push_back(std::move(pattern));
  }
  return selector;
}

bool MatchesSourceTable(const SourceTables& tables, std::string_view db, std::string_view table) {
  return tables.include.Matches(db, table) && !tables.exclude.Matches(db, table);
}

std::string SourceTableColumnFor(const std::vector<Route>& routes, std::string_view db,
                                 std::string_view table) {
  for (const Route& route : routes) {
    if (route.source_table.Matches(db, table)) return route.source_table_column;
  }
  return {};
}

bool RouteIsOneToOne(const std::vector<Route>& routes, std::string_view db,
                     std::string_view table) {
  for (const Route& route : routes) {
    if (!route.source_table.Matches(db, table)) continue;
    return !route.replace_symbol.empty() &&
           route.sink_table.find(route.replace_symbol) != std::string::npos;
  }
  return true;
}

Result<iceberg::TableIdentifier> RouteFor(const std::vector<Route>& routes, std::string_view db,
                                          std::string_view table) {
  for (size_t i = 0; i < routes.size(); ++i) {
    const Route& route = routes[i];
    if (!route.source_table.Matches(db, table)) continue;
    std::string name = route.sink_table;
    if (!route.replace_symbol.empty()) {
      std::string replaced;
      size_t pos = 0;
      while (true) {
        size_t found = name.find(route.replace_symbol, pos);
        if (found == std::string::npos) break;
        replaced.append(name, pos, found - pos);
        replaced += table;
        pos = found + route.replace_symbol.size();
      }
      replaced.append(name, pos);
      name = std::move(replaced);
    }
    auto id = iceberg::TableIdentifier::Parse(name);
    if (!id) {
      return InvalidArgument(
          "route {} (source-table '{}') sends {}.{} to '{}', which is not a valid "
          "table name: {}",
          i + 1, route.source_table.text, db, table, name, id.error().message());
    }
    return *id;
  }
  std::string name = std::string(db) + "." + std::string(table);
  iceberg::TableIdentifier id;
  id.ns = {std::string(db)};
  id.name = std::string(table);
  FLOE_RETURN_IF_ERROR_CTX(iceberg::ValidateName(db, "namespace"), "source table {}", name);
  FLOE_RETURN_IF_ERROR_CTX(iceberg::ValidateName(table, "table name"), "source table {}", name);
  return id;
}

}  // namespace floe::pipeline
