#include "floe/format/avro/binary.h"

#include <bit>
#include <cmath>
#include <limits>

#include "floe/common/float_text.h"

namespace floe::format::avro {

void AppendVarLong(int64_t value, ByteBuffer* out) { AppendVarint(out, ZigZagEncode(value)); }

void AppendLengthPrefixed(std::string_view bytes, ByteBuffer* out) {
  AppendVarLong(static_cast<int64_t>(bytes.size()), out);
  out->Append(bytes);
}

std::unexpected<Error> BinaryDecoder::Corrupt(std::string_view what) const {
  return Corruption("{} at offset {}: {}", source_, offset(), what);
}

Result<int64_t> BinaryDecoder::ReadLong() {
  uint64_t n = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (pos_ >= data_.size()) return Corrupt("truncated varint");
    uint8_t b = data_[pos_++];
    if (shift == 63 && b > 1) return Corrupt("varint longer than 64 bits");
    n |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) {
      return ZigZagDecode(n);
    }
  }
  return Corrupt("varint longer than 10 bytes");
}

Result<int32_t> BinaryDecoder::ReadInt() {
  FLOE_ASSIGN_OR_RETURN(int64_t v, ReadLong());
  if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max()) {
    return Corrupt(fmt::format("int value {} out of 32-bit range", v));
  }
  return static_cast<int32_t>(v);
}

Result<bool> BinaryDecoder::ReadBoolean() {
  if (pos_ >= data_.size()) return Corrupt("truncated boolean");
  uint8_t b = data_[pos_];
  if (b > 1) return Corrupt(fmt::format("boolean byte {} is not 0 or 1", b));
  ++pos_;
  return b == 1;
}

Result<float> BinaryDecoder::ReadFloat() {
  if (remaining() < 4) return Corrupt("truncated float");
  float v = LoadLittleEndian<float>(data_.data() + pos_);
  pos_ += 4;
  return v;
}

Result<double> BinaryDecoder::ReadDouble() {
  if (remaining() < 8) return Corrupt("truncated double");
  double v = LoadLittleEndian<double>(data_.data() + pos_);
  pos_ += 8;
  return v;
}

Result<std::string_view> BinaryDecoder::ReadLengthPrefixed() {
  uint64_t start = offset();
  FLOE_ASSIGN_OR_RETURN(int64_t n, ReadLong());
  if (n < 0 || static_cast<uint64_t>(n) > remaining()) {
    return Corruption("{} at offset {}: length {} with {} bytes left", source_, start, n,
                      remaining());
  }
  return ReadRaw(static_cast<size_t>(n));
}

Result<std::string_view> BinaryDecoder::ReadRaw(size_t n) {
  if (n > remaining()) {
    return Corrupt(fmt::format("{} bytes needed, {} left", n, remaining()));
  }
  std::string_view v(reinterpret_cast<const char*>(data_.data() + pos_), n);
  pos_ += n;
  return v;
}

