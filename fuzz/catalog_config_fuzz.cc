// Fuzzes the catalog config parser (floe/iceberg/catalog/catalog_config.h):
// the input is a catalog YAML file in the shape of PyIceberg's
// .pyiceberg.yaml, read for the catalog "default". Nothing may crash, hang,
// throw or fail an assertion; errors are fine. An accepted config must name
// the catalog asked for and have a type, and every value must survive the
// URI helpers that messages and paths go through (redaction is idempotent and
// replaces the password of a user-info part). Seeds and crash regressions:
// tests/fuzz/catalog_config/.

#include <cctype>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "checks.h"
#include "floe/iceberg/catalog/catalog_config.h"
#include "floe/io/file_io.h"

namespace {

using floe::fuzz::Check;

void ExerciseUri(const std::string& value) {
  std::string redacted = floe::io::RedactUri(value);
  Check(floe::io::RedactUri(redacted) == redacted);
  // scheme://user:password@host: the password never survives.
  size_t scheme_end = value.find("://");
  bool has_scheme = scheme_end != std::string::npos && scheme_end > 0;
  for (size_t i = 0; has_scheme && i < scheme_end; ++i) {
    char c = value[i];
    has_scheme =
        std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '-' || c == '.' || c == ':';
  }
  if (has_scheme) {
    size_t start = scheme_end + 3;
    size_t end = value.find_first_of("/?#", start);
    if (end == std::string::npos) end = value.size();
    size_t at = value.rfind('@', end == 0 ? 0 : end - 1);
    size_t colon = value.find(':', start);
    if (at != std::string::npos && at >= start && at < end && colon < at) {
      // The user-info part keeps the user and loses the password.
      Check(redacted.starts_with(value.substr(0, colon + 1) + "***@"));
    }
  }
  (void)floe::io::UriScheme(value);
  (void)floe::io::AbsoluteLocalPath(value, "/base");
  (void)floe::io::PathIsWithin(value, "/base");
  (void)floe::io::PathIsWithin("/base/x", value);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto config = floe::iceberg::ParseCatalogConfig(text, "fuzz.yaml", "default");
  if (!floe::fuzz::Accepted(config)) return 0;
  Check(config->name == "default");
  Check(!config->type.empty());
  for (const auto& [key, value] : config->properties) ExerciseUri(value);
  return 0;
}
