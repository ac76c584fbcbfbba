#include "floe/iceberg/partition_field.h"

#include <cctype>
#include <charconv>

#include <fmt/format.h>

#include "floe/iceberg/ascii_case.h"

namespace floe::iceberg {

using types::NestedField;
using types::Type;
using types::TypeId;

namespace {

// Finds the field of `fields` named exactly `name` (or, case-insensitively,
// uniquely). Returns -1 if none, -2 if ambiguous.
int FindIn(const std::vector<NestedField>& fields, std::string_view name, bool case_sensitive) {
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].name == name) return static_cast<int>(i);
  }
  if (case_sensitive) return -1;
  int found = -1;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (EqualsIgnoreAsciiCase(fields[i].name, name)) {
      if (found >= 0) return -2;
      found = static_cast<int>(i);
    }
  }
  return found;
}

// Depth-first: at each struct level try the longest dotted prefix first.
bool Resolve(const Type& type, std::string_view rest, bool case_sensitive, ResolvedColumn* out,
             bool* ambiguous) {
  const auto& fields = type.fields();
  size_t cut = rest.size();
  while (true) {
    std::string_view head = rest.substr(0, cut);
    int i = FindIn(fields, head, case_sensitive);
    if (i == -2) *ambiguous = true;
    if (i >= 0) {
      const NestedField& f = fields[i];
      out->positions.push_back(i);
      std::string saved = out->name;
      if (!out->name.empty()) out->name += '.';
      out->name += f.name;
      if (cut == rest.size()) {
        out->field = &f;
        out->field_id = f.id;
        return true;
      }
      if (f.type && f.type->id() == TypeId::kStruct &&
          Resolve(*f.type, rest.substr(cut + 1), case_sensitive, out, ambiguous)) {
        return true;
      }
      out->positions.pop_back();
      out->name = saved;
    }
    if (cut == 0) return false;
    size_t dot = rest.rfind('.', cut - 1);
    if (dot == std::string_view::npos) return false;
    cut = dot;
  }
}

}  // namespace

Result<ResolvedColumn> ResolveColumn(const Type& struct_type, std::string_view name,
                                     bool case_sensitive) {
  ResolvedColumn out;
  bool ambiguous = false;
  if (!name.empty() && Resolve(struct_type, name, case_sensitive, &out, &ambiguous)) return out;
  std::string columns;
  for (const auto& f : struct_type.fields()) {
    if (!columns.empty()) columns += ", ";
    columns += f.name;
  }
  if (ambiguous) {
    return InvalidArgument("column name '{}' is ambiguous without case sensitivity (columns: {})",
                           name, columns);
  }
  return InvalidArgument("cannot find column '{}' in schema (columns: {})", name, columns);
}

Result<ResolvedColumn> ResolveColumn(const types::Schema& schema, std::string_view name,
                                     bool case_sensitive) {
  return ResolveColumn(*schema.as_struct(), name, case_sensitive);
}

std::string DefaultPartitionFieldName(std::string_view column, const Transform& transform) {
  std::string base(column);
  switch (transform.kind()) {
    case TransformKind::kIdentity:
      return base;
    case TransformKind::kBucket:
      return base + "_bucket";
    case TransformKind::kTruncate:
      return base + "_trunc";
    case TransformKind::kYear:
      return base + "_year";
    case TransformKind::kMonth:
      return base + "_month";
    case TransformKind::kDay:
      return base + "_day";
    case TransformKind::kHour:
      return base + "_hour";
    case TransformKind::kVoid:
      return base + "_null";
    case TransformKind::kUnknown:
      return base + "_" + transform.ToString();
  }
  return base;
}

void TermParser::SkipBlanks() {
  while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
}

bool TermParser::AtEnd() {
  SkipBlanks();
  return pos_ >= text_.size();
}

bool TermParser::EatChar(char c) {
  SkipBlanks();
  if (pos_ < text_.size() && text_[pos_] == c) {
    ++pos_;
    return true;
  }
  return false;
}

bool TermParser::EatKeyword(std::string_view keyword) {
  SkipBlanks();
  if (pos_ + keyword.size() > text_.size()) return false;
  if (!EqualsIgnoreAsciiCase(text_.substr(pos_, keyword.size()), keyword)) return false;
  size_t end = pos_ + keyword.size();
  if (end < text_.size() &&
      (std::isalnum(static_cast<unsigned char>(text_[end])) || text_[end] == '_')) {
    return false;
  }
  pos_ = end;
  return true;
}

std::string TermParser::Where() const {
  if (pos_ >= text_.size()) return fmt::format("at position {} (end of input)", pos_ + 1);
  return fmt::format("at position {} (near '{}')", pos_ + 1, text_.substr(pos_, 12));
}

