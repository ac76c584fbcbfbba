#include "floe/source/split.h"

#include <algorithm>
#include <charconv>
#include <memory>

#include "floe/iceberg/table_properties.h"

namespace floe::source {
namespace {

int64_t Weight(const iceberg::FileScanTask& task, const SplitOptions& options) {
  return std::max(task.data_file.file_size_in_bytes, options.open_file_cost);
}

nlohmann::json FileJson(const iceberg::DataFile& f) {
  nlohmann::json j;
  j["content"] = static_cast<int32_t>(f.content);
  j["path"] = f.file_path;
  j["format"] = f.file_format;
  j["records"] = f.record_count;
  j["size"] = f.file_size_in_bytes;
  if (!f.equality_ids.empty()) j["equality_ids"] = f.equality_ids;
  if (f.referenced_data_file) j["referenced_data_file"] = *f.referenced_data_file;
  if (f.content_offset) j["content_offset"] = *f.content_offset;
  if (f.content_size_in_bytes) j["content_size_in_bytes"] = *f.content_size_in_bytes;
  return j;
}

Result<iceberg::DataFile> FileFromJson(const nlohmann::json& j) {
  iceberg::DataFile f;
  if (!j.is_object() || !j.contains("path") || !j["path"].is_string() || !j.contains("content") ||
      !j["content"].is_number_integer()) {
    return Corruption("split state: a file without a path or content");
  }
  int32_t content = j["content"].get<int32_t>();
  if (content < 0 || content > 2) return Corruption("split state: file content {}", content);
  f.content = static_cast<iceberg::DataFileContent>(content);
  f.file_path = j["path"].get<std::string>();
  f.file_format = j.value("format", std::string(iceberg::kFormatParquet));
  f.record_count = j.value("records", int64_t{0});
  f.file_size_in_bytes = j.value("size", int64_t{0});
  if (j.contains("equality_ids")) {
    if (!j["equality_ids"].is_array()) return Corruption("split state: equality_ids");
    for (const auto& id : j["equality_ids"]) {
      if (!id.is_number_integer()) return Corruption("split state: equality_ids");
      f.equality_ids.push_back(id.get<int32_t>());
    }
  }
  if (j.contains("referenced_data_file") && j["referenced_data_file"].is_string()) {
    f.referenced_data_file = j["referenced_data_file"].get<std::string>();
  }
  for (auto [key, field] : {std::pair{"content_offset", &f.content_offset},
                            std::pair{"content_size_in_bytes", &f.content_size_in_bytes}}) {
    if (!j.contains(key)) continue;
    if (!j[key].is_number_integer()) return Corruption("split state: {}", key);
    *field = j[key].get<int64_t>();
  }
  return f;
}

}  // namespace

SplitOptions SplitOptionsFor(const std::map<std::string, std::string>& properties,
                             const SplitOverrides& overrides) {
  SplitOptions options;
  auto read = [&](std::string_view key, auto* out) {
    auto it = properties.find(std::string(key));
    if (it == properties.end()) return;
    std::remove_reference_t<decltype(*out)> v = 0;
    const std::string& s = it->second;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec == std::errc() && end == s.data() + s.size() && v > 0) *out = v;
  };
  read(iceberg::table_properties::kReadSplitTargetSize, &options.target_size);
  read(iceberg::table_properties::kReadSplitOpenFileCost, &options.open_file_cost);
  read(iceberg::table_properties::kReadSplitPlanningLookback, &options.lookback);
  if (overrides.target_size > 0) options.target_size = overrides.target_size;
  if (overrides.open_file_cost > 0) options.open_file_cost = overrides.open_file_cost;
  if (overrides.lookback > 0) options.lookback = overrides.lookback;
  if (overrides.target_size <= 0) options.min_splits = std::max(1, overrides.min_splits);
  return options;
}

namespace {

/// A file or a part of one, with its weight.
struct PackItem {
  size_t task;
  FileRange range;
  int64_t weight;
};

/// The files and parts of files `tasks` are read as, in order.
std::vector<PackItem> PackItems(const std::vector<iceberg::FileScanTask>& tasks,
                                const SplitOptions& options) {
  std::vector<PackItem> items;
  for (size_t t = 0; t < tasks.size(); ++t) {
    const iceberg::DataFile& f = tasks[t].data_file;
    const std::vector<int64_t>& offsets = f.split_offsets;
    const bool sorted = std::is_sorted(offsets.begin(), offsets.end());
    if (f.file_size_in_bytes <= options.target_size || offsets.size() < 2 || !sorted) {
      items.push_back({t, FileRange{}, Weight(tasks[t], options)});
      continue;
    }
    size_t part_begin = 0;
    int64_t part_start = 0;
    for (size_t i = 1; i <= offsets.size(); ++i) {
      const bool last = i == offsets.size();
      if (!last && offsets[i] - offsets[part_begin] < options.target_size) continue;
      FileRange range{part_start, last ? std::nullopt : std::optional<int64_t>(offsets[i])};
      const int64_t end = last ? f.file_size_in_bytes : offsets[i];
      items.push_back({t, range, std::max(end - part_start, options.open_file_cost)});
      if (!last) {
        part_begin = i;
        part_start = offsets[i];
      }
    }
  }
  return items;
}

/// Bin packing with a look-back over the open bins: each bin is the items' indexes.
std::vector<std::vector<size_t>> PackBins(const std::vector<PackItem>& items,
                                          const SplitOptions& options) {
  struct Bin {
    std::vector<size_t> items;
    int64_t weight = 0;
  };
  const size_t lookback = static_cast<size_t>(std::max(1, options.lookback));
  std::vector<std::vector<size_t>> closed;
  std::vector<Bin> open;  // in the order they were opened
  for (size_t i = 0; i < items.size(); ++i) {
    const int64_t w = items[i].weight;
    auto fits = std::find_if(open.begin(), open.end(),
                             [&](const Bin& b) { return b.weight + w <= options.target_size; });
    if (fits != open.end()) {
      fits->items.push_back(i);
      fits->weight += w;
      continue;
    }
    open.push_back(Bin{{i}, w});
    if (open.size() > lookback) {
      auto fullest = std::max_element(open.begin(), open.end(), [](const Bin& a, const Bin& b) {
        return a.weight < b.weight;  // the first of equals
      });
      closed.push_back(std::move(fullest->items));
      open.erase(fullest);
    }
  }
  for (Bin& b : open) closed.push_back(std::move(b.items));
  return closed;
}

}  // namespace