namespace {

// Whether a datum of type `have` may be written where the schema says `want`.
bool Fits(Type want, Type have) {
  if (want == have) return true;
  switch (want) {
    case Type::kLong:
      return have == Type::kInt;
    case Type::kFloat:
      return have == Type::kInt || have == Type::kLong;
    case Type::kDouble:
      return have == Type::kInt || have == Type::kLong || have == Type::kFloat;
    case Type::kBytes:
      return have == Type::kString || have == Type::kFixed;
    case Type::kString:
      return have == Type::kBytes;
    case Type::kFixed:
      return have == Type::kBytes;
    case Type::kEnum:
      return have == Type::kString;
    default:
      return false;
  }
}

double AsDouble(const Datum& d) {
  switch (d.type()) {
    case Type::kInt:
      return d.int_value();
    case Type::kLong:
      return static_cast<double>(d.long_value());
    case Type::kFloat:
      return d.float_value();
    default:
      return d.double_value();
  }
}

std::unexpected<Error> Mismatch(const Node& schema, const Datum& datum) {
  return InvalidArgument("value of type {} does not fit schema type {}", TypeName(datum.type()),
                         TypeName(schema.type()));
}

Status Encode(const Node& schema, const Datum& datum, ByteBuffer* out) {
  if (schema.type() == Type::kUnion) {
    const auto& branches = schema.branches();
    int64_t index = datum.branch();
    if (index >= static_cast<int64_t>(branches.size())) {
      return InvalidArgument("union branch {} out of range (union has {})", index, branches.size());
    }
    if (index < 0) {
      for (size_t i = 0; i < branches.size() && index < 0; ++i) {
        if (branches[i]->type() == datum.type()) index = static_cast<int64_t>(i);
      }
      for (size_t i = 0; i < branches.size() && index < 0; ++i) {
        if (Fits(branches[i]->type(), datum.type())) index = static_cast<int64_t>(i);
      }
      if (index < 0) {
        return InvalidArgument("value of type {} fits no branch of the union",
                               TypeName(datum.type()));
      }
    }
    AppendVarLong(index, out);
    return Encode(*branches[static_cast<size_t>(index)], datum, out);
  }
  if (!Fits(schema.type(), datum.type())) return Mismatch(schema, datum);
  switch (schema.type()) {
    case Type::kNull:
      return Ok();
    case Type::kBoolean:
      out->PushByte(datum.boolean() ? 1 : 0);
      return Ok();
    case Type::kInt:
      AppendVarLong(datum.int_value(), out);
      return Ok();
    case Type::kLong:
      AppendVarLong(datum.AsInt64(), out);
      return Ok();
    case Type::kFloat:
      out->AppendLittleEndian(datum.type() == Type::kFloat ? datum.float_value()
                                                           : static_cast<float>(AsDouble(datum)));
      return Ok();
    case Type::kDouble:
      out->AppendLittleEndian(AsDouble(datum));
      return Ok();
    case Type::kBytes:
    case Type::kString:
      AppendLengthPrefixed(datum.bytes(), out);
      return Ok();
    case Type::kFixed:
      if (datum.bytes().size() != schema.fixed_size()) {
        return InvalidArgument("fixed {} needs {} bytes, value has {}", schema.fullname(),
                               schema.fixed_size(), datum.bytes().size());
      }
      out->Append(datum.bytes());
      return Ok();
    case Type::kEnum: {
      int64_t index = datum.enum_index();
      if (datum.type() == Type::kString) {
        auto found = schema.SymbolIndex(datum.bytes());
        if (!found) {
          return InvalidArgument("\"{}\" is not a symbol of enum {}", datum.bytes(),
                                 schema.fullname());
        }
        index = static_cast<int64_t>(*found);
      }
      if (index < 0 || index >= static_cast<int64_t>(schema.symbols().size())) {
        return InvalidArgument("enum index {} out of range for {}", index, schema.fullname());
      }
      AppendVarLong(index, out);
      return Ok();
    }
    case Type::kRecord: {
      const auto& fields = schema.fields();
      if (datum.children().size() != fields.size()) {
        return InvalidArgument("record {} has {} fields, value has {}", schema.fullname(),
                               fields.size(), datum.children().size());
      }
      for (size_t i = 0; i < fields.size(); ++i) {
        FLOE_RETURN_IF_ERROR_CTX(Encode(*fields[i].type, datum.children()[i], out), "field '{}'",
                                 fields[i].name);
      }
      return Ok();
    }
    case Type::kArray:
    case Type::kMap: {
      const auto& items = datum.children();
      bool is_map = schema.type() == Type::kMap;
      if (is_map && datum.keys().size() != items.size()) {
        return InvalidArgument("map has {} keys and {} values", datum.keys().size(), items.size());
      }
      if (!items.empty()) {
        AppendVarLong(static_cast<int64_t>(items.size()), out);
        for (size_t i = 0; i < items.size(); ++i) {
          if (is_map) AppendLengthPrefixed(datum.keys()[i], out);
          FLOE_RETURN_IF_ERROR_CTX(Encode(*schema.items(), items[i], out), "{} {}",
                                   is_map ? "map value" : "item", i);
        }
      }
      AppendVarLong(0, out);
      return Ok();
    }
    case Type::kUnion:
      break;
  }
  return Mismatch(schema, datum);
}

// Appends the bytes of an Avro JSON default for bytes/fixed: each code point is a byte.
Status Latin1Bytes(const std::string& utf8, std::string* out) {
  for (size_t i = 0; i < utf8.size();) {
    auto c = static_cast<uint8_t>(utf8[i]);
    if (c < 0x80) {
      out->push_back(static_cast<char>(c));
      ++i;
    } else if ((c & 0xe0) == 0xc0 && i + 1 < utf8.size()) {
      uint32_t cp = ((c & 0x1fu) << 6) | (static_cast<uint8_t>(utf8[i + 1]) & 0x3fu);
      if (cp > 0xff) return SchemaIncompatible("bytes default has a code point above 255");
      out->push_back(static_cast<char>(cp));
      i += 2;
    } else {
      return SchemaIncompatible("bytes default has a code point above 255");
    }
  }
  return Ok();
}

}  // namespace

Status EncodeDatum(const Node& schema, const Datum& datum, ByteBuffer* out) {
  return Encode(schema, datum, out);
}

