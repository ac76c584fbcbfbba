// pipeline: and the whole file: ParsePipelineDefinition.

#include <algorithm>

#include "floe/common/ascii.h"
#include "floe/io/file_io.h"
#include "floe/pipeline/block_reader.h"
#include "floe/pipeline/document.h"
#include "floe/pipeline/pipeline_definition.h"
#include "floe/pipeline/section_parsers.h"
#include "floe/pipeline/values.h"

namespace floe::pipeline {
namespace {

const std::vector<std::string> kSections = {"source", "sink", "route", "transform", "pipeline"};
const std::vector<std::string> kPipelineKeys = {
    "name",      "parallelism", "schema.change.behavior", "checkpoint.interval",
    "state.dir", "http",        "local-time-zone",        "execution.runtime-mode",
};

/// "pipeline.yaml" -> "pipeline"; "dir/shop.yml" -> "dir/shop".
std::string WithoutExtension(std::string_view file) {
  size_t slash = file.rfind('/');
  size_t dot = file.rfind('.');
  if (dot != std::string_view::npos && (slash == std::string_view::npos || dot > slash + 1)) {
    file = file.substr(0, dot);
  }
  return std::string(file);
}

Result<HttpAddress> ParseHttpAddress(std::string_view text) {
  size_t colon = text.rfind(':');
  if (colon == std::string_view::npos) {
    return InvalidArgument("'{}' is not host:port (e.g. 127.0.0.1:9249)", text);
  }
  HttpAddress address;
  address.host = std::string(text.substr(0, colon));
  if (address.host.size() >= 2 && address.host.front() == '[' && address.host.back() == ']') {
    address.host = address.host.substr(1, address.host.size() - 2);
  }
  if (address.host.empty()) {
    return InvalidArgument(
        "'{}' has no host (e.g. 127.0.0.1:9249, or 0.0.0.0:9249 for every "
        "interface)",
        text);
  }
  auto port = ParseInteger(text.substr(colon + 1), 1, 65535);
  if (!port) return InvalidArgument("'{}': the port {}", text, port.error().message());
  address.port = static_cast<int>(*port);
  return address;
}

}  // namespace

bool IsSecretSetting(std::string_view key, bool from_environment) {
  std::string k = AsciiLower(key);
  for (std::string_view word : {"password", "secret", "token", "credential"}) {
    if (k.find(word) != std::string::npos) return true;
  }
  return from_environment && (k.ends_with("uri") || k.ends_with("url"));
}

Result<PipelineSettings> ParsePipelineSection(const DocumentEntry* section,
                                              std::string_view file_name,
                                              const std::string& base_dir) {
  PipelineSettings p;
  std::string stem = WithoutExtension(file_name);
  size_t slash = stem.rfind('/');
  p.name = slash == std::string::npos ? stem : stem.substr(slash + 1);
  p.state_dir = io::AbsoluteLocalPath(p.name + ".floe-state", base_dir);
  if (section == nullptr || section->value.is_null()) return p;
  FLOE_ASSIGN_OR_RETURN(
      BlockReader r, BlockReader::OfMapping(section->value, "pipeline",
                                            "a mapping of settings (name: ..., parallelism: ...)"));
  r.Declare(kPipelineKeys, {});
  FLOE_RETURN_IF_ERROR(r.Finish());
  FLOE_ASSIGN_OR_RETURN(auto name, r.String("name"));
  if (name) {
    if (name->empty()) return r.Fail(*r.Get("name"), "the name is empty");
    p.name = *name;
  }
  FLOE_ASSIGN_OR_RETURN(auto parallelism, r.Integer("parallelism", 1, 256));
  if (parallelism) p.parallelism = static_cast<int>(*parallelism);
  FLOE_ASSIGN_OR_RETURN(auto behavior,
                        r.Choice("schema.change.behavior", SchemaChangeBehaviorNames()));
  if (behavior) p.schema_change_behavior = static_cast<SchemaChangeBehavior>(*behavior);
  FLOE_ASSIGN_OR_RETURN(auto interval,
                        r.Duration("checkpoint.interval", std::chrono::milliseconds(1)));
  if (interval) p.checkpoint_interval = *interval;
  FLOE_ASSIGN_OR_RETURN(auto state_dir, r.String("state.dir"));
  if (state_dir) {
    if (state_dir->empty()) return r.Fail(*r.Get("state.dir"), "the folder name is empty");
    p.state_dir = io::AbsoluteLocalPath(*state_dir, base_dir);
  }
  FLOE_ASSIGN_OR_RETURN(auto http, r.Parsed("http", ParseHttpAddress));
  if (http) p.http = *http;
  FLOE_ASSIGN_OR_RETURN(auto time_zone, r.String("local-time-zone"));
  if (time_zone) p.local_time_zone = *time_zone;
  FLOE_ASSIGN_OR_RETURN(auto mode, r.String("execution.runtime-mode"));
  if (mode && AsciiLower(*mode) != "streaming") {
    const DocumentEntry* entry = r.Get("execution.runtime-mode");
    return NotSupported(
        "{}: pipeline.execution.runtime-mode: '{}' is not supported yet (floe "
        "runs STREAMING; scan.startup.mode: snapshot reads the tables once)",
        entry->value.origin.ToString(), *mode);
  }
  return p;
}

namespace {

Result<PipelineDefinition> Parse(std::string_view yaml_text, std::string_view file_name,
                                 const Environment& env,
                                 const std::vector<std::string>& overrides) {
  FLOE_ASSIGN_OR_RETURN(DocumentValue root, LoadDocument(yaml_text, file_name, env));
  for (const auto& override_text : overrides) {
    FLOE_RETURN_IF_ERROR(ApplyOverride(root, override_text));
  }
  for (const auto& entry : root.entries) {
    if (std::find(kSections.begin(), kSections.end(), entry.key) == kSections.end()) {
      return InvalidArgument("{}: unknown section '{}'{} (sections: {})",
                             entry.key_origin.ToString(), entry.key,
                             DidYouMean(entry.key, kSections), JoinNames(kSections));
    }
  }
  if (const DocumentEntry* transform = root.Find("transform")) {
    bool empty = transform->value.is_null() ||
                 (transform->value.is_list() && transform->value.items.empty());
    if (!empty) {
      return NotSupported(
          "{}: transform: not supported yet: floe mirrors tables as they are "
          "(no projections or filters); remove the section",
          transform->key_origin.ToString());
    }
  }
  PipelineDefinition definition;
  definition.file = std::string(file_name);
  std::string absolute = io::AbsoluteLocalPath(file_name);
  definition.base_dir = absolute.substr(0, std::max<size_t>(1, absolute.rfind('/')));
  const DocumentEntry* source = root.Find("source");
  if (source == nullptr) {
    return InvalidArgument(
        "{}: needs a 'source:' section (type: mysql, hostname: ..., tables: "
        "...)",
        file_name);
  }
  FLOE_ASSIGN_OR_RETURN(definition.source, ParseSourceSection(*source, definition.base_dir));
  const DocumentEntry* sink = root.Find("sink");
  if (sink == nullptr) {
    return InvalidArgument("{}: needs a 'sink:' section (type: iceberg, catalog: ...)", file_name);
  }
  FLOE_ASSIGN_OR_RETURN(definition.sink, ParseSinkSection(*sink, definition.base_dir));
  if (const DocumentEntry* route = root.Find("route")) {
    FLOE_ASSIGN_OR_RETURN(definition.routes, ParseRouteSection(*route));
  }
  FLOE_ASSIGN_OR_RETURN(definition.pipeline, ParsePipelineSection(root.Find("pipeline"), file_name,
                                                                  definition.base_dir));
  return definition;
}

}  // namespace

Result<PipelineDefinition> ParsePipelineDefinition(std::string_view yaml_text,
                                                   std::string_view file_name,
                                                   const Environment& env,
                                                   const std::vector<std::string>& overrides) {
  // yaml-cpp and std::regex are caught where they are called; this is the
  // last line for anything else (an allocation failure on hostile input).
  try {
    return Parse(yaml_text, file_name, env, overrides);
  } catch (const std::exception& e) {
    return InvalidArgument("{}: {}", file_name, e.what());
  }
}

}  // namespace floe::pipeline
