#pragma once
/// The parsers of the sections of a pipeline file, one per section; the
/// entry point is ParsePipelineDefinition (pipeline_definition.h). Internal.

#include <string>
#include <vector>

#include "floe/common/result.h"
#include "floe/pipeline/document.h"
#include "floe/pipeline/pipeline_definition.h"

namespace floe::pipeline {

/// Whether a value under `key` is a secret: always for keys naming a
/// password, secret, token or credential; for keys naming a URI or URL when
/// the value came from the environment.
bool IsSecretSetting(std::string_view key, bool from_environment);

/// `source:` (a mapping). `base_dir` becomes the base_dir of an inline
/// catalog (an iceberg source). Errors as ParsePipelineDefinition.
Result<SourceDefinition> ParseSourceSection(const DocumentEntry& section,
                                            const std::string& base_dir);
/// `sink:` (a mapping). `base_dir` becomes the base_dir of an inline catalog.
Result<SinkDefinition> ParseSinkSection(const DocumentEntry& section, const std::string& base_dir);
/// The `catalog` key of the mapping `r` reads (or its catalog.properties.*
/// keys): a name of the catalog config file, or inline settings whose
/// base_dir is `base_dir`. Errors name `r`'s path ("sink.catalog.type").
class BlockReader;
Result<CatalogDefinition> ParseCatalogKey(BlockReader& r, const std::string& base_dir);
/// `route:` (a list of mappings).
Result<std::vector<Route>> ParseRouteSection(const DocumentEntry& section);
/// `pipeline:` (a mapping; absent: `section` is nullptr). `file_name` gives
/// the defaults of name and state.dir; a relative state.dir is taken from
/// `base_dir`.
Result<PipelineSettings> ParsePipelineSection(const DocumentEntry* section,
                                              std::string_view file_name,
                                              const std::string& base_dir);

}  // namespace floe::pipeline