Result<Datum> DefaultToDatum(const Node& schema, const Json& value) {
  auto bad = [&]() -> std::unexpected<Error> {
    return SchemaIncompatible("default {} does not fit type {}",
                              value.dump(-1, ' ', false, Json::error_handler_t::replace),
                              TypeName(schema.type()));
  };
  switch (schema.type()) {
    case Type::kNull:
      if (!value.is_null()) return bad();
      return Datum::Null();
    case Type::kBoolean:
      if (!value.is_boolean()) return bad();
      return Datum::Boolean(value.get<bool>());
    case Type::kInt: {
      if (!value.is_number_integer()) return bad();
      if (value.is_number_unsigned() && value.get<uint64_t>() > INT32_MAX) return bad();
      int64_t v = value.get<int64_t>();
      if (v < INT32_MIN || v > INT32_MAX) return bad();
      return Datum::Int(static_cast<int32_t>(v));
    }
    case Type::kLong:
      if (!value.is_number_integer()) return bad();
      if (value.is_number_unsigned() && value.get<uint64_t>() > INT64_MAX) return bad();
      return Datum::Long(value.get<int64_t>());
    case Type::kFloat:
    case Type::kDouble: {
      double v;
      if (value.is_number()) {
        v = value.get<double>();
      } else if (!value.is_string() ||
                 !ParseNonFiniteText(value.get_ref<const std::string&>(), &v)) {
        return bad();
      }
      return schema.type() == Type::kFloat ? Datum::Float(static_cast<float>(v)) : Datum::Double(v);
    }
    case Type::kString:
      if (!value.is_string()) return bad();
      return Datum::String(value.get<std::string>());
    case Type::kBytes:
    case Type::kFixed: {
      if (!value.is_string()) return bad();
      std::string bytes;
      FLOE_RETURN_IF_ERROR(Latin1Bytes(value.get_ref<const std::string&>(), &bytes));
      if (schema.type() == Type::kFixed) {
        if (bytes.size() != schema.fixed_size()) return bad();
        return Datum::Fixed(std::move(bytes));
      }
      return Datum::Bytes(std::move(bytes));
    }
    case Type::kEnum: {
      if (!value.is_string()) return bad();
      auto index = schema.SymbolIndex(value.get<std::string>());
      if (!index) return bad();
      return Datum::Enum(static_cast<int32_t>(*index));
    }
    case Type::kArray: {
      if (!value.is_array()) return bad();
      std::vector<Datum> items;
      for (const auto& item : value) {
        FLOE_ASSIGN_OR_RETURN(Datum d, DefaultToDatum(*schema.items(), item));
        items.push_back(std::move(d));
      }
      return Datum::Array(std::move(items));
    }
    case Type::kMap: {
      if (!value.is_object()) return bad();
      std::vector<std::string> keys;
      std::vector<Datum> values;
      for (auto it = value.begin(); it != value.end(); ++it) {
        FLOE_ASSIGN_OR_RETURN(Datum d, DefaultToDatum(*schema.values(), it.value()));
        keys.push_back(it.key());
        values.push_back(std::move(d));
      }
      return Datum::Map(std::move(keys), std::move(values));
    }
    case Type::kRecord: {
      if (!value.is_object()) return bad();
      std::vector<Datum> fields;
      for (const Field& field : schema.fields()) {
        auto it = value.find(field.name);
        const Json* v = nullptr;
        if (it != value.end()) {
          v = &*it;
        } else if (field.default_value) {
          v = &*field.default_value;
        } else {
          return SchemaIncompatible("default for record {} lacks field '{}'", schema.fullname(),
                                    field.name);
        }
        FLOE_ASSIGN_OR_RETURN(Datum d, DefaultToDatum(*field.type, *v));
        fields.push_back(std::move(d));
      }
      return Datum::Record(std::move(fields));
    }
    case Type::kUnion: {
      // The spec says the first branch; other branches are tried too, leniently.
      if (auto d = FirstFittingBranch(schema, value, DefaultToDatum)) return std::move(*d);
      return bad();
    }
  }
  return bad();
}

Result<std::string> EncodeBinary(const Schema& schema, const Datum& datum) {
  ByteBuffer buffer;
  FLOE_RETURN_IF_ERROR(EncodeDatum(schema.root(), datum, &buffer));
  return std::string(buffer.view());
}

namespace {
Result<Datum> DecodeAll(const DatumReader& reader, std::string_view bytes) {
  BinaryDecoder decoder({reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()});
  Datum out;
  FLOE_RETURN_IF_ERROR(reader.Read(&decoder, &out));
  if (!decoder.at_end()) {
    return decoder.Corrupt(fmt::format("{} trailing bytes after the datum", decoder.remaining()));
  }
  return out;
}
}  // namespace

Result<Datum> DecodeBinary(const Schema& schema, std::string_view bytes) {
  FLOE_ASSIGN_OR_RETURN(DatumReader reader, DatumReader::Make(schema));
  return DecodeAll(reader, bytes);
}

Result<Datum> DecodeBinary(const Schema& writer, const Schema& reader, std::string_view bytes,
                           ResolveOptions options) {
  FLOE_ASSIGN_OR_RETURN(DatumReader datum_reader, DatumReader::Make(writer, reader, options));
  return DecodeAll(datum_reader, bytes);
}

}  // namespace floe::format::avro
