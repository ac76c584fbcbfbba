// simdjson's portable kernel, for CPUs without AVX2.
#define FLOE_JSON_BACKEND fallback_backend
#include "row_json_parse.inc"
