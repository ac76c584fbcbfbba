// Fuzzes the JSON row parser (floe/types/row_json.h) and the text parsers it
// uses (floe/types/temporal.h). The first input byte picks a mode ('0' is
// mode 0, and so on, so seed files stay text):
//   0..3: the rest is one JSON line parsed against a fixed schema (together
//     they cover every Iceberg type, nested struct/list/map, required and
//     optional fields, extreme decimals). One parser per schema is reused
//     across inputs, as `floe ingest` reuses it across lines.
//   4: the next two bytes are a decimal precision and scale, the rest is text
//     given to ParseDecimal, ParseDate, ParseTime and ParseTimestamp.
// Nothing may crash, hang or fail an assertion; errors are fine. An accepted
// row must fit its schema (one value per field, each of its type's kind and
// range, no null where the schema says required); writing it back with
// AppendRowJson must give valid JSON that parses again to an equal row and
// writes identically; the line with more JSON after the row must be refused;
// an accepted line must be JSON by nlohmann::json too.
// An accepted decimal must have the value of its text; an accepted
// date/time/timestamp must write text that parses back to it.
// Seeds and crash regressions: tests/fuzz/row_json/.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "floe/common/arena.h"
#include "floe/types/row_json.h"
#include "floe/types/schema.h"
#include "floe/types/temporal.h"
#include "value_checks.h"

namespace {

using floe::fuzz::Check;
using floe::types::NestedField;
using floe::types::Schema;
using floe::types::Type;
using floe::types::Value;

std::vector<Schema> MakeSchemas() {
  std::vector<Schema> schemas;
  // 0: every primitive type, top level.
  schemas.emplace_back(floe::fuzz::EveryPrimitiveField(), 0, std::vector<int32_t>{1});
  // 1: nested struct, list and map, required and optional children.
  schemas.emplace_back(std::vector<NestedField>{
      {1, "id", true, Type::Int(), ""},
      {2, "st", false,
       Type::Struct({{3, "x", true, Type::Int(), ""},
                     {4, "y", false, Type::String(), ""},
                     {5, "inner", false,
                      Type::Struct({{6, "z", true, Type::Double(), ""},
                                    {7, "w", false, Type::List(8, false, Type::Date()), ""}}),
                      ""}}),
       ""},
      {9, "l", false, Type::List(10, true, Type::Long()), ""},
      {11, "m", false, Type::Map(12, Type::String(), 13, false, Type::Double()), ""},
      {14, "im", true, Type::Map(15, Type::Int(), 16, true, Type::Timestamp()), ""},
      {17, "ll", false,
       Type::List(18, false,
                  Type::List(19, true,
                             Type::Struct({{20, "k", true, Type::String(), ""},
                                           {21, "v", false, Type::Binary(), ""}}))),
       ""},
      {22, "ms", false,
       Type::Map(23, Type::Struct({{24, "a", true, Type::Int(), ""}}), 25, false,
                 Type::Map(26, Type::Uuid(), 27, false, *Type::Fixed(2))),
       ""},
  });
  // 2: decimals at the edges of precision and scale, temporal types required.
  schemas.emplace_back(std::vector<NestedField>{
      {1, "d38", false, *Type::Decimal(38, 0), ""},
      {2, "d38s1", false, *Type::Decimal(38, 1), ""},
      {3, "d38s38", false, *Type::Decimal(38, 38), ""},
      {4, "d1", false, *Type::Decimal(1, 0), ""},
      {5, "d10s5", false, *Type::Decimal(10, 5), ""},
      {6, "t", true, Type::Time(), ""},
      {7, "ts", true, Type::Timestamp(), ""},
      {8, "tz", true, Type::TimestampTz(), ""},
      {9, "day", true, Type::Date(), ""},
      {10, "f", false, Type::Float(), ""},
  });
  // 3: small, so mutations hit it often.
  schemas.emplace_back(std::vector<NestedField>{
      {1, "s", true, Type::String(), ""},
      {2, "l", false, Type::List(3, false, Type::String()), ""},
  });
  for (const Schema& s : schemas) Check(static_cast<bool>(s.Validate()));
  return schemas;
}

// ---------------------------------------------------------------------------
// Accepted rows fit their schema.

bool IsJson(std::string_view line) {
  try {
    (void)nlohmann::json::parse(line);
    return true;
  } catch (const nlohmann::json::out_of_range& e) {
    return e.id == 406;  // a number that overflows a double
  } catch (const nlohmann::json::exception&) {
    return false;
  }
}

void FuzzRow(const Schema& schema, floe::types::JsonRowParser& parser, std::string_view line) {
  floe::Arena arena;
  auto row = parser.Parse(line, &arena);
  if (!floe::fuzz::Accepted(row)) return;
  floe::fuzz::CheckRow(schema, *row, /*check_required=*/true);
  // The parser reads the line in one pass of its own: what it accepts must
  // be JSON to nlohmann::json too, which refuses only numbers past a double's
  // range besides (valid JSON, in members the parser skips).
  Check(IsJson(line));

  std::string written;
  floe::types::AppendRowJson(schema, *row, &written);
  Check(nlohmann::json::accept(written));
  floe::Arena arena2;
  auto again = parser.Parse(written, &arena2);
  Check(static_cast<bool>(again));
  Check(floe::types::SameValue(Value::Struct(row->data(), row->size()),
                               Value::Struct(again->data(), again->size())));
  std::string rewritten;
  floe::types::AppendRowJson(schema, *again, &rewritten);
  Check(rewritten == written);

  // A line is one row: content after the object is an error, not dropped.
  std::string trailing(line);
  trailing += " {}";
  floe::Arena arena3;
  Check(!parser.Parse(trailing, &arena3));
}

// ---------------------------------------------------------------------------
// The text parsers on their own.

// "-0012.3400" at scale 5 -> sign and the digits of the unscaled value without
// leading zeros ("-1234000"); zero has no sign. Text that ParseDecimal
// accepted has only digits, one optional point and an optional sign.
std::string CanonicalDecimal(std::string_view text, int scale) {
  bool negative = false;
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) {
    negative = text[0] == '-';
    text.remove_prefix(1);
  }
  size_t point = text.find('.');
  std::string digits(text.substr(0, point));
  std::string_view fraction =
      point == std::string_view::npos ? std::string_view() : text.substr(point + 1);
  for (int k = 0; k < scale; ++k) {
    digits.push_back(static_cast<size_t>(k) < fraction.size() ? fraction[k] : '0');
  }
  size_t first = digits.find_first_not_of('0');
  if (first == std::string::npos) return "0";
  return (negative ? "-" : "") + digits.substr(first);
}

