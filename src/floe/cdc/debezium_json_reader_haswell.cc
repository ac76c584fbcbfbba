// The Debezium JSON decoder on simdjson's AVX2 kernel; built with
// -mavx2 -mbmi -mbmi2 -mpclmul -mlzcnt (see CMakeLists.txt).
#define FLOE_DBZ_KERNEL haswell_kernel
#include "debezium_json_reader_decode.inc"
#include "debezium_json_reader_decode_values.inc"
