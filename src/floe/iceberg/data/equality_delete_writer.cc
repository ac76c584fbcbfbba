#include "floe/iceberg/data/equality_delete_writer.h"

#include <algorithm>

namespace floe::iceberg {

EqualityDeleteWriter::~EqualityDeleteWriter() = default;

Result<std::unique_ptr<EqualityDeleteWriter>> EqualityDeleteWriter::Make(
    io::FileIO& io, std::string location, const types::Schema& schema, PartitionSpec spec,
    std::vector<int32_t> equality_field_ids, DataWriterOptions options,
    std::vector<int32_t> extra_field_ids) {
  if (equality_field_ids.empty()) {
    return InvalidArgument("equality deletes need at least one equality field");
  }
  std::unique_ptr<EqualityDeleteWriter> w(new EqualityDeleteWriter());
  std::vector<types::NestedField> fields;
  const auto& all = schema.fields();
  for (size_t i = 0; i < all.size(); ++i) {
    const types::NestedField& f = all[i];
    const bool is_key = std::find(equality_field_ids.begin(), equality_field_ids.end(), f.id) !=
                        equality_field_ids.end();
    const bool is_extra =
        std::find(extra_field_ids.begin(), extra_field_ids.end(), f.id) != extra_field_ids.end();
    if (!is_key && !is_extra) continue;
    if (!is_key) {
      fields.push_back(f);
      w->positions_.push_back(i);
      continue;
    }
    const types::TypeId type = f.type->id();
    if (!f.type->is_primitive()) {
      return InvalidArgument("equality field '{}' (id {}) is not a primitive column", f.name, f.id);
    }
    if (type == types::TypeId::kFloat || type == types::TypeId::kDouble) {
      return InvalidArgument("equality field '{}' (id {}) is a {} column; the spec forbids them",
                             f.name, f.id, f.type->ToString());
    }
    fields.push_back(f);
    w->positions_.push_back(i);
  }
  for (int32_t id : equality_field_ids) {
    bool found = std::any_of(fields.begin(), fields.end(),
                             [&](const types::NestedField& f) { return f.id == id; });
    if (!found) {
      return InvalidArgument("equality field id {} is not a top-level column of the schema", id);
    }
  }
  for (const PartitionField& pf : spec.fields()) {
    if (std::find(equality_field_ids.begin(), equality_field_ids.end(), pf.source_id) ==
            equality_field_ids.end() &&
        std::find(extra_field_ids.begin(), extra_field_ids.end(), pf.source_id) ==
            extra_field_ids.end()) {
      return InvalidArgument(
          "partition field '{}' has source column '{}' (id {}), which is neither an equality "
          "field nor stored with the deletes: equality deletes could not be placed in the "
          "partition of their rows",
          pf.name, schema.FindColumnName(pf.source_id), pf.source_id);
    }
  }
  w->delete_schema_ = types::Schema(std::move(fields), schema.schema_id());
  w->equality_ids_ = std::move(equality_field_ids);
  w->table_width_ = all.size();
  w->key_.resize(w->positions_.size());
  FLOE_ASSIGN_OR_RETURN(w->writer_, DataWriter::Make(io, std::move(location), w->delete_schema_,
                                                     std::move(spec), std::move(options)));
  return w;
}

Status EqualityDeleteWriter::Delete(types::Row row) {
  if (row.size() != table_width_) {
    return InvalidArgument("equality delete: row has {} values, the table schema has {} fields",
                           row.size(), table_width_);
  }
  for (size_t i = 0; i < positions_.size(); ++i) key_[i] = row[positions_[i]];
  return writer_->Write(types::Row(key_.data(), key_.size()));
}

Status EqualityDeleteWriter::DeleteKey(types::Row key) { return writer_->Write(key); }

Result<std::vector<DataFile>> EqualityDeleteWriter::Close() {
  FLOE_ASSIGN_OR_RETURN(std::vector<DataFile> files, writer_->Close());
  for (DataFile& f : files) {
    f.content = DataFileContent::kEqualityDeletes;
    f.equality_ids = equality_ids_;
  }
  return files;
}

}  // namespace floe::iceberg
