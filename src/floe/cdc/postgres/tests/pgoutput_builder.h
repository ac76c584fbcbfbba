#pragma once
// pgoutput messages built by hand for the unit tests of the assemblers.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace floe::cdc::postgres::test_messages {

// Big-endian message building.
struct Msg {
  std::string b;
  explicit Msg(char tag) { b.push_back(tag); }
  Msg& U8(uint8_t v) {
    b.push_back(static_cast<char>(v));
    return *this;
  }
  Msg& U16(uint16_t v) { return U8(v >> 8).U8(v & 0xff); }
  Msg& U32(uint32_t v) { return U16(v >> 16).U16(v & 0xffff); }
  Msg& U64(uint64_t v) { return U32(static_cast<uint32_t>(v >> 32)).U32(static_cast<uint32_t>(v)); }
  Msg& Str(std::string_view s) {
    b.append(s);
    b.push_back('\0');
    return *this;
  }
  // A tuple: "\x01" marks an unchanged TOAST value, "\x02" a null, else text.
  Msg& Tuple(const std::vector<std::string>& cols) {
    U16(static_cast<uint16_t>(cols.size()));
    for (const auto& c : cols) {
      if (c == "\x01") {
        U8('u');
      } else if (c == "\x02") {
        U8('n');
      } else {
        U8('t').U32(static_cast<uint32_t>(c.size()));
        b.append(c);
      }
    }
    return *this;
  }
};

const std::string kToast = "\x01", kNull = "\x02";

}  // namespace floe::cdc::postgres::test_messages
