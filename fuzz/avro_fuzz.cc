// Fuzzes the Avro reader: the input is read as a container file and every
// record decoded; then decoded as a single datum of a fixed nested schema,
// with and without resolution to a different reader schema. Any crash, hang or
// huge allocation is a bug; errors are expected.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "floe/format/avro/binary.h"
#include "floe/format/avro/data_file.h"
#include "floe/format/avro/json.h"

namespace {

constexpr const char* kWriter = R"({"type":"record","name":"entry","fields":[
  {"name":"status","type":"int","field-id":0},
  {"name":"id","type":["null","long"],"field-id":1},
  {"name":"file","type":{"type":"record","name":"r2","fields":[
    {"name":"path","type":"string","field-id":100},
    {"name":"kind","type":{"type":"enum","name":"K","symbols":["DATA","DELETES"]},"field-id":101},
    {"name":"sizes","type":["null",{"type":"array","items":{"type":"record","name":"kv",
       "fields":[{"name":"key","type":"int"},{"name":"value","type":"long"}]}}]},
    {"name":"bounds","type":{"type":"map","values":"bytes"}},
    {"name":"hash","type":{"type":"fixed","name":"h","size":4}},
    {"name":"ratio","type":"float"},
    {"name":"next","type":["null","r2"]}]},"field-id":2},
  {"name":"nulls","type":{"type":"array","items":"null"}}]})";

constexpr const char* kReader = R"({"type":"record","name":"entry","fields":[
  {"name":"file","type":{"type":"record","name":"r2","fields":[
    {"name":"renamed","type":"bytes","field-id":100},
    {"name":"ratio","type":"double"},
    {"name":"kind","type":{"type":"enum","name":"K","symbols":["DELETES"],"default":"DELETES"}},
    {"name":"next","type":["null","r2"]},
    {"name":"extra","type":"long","default":7}]},"field-id":2},
  {"name":"id","type":["null","double"],"field-id":1}]})";

struct Fixture {
  floe::format::avro::Schema writer = *floe::format::avro::Schema::Parse(kWriter);
  floe::format::avro::Schema reader = *floe::format::avro::Schema::Parse(kReader);
  floe::format::avro::DatumReader plain = *floe::format::avro::DatumReader::Make(writer);
  floe::format::avro::DatumReader resolving =
      *floe::format::avro::DatumReader::Make(writer, reader);
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Fixture* fixture = new Fixture();
  std::string bytes(reinterpret_cast<const char*>(data), size);

  // 1. As a container file, printing every record as JSON too.
  floe::format::avro::ReaderOptions options;
  options.max_block_bytes = 16u << 20;
  auto reader = floe::format::avro::DataFileReader::Open(
      std::make_unique<floe::format::avro::MemoryInputFile>("fuzz.avro", bytes), options);
  if (reader) {
    floe::format::avro::Datum datum;
    std::string json;
    for (int i = 0; i < 100000; ++i) {
      auto more = (*reader)->Next(&datum);
      if (!more || !*more) break;
      json.clear();
      floe::format::avro::AppendDatumJson((*reader)->schema().root(), datum, {}, &json);
    }
    (void)(*reader)->writer_schema().ToString(2);
  }

  // 2. As one datum of a fixed nested schema, plainly and resolved.
  for (const auto* datum_reader : {&fixture->plain, &fixture->resolving}) {
    floe::format::avro::BinaryDecoder decoder(std::span<const uint8_t>(data, size));
    floe::format::avro::Datum datum;
    if (datum_reader->Read(&decoder, &datum)) {
      // Re-encoding what was decoded with the writer schema must succeed.
      if (datum_reader == &fixture->plain) {
        auto again = floe::format::avro::EncodeBinary(fixture->writer, datum);
        if (!again) __builtin_trap();
      }
    }
  }

  // 3. As schema JSON text.
  auto schema = floe::format::avro::Schema::Parse(bytes);
  if (schema) (void)schema->ToString();
  return 0;
}
