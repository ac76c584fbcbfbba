// simdjson's AVX2 kernel; built with -mavx2 -mbmi -mbmi2 -mpclmul -mlzcnt.
#define FLOE_JSON_BACKEND haswell_backend
#include "row_json_parse.inc"
