#include "floe/cdc/position.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <iterator>

#include "floe/common/ascii.h"

namespace floe::cdc {
namespace {

bool ParseU64(std::string_view s, uint64_t* out) {
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size();
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() &&
         (s.front() == ' ' || s.front() == '\n' || s.front() == '\t' || s.front() == '\r'))
    s.remove_prefix(1);
  while (!s.empty() &&
         (s.back() == ' ' || s.back() == '\n' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    size_t i = s.find(sep, start);
    if (i == std::string_view::npos) {
      parts.push_back(s.substr(start));
      return parts;
    }
    parts.push_back(s.substr(start, i - start));
    start = i + 1;
  }
}

bool IsUuid(std::string_view s) {
  if (s.size() != 36) return false;
  for (size_t i = 0; i < 36; ++i) {
    char c = s[i];
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (c != '-') return false;
    } else if (!std::isxdigit(static_cast<unsigned char>(c))) {
      return false;
    }
  }
  return true;
}

void InsertInterval(std::vector<std::pair<uint64_t, uint64_t>>* v, uint64_t lo, uint64_t hi) {
  v->emplace_back(lo, hi);
  std::sort(v->begin(), v->end());
  std::vector<std::pair<uint64_t, uint64_t>> merged;
  for (const auto& iv : *v) {
    if (!merged.empty() && iv.first <= merged.back().second + 1) {
      merged.back().second = std::max(merged.back().second, iv.second);
    } else {
      merged.push_back(iv);
    }
  }
  *v = std::move(merged);
}

// The numeric suffix of a binlog file name, or -1.
int64_t FileSequence(std::string_view file) {
  size_t dot = file.rfind('.');
  if (dot == std::string_view::npos) return -1;
  uint64_t n = 0;
  if (!ParseU64(file.substr(dot + 1), &n)) return -1;
  return static_cast<int64_t>(n);
}

}  // namespace

std::string BinlogFilePos::ToString() const { return fmt::format("{}:{}", file, pos); }

Result<BinlogFilePos> BinlogFilePos::Parse(std::string_view text) {
  size_t colon = text.rfind(':');
  if (colon == std::string_view::npos || colon == 0) {
    return InvalidArgument("binlog position '{}' is not FILE:POS", text);
  }
  BinlogFilePos p;
  p.file = std::string(text.substr(0, colon));
  if (!ParseU64(text.substr(colon + 1), &p.pos)) {
    return InvalidArgument("binlog position '{}': '{}' is not a number", text,
                           text.substr(colon + 1));
  }
  return p;
}

int Compare(const BinlogFilePos& a, const BinlogFilePos& b) {
  int64_t sa = FileSequence(a.file), sb = FileSequence(b.file);
  if (sa != sb) return sa < sb ? -1 : 1;
  if (sa < 0 && a.file != b.file) return a.file < b.file ? -1 : 1;
  if (a.pos != b.pos) return a.pos < b.pos ? -1 : 1;
  return 0;
}

std::string MariaDbGtid::ToString() const {
  return fmt::format("{}-{}-{}", domain_id, server_id, sequence);
}

Result<GtidSet> GtidSet::Parse(std::string_view text) {
  GtidSet set;
  text = Trim(text);
  if (text.empty()) return set;
  for (std::string_view part : Split(text, ',')) {
    part = Trim(part);
    if (part.empty()) continue;
    if (part.find(':') != std::string_view::npos) {
      auto pieces = Split(part, ':');
      std::string uuid = AsciiLower(Trim(pieces[0]));
      if (!IsUuid(uuid))
        return InvalidArgument("bad GTID source uuid '{}' in '{}'", pieces[0], text);
      if (pieces.size() < 2) return InvalidArgument("GTID '{}' has no intervals", part);
      for (size_t i = 1; i < pieces.size(); ++i) {
        std::string_view iv = Trim(pieces[i]);
        size_t dash = iv.find('-');
        uint64_t lo = 0, hi = 0;
        bool ok = dash == std::string_view::npos
                      ? ParseU64(iv, &lo) && (hi = lo, true)
                      : ParseU64(iv.substr(0, dash), &lo) && ParseU64(iv.substr(dash + 1), &hi);
        if (!ok || lo == 0 || hi < lo) {
          return InvalidArgument("bad GTID interval '{}' in '{}'", iv, text);
        }
        if (set.flavor_ == Flavor::kMariaDb) {
          return InvalidArgument("GTID set '{}' mixes MySQL and MariaDB GTIDs", text);
        }
        set.flavor_ = Flavor::kMySql;
        InsertInterval(&set.mysql_[uuid], lo, hi);
      }
    } else {
      auto pieces = Split(part, '-');
      uint64_t d = 0, s = 0, n = 0;
      if (pieces.size() != 3 || !ParseU64(pieces[0], &d) || !ParseU64(pieces[1], &s) ||
          !ParseU64(pieces[2], &n) || d > UINT32_MAX || s > UINT32_MAX) {
        return InvalidArgument(
            "bad GTID '{}' in '{}' (expected uuid:interval or domain-server-seq)", part, text);
      }
      FLOE_RETURN_IF_ERROR(
          set.AddMariaDb(MariaDbGtid{static_cast<uint32_t>(d), static_cast<uint32_t>(s), n}));
    }
  }
  return set;
}