Result<std::string> TermParser::ParseIdentifierPath() {
  std::string path;
  while (true) {
    SkipBlanks();
    if (pos_ >= text_.size()) return InvalidArgument("expected a column name {}", Where());
    char c = text_[pos_];
    if (c == '"' || c == '`') {
      size_t start = ++pos_;
      std::string part;
      while (true) {
        if (pos_ >= text_.size()) {
          pos_ = start - 1;
          return InvalidArgument("unterminated quoted name {}", Where());
        }
        if (text_[pos_] == c) {
          if (pos_ + 1 < text_.size() && text_[pos_ + 1] == c) {  // doubled quote
            part += c;
            pos_ += 2;
            continue;
          }
          ++pos_;
          break;
        }
        part += text_[pos_++];
      }
      path += part;
    } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t start = pos_;
      while (pos_ < text_.size() &&
             (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) {
        ++pos_;
      }
      path += text_.substr(start, pos_ - start);
    } else {
      return InvalidArgument("expected a column name {}", Where());
    }
    if (pos_ < text_.size() && text_[pos_] == '.') {
      ++pos_;
      path += '.';
      continue;
    }
    return path;
  }
}

Result<int32_t> TermParser::ParseInteger() {
  SkipBlanks();
  size_t start = pos_;
  if (pos_ < text_.size() && (text_[pos_] == '-' || text_[pos_] == '+')) ++pos_;
  while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  int32_t v = 0;
  size_t skip = (start < text_.size() && text_[start] == '+') ? 1 : 0;
  auto [end, ec] = std::from_chars(text_.data() + start + skip, text_.data() + pos_, v);
  if (start == pos_ || ec != std::errc() || end != text_.data() + pos_) {
    pos_ = start;
    return InvalidArgument("expected an integer {}", Where());
  }
  return v;
}

Result<TransformTerm> TermParser::ParseTerm() {
  SkipBlanks();
  TransformTerm term;
  term.position = pos_;
  FLOE_ASSIGN_OR_RETURN(std::string first, ParseIdentifierPath());
  if (!EatChar('(')) {
    term.transform = Transform::Identity();
    term.column = std::move(first);
  } else {
    std::string fn;
    for (char c : first) fn += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    auto bad_param = [&](const Error& e) {
      return InvalidArgument("{}(...) needs an integer and a column: {}", fn, e.message());
    };
    if (fn == "bucket" || fn == "truncate") {
      // Both argument orders: (N, col) as Spark DDL, (col, N) as older docs.
      SkipBlanks();
      bool number_first =
          pos_ < text_.size() && (std::isdigit(static_cast<unsigned char>(text_[pos_])) ||
                                  text_[pos_] == '-' || text_[pos_] == '+');
      int32_t n = 0;
      if (number_first) {
        auto r = ParseInteger();
        if (!r) return bad_param(r.error());
        n = *r;
        if (!EatChar(',')) return InvalidArgument("expected ',' {}", Where());
        FLOE_ASSIGN_OR_RETURN(term.column, ParseIdentifierPath());
      } else {
        FLOE_ASSIGN_OR_RETURN(term.column, ParseIdentifierPath());
        if (!EatChar(',')) return InvalidArgument("expected ',' {}", Where());
        auto r = ParseInteger();
        if (!r) return bad_param(r.error());
        n = *r;
      }
      auto t = fn == "bucket" ? Transform::Bucket(n) : Transform::Truncate(n);
      if (!t) return InvalidArgument("{} at position {}", t.error().message(), term.position + 1);
      term.transform = *t;
    } else {
      if (fn == "year" || fn == "years") {
        term.transform = Transform::Year();
      } else if (fn == "month" || fn == "months") {
        term.transform = Transform::Month();
      } else if (fn == "day" || fn == "days" || fn == "date") {
        term.transform = Transform::Day();
      } else if (fn == "hour" || fn == "hours" || fn == "date_hour") {
        term.transform = Transform::Hour();
      } else if (fn == "identity") {
        term.transform = Transform::Identity();
      } else if (fn == "void") {
        term.transform = Transform::Void();
      } else {
        pos_ = term.position;
        return InvalidArgument(
            "unknown transform '{}' {} (expected bucket, truncate, year(s), month(s), day(s), "
            "hour(s), identity or void)",
            first, Where());
      }
      FLOE_ASSIGN_OR_RETURN(term.column, ParseIdentifierPath());
    }
    if (!EatChar(')')) return InvalidArgument("expected ')' {}", Where());
  }
  if (EatKeyword("as")) {
    FLOE_ASSIGN_OR_RETURN(term.alias, ParseIdentifierPath());
  }
  return term;
}

}  // namespace floe::iceberg