std::vector<IcebergSplit> PackSplits(iceberg::SnapshotId snapshot_id, int32_t schema_id,
                                     std::vector<iceberg::FileScanTask> tasks,
                                     const SplitOptions& options) {
  std::vector<PackItem> items = PackItems(tasks, options);
  std::vector<std::vector<size_t>> bins = PackBins(items, options);
  if (options.min_splits > 1 && bins.size() < static_cast<size_t>(options.min_splits)) {
    int64_t total = 0;
    for (const PackItem& item : items) total += item.weight;
    const int64_t target =
        std::max<int64_t>(1, (total + options.min_splits - 1) / options.min_splits);
    if (target < options.target_size) {
      SplitOptions smaller = options;
      smaller.target_size = target;
      smaller.min_splits = 1;
      return PackSplits(snapshot_id, schema_id, std::move(tasks), smaller);
    }
  }
  std::vector<IcebergSplit> splits;
  for (const std::vector<size_t>& bin : bins) {
    IcebergSplit& split =
        splits.emplace_back(IcebergSplit{snapshot_id, schema_id, {}, {}, false, std::nullopt});
    for (size_t i : bin) {
      split.tasks.push_back(tasks[items[i].task]);
      split.ranges.push_back(items[i].range);
    }
  }
  return splits;
}

nlohmann::json SplitToJson(const IcebergSplit& split) {
  nlohmann::json j;
  j["snapshot"] = split.snapshot_id;
  j["schema"] = split.schema_id;
  nlohmann::json tasks = nlohmann::json::array();
  for (const auto& t : split.tasks) {
    nlohmann::json tj;
    tj["file"] = FileJson(t.data_file);
    tj["spec"] = t.spec_id;
    tj["seq"] = t.data_sequence_number;
    const FileRange range = split.RangeOf(&t - split.tasks.data());
    if (!range.whole()) {
      tj["start"] = range.start;
      if (range.end) tj["end"] = *range.end;
    }
    if (!t.deletes.empty()) {
      nlohmann::json dj = nlohmann::json::array();
      for (const auto& d : t.deletes) {
        nlohmann::json e;
        e["file"] = FileJson(d->file);
        e["spec"] = d->spec_id;
        e["seq"] = d->data_sequence_number;
        dj.push_back(std::move(e));
      }
      tj["deletes"] = std::move(dj);
    }
    tasks.push_back(std::move(tj));
  }
  j["tasks"] = std::move(tasks);
  if (split.whole_table) j["whole"] = true;
  if (split.changelog) {
    j["changelog"] = true;
    j["parent"] = split.parent ? nlohmann::json(*split.parent) : nlohmann::json(nullptr);
  }
  return j;
}

Result<IcebergSplit> SplitFromJson(const nlohmann::json& j) {
  if (!j.is_object() || !j.contains("snapshot") || !j["snapshot"].is_number_integer() ||
      !j.contains("schema") || !j["schema"].is_number_integer() || !j.contains("tasks") ||
      !j["tasks"].is_array()) {
    return Corruption("split state: expected snapshot, schema and tasks");
  }
  IcebergSplit split;
  split.snapshot_id = j["snapshot"].get<int64_t>();
  split.schema_id = j["schema"].get<int32_t>();
  split.changelog = j.value("changelog", false);
  split.whole_table = j.value("whole", false);
  if (j.contains("parent") && j["parent"].is_number_integer()) {
    split.parent = j["parent"].get<int64_t>();
  }
  for (const auto& tj : j["tasks"]) {
    if (!tj.is_object() || !tj.contains("file"))
      return Corruption("split state: a task without a file");
    iceberg::FileScanTask task;
    FLOE_ASSIGN_OR_RETURN(task.data_file, FileFromJson(tj["file"]));
    task.spec_id = tj.value("spec", 0);
    task.data_sequence_number = tj.value("seq", int64_t{0});
    if (tj.contains("deletes")) {
      if (!tj["deletes"].is_array()) return Corruption("split state: deletes");
      for (const auto& dj : tj["deletes"]) {
        if (!dj.is_object() || !dj.contains("file")) return Corruption("split state: deletes");
        auto entry = std::make_shared<iceberg::DeleteFileEntry>();
        FLOE_ASSIGN_OR_RETURN(entry->file, FileFromJson(dj["file"]));
        entry->spec_id = dj.value("spec", 0);
        entry->data_sequence_number = dj.value("seq", int64_t{0});
        task.deletes.push_back(std::move(entry));
      }
    }
    FileRange range;
    range.start = tj.value("start", int64_t{0});
    if (tj.contains("end") && tj["end"].is_number_integer()) range.end = tj["end"].get<int64_t>();
    split.tasks.push_back(std::move(task));
    split.ranges.push_back(range);
  }
  return split;
}

}  // namespace floe::source