Status GtidSet::AddMySql(std::string_view uuid, uint64_t transaction_number) {
  if (flavor_ == Flavor::kMariaDb)
    return InvalidArgument("adding a MySQL GTID to a MariaDB GTID set");
  flavor_ = Flavor::kMySql;
  auto& v = mysql_[AsciiLower(uuid)];
  // Fast path: extends the last interval (the common, in-order case).
  if (!v.empty() && v.back().second + 1 == transaction_number) {
    v.back().second = transaction_number;
    return Ok();
  }
  InsertInterval(&v, transaction_number, transaction_number);
  return Ok();
}

Status GtidSet::AddMariaDb(const MariaDbGtid& gtid) {
  if (flavor_ == Flavor::kMySql)
    return InvalidArgument("adding a MariaDB GTID to a MySQL GTID set");
  flavor_ = Flavor::kMariaDb;
  mariadb_[gtid.domain_id] = gtid;
  return Ok();
}

bool GtidSet::Contains(const GtidSet& other) const {
  if (other.empty()) return true;
  if (other.flavor_ != flavor_) return false;
  if (flavor_ == Flavor::kMariaDb) {
    for (const auto& [domain, g] : other.mariadb_) {
      auto it = mariadb_.find(domain);
      if (it == mariadb_.end() || it->second.sequence < g.sequence) return false;
    }
    return true;
  }
  for (const auto& [uuid, ivs] : other.mysql_) {
    auto it = mysql_.find(uuid);
    if (it == mysql_.end()) return false;
    for (const auto& iv : ivs) {
      bool covered = false;
      for (const auto& mine : it->second) {
        if (mine.first <= iv.first && iv.second <= mine.second) {
          covered = true;
          break;
        }
      }
      if (!covered) return false;
    }
  }
  return true;
}

bool GtidSet::ContainsGtid(std::string_view gtid) const {
  auto single = Parse(gtid);
  return single && Contains(*single);
}

std::string GtidSet::ToString() const {
  std::string out;
  if (flavor_ == Flavor::kMariaDb) {
    for (const auto& [domain, g] : mariadb_) {
      if (!out.empty()) out += ',';
      out += g.ToString();
    }
    return out;
  }
  for (const auto& [uuid, ivs] : mysql_) {
    if (!out.empty()) out += ',';
    out += uuid;
    for (const auto& [lo, hi] : ivs) {
      if (lo == hi) {
        fmt::format_to(std::back_inserter(out), ":{}", lo);
      } else {
        fmt::format_to(std::back_inserter(out), ":{}-{}", lo, hi);
      }
    }
  }
  return out;
}

nlohmann::json SourcePosition::ToJson() const {
  nlohmann::json j = nlohmann::json::object();
  j["file"] = binlog.file;
  j["pos"] = binlog.pos;
  j["gtids"] = gtids.ToString();
  j["server_id"] = server_id;
  if (!gtid.empty()) j["gtid"] = gtid;
  if (row != 0) j["row"] = row;
  return j;
}

Result<SourcePosition> SourcePosition::FromJson(const nlohmann::json& j) {
  if (!j.is_object()) return InvalidArgument("source position: expected a JSON object");
  SourcePosition p;
  auto get_string = [&](const char* name, std::string* out) -> Status {
    auto it = j.find(name);
    if (it == j.end() || it->is_null()) return Ok();
    if (!it->is_string()) return InvalidArgument("source position: '{}' must be a string", name);
    *out = it->get<std::string>();
    return Ok();
  };
  auto get_uint = [&](const char* name, uint64_t max, uint64_t* out) -> Status {
    auto it = j.find(name);
    if (it == j.end() || it->is_null()) return Ok();
    if (!it->is_number_unsigned() && !(it->is_number_integer() && it->get<int64_t>() >= 0)) {
      return InvalidArgument("source position: '{}' must be a non-negative integer", name);
    }
    uint64_t v = it->get<uint64_t>();
    if (v > max) return InvalidArgument("source position: '{}' is out of range", name);
    *out = v;
    return Ok();
  };
  FLOE_RETURN_IF_ERROR(get_string("file", &p.binlog.file));
  FLOE_RETURN_IF_ERROR(get_uint("pos", UINT64_MAX, &p.binlog.pos));
  std::string gtids;
  FLOE_RETURN_IF_ERROR(get_string("gtids", &gtids));
  FLOE_ASSIGN_OR_RETURN(p.gtids, GtidSet::Parse(gtids));
  uint64_t server_id = 0, row = 0;
  FLOE_RETURN_IF_ERROR(get_uint("server_id", UINT32_MAX, &server_id));
  FLOE_RETURN_IF_ERROR(get_uint("row", UINT32_MAX, &row));
  p.server_id = static_cast<uint32_t>(server_id);
  p.row = static_cast<uint32_t>(row);
  FLOE_RETURN_IF_ERROR(get_string("gtid", &p.gtid));
  return p;
}

Result<SourcePosition> SourcePosition::FromJsonString(std::string_view text) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return InvalidArgument("source position: invalid JSON '{}'", text);
  return FromJson(j);
}

std::optional<int> ComparePositions(const SourcePosition& a, const SourcePosition& b) {
  if (!a.gtids.empty() && !b.gtids.empty() && a.gtids.flavor() == b.gtids.flavor()) {
    bool ab = a.gtids.Contains(b.gtids), ba = b.gtids.Contains(a.gtids);
    if (ab && ba) {
      if (!a.binlog.empty() && !b.binlog.empty()) return Compare(a.binlog, b.binlog);
      return 0;
    }
    if (ab) return 1;
    if (ba) return -1;
    return std::nullopt;
  }
  if (a.binlog.empty() || b.binlog.empty()) return std::nullopt;
  return Compare(a.binlog, b.binlog);
}

}  // namespace floe::cdc
