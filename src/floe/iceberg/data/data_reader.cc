#include "floe/iceberg/data/data_reader.h"

#include <limits>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>
#include <new>
#include <set>

#include <nlohmann/json.hpp>

#include "floe/common/one_of.h"
#include "floe/iceberg/single_value.h"
#include "floe/types/row_json.h"

namespace floe::iceberg {

namespace {

using types::TypeId;
using types::Value;
using Kind = ValueAdapter::Kind;

constexpr int64_t kMicrosPerDay = 86'400'000'000LL;

Value* NewValues(Arena* arena, size_t n) {
  void* p = arena->Allocate(sizeof(Value) * std::max<size_t>(n, 1), alignof(Value));
  Value* values = static_cast<Value*>(p);
  for (size_t i = 0; i < n; ++i) new (&values[i]) Value();
  return values;
}

void CollectTopLevelIds(const ExprPtr& e, const types::Schema& schema, std::set<int32_t>* ids) {
  if (e == nullptr) return;
  switch (e->op()) {
    case Operation::kTrue:
    case Operation::kFalse:
      return;
    case Operation::kAnd:
    case Operation::kOr:
      CollectTopLevelIds(e->left(), schema, ids);
      CollectTopLevelIds(e->right(), schema, ids);
      return;
    case Operation::kNot:
      CollectTopLevelIds(e->left(), schema, ids);
      return;
    default:
      break;
  }
  if (!e->positions().empty()) {
    size_t p = static_cast<size_t>(e->positions()[0]);
    if (p < schema.fields().size()) ids->insert(schema.fields()[p].id);
  }
}

bool IsParquet(const DataFile& file) {
  std::string format = file.file_format;
  std::transform(format.begin(), format.end(), format.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return format == kFormatParquet;
}

/// Whether Parquet statistics of a leaf of this type are used for row group
/// pruning: exact integer and string orders only (floats have NaN rules,
/// decimals and binaries signed/unsigned pitfalls in old writers).
bool StatsUsable(const format::parquet::ReaderLeaf& leaf) {
  if (leaf.conversion == format::parquet::LeafConversion::kInt96Timestamp ||
      leaf.conversion == format::parquet::LeafConversion::kUint32ToInt64) {
    return false;
  }
  return OneOf(leaf.type->id(), TypeId::kInt, TypeId::kLong, TypeId::kDate, TypeId::kTime,
               TypeId::kTimestamp, TypeId::kTimestampTz, TypeId::kString);
}

/// The fields a reader reads: the projection, then the top-level columns the
/// filter (nullptr: none) and the equality deletes (nullptr: none) need.
std::vector<types::NestedField> FieldsToRead(const types::Schema& projected,
                                             const types::Schema& table_schema,
                                             const ExprPtr& filter, const DeleteFilter* deletes) {
  std::vector<types::NestedField> read_fields = projected.fields();
  std::set<int32_t> have;
  for (const auto& f : read_fields) have.insert(f.id);
  if (filter != nullptr) {
    std::set<int32_t> ids;
    CollectTopLevelIds(filter, table_schema, &ids);
    for (const auto& f : table_schema.fields()) {
      if (ids.count(f.id) != 0 && have.insert(f.id).second) read_fields.push_back(f);
    }
  }
  if (deletes != nullptr) {
    for (const auto& f : deletes->equality_fields()) {
      if (have.insert(f.id).second) read_fields.push_back(f);
    }
  }
  return read_fields;
}

/// Whether a row group whose statistics are `st` may hold rows that match
/// `metrics`: the statistics of top-level leaves as Iceberg file metrics.
bool RowGroupMightMatch(const format::parquet::RowGroupStats& st,
                        const format::parquet::FileSchema& fs,
                        const InclusiveMetricsEvaluator& metrics) {
  std::map<int32_t, int64_t> value_counts, null_counts;
  std::map<int32_t, std::string> lower, upper;
  for (const format::parquet::ColumnStats& c : st.columns) {
    if (c.leaf < 0 || static_cast<size_t>(c.leaf) >= fs.leaves.size()) continue;
    const format::parquet::ReaderLeaf& leaf = fs.leaves[c.leaf];
    if (leaf.max_rep != 0) continue;
    value_counts[c.field_id] = c.num_values;
    if (c.null_count) null_counts[c.field_id] = *c.null_count;
    if (!StatsUsable(leaf)) continue;
    if (c.min) {
      auto s = SerializeSingleValue(*leaf.type, *c.min);
      if (s) lower[c.field_id] = std::move(*s);
    }
    if (c.max) {
      auto s = SerializeSingleValue(*leaf.type, *c.max);
      if (s) upper[c.field_id] = std::move(*s);
    }
  }
  FileMetrics m;
  m.record_count = st.num_rows;
  m.value_counts = &value_counts;
  m.null_value_counts = &null_counts;
  m.lower_bounds = &lower;
  m.upper_bounds = &upper;
  return metrics.Eval(m);
}

}  // namespace

Result<ValueAdapter> MakeValueAdapter(const types::Type& file_type, const types::Type& read_type,
                                      std::string_view column) {
  ValueAdapter a;
  auto incompatible = [&]() {
    return SchemaIncompatible("column '{}': the file's {} cannot be read as {}", column,
                              file_type.ToString(), read_type.ToString());
  };
  if (file_type.is_primitive() || read_type.is_primitive()) {
    if (!file_type.is_primitive() || !read_type.is_primitive()) return incompatible();
    const TypeId f = file_type.id(), r = read_type.id();
    if (f == r) {
      if (f == TypeId::kDecimal && (file_type.scale() != read_type.scale() ||
                                    file_type.precision() > read_type.precision())) {
        return incompatible();
      }
      if (f == TypeId::kFixed && file_type.length() != read_type.length()) return incompatible();
      a.kind = Kind::kCopy;
      return a;
    }
    if (f == TypeId::kInt && r == TypeId::kLong) {
      a.kind = Kind::kIntToLong;
    } else if (f == TypeId::kFloat && r == TypeId::kDouble) {
      a.kind = Kind::kFloatToDouble;
    } else if (f == TypeId::kDate && (r == TypeId::kTimestamp || r == TypeId::kTimestampTz)) {
      a.kind = Kind::kDateToTimestamp;
    } else if ((f == TypeId::kString && r == TypeId::kBinary) ||
               (f == TypeId::kBinary && r == TypeId::kString)) {
      a.kind = Kind::kCopy;  // same bytes (files written by tools that mix them up)
    } else {
      return incompatible();
    }
    return a;
  }
  if (file_type.id() != read_type.id()) return incompatible();
  bool all_copy = true;
  switch (read_type.id()) {
    case TypeId::kStruct: {
      const auto& file_fields = file_type.fields();
      const auto& read_fields = read_type.fields();
      a.kind = Kind::kStruct;
      for (size_t i = 0; i < read_fields.size(); ++i) {
        int source = -1;
        for (size_t j = 0; j < file_fields.size(); ++j) {
          if (file_fields[j].id == read_fields[i].id) source = static_cast<int>(j);
        }
        std::string name = std::string(column) + "." + read_fields[i].name;
        ValueAdapter child;
        if (source < 0) {
          child.kind = Kind::kNull;
        } else {
          FLOE_ASSIGN_OR_RETURN(
              child, MakeValueAdapter(*file_fields[source].type, *read_fields[i].type, name));
          child.source = source;
        }
        if (child.kind != Kind::kCopy || child.source != static_cast<int>(i)) all_copy = false;
        a.children.push_back(std::move(child));
      }
      if (file_fields.size() != read_fields.size()) all_copy = false;
      break;
    }
    case TypeId::kList: {
      a.kind = Kind::kList;
      FLOE_ASSIGN_OR_RETURN(ValueAdapter e,
                            MakeValueAdapter(*file_type.element().type, *read_type.element().type,
                                             std::string(column) + ".element"));
      all_copy = e.kind == Kind::kCopy;
      a.children.push_back(std::move(e));
      break;
    }
    case TypeId::kMap: {
      a.kind = Kind::kMap;
      FLOE_ASSIGN_OR_RETURN(ValueAdapter k,
                            MakeValueAdapter(*file_type.key().type, *read_type.key().type,
                                             std::string(column) + ".key"));
      FLOE_ASSIGN_OR_RETURN(ValueAdapter v,
                            MakeValueAdapter(*file_type.value().type, *read_type.value().type,
                                             std::string(column) + ".value"));
      all_copy = k.kind == Kind::kCopy && v.kind == Kind::kCopy;
      a.children.push_back(std::move(k));
      a.children.push_back(std::move(v));
      break;
    }
    default:
      return incompatible();
  }
  if (all_copy) {
    a.kind = Kind::kCopy;
    a.children.clear();
  }
  return a;
}

Value AdaptValue(const ValueAdapter& a, const Value& v, Arena* arena) {
  if (a.kind == Kind::kCopy) return v;
  if (a.kind == Kind::kNull || v.is_null()) return Value::Null();
  switch (a.kind) {
    case Kind::kIntToLong:
      return v.kind == Value::Kind::kInt32 ? Value::Int64(v.i32) : v;
    case Kind::kFloatToDouble:
      return v.kind == Value::Kind::kFloat ? Value::Double(static_cast<double>(v.f32)) : v;
    case Kind::kDateToTimestamp:
      return v.kind == Value::Kind::kInt32 ? Value::Int64(int64_t{v.i32} * kMicrosPerDay) : v;
    case Kind::kStruct: {
      if (v.kind != Value::Kind::kStruct) return v;
      const size_t n = a.children.size();
      Value* out = NewValues(arena, n);
      for (size_t i = 0; i < n; ++i) {
        const ValueAdapter& c = a.children[i];
        if (c.source < 0 || static_cast<uint32_t>(c.source) >= v.size) continue;
        out[i] = AdaptValue(c, v.children[c.source], arena);
      }
      return Value::Struct(out, n);
    }
    case Kind::kList: {
      if (v.kind != Value::Kind::kList) return v;
      Value* out = NewValues(arena, v.size);
      for (uint32_t i = 0; i < v.size; ++i)
        out[i] = AdaptValue(a.children[0], v.children[i], arena);
      return Value::List(out, v.size);
    }
    case Kind::kMap: {
      if (v.kind != Value::Kind::kMap) return v;
      Value* out = NewValues(arena, v.size);
      for (uint32_t i = 0; i + 1 < v.size; i += 2) {
        out[i] = AdaptValue(a.children[0], v.children[i], arena);
        out[i + 1] = AdaptValue(a.children[1], v.children[i + 1], arena);
      }
      return Value::Map(out, v.size / 2);
    }
    default:
      return v;
  }
}

int64_t RowGroupOffset(const format::parquet::RowGroup& rg) {
  if (!rg.columns.empty() && rg.columns[0].meta_data) {
    const format::parquet::ColumnMetaData& m = *rg.columns[0].meta_data;
    if (m.dictionary_page_offset && *m.dictionary_page_offset > 0 &&
        *m.dictionary_page_offset < m.data_page_offset) {
      return *m.dictionary_page_offset;
    }
    return m.data_page_offset;
  }
  if (rg.file_offset) return *rg.file_offset;
  return rg.columns.empty() ? 0 : rg.columns[0].file_offset;
}

namespace {

// One bound predicate of RebindToSchema.
Result<ExprPtr> RebindPredicate(const ExprPtr& e, const types::Schema& from,
                                const types::Schema& to) {
  if (!e->is_bound() || e->positions().empty()) {
    return InvalidArgument("filter {} is not bound", e->ToString());
  }
  size_t p = static_cast<size_t>(e->positions()[0]);
  if (p >= from.fields().size()) {
    return InvalidArgument("filter {}: position {} is outside the schema", e->ToString(), p);
  }
  const int32_t top_id = from.fields()[p].id;
  int found = -1;
  for (size_t i = 0; i < to.fields().size(); ++i) {
    if (to.fields()[i].id == top_id) found = static_cast<int>(i);
  }
  if (found < 0) {
    return InvalidArgument("filter {}: column with field id {} is not read", e->ToString(), top_id);
  }
  std::vector<int> positions = e->positions();
  positions[0] = found;
  return Expression::BoundPredicate(e->op(), e->field_id(), e->column(), e->type(),
                                    std::move(positions), e->literals());
}

}  // namespace

Result<ExprPtr> RebindToSchema(const ExprPtr& bound, const types::Schema& from,
                               const types::Schema& to) {
  return MapPredicates(bound, [&](const ExprPtr& e) { return RebindPredicate(e, from, to); });
}

Result<std::unique_ptr<DataReader>> DataReader::Open(io::FileIO& io, const FileScanTask& task,
                                                     const types::Schema& table_schema,
                                                     const types::Schema& projected,
                                                     const ExprPtr& bound_filter,
                                                     DataReaderOptions options) {
  const std::string& path = task.data_file.file_path;
  if (!IsParquet(task.data_file)) {
    return NotSupported("data file {}: format '{}' is not supported (only Parquet)", path,
                        task.data_file.file_format);
  }
  std::unique_ptr<DataReader> r(new DataReader());
  r->path_ = path;
  r->projected_ = projected;
  r->options_ = options;
  if (r->options_.batch_rows == 0) r->options_.batch_rows = 1024;
  auto context = [&path](Error e) { return std::move(e).WithContext("reading data file " + path); };

  if (!task.deletes.empty()) {
    auto loaded = DeleteFilter::Load(io, path, task.deletes, table_schema);
    if (!loaded) return std::unexpected(context(std::move(loaded).error()));
    r->deletes_ = std::move(*loaded);
    if (r->deletes_->empty()) r->deletes_.reset();
  }
  const bool trivial_filter = bound_filter == nullptr || bound_filter->op() == Operation::kTrue;
  std::vector<types::NestedField> read_fields = FieldsToRead(
      projected, table_schema, trivial_filter ? nullptr : bound_filter, r->deletes_.get());
  r->read_schema_ = types::Schema(read_fields, table_schema.schema_id());

  FLOE_ASSIGN_OR_RETURN(auto input, io.OpenInput(path));
  auto opened = format::parquet::ParquetReader::Open(std::move(input), options.parquet);
  if (!opened) return std::unexpected(context(std::move(opened).error()));
  r->reader_ = std::move(*opened);
  if (auto s = r->MatchColumns(read_fields); !s) {
    return std::unexpected(context(std::move(s).error()));
  }
  r->pass_through_ = !r->deletes_ && trivial_filter && r->ReadsFileColumnsAsTheyAre();
  if (r->deletes_) {
    if (auto s = r->deletes_->Bind(r->read_schema_); !s) {
      return std::unexpected(context(std::move(s).error()));
    }
  }
  std::optional<InclusiveMetricsEvaluator> metrics;
  if (!trivial_filter) {
    FLOE_ASSIGN_OR_RETURN(metrics, r->BindFilter(bound_filter, table_schema));
  }
  if (metrics || options.split_start > 0 || options.split_end.has_value()) {
    r->FilterRowGroups(std::move(metrics));
  }
  return r;
}

Result<Value> InitialDefaultValue(const types::NestedField& field, Arena* arena) {
  if (!field.initial_default) return Value::Null();
  auto fail = [&field](std::string_view why) {
    return Corruption("column '{}' (field id {}): initial-default {} {}", field.name, field.id,
                      *field.initial_default, why);
  };
  nlohmann::json value = nlohmann::json::parse(*field.initial_default, nullptr, false);
  if (value.is_discarded()) return fail("is not JSON");
  if (value.is_null()) return Value::Null();
  if (!field.type->is_primitive()) {
    return NotSupported("column '{}' (field id {}): initial-default of a nested column", field.name,
                        field.id);
  }
  const types::TypeId id = field.type->id();
  if (id == types::TypeId::kBinary || id == types::TypeId::kFixed) {
    // Spec Appendix D: binary and fixed are hexadecimal strings.
    if (!value.is_string()) return fail("is not a hexadecimal string");
    const std::string& hex = value.get_ref<const std::string&>();
    if (hex.size() % 2 != 0) return fail("has an odd number of hexadecimal digits");
    std::string bytes(hex.size() / 2, '\0');
    for (size_t i = 0; i < bytes.size(); ++i) {
      const char* digits = hex.data() + 2 * i;
      uint8_t byte = 0;
      const auto [end, ec] = std::from_chars(digits, digits + 2, byte, 16);
      if (ec != std::errc() || end != digits + 2) return fail("is not a hexadecimal string");
      bytes[i] = static_cast<char>(byte);
    }
    return Value::Bytes(arena->Copy(bytes));
  }
  // Every other primitive's JSON single-value form is the one of floe's JSON
  // rows (docs/json-rows.md): numbers, strings, ISO dates and times, decimals
  // as strings.
  types::NestedField column = field;
  column.required = false;
  column.initial_default.reset();
  column.write_default.reset();
  const types::Schema schema({column});
  nlohmann::json row = nlohmann::json::object();
  row[column.name] = std::move(value);
  types::JsonRowParser parser(schema);
  auto parsed = parser.Parse(row.dump(), arena);
  if (!parsed) return fail("does not fit the column's type: " + parsed.error().message());
  return (*parsed)[0];
}

Status DataReader::MatchColumns(const std::vector<types::NestedField>& read_fields) {
  format::parquet::ParquetReader& reader = *reader_;
  const types::Schema& file_schema = reader.parquet_schema().schema;
  std::vector<int32_t> file_ids;
  std::vector<const types::NestedField*> file_fields(read_fields.size(), nullptr);
  for (size_t i = 0; i < read_fields.size(); ++i) {
    for (const auto& f : file_schema.fields()) {
      if (f.id == read_fields[i].id) file_fields[i] = &f;
    }
    if (file_fields[i] != nullptr) file_ids.push_back(read_fields[i].id);
  }
  // Reading no column at all would select every column: read the first one
  // to count rows.
  if (file_ids.empty() && !file_schema.fields().empty()) {
    file_ids.push_back(file_schema.fields()[0].id);
  }
  FLOE_RETURN_IF_ERROR(reader.Project(file_ids));
  const auto& projected_file = reader.schema().fields();
  width_ = projected_file.size();
  columns_.resize(read_fields.size());
  for (size_t i = 0; i < read_fields.size(); ++i) {
    Column& c = columns_[i];
    if (file_fields[i] == nullptr) {
      // A column added after the file was written: its initial-default, or null.
      c.adapter.kind = Kind::kNull;
      FLOE_ASSIGN_OR_RETURN(c.missing, InitialDefaultValue(read_fields[i], &defaults_arena_));
      continue;
    }
    for (size_t j = 0; j < projected_file.size(); ++j) {
      if (projected_file[j].id == read_fields[i].id) c.source = static_cast<int>(j);
    }
    FLOE_ASSIGN_OR_RETURN(c.adapter, MakeValueAdapter(*file_fields[i]->type, *read_fields[i].type,
                                                      read_fields[i].name));
  }
  row_.resize(read_fields.size());
  return {};
}

bool DataReader::ReadsFileColumnsAsTheyAre() const {
  if (width_ != projected_.fields().size() || columns_.size() != width_) return false;
  for (size_t i = 0; i < columns_.size(); ++i) {
    const Column& c = columns_[i];
    if (c.source != static_cast<int>(i) || c.adapter.kind != Kind::kCopy) return false;
  }
  return true;
}

Result<std::optional<InclusiveMetricsEvaluator>> DataReader::BindFilter(
    const ExprPtr& bound_filter, const types::Schema& table_schema) {
  FLOE_ASSIGN_OR_RETURN(ExprPtr rebound, RebindToSchema(bound_filter, table_schema, read_schema_));
  FLOE_ASSIGN_OR_RETURN(RowEvaluator eval, RowEvaluator::Make(rebound));
  filter_.emplace(std::move(eval));
  std::optional<InclusiveMetricsEvaluator> metrics;
  if (options_.row_group_filter) {
    FLOE_ASSIGN_OR_RETURN(InclusiveMetricsEvaluator m,
                          InclusiveMetricsEvaluator::Make(bound_filter));
    metrics.emplace(std::move(m));
  }
  return metrics;
}

void DataReader::FilterRowGroups(std::optional<InclusiveMetricsEvaluator> metrics) {
  format::parquet::ParquetReader& reader = *reader_;
  // Row positions across skipped row groups: the start of each group; and
  // where each group starts in the file, for the split range.
  int64_t start = 0;
  std::vector<int64_t> offsets;
  for (const auto& rg : reader.metadata().row_groups) {
    group_starts_.push_back(start);
    start += rg.num_rows;
    offsets.push_back(RowGroupOffset(rg));
  }
  groups_ = std::make_shared<std::deque<Group>>();
  auto groups = groups_;
  auto starts = group_starts_;
  const int64_t split_start = options_.split_start;
  const int64_t split_end = options_.split_end.value_or(std::numeric_limits<int64_t>::max());
  const format::parquet::FileSchema* fs = &reader.parquet_schema();
  reader.SetRowGroupFilter([groups, starts, offsets, split_start, split_end, fs,
                            metrics](const format::parquet::RowGroupStats& st) {
    bool keep = true;
    if (st.row_group >= 0 && static_cast<size_t>(st.row_group) < offsets.size()) {
      const int64_t at = offsets[st.row_group];
      keep = at >= split_start && at < split_end;
    }
    if (keep && metrics && st.num_rows > 0) keep = RowGroupMightMatch(st, *fs, *metrics);
    if (keep && st.row_group >= 0 && static_cast<size_t>(st.row_group) < starts.size()) {
      groups->push_back(Group{starts[st.row_group], st.num_rows});
    }
    return keep;
  });
}

int64_t DataReader::NextPosition() {
  if (!groups_) return next_position_++;
  while (!groups_->empty() && groups_->front().rows == 0) groups_->pop_front();
  if (groups_->empty()) return next_position_++;  // not reached: every group is recorded
  Group& g = groups_->front();
  int64_t pos = g.start++;
  --g.rows;
  return pos;
}

Result<size_t> DataReader::ReadBatch(Arena* arena, std::vector<types::Value>* out) {
  const size_t n_out = projected_.fields().size();
  size_t produced = 0;
  if (pass_through_) {
    auto n = reader_->ReadBatch(arena, options_.batch_rows, out);
    if (!n) return std::unexpected(std::move(n).error().WithContext("reading data file " + path_));
    rows_read_ += static_cast<int64_t>(*n);
    return *n;
  }
  while (produced == 0) {
    file_values_.clear();
    auto n = reader_->ReadBatch(arena, options_.batch_rows, &file_values_);
    if (!n) return std::unexpected(std::move(n).error().WithContext("reading data file " + path_));
    if (*n == 0) return size_t{0};
    for (size_t r = 0; r < *n; ++r) {
      const int64_t position = NextPosition();
      ++rows_read_;
      const Value* file_row = file_values_.data() + r * width_;
      for (size_t i = 0; i < columns_.size(); ++i) {
        const Column& c = columns_[i];
        row_[i] = c.source < 0 ? c.missing : AdaptValue(c.adapter, file_row[c.source], arena);
      }
      if (filter_ && !filter_->Eval(row_)) {
        ++rows_filtered_;
        continue;
      }
      if (deletes_ && deletes_->IsDeleted(position, row_)) {
        ++rows_deleted_;
        continue;
      }
      out->insert(out->end(), row_.begin(), row_.begin() + static_cast<std::ptrdiff_t>(n_out));
      ++produced;
    }
  }
  return produced;
}

}  // namespace floe::iceberg
