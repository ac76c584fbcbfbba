#include "floe/format/parquet/reader.h"

#include <cstring>

#include <fmt/ranges.h>

#include "floe/format/parquet/decoder.h"

namespace floe::format::parquet {

using types::Value;

namespace {

constexpr char kMagic[4] = {'P', 'A', 'R', '1'};
constexpr char kEncryptedMagic[4] = {'P', 'A', 'R', 'E'};

size_t TreeDepth(const SchemaNode& n) {
  size_t d = 0;
  for (const auto& c : n.children) d = std::max(d, TreeDepth(c));
  return d + 1;
}

}  // namespace

const ColumnStats* RowGroupStats::Find(int32_t field_id) const {
  for (const auto& c : columns) {
    if (c.field_id == field_id) return &c;
  }
  return nullptr;
}

ParquetReader::ParquetReader(std::unique_ptr<io::InputFile> file, ReaderOptions options)
    : file_(std::move(file)), options_(options) {}

ParquetReader::~ParquetReader() = default;

Error ParquetReader::WithPath(Error error) const {
  return std::move(error).WithContext(file_->path());
}

Error ParquetReader::EndsEarly(const ColumnChunkReader& column) const {
  const int g = next_row_group_ - 1;
  return WithPath(
      Error(ErrorCode::kCorruption,
            fmt::format("row group {}: column '{}' ends before the row group's {} rows", g,
                        fmt::join(column.leaf().path, "."), metadata_.row_groups[g].num_rows)));
}

Result<std::unique_ptr<ParquetReader>> ParquetReader::Open(std::unique_ptr<io::InputFile> file,
                                                           ReaderOptions options) {
  std::unique_ptr<ParquetReader> reader(new ParquetReader(std::move(file), options));
  auto st = reader->ReadFooter();
  if (!st) return std::unexpected(reader->WithPath(std::move(st).error()));
  auto projected = reader->Project({});
  if (!projected) return std::unexpected(reader->WithPath(std::move(projected).error()));
  return reader;
}

Status ParquetReader::ReadFooter() {
  uint64_t size = file_->size();
  if (size < 12) return Corruption("file of {} bytes is too small to be Parquet", size);
  uint8_t head[4];
  FLOE_RETURN_IF_ERROR(file_->ReadAt(0, head));
  uint8_t tail[8];
  FLOE_RETURN_IF_ERROR(file_->ReadAt(size - 8, tail));
  if (std::memcmp(tail + 4, kEncryptedMagic, 4) == 0) {
    return NotSupported("encrypted Parquet footers are not supported");
  }
  if (std::memcmp(head, kMagic, 4) != 0) return Corruption("bad magic at offset 0");
  if (std::memcmp(tail + 4, kMagic, 4) != 0) return Corruption("bad magic at offset {}", size - 4);
  uint32_t footer_len = LoadLittleEndian<uint32_t>(tail);
  if (footer_len > size - 12) {
    return Corruption("footer length {} at offset {} runs past the start of the file", footer_len,
                      size - 8);
  }
  if (footer_len > options_.max_footer_size) {
    return Corruption("footer length {} at offset {} is above the limit {}", footer_len, size - 8,
                      options_.max_footer_size);
  }
  uint64_t footer_offset = size - 8 - footer_len;
  std::vector<uint8_t> footer(footer_len);
  FLOE_RETURN_IF_ERROR(file_->ReadAt(footer_offset, footer));
  auto metadata = ParseFileMetaData(footer);
  if (!metadata) {
    return std::unexpected(
        std::move(metadata).error().WithContext(fmt::format("footer at offset {}", footer_offset)));
  }
  metadata_ = std::move(*metadata);
  if (metadata_.num_rows < 0) return Corruption("footer claims {} rows", metadata_.num_rows);
  FLOE_ASSIGN_OR_RETURN(file_schema_, BuildFileSchema(metadata_));
  return Ok();
}

Status ParquetReader::Project(std::vector<int32_t> field_ids) {
  if (started_) return InvalidArgument("{}: Project() after the first read", file_->path());
  FLOE_ASSIGN_OR_RETURN(projected_, ProjectSchema(file_schema_, field_ids));
  columns_.clear();
  PageLimits limits{options_.max_page_size, options_.max_page_values};
  for (int idx : projected_.columns) {
    columns_.push_back(std::make_unique<ColumnChunkReader>(&file_schema_.leaves[idx], limits));
  }
  scratch_.assign(TreeDepth(projected_.root) + 1, {});
  flat_ = true;
  for (const SchemaNode& field : projected_.root.children) {
    if (field.kind != SchemaNode::Kind::kPrimitive || columns_[field.leader]->leaf().max_rep != 0) {
      flat_ = false;
    }
  }
  return Ok();
}

Result<RowGroupStats> ParquetReader::ReadRowGroupStats(int index) const {
  if (index < 0 || index >= num_row_groups()) {
    return InvalidArgument("{}: row group {} out of range", file_->path(), index);
  }
  const RowGroup& rg = metadata_.row_groups[index];
  RowGroupStats stats;
  stats.row_group = index;
  stats.num_rows = rg.num_rows;
  size_t n = std::min(rg.columns.size(), file_schema_.leaves.size());
  for (size_t i = 0; i < n; ++i) {
    const ReaderLeaf& leaf = file_schema_.leaves[i];
    ColumnStats cs;
    cs.leaf = static_cast<int>(i);
    cs.field_id = leaf.field_id;
    const auto& md = rg.columns[i].meta_data;
    if (md) {
      cs.num_values = md->num_values;
      if (md->statistics && md->type == leaf.physical_type && leaf.physical_type != Type::kInt96) {
        const Statistics& s = *md->statistics;
        cs.null_count = s.null_count;
        const std::optional<std::string>* lo = &s.min_value;
        const std::optional<std::string>* hi = &s.max_value;
        if (!s.min_value && !s.max_value && leaf.legacy_stats_ok) {
          lo = &s.min;
          hi = &s.max;
        }
        ValueDecoder decoder(&leaf);
        Value v;
        if (*lo && decoder.DecodeStatistic(**lo, &v)) cs.min = v;
        if (*hi && decoder.DecodeStatistic(**hi, &v)) cs.max = v;
      }
    }
    stats.columns.push_back(cs);
  }
  return stats;
}

Status ParquetReader::StartRowGroup(int index) {
  const RowGroup& rg = metadata_.row_groups[index];
  if (rg.num_rows < 0) return Corruption("row group {} claims {} rows", index, rg.num_rows);
  if (rg.columns.size() != file_schema_.leaves.size()) {
    return Corruption("row group {} has {} column chunks, the schema {} leaves", index,
                      rg.columns.size(), file_schema_.leaves.size());
  }
  if (rg.num_rows > 0 && file_schema_.leaves.empty()) {
    return Corruption("row group {} claims {} rows in a file without columns", index, rg.num_rows);
  }
  rows_left_ = rg.num_rows;
  if (rows_left_ == 0) return Ok();
  if (filter_) {
    FLOE_ASSIGN_OR_RETURN(RowGroupStats stats, ReadRowGroupStats(index));
    if (!filter_(stats)) {
      rows_left_ = 0;
      return Ok();
    }
  }
  for (size_t i = 0; i < columns_.size(); ++i) {
    int leaf = projected_.columns[i];
    FLOE_RETURN_IF_ERROR_CTX(columns_[i]->Open(*file_, rg.columns[leaf]),
                             "row group {} column '{}'", index,
                             fmt::join(file_schema_.leaves[leaf].path, "."));
  }
  return Ok();
}

Result<bool> ParquetReader::EnsureRowGroup() {
  while (rows_left_ == 0) {
    if (next_row_group_ >= num_row_groups()) return false;
    int index = next_row_group_++;
    FLOE_RETURN_IF_ERROR(StartRowGroup(index));
  }
  return true;
}

Status ParquetReader::SkipSubtree(const SchemaNode& node) {
  for (int i = node.leader; i < node.leaf_end; ++i) {
    ColumnChunkReader& c = *columns_[i];
    FLOE_ASSIGN_OR_RETURN(bool has, c.Peek());
    if (!has) return Corruption("column '{}' ends early", fmt::join(c.leaf().path, "."));
    c.Advance();
  }
  return Ok();
}

Status ParquetReader::BuildValue(const SchemaNode& node, Arena* arena, size_t depth, Value* out) {
  ColumnChunkReader& lead = *columns_[node.leader];
  FLOE_ASSIGN_OR_RETURN(bool has, lead.Peek());
  if (!has) return Corruption("column '{}' ends early", fmt::join(lead.leaf().path, "."));
  int16_t def = lead.def();
  if (node.optional && def < node.def_level) {
    *out = Value::Null();
    return SkipSubtree(node);
  }
  switch (node.kind) {
    case SchemaNode::Kind::kPrimitive: {
      if (lead.has_value()) {
        const Value& v = lead.value();
        if (v.kind == Value::Kind::kBytes && v.size > 0) {
          *out = Value::Bytes(arena->Copy(v.as_bytes()));
        } else {
          *out = v;
        }
      } else {
        *out = Value::Null();
      }
      lead.Advance();
      return Ok();
    }
    case SchemaNode::Kind::kStruct: {
      size_t n = node.children.size();
      Value* children = arena->AllocateArray<Value>(n);
      for (size_t i = 0; i < n; ++i) {
        new (&children[i]) Value();
        FLOE_RETURN_IF_ERROR(BuildValue(node.children[i], arena, depth + 1, &children[i]));
      }
      *out = Value::Struct(children, n);
      return Ok();
    }
    case SchemaNode::Kind::kList:
    case SchemaNode::Kind::kMap: {
      bool is_map = node.kind == SchemaNode::Kind::kMap;
      if (def < node.repeated_def) {
        *out = is_map ? Value::Map(nullptr, 0) : Value::List(nullptr, 0);
        return SkipSubtree(node);
      }
      std::vector<Value>& tmp = scratch_[depth];
      tmp.clear();
      while (true) {
        for (const auto& child : node.children) {
          tmp.emplace_back();
          FLOE_RETURN_IF_ERROR(BuildValue(child, arena, depth + 1, &tmp.back()));
        }
        FLOE_ASSIGN_OR_RETURN(bool more, lead.Peek());
        if (!more || lead.rep() != node.repeated_rep) break;
        if (tmp.size() >= UINT32_MAX / 2) return Corruption("list with too many elements");
      }
      Value* children = arena->AllocateArray<Value>(tmp.size());
      std::memcpy(static_cast<void*>(children), tmp.data(), tmp.size() * sizeof(Value));
      *out = is_map ? Value::Map(children, tmp.size() / 2) : Value::List(children, tmp.size());
      return Ok();
    }
  }
  return Ok();
}

Result<size_t> ParquetReader::ReadBatch(Arena* arena, size_t max_rows, std::vector<Value>* values) {
  started_ = true;
  if (failed_) {
    return std::unexpected(
        WithPath(Error(ErrorCode::kInvalidArgument, "read after an earlier read failed")));
  }
  auto result = flat_ ? ReadFlatRows(arena, max_rows, values) : ReadRows(arena, max_rows, values);
  if (!result) failed_ = true;
  return result;
}

Result<size_t> ParquetReader::ReadRows(Arena* arena, size_t max_rows, std::vector<Value>* values) {
  const auto& fields = projected_.root.children;
  size_t width = fields.size();
  size_t rows = 0;
  while (rows < max_rows) {
    auto ready = EnsureRowGroup();
    if (!ready) return std::unexpected(WithPath(std::move(ready).error()));
    if (!*ready) break;
    size_t base = values->size();
    values->resize(base + width);
    for (size_t i = 0; i < width; ++i) {
      ColumnChunkReader& lead = *columns_[fields[i].leader];
      auto has = lead.Peek();
      if (!has) return std::unexpected(WithPath(std::move(has).error()));
      if (!*has) {
        return std::unexpected(EndsEarly(lead));
      }
      if (lead.rep() != 0) {
        return std::unexpected(WithPath(
            Error(ErrorCode::kCorruption,
                  fmt::format("row group {}: column '{}' starts a row with repetition level {}",
                              next_row_group_ - 1, fmt::join(lead.leaf().path, "."), lead.rep()))));
      }
      auto st = BuildValue(fields[i], arena, 0, &(*values)[base + i]);
      if (!st) {
        return std::unexpected(WithPath(
            std::move(st).error().WithContext(fmt::format("row group {}", next_row_group_ - 1))));
      }
    }
    --rows_left_;
    ++rows;
  }
  return rows;
}

namespace {

/// Copies the bytes of values[first..end) of one column (every `stride`-th
/// value) into the arena.
void CopyBytes(Value* values, size_t first, size_t end, size_t stride, Arena* arena) {
  for (size_t r = first; r < end; ++r) {
    Value& v = values[r * stride];
    if (v.kind == Value::Kind::kBytes && v.size > 0) v = Value::Bytes(arena->Copy(v.as_bytes()));
  }
}

}  // namespace

Result<size_t> ParquetReader::ReadFlatRows(Arena* arena, size_t max_rows,
                                           std::vector<Value>* values) {
  auto ready = EnsureRowGroup();
  if (!ready) return std::unexpected(WithPath(std::move(ready).error()));
  if (!*ready) return size_t{0};
  const auto& fields = projected_.root.children;
  const size_t width = fields.size();
  const size_t n =
      static_cast<size_t>(std::min<int64_t>(static_cast<int64_t>(max_rows), rows_left_));
  const size_t base = values->size();
  values->resize(base + n * width);
  Value* rows = values->data() + base;
  for (size_t i = 0; i < width; ++i) {
    ColumnChunkReader& c = *columns_[fields[i].leader];
    const bool bytes = c.leaf().conversion == LeafConversion::kBytes;
    Value* out = rows + i;
    size_t r = 0;
    size_t page_first = 0;  // the first row of this batch taken from the current page
    while (r < n) {
      if (!c.page_has_more()) {
        // The page's buffers are reused for the next one.
        if (bytes && options_.borrow_bytes) CopyBytes(out, page_first, r, width, arena);
        auto has = c.Peek();
        if (!has) {
          return std::unexpected(WithPath(std::move(has).error().WithContext(
              fmt::format("row group {}", next_row_group_ - 1))));
        }
        if (!*has) {
          return std::unexpected(EndsEarly(c));
        }
        page_first = r;
      }
      const size_t k = c.TakeFlat(n - r, out + r * width, width);
      if (bytes && !options_.borrow_bytes) CopyBytes(out, r, r + k, width, arena);
      r += k;
    }
  }
  rows_left_ -= static_cast<int64_t>(n);
  return n;
}

Result<bool> ParquetReader::Next(Arena* arena, std::vector<Value>* row) {
  row->clear();
  FLOE_ASSIGN_OR_RETURN(size_t n, ReadBatch(arena, 1, row));
  return n == 1;
}

}  // namespace floe::format::parquet
