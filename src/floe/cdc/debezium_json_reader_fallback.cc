// The Debezium JSON decoder on simdjson's portable kernel, for CPUs without AVX2.
#define FLOE_DBZ_KERNEL fallback_kernel
#include "debezium_json_reader_decode.inc"
#include "debezium_json_reader_decode_values.inc"
