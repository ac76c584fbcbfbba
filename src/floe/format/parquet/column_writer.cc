#include "floe/format/parquet/column_writer.h"

#include <algorithm>
#include <bit>
#include <cstring>

#include "floe/format/parquet/compression.h"
#include "floe/format/parquet/page_header.h"

namespace floe::format::parquet {

namespace {

/// Where FlushPage and FinishChunk assemble a page: its body (levels and
/// values), the compressed body and the header. Only used inside one call,
/// so all column writers of a thread share one set (about two pages' worth
/// of memory per thread instead of per column).
struct PageScratch {
  ByteBuffer body, compressed, header;
};

PageScratch& ThreadPageScratch() {
  thread_local PageScratch scratch;
  return scratch;
}

}  // namespace

ColumnWriter::ColumnWriter(const LeafColumn& leaf, const ColumnWriterOptions& options)
    : leaf_(leaf), options_(options), stats_(leaf.physical_type, leaf.type, leaf.type_length) {
  use_dictionary_ = options.dictionary_enabled && leaf.physical_type != Type::kBoolean;
  switch (leaf.physical_type) {
    case Type::kInt32:
    case Type::kFloat:
      numeric_dict_ = std::make_unique<NumericDictionary>(4);
      break;
    case Type::kInt64:
    case Type::kDouble:
      numeric_dict_ = std::make_unique<NumericDictionary>(8);
      break;
    case Type::kByteArray:
      bytes_dict_ = std::make_unique<BytesDictionary>(true);
      break;
    case Type::kFixedLenByteArray:
      bytes_dict_ = std::make_unique<BytesDictionary>(false);
      break;
    default:
      break;
  }
  if (numeric_dict_) numeric_dict_->set_size_limit(options.dict_size_bytes);
  if (bytes_dict_) bytes_dict_->set_size_limit(options.dict_size_bytes);
  def_encoder_.Reset(&def_levels_, BitWidth(static_cast<uint64_t>(leaf.max_definition_level)));
  rep_encoder_.Reset(&rep_levels_, BitWidth(static_cast<uint64_t>(leaf.max_repetition_level)));
}

size_t ColumnWriter::DictionaryBytes() const {
  if (!use_dictionary_) return 0;
  if (numeric_dict_) return numeric_dict_->plain().size();
  if (bytes_dict_) return bytes_dict_->plain().size();
  return 0;
}

size_t ColumnWriter::DictionaryTableBytes() const {
  if (numeric_dict_) return numeric_dict_->table_bytes();
  if (bytes_dict_) return bytes_dict_->table_bytes();
  return 0;
}

void ColumnWriter::AppendBool(bool v, int16_t def, int16_t rep) {
  PutLevels(def, rep);
  if (bool_bits_ == 0) plain_.PushByte(0);
  if (v) plain_.data()[plain_.size() - 1] |= static_cast<uint8_t>(1u << bool_bits_);
  bool_bits_ = (bool_bits_ + 1) & 7;
  stats_.UpdateInt(v ? 1 : 0);
}

void ColumnWriter::AppendInt32(int32_t v, int16_t def, int16_t rep) {
  PutLevels(def, rep);
  if (dictionary_active()) {
    PutNumeric(static_cast<uint32_t>(v), 4);
  } else {
    plain_.AppendLittleEndian(v);
    stats_.UpdateInt(v);
  }
}

void ColumnWriter::AppendInt64(int64_t v, int16_t def, int16_t rep) {
  PutLevels(def, rep);
  if (dictionary_active()) {
    PutNumeric(static_cast<uint64_t>(v), 8);
  } else {
    plain_.AppendLittleEndian(v);
    stats_.UpdateInt(v);
  }
}

void ColumnWriter::AppendFloat(float v, int16_t def, int16_t rep) {
  PutLevels(def, rep);
  if (v != v) stats_.AddNans(1);
  if (dictionary_active()) {
    PutNumeric(std::bit_cast<uint32_t>(v), 4);
  } else {
    plain_.AppendLittleEndian(v);
    stats_.UpdateFloating(v);
  }
}

void ColumnWriter::AppendDouble(double v, int16_t def, int16_t rep) {
  PutLevels(def, rep);
  if (v != v) stats_.AddNans(1);
  if (dictionary_active()) {
    PutNumeric(std::bit_cast<uint64_t>(v), 8);
  } else {
    plain_.AppendLittleEndian(v);
    stats_.UpdateFloating(v);
  }
}

void ColumnWriter::AppendBytes(std::string_view v, int16_t def, int16_t rep) {
  PutLevels(def, rep);
  const auto* p = reinterpret_cast<const uint8_t*>(v.data());
  auto n = static_cast<uint32_t>(v.size());
  bool prefixed = leaf_.physical_type == Type::kByteArray;
  if (dictionary_active()) {
    PutBytes(p, n, n + (prefixed ? 4 : 0));
  } else {
    if (prefixed) plain_.AppendLittleEndian<uint32_t>(n);
    plain_.Append(p, n);
    stats_.UpdateBytes(v);
  }
}

void ColumnWriter::AppendDecimal(types::int128_t v, int16_t def, int16_t rep) {
  PutLevels(def, rep);
  StoreDecimalBigEndian(v, leaf_.type_length, decimal_scratch_);
  auto n = static_cast<uint32_t>(leaf_.type_length);
  if (dictionary_active()) {
    PutBytes(decimal_scratch_, n, n);
    pending_decimal_ = v;
    pending_is_decimal_ = true;
  } else {
    plain_.Append(decimal_scratch_, n);
    stats_.UpdateDecimal(v);
  }
}

void ColumnWriter::PutNumeric(uint64_t bits, size_t plain_size) {
  if (pending_) ResolvePending();
  numeric_dict_->Prefetch(bits);
  pending_bits_ = bits;
  pending_ = true;
  page_plain_bytes_ += plain_size;
}

void ColumnWriter::PutBytes(const uint8_t* p, uint32_t n, size_t plain_size) {
  if (pending_) ResolvePending();
  // Padded for GetOrInsertPadded (and hashed from the padded copy); read a
  // row later, when these stores are done.
  pending_bytes_.Clear();
  uint8_t* copy = pending_bytes_.Ensure(n + BytesDictionary::kInlineBytes);
  std::memcpy(copy, p, n);
  std::memset(copy + n, 0, BytesDictionary::kInlineBytes);
  pending_bytes_.Advance(n);
  pending_bits_ = HashPaddedBytes(copy, n);
  bytes_dict_->Prefetch(pending_bits_);
  pending_is_decimal_ = false;
  pending_ = true;
  page_plain_bytes_ += plain_size;
}

void ColumnWriter::ResolvePending() {
  pending_ = false;
  bool inserted;
  if (numeric_dict_) {
    AppendIndex(numeric_dict_->GetOrInsert(pending_bits_, &inserted));
    if (!inserted) return;
    switch (leaf_.physical_type) {
      case Type::kInt32:
        stats_.UpdateInt(static_cast<int32_t>(static_cast<uint32_t>(pending_bits_)));
        break;
      case Type::kInt64:
        stats_.UpdateInt(static_cast<int64_t>(pending_bits_));
        break;
      case Type::kFloat:
        stats_.UpdateFloating(std::bit_cast<float>(static_cast<uint32_t>(pending_bits_)));
        break;
      default:
        stats_.UpdateFloating(std::bit_cast<double>(pending_bits_));
        break;
    }
    return;
  }
  auto n = static_cast<uint32_t>(pending_bytes_.size());
  AppendIndex(bytes_dict_->GetOrInsertPadded(pending_bytes_.data(), n, pending_bits_, &inserted));
  if (!inserted) return;
  if (pending_is_decimal_) {
    stats_.UpdateDecimal(pending_decimal_);
  } else {
    stats_.UpdateBytes(pending_bytes_.view());
  }
}

void ColumnWriter::AddEncoding(Encoding e) {
  if (std::find(encodings_.begin(), encodings_.end(), e) == encodings_.end()) {
    encodings_.push_back(e);
  }
}

bool ColumnWriter::DictionaryWorthKeeping(size_t index_bytes) const {
  size_t dictionary_bytes = DictionaryBytes();
  if (dictionary_pages_ > 1) {
    // Later pages: a dictionary past a page's size must have paid for itself
    // over the chunk so far (its indices and entries smaller than the values
    // PLAIN), else its table is memory and probes spent for nothing.
    return dictionary_bytes <= options_.page_size_bytes ||
           chunk_index_bytes_ + dictionary_bytes < chunk_plain_bytes_;
  }
  if (page_plain_bytes_ == 0 || index_bytes + dictionary_bytes < page_plain_bytes_) return true;
  // Not paid for yet. Among n values drawn evenly from k distinct ones, about
  // n^2 / 2k repeat an earlier one: the page's repeats estimate k. Keep the
  // dictionary if k values would fit its limit (it then pays over the chunk).
  double n = static_cast<double>(indices_.size());
  double entries = numeric_dict_ ? numeric_dict_->size() : bytes_dict_->size();
  double repeats = n - entries;
  if (repeats <= 0 || entries == 0) return false;
  double distinct = n * n / (2 * repeats);
  return distinct * (static_cast<double>(dictionary_bytes) / entries) <=
         static_cast<double>(options_.dict_size_bytes);
}

Status ColumnWriter::FlushPage() {
  if (pending_) ResolvePending();
  if (page_values_ == 0) return Ok();
  def_encoder_.Flush();
  rep_encoder_.Flush();
  bool dictionary = dictionary_active();
  Encoding encoding = dictionary ? Encoding::kRleDictionary : Encoding::kPlain;
  bool v2 = options_.data_page_version == 2;
  bool has_rep = leaf_.max_repetition_level > 0;
  bool has_def = leaf_.max_definition_level > 0;

  // Levels: v1 puts them in the compressed body with 4-byte length prefixes;
  // v2 keeps them uncompressed in front of the compressed values.
  PageScratch& scratch = ThreadPageScratch();
  scratch.body.Clear();
  if (!v2) {
    if (has_rep) {
      scratch.body.AppendLittleEndian<uint32_t>(static_cast<uint32_t>(rep_levels_.size()));
      scratch.body.Append(rep_levels_.span());
    }
    if (has_def) {
      scratch.body.AppendLittleEndian<uint32_t>(static_cast<uint32_t>(def_levels_.size()));
      scratch.body.Append(def_levels_.span());
    }
  }
  size_t values_start = scratch.body.size();
  if (dictionary) {
    uint32_t dict_size = numeric_dict_ ? numeric_dict_->size() : bytes_dict_->size();
    int bit_width = BitWidth(dict_size > 0 ? dict_size - 1 : 0);
    scratch.body.PushByte(static_cast<uint8_t>(bit_width));
    RleBitPackedEncoder encoder(&scratch.body, bit_width);
    for (uint32_t index : indices_) encoder.Put(index);
    encoder.Flush();
    ++dictionary_pages_;
  } else {
    scratch.body.Append(plain_.span());
  }
  size_t values_size = scratch.body.size() - values_start;

  std::span<const uint8_t> values = scratch.body.span().subspan(values_start);
  std::span<const uint8_t> compressed;
  bool compress = options_.codec != CompressionCodec::kUncompressed;
  if (compress) {
    scratch.compressed.Clear();
    FLOE_RETURN_IF_ERROR(Compress(options_.codec, v2 ? values : scratch.body.span(),
                                  &scratch.compressed, options_.compression_level));
    compressed = scratch.compressed.span();
  } else {
    compressed = v2 ? values : scratch.body.span();
  }

  PageHeader header;
  size_t levels_size = rep_levels_.size() + def_levels_.size();
  if (!v2) {
    header.type = PageType::kDataPage;
    header.uncompressed_page_size = static_cast<int32_t>(scratch.body.size());
    header.compressed_page_size = static_cast<int32_t>(compressed.size());
    DataPageHeader data;
    data.num_values = static_cast<int32_t>(page_values_);
    data.encoding = encoding;
    data.definition_level_encoding = Encoding::kRle;
    data.repetition_level_encoding = Encoding::kRle;
    header.data_page_header = data;
  } else {
    header.type = PageType::kDataPageV2;
    header.uncompressed_page_size = static_cast<int32_t>(levels_size + values_size);
    header.compressed_page_size = static_cast<int32_t>(levels_size + compressed.size());
    DataPageHeaderV2 data;
    data.num_values = static_cast<int32_t>(page_values_);
    data.num_nulls = static_cast<int32_t>(page_nulls_);
    data.num_rows = static_cast<int32_t>(has_rep ? page_row_starts_ : page_values_);
    data.encoding = encoding;
    data.definition_levels_byte_length = static_cast<int32_t>(def_levels_.size());
    data.repetition_levels_byte_length = static_cast<int32_t>(rep_levels_.size());
    data.is_compressed = compress;
    header.data_page_header_v2 = data;
  }
  scratch.header.Clear();
  SerializePageHeader(header, &scratch.header);
  const size_t header_size = scratch.header.size();
  PageBytes page;
  page.size = header_size + (v2 ? levels_size : 0) + compressed.size();
  page.data = std::make_unique_for_overwrite<uint8_t[]>(page.size);
  uint8_t* w = page.data.get();
  auto put = [&w](std::span<const uint8_t> bytes) {
    if (!bytes.empty()) std::memcpy(w, bytes.data(), bytes.size());
    w += bytes.size();
  };
  put(scratch.header.span());
  if (v2) {
    put(rep_levels_.span());
    put(def_levels_.span());
  }
  put(compressed);
  chunk_size_ += page.size;
  pages_.push_back(std::move(page));
  chunk_uncompressed_ += static_cast<int64_t>(header_size) + header.uncompressed_page_size;

  AddEncoding(encoding);
  AddEncoding(Encoding::kRle);
  stats_.AddNulls(static_cast<int64_t>(page_nulls_));
  chunk_values_ += static_cast<int64_t>(page_values_);

  // Start the next page.
  if (dictionary) {
    chunk_index_bytes_ += values_size;
    chunk_plain_bytes_ += page_plain_bytes_;
  }
  if (dictionary && (DictionaryFull() || !DictionaryWorthKeeping(values_size))) {
    fallback_ = true;
    // The chunk adds no more entries: its hash table (1 MiB after a first
    // page of 20,000 distinct longs) goes now, not at the row group's end.
    if (numeric_dict_) numeric_dict_->ReleaseTable();
    if (bytes_dict_) bytes_dict_->ReleaseTable();
  }
  def_levels_.Clear();
  rep_levels_.Clear();
  def_encoder_.Reset(&def_levels_, BitWidth(static_cast<uint64_t>(leaf_.max_definition_level)));
  rep_encoder_.Reset(&rep_levels_, BitWidth(static_cast<uint64_t>(leaf_.max_repetition_level)));
  indices_.clear();
  plain_.Clear();
  bool_bits_ = 0;
  page_values_ = 0;
  page_nulls_ = 0;
  page_rows_ = 0;
  page_row_starts_ = 0;
  page_plain_bytes_ = 0;
  return Ok();
}

Status ColumnWriter::FinishChunk() {
  FLOE_RETURN_IF_ERROR(FlushPage());
  dict_page_.Clear();
  if (dictionary_pages_ == 0) return Ok();
  const ByteBuffer& plain = numeric_dict_ ? numeric_dict_->plain() : bytes_dict_->plain();
  uint32_t count = numeric_dict_ ? numeric_dict_->size() : bytes_dict_->size();
  std::span<const uint8_t> body = plain.span();
  if (options_.codec != CompressionCodec::kUncompressed) {
    ByteBuffer& compressed = ThreadPageScratch().compressed;
    compressed.Clear();
    FLOE_RETURN_IF_ERROR(
        Compress(options_.codec, plain.span(), &compressed, options_.compression_level));
    body = compressed.span();
  }
  PageHeader header;
  header.type = PageType::kDictionaryPage;
  header.uncompressed_page_size = static_cast<int32_t>(plain.size());
  header.compressed_page_size = static_cast<int32_t>(body.size());
  DictionaryPageHeader dict;
  dict.num_values = static_cast<int32_t>(count);
  dict.encoding = Encoding::kPlain;
  header.dictionary_page_header = dict;
  SerializePageHeader(header, &dict_page_);
  chunk_uncompressed_ += static_cast<int64_t>(dict_page_.size() + plain.size());
  dict_page_.Append(body);
  AddEncoding(Encoding::kPlain);
  return Ok();
}

ColumnChunkBytes ColumnWriter::chunk_bytes() const {
  return ColumnChunkBytes{dict_page_.span(), pages_};
}

void ColumnWriter::FillMetaData(int64_t offset, ColumnMetaData* meta) const {
  meta->type = leaf_.physical_type;
  meta->encodings = encodings_;
  meta->path_in_schema = leaf_.path;
  meta->codec = options_.codec;
  meta->num_values = chunk_values_;
  meta->total_uncompressed_size = chunk_uncompressed_;
  meta->total_compressed_size = chunk_compressed_size();
  if (!dict_page_.empty()) meta->dictionary_page_offset = offset;
  meta->data_page_offset = offset + static_cast<int64_t>(dict_page_.size());
  meta->statistics = stats_.ToThrift();
}

void ColumnWriter::Reset() {
  pages_.clear();  // the pages' memory goes; the next row group allocates its own
  chunk_size_ = 0;
  dict_page_.Clear();
  if (numeric_dict_) numeric_dict_->Clear();
  if (bytes_dict_) bytes_dict_->Clear();
  fallback_ = false;
  dictionary_pages_ = 0;
  chunk_index_bytes_ = 0;
  chunk_plain_bytes_ = 0;
  chunk_values_ = 0;
  chunk_uncompressed_ = 0;
  encodings_.clear();
  stats_.Reset();
}

}  // namespace floe::format::parquet
