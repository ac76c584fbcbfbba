#include "floe/format/avro/json.h"
#include "floe/common/json_text.h"

#include <cmath>
#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "floe/common/base64.h"
#include "floe/common/float_text.h"
#include "floe/format/avro/binary.h"
#include "floe/types/temporal.h"

namespace floe::format::avro {

namespace {

void AppendDouble(double v, std::string* out) {
  if (std::string_view special = NonFiniteJson(v); !special.empty()) {
    out->append(special);
  } else if (v == std::floor(v) && std::fabs(v) < 1e15) {
    // Keep a ".0" so the value reads back as a float, as Python prints it.
    fmt::format_to(std::back_inserter(*out), "{:.1f}", v);
  } else {
    fmt::format_to(std::back_inserter(*out), "{}", v);  // shortest round-trip form
  }
}

int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

void AppendDate(int64_t days, std::string* out) {
  int64_t y;
  unsigned m, d;
  types::CivilFromDays(days, &y, &m, &d);
  if (y >= 0 && y <= 9999) {
    fmt::format_to(std::back_inserter(*out), "{:04}-{:02}-{:02}", y, m, d);
  } else {
    fmt::format_to(std::back_inserter(*out), "{:+05}-{:02}-{:02}", y, m, d);
  }
}

// Appends "HH:MM:SS.ffffff" (digits = 6) or 9 digits, for a time of day.
void AppendTimeOfDay(int64_t units_of_day, int64_t units_per_second, int digits, std::string* out) {
  int64_t seconds = units_of_day / units_per_second;
  int64_t fraction = units_of_day % units_per_second;
  fmt::format_to(std::back_inserter(*out), "{:02}:{:02}:{:02}.{:0{}}", seconds / 3600,
                 seconds / 60 % 60, seconds % 60, fraction, digits);
}

void AppendTimestamp(int64_t value, int64_t per_second, int digits, bool utc, std::string* out) {
  int64_t per_day = per_second * 86400;
  int64_t days = FloorDiv(value, per_day);
  int64_t rest = value - days * per_day;
  out->push_back('"');
  AppendDate(days, out);
  out->push_back('T');
  AppendTimeOfDay(rest, per_second, digits, out);
  if (utc) out->append("+00:00");
  out->push_back('"');
}

// Two's-complement big-endian bytes at `scale` as decimal text.
void AppendDecimal(std::string_view bytes, int32_t scale, std::string* out) {
  std::vector<uint8_t> mag(bytes.begin(), bytes.end());
  bool negative = !mag.empty() && (mag[0] & 0x80) != 0;
  if (negative) {  // magnitude = ~x + 1
    for (auto& b : mag) b = static_cast<uint8_t>(~b);
    for (size_t i = mag.size(); i-- > 0;) {
      if (++mag[i] != 0) break;
    }
  }
  std::string digits;
  size_t start = 0;
  while (start < mag.size()) {
    uint32_t rem = 0;
    for (size_t i = start; i < mag.size(); ++i) {
      uint32_t cur = (rem << 8) | mag[i];
      mag[i] = static_cast<uint8_t>(cur / 10);
      rem = cur % 10;
    }
    digits.push_back(static_cast<char>('0' + rem));
    while (start < mag.size() && mag[start] == 0) ++start;
  }
  if (digits.empty()) digits = "0";
  while (digits.size() <= static_cast<size_t>(scale)) digits.push_back('0');
  out->push_back('"');
  if (negative) out->push_back('-');
  for (size_t i = digits.size(); i-- > 0;) {
    out->push_back(digits[i]);
    if (i == static_cast<size_t>(scale) && scale > 0) out->push_back('.');
  }
  out->push_back('"');
}

void AppendUuid(std::string_view b, std::string* out) {
  static constexpr char kHex[] = "0123456789abcdef";
  out->push_back('"');
  for (size_t i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out->push_back('-');
    auto c = static_cast<uint8_t>(b[i]);
    out->push_back(kHex[c >> 4]);
    out->push_back(kHex[c & 15]);
  }
  out->push_back('"');
}

const Node& BranchFor(const Node& u, const Datum& datum) {
  const auto& branches = u.branches();
  if (datum.branch() >= 0 && static_cast<size_t>(datum.branch()) < branches.size()) {
    return *branches[static_cast<size_t>(datum.branch())];
  }
  for (const Node* b : branches) {
    if (b->type() == datum.type()) return *b;
  }
  return *branches[0];
}

// Logical-type text; returns false if the value is printed plainly.
bool AppendLogical(const Node& s, const Datum& d, std::string* out) {
  const std::string& lt = s.logical_type();
  if (lt.empty()) return false;
  Type t = d.type();
  if (lt == "date" && t == Type::kInt) {
    out->push_back('"');
    AppendDate(d.int_value(), out);
    out->push_back('"');
    return true;
  }
  if (lt == "time-millis" && t == Type::kInt && d.int_value() >= 0 && d.int_value() < 86400000) {
    out->push_back('"');
    AppendTimeOfDay(int64_t{d.int_value()} * 1000, 1000000, 6, out);
    out->push_back('"');
    return true;
  }
  if (lt == "time-micros" && t == Type::kLong && d.long_value() >= 0 &&
      d.long_value() < 86400000000LL) {
    out->push_back('"');
    AppendTimeOfDay(d.long_value(), 1000000, 6, out);
    out->push_back('"');
    return true;
  }
  if (t == Type::kLong) {
    bool local = lt.starts_with("local-");
    std::string_view unit = std::string_view(lt).substr(local ? 6 : 0);
    int64_t v = d.long_value();
    if (unit == "timestamp-millis") {
      if (v > INT64_MAX / 1000 || v < INT64_MIN / 1000) return false;
      AppendTimestamp(v * 1000, 1000000, 6, !local, out);
      return true;
    }
    if (unit == "timestamp-micros") {
      AppendTimestamp(v, 1000000, 6, !local, out);
      return true;
    }
    if (unit == "timestamp-nanos") {
      AppendTimestamp(v, 1000000000, 9, !local, out);
      return true;
    }
  }
  if (lt == "decimal" && (t == Type::kBytes || t == Type::kFixed)) {
    AppendDecimal(d.bytes(), s.scale(), out);
    return true;
  }
  if (lt == "uuid" && t == Type::kFixed && d.bytes().size() == 16) {
    AppendUuid(d.bytes(), out);
    return true;
  }
  return false;
}

void Append(const Node& s, const Datum& d, const JsonOptions& options, std::string* out) {
  if (s.type() == Type::kUnion) {
    if (s.branches().empty()) {
      out->append("null");
      return;
    }
    return Append(BranchFor(s, d), d, options, out);
  }
  if (options.logical_types && AppendLogical(s, d, out)) return;
  switch (d.type()) {
    case Type::kNull:
      out->append("null");
      return;
    case Type::kBoolean:
      out->append(d.boolean() ? "true" : "false");
      return;
    case Type::kInt:
      fmt::format_to(std::back_inserter(*out), "{}", d.int_value());
      return;
    case Type::kLong:
      fmt::format_to(std::back_inserter(*out), "{}", d.long_value());
      return;
    case Type::kFloat:
      AppendDouble(d.float_value(), out);
      return;
    case Type::kDouble:
      AppendDouble(d.double_value(), out);
      return;
    case Type::kString:
      AppendJsonString(d.bytes(), out);
      return;
    case Type::kBytes:
    case Type::kFixed: {
      std::string encoded;
      Base64Encode(d.bytes(), &encoded);
      AppendJsonString(encoded, out);
      return;
    }
    case Type::kEnum: {
      const auto& symbols = s.symbols();
      if (s.type() == Type::kEnum && d.enum_index() >= 0 &&
          static_cast<size_t>(d.enum_index()) < symbols.size()) {
        AppendJsonString(symbols[static_cast<size_t>(d.enum_index())], out);
      } else {
        fmt::format_to(std::back_inserter(*out), "{}", d.enum_index());
      }
      return;
    }
    case Type::kRecord: {
      out->push_back('{');
      const auto& fields = s.fields();
      for (size_t i = 0; i < d.children().size(); ++i) {
        if (i > 0) out->push_back(',');
        if (s.type() == Type::kRecord && i < fields.size()) {
          AppendJsonString(fields[i].name, out);
          out->push_back(':');
          Append(*fields[i].type, d.children()[i], options, out);
        } else {
          fmt::format_to(std::back_inserter(*out), "\"{}\":null", i);
        }
      }
      out->push_back('}');
      return;
    }
    case Type::kArray:
    case Type::kMap: {
      bool is_map = d.type() == Type::kMap;
      bool typed = s.type() == d.type();
      out->push_back(is_map ? '{' : '[');
      for (size_t i = 0; i < d.children().size(); ++i) {
        if (i > 0) out->push_back(',');
        if (is_map) {
          AppendJsonString(d.keys()[i], out);
          out->push_back(':');
        }
        if (typed) {
          Append(*s.items(), d.children()[i], options, out);
        } else {
          out->append("null");
        }
      }
      out->push_back(is_map ? '}' : ']');
      return;
    }
    case Type::kUnion:
      out->append("null");
      return;
  }
}

std::string_view JsonKind(const Json& v) {
  if (v.is_null()) return "null";
  if (v.is_boolean()) return "boolean";
  if (v.is_number_integer()) return "integer";
  if (v.is_number()) return "number";
  if (v.is_string()) return "string";
  if (v.is_array()) return "array";
  return "object";
}

std::unexpected<Error> Expected(const Node& s, const Json& v) {
  return InvalidArgument("expected {}, got {}", TypeName(s.type()), JsonKind(v));
}

Result<Datum> FromJson(const Node& s, const Json& v) {
  switch (s.type()) {
    case Type::kNull:
      if (!v.is_null()) return Expected(s, v);
      return Datum::Null();
    case Type::kBoolean:
      if (!v.is_boolean()) return Expected(s, v);
      return Datum::Boolean(v.get<bool>());
    case Type::kInt: {
      if (!v.is_number_integer()) return Expected(s, v);
      if (v.is_number_unsigned() && v.get<uint64_t>() > INT32_MAX) {
        return InvalidArgument("{} out of int range", v.dump());
      }
      int64_t x = v.get<int64_t>();
      if (x < INT32_MIN || x > INT32_MAX) return InvalidArgument("{} out of int range", x);
      return Datum::Int(static_cast<int32_t>(x));
    }
    case Type::kLong:
      if (!v.is_number_integer()) return Expected(s, v);
      if (v.is_number_unsigned() && v.get<uint64_t>() > INT64_MAX) {
        return InvalidArgument("{} out of long range", v.dump());
      }
      return Datum::Long(v.get<int64_t>());
    case Type::kFloat:
    case Type::kDouble: {
      double x;
      if (v.is_number()) {
        x = v.get<double>();
      } else if (!v.is_string() || !ParseNonFiniteText(v.get_ref<const std::string&>(), &x)) {
        return Expected(s, v);
      }
      return s.type() == Type::kFloat ? Datum::Float(static_cast<float>(x)) : Datum::Double(x);
    }
    case Type::kString:
      if (!v.is_string()) return Expected(s, v);
      return Datum::String(v.get<std::string>());
    case Type::kBytes:
    case Type::kFixed: {
      if (!v.is_string())
        return InvalidArgument("expected base64 {}, got {}", TypeName(s.type()), JsonKind(v));
      std::string bytes;
      FLOE_RETURN_IF_ERROR(Base64Decode(v.get_ref<const std::string&>(), &bytes));
      if (s.type() == Type::kFixed) {
        if (bytes.size() != s.fixed_size()) {
          return InvalidArgument("fixed {} needs {} bytes, got {}", s.fullname(), s.fixed_size(),
                                 bytes.size());
        }
        return Datum::Fixed(std::move(bytes));
      }
      return Datum::Bytes(std::move(bytes));
    }
    case Type::kEnum: {
      if (!v.is_string()) return Expected(s, v);
      auto index = s.SymbolIndex(v.get<std::string>());
      if (!index)
        return InvalidArgument("'{}' is not a symbol of enum {}", v.get<std::string>(),
                               s.fullname());
      return Datum::Enum(static_cast<int32_t>(*index));
    }
    case Type::kArray: {
      if (!v.is_array()) return Expected(s, v);
      std::vector<Datum> items;
      items.reserve(v.size());
      for (size_t i = 0; i < v.size(); ++i) {
        auto item = FromJson(*s.items(), v[i]);
        if (!item)
          return std::unexpected(std::move(item).error().WithContext(fmt::format("item {}", i)));
        items.push_back(std::move(*item));
      }
      return Datum::Array(std::move(items));
    }
    case Type::kMap: {
      if (!v.is_object()) return Expected(s, v);
      std::vector<std::string> keys;
      std::vector<Datum> values;
      for (auto it = v.begin(); it != v.end(); ++it) {
        auto value = FromJson(*s.values(), it.value());
        if (!value) {
          return std::unexpected(
              std::move(value).error().WithContext(fmt::format("key '{}'", it.key())));
        }
        keys.push_back(it.key());
        values.push_back(std::move(*value));
      }
      return Datum::Map(std::move(keys), std::move(values));
    }
    case Type::kRecord: {
      if (!v.is_object()) return Expected(s, v);
      std::vector<Datum> fields;
      fields.reserve(s.fields().size());
      for (const Field& f : s.fields()) {
        auto it = v.find(f.name);
        Result<Datum> d = Datum();
        if (it != v.end()) {
          d = FromJson(*f.type, *it);
        } else if (f.default_value) {
          d = DefaultToDatum(*f.type, *f.default_value);
        } else if (f.type->type() == Type::kUnion && f.type->NullBranch()) {
          d = Datum::Null().WithBranch(static_cast<int32_t>(*f.type->NullBranch()));
        } else {
          return InvalidArgument("field '{}' is required but missing", f.name);
        }
        if (!d)
          return std::unexpected(
              std::move(d).error().WithContext(fmt::format("field '{}'", f.name)));
        fields.push_back(std::move(*d));
      }
      return Datum::Record(std::move(fields));
    }
    case Type::kUnion: {
      if (auto d = FirstFittingBranch(s, v, FromJson)) return std::move(*d);
      const auto& branches = s.branches();
      // {"<type name>": value}, as fastavro and the Avro JSON encoding tag unions.
      if (v.is_object() && v.size() == 1) {
        const std::string& key = v.begin().key();
        for (size_t i = 0; i < branches.size(); ++i) {
          const Node& b = *branches[i];
          bool named =
              b.type() == Type::kRecord || b.type() == Type::kEnum || b.type() == Type::kFixed;
          if (key == TypeName(b.type()) || (named && (key == b.fullname() || key == b.name()))) {
            auto d = FromJson(b, v.begin().value());
            if (!d) return d;
            d->set_branch(static_cast<int32_t>(i));
            return d;
          }
        }
      }
      return InvalidArgument("{} fits no branch of the union", JsonKind(v));
    }
  }
  return Expected(s, v);
}

}  // namespace

void AppendDatumJson(const Node& schema, const Datum& datum, const JsonOptions& options,
                     std::string* out) {
  Append(schema, datum, options, out);
}

Result<Datum> DatumFromJson(const Node& schema, const Json& value) {
  return FromJson(schema, value);
}

}  // namespace floe::format::avro