void FuzzText(int precision, int scale, std::string_view text) {
  std::string out;
  if (auto d = floe::types::ParseDecimal(text, precision, scale)) {
    floe::types::AppendDecimal(*d, scale, &out);
    Check(CanonicalDecimal(text, scale) == CanonicalDecimal(out, scale));
    auto again = floe::types::ParseDecimal(out, precision, scale);
    Check(again && *again == *d);
  }
  if (auto day = floe::types::ParseDate(text)) {
    out.clear();
    floe::types::AppendDate(*day, &out);
    auto again = floe::types::ParseDate(out);
    Check(again && *again == *day);
  }
  if (auto t = floe::types::ParseTime(text)) {
    Check(*t >= 0 && *t < 86400LL * 1000000);
    out.clear();
    floe::types::AppendTime(*t, &out);
    auto again = floe::types::ParseTime(out);
    Check(again && *again == *t);
  }
  if (auto ts = floe::types::ParseTimestamp(text)) {
    for (bool utc : {false, true}) {
      out.clear();
      floe::types::AppendTimestamp(*ts, utc, &out);
      auto again = floe::types::ParseTimestamp(out);
      Check(again && *again == *ts);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::vector<Schema>* schemas = new std::vector<Schema>(MakeSchemas());
  static std::vector<std::unique_ptr<floe::types::JsonRowParser>>* parsers = [] {
    auto* p = new std::vector<std::unique_ptr<floe::types::JsonRowParser>>();
    for (const Schema& s : *schemas) p->push_back(std::make_unique<floe::types::JsonRowParser>(s));
    return p;
  }();
  if (size == 0) return 0;
  size_t mode = static_cast<uint8_t>(data[0] - '0') % (schemas->size() + 1);
  std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (mode < schemas->size()) {
    FuzzRow((*schemas)[mode], *(*parsers)[mode], rest);
  } else if (rest.size() >= 2) {
    int precision = 1 + static_cast<uint8_t>(rest[0]) % 38;
    int scale = static_cast<uint8_t>(rest[1]) % (precision + 1);
    FuzzText(precision, scale, rest.substr(2));
  }
  return 0;
}
