#include "floe/sink/row_key.h"

#include <cstring>
#include <functional>
#include <tuple>
#include <utility>

namespace floe::sink {

namespace {

void Put(std::string* out, const void* p, size_t n) { out->append(static_cast<const char*>(p), n); }

}  // namespace

Result<KeyEncoder> KeyEncoder::Make(const types::Schema& schema,
                                    const std::vector<int32_t>& equality_field_ids,
                                    std::string_view table) {
  KeyEncoder e;
  const auto& fields = schema.fields();
  for (int32_t id : equality_field_ids) {
    size_t i = 0;
    while (i < fields.size() && fields[i].id != id) ++i;
    if (i == fields.size()) {
      return InvalidArgument("table {}: equality field id {} is not a top-level column of {}",
                             table, id, schema.ToString());
    }
    if (!fields[i].type->is_primitive()) {
      return InvalidArgument("table {}: equality field '{}' (id {}) is not a primitive column",
                             table, fields[i].name, id);
    }
    e.positions_.push_back(i);
    e.names_.push_back(fields[i].name);
  }
  return e;
}

void AppendValueKey(const types::Value& v, std::string* out) {
  using K = types::Value::Kind;
  switch (v.kind) {
    case K::kNull:
      out->push_back(0);
      break;
    case K::kBool:
      out->push_back(1);
      out->push_back(v.b ? 1 : 0);
      break;
    case K::kInt32:
    case K::kInt64: {
      int64_t x = v.kind == K::kInt32 ? v.i32 : v.i64;
      out->push_back(2);
      Put(out, &x, 8);
      break;
    }
    case K::kFloat:
    case K::kDouble: {
      double x = v.kind == K::kFloat ? static_cast<double>(v.f32) : v.f64;
      out->push_back(3);
      Put(out, &x, 8);
      break;
    }
    case K::kDecimal:
      out->push_back(4);
      Put(out, &v.decimal, 16);
      break;
    case K::kBytes: {
      out->push_back(5);
      uint32_t n = v.size;
      Put(out, &n, 4);
      out->append(v.bytes, v.size);
      break;
    }
    case K::kStruct:
    case K::kList:
    case K::kMap: {
      out->push_back(
          static_cast<char>(6 + static_cast<int>(v.kind) - static_cast<int>(K::kStruct)));
      uint32_t n = v.size;
      Put(out, &n, 4);
      for (const types::Value& c : v.as_children()) AppendValueKey(c, out);
      break;
    }
  }
}

namespace {

void PutBigEndian(std::string* out, uint64_t x) {
  for (int i = 7; i >= 0; --i) out->push_back(static_cast<char>((x >> (i * 8)) & 0xff));
}

}  // namespace

void AppendOrderedKey(const types::Value& v, std::string* out) {
  using K = types::Value::Kind;
  if (v.is_null()) {
    out->push_back(0);
    return;
  }
  out->push_back(1);
  switch (v.kind) {
    case K::kBool:
      out->push_back(v.b ? 1 : 0);
      break;
    case K::kInt32:
    case K::kInt64: {
      int64_t x = v.kind == K::kInt32 ? v.i32 : v.i64;
      PutBigEndian(out, static_cast<uint64_t>(x) ^ (1ULL << 63));
      break;
    }
    case K::kFloat:
    case K::kDouble: {
      double d = v.kind == K::kFloat ? static_cast<double>(v.f32) : v.f64;
      uint64_t bits;
      std::memcpy(&bits, &d, 8);
      bits = (bits & (1ULL << 63)) ? ~bits : bits | (1ULL << 63);
      PutBigEndian(out, bits);
      break;
    }
    case K::kDecimal: {
      auto u =
          static_cast<unsigned __int128>(v.decimal) ^ (static_cast<unsigned __int128>(1) << 127);
      PutBigEndian(out, static_cast<uint64_t>(u >> 64));
      PutBigEndian(out, static_cast<uint64_t>(u));
      break;
    }
    case K::kBytes:
      // 0x00 escaped as 0x00 0xFF, terminated by 0x00 0x00: a prefix sorts first.
      for (uint32_t i = 0; i < v.size; ++i) {
        out->push_back(v.bytes[i]);
        if (v.bytes[i] == 0) out->push_back(static_cast<char>(0xff));
      }
      out->push_back(0);
      out->push_back(0);
      break;
    default:
      AppendValueKey(v, out);
      break;
  }
}

void KeyEncoder::Encode(types::Row row, std::string* out) const {
  for (size_t p : positions_) AppendValueKey(row[p], out);
}

int KeyEncoder::NullKeyColumn(types::Row row) const {
  for (size_t i = 0; i < positions_.size(); ++i) {
    if (row[positions_[i]].is_null()) return static_cast<int>(i);
  }
  return -1;
}

uint64_t HashKey(std::string_view key) {
  uint64_t h = std::hash<std::string_view>{}(key);
  // Spread the bits (libstdc++'s hash is good but slots use the low bits).
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  return h;
}

namespace {

/// A key of up to 12 bytes as a slot keeps it: bytes 0..7, then 8..11, zero-padded.
std::pair<uint64_t, uint32_t> InlineKey(std::string_view key) {
  uint8_t bytes[12] = {};
  if (!key.empty()) std::memcpy(bytes, key.data(), key.size());
  uint64_t head;
  uint32_t tail;
  std::memcpy(&head, bytes, 8);
  std::memcpy(&tail, bytes + 8, 4);
  return {head, tail};
}

}  // namespace

size_t KeyMap::Probe(std::string_view key, uint64_t hash) const {
  // Returns the slot holding `key`, else the first empty slot on its path.
  // Keys of up to kInlineKeyBytes bytes are compared in the slot, longer ones
  // in keys_ (a second cache miss).
  const size_t mask = slots_.size() - 1;
  const bool inline_key = key.size() <= kInlineKeyBytes;
  const auto [head, tail] = inline_key ? InlineKey(key) : std::pair<uint64_t, uint32_t>{};
  size_t i = hash & mask;
  while (true) {
    const Slot& s = slots_[i];
    if (s.length == kEmpty) return i;
    if (s.length != kErased && s.hash == hash && s.length == key.size() &&
        (inline_key ? s.offset == head && s.tail == tail
                    : std::memcmp(keys_.data() + s.offset, key.data(), key.size()) == 0)) {
      return i;
    }
    i = (i + 1) & mask;
  }
}

KeyMap::Entry* KeyMap::Find(std::string_view key, uint64_t hash) {
  if (size_ == 0) return nullptr;
  Slot& s = slots_[Probe(key, hash)];
  return s.length == kEmpty ? nullptr : &s.entry;
}

KeyMap::Entry* KeyMap::Insert(std::string_view key, uint64_t hash, bool* inserted) {
  if ((used_ + 1) * 4 > slots_.size() * 3) Grow();
  Slot& s = slots_[Probe(key, hash)];
  if (s.length != kEmpty) {
    *inserted = false;
    return &s.entry;
  }
  s.hash = hash;
  s.length = static_cast<uint32_t>(key.size());
  s.entry = Entry{};
  if (key.size() <= kInlineKeyBytes) {
    std::tie(s.offset, s.tail) = InlineKey(key);
  } else {
    s.offset = keys_.size();
    keys_.append(key);
  }
  ++size_;
  ++used_;
  *inserted = true;
  return &s.entry;
}

bool KeyMap::Erase(std::string_view key, uint64_t hash, Entry* old) {
  if (size_ == 0) return false;
  Slot& s = slots_[Probe(key, hash)];
  if (s.length == kEmpty) return false;
  *old = s.entry;
  s.length = kErased;
  --size_;
  return true;
}

void KeyMap::Grow() {
  // Double when mostly live, else rebuild in place to drop erased slots;
  // key bytes of erased slots are dropped too.
  size_t capacity = slots_.empty() ? 64 : slots_.size();
  if (size_ * 2 >= capacity) capacity *= 2;
  std::vector<Slot> old = std::move(slots_);
  std::string old_keys = std::move(keys_);
  slots_.assign(capacity, Slot{});
  keys_.clear();
  keys_.reserve(old_keys.size());
  const size_t mask = capacity - 1;
  for (const Slot& s : old) {
    if (s.length == kEmpty || s.length == kErased) continue;
    size_t i = s.hash & mask;
    while (slots_[i].length != kEmpty) i = (i + 1) & mask;
    Slot& n = slots_[i];
    n = s;
    if (s.length > kInlineKeyBytes) {
      n.offset = keys_.size();
      keys_.append(old_keys.data() + s.offset, s.length);
    }
  }
  used_ = size_;
}

void KeyMap::Clear() {
  constexpr size_t kKeepSlots = 4096;
  if (slots_.size() > kKeepSlots) {
    std::vector<Slot>().swap(slots_);
    std::string().swap(keys_);
  } else {
    for (Slot& s : slots_) s.length = kEmpty;
    keys_.clear();
  }
  size_ = 0;
  used_ = 0;
}

}  // namespace floe::sink
