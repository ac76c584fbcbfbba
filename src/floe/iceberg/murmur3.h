#pragma once
/// The 32-bit Murmur3 hash (x86 variant, seed 0) that the Iceberg spec uses for
/// the `bucket[N]` partition transform, and the per-type hashing rules of the
/// spec's "Appendix B: 32-bit Hash Requirements".
///
/// All functions are pure and thread-safe; none allocates.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "floe/common/result.h"
#include "floe/types/type.h"
#include "floe/types/value.h"

namespace floe::iceberg {

/// Murmur3 x86 32-bit of `data` with `seed`, returned as a signed int like Java's.
int32_t Murmur3Hash32(const void* data, size_t size, uint32_t seed = 0);
inline int32_t Murmur3Hash32(std::string_view bytes) {
  return Murmur3Hash32(bytes.data(), bytes.size());
}

/// hashLong: the hash of the 8 little-endian bytes of `v`. int, date, time and
/// timestamps hash this way so that int -> long promotion keeps bucket values.
int32_t HashLong(int64_t v);

/// The minimal big-endian two's-complement bytes of `unscaled` (as Java's
/// BigInteger.toByteArray: 0 -> {0x00}, 128 -> {0x00, 0x80}, -1 -> {0xff}).
/// Writes at most 16 bytes into `out` and returns how many.
size_t DecimalToMinimalBigEndian(types::int128_t unscaled, uint8_t out[16]);

/// The spec's hash of a non-null value of a primitive type, for every type of
/// both Appendix B tables (including boolean, float and double, which the
/// spec defines a hash for but does not allow to be bucketed).
/// Returns kInvalidArgument for a null value, a nested type, or a value whose
/// representation does not match the type (see types/value.h).
Result<int32_t> HashValue(const types::Type& type, const types::Value& value);

/// The hash used by `bucket[N]`: as `HashValue`, but kNotSupported for
/// boolean, float and double, which the spec does not allow as bucket sources.
Result<int32_t> BucketHash(const types::Type& type, const types::Value& value);

/// `(hash & INT32_MAX) % num_buckets`, the spec's bucket of a hash.
inline int32_t BucketOfHash(int32_t hash, int32_t num_buckets) {
  return static_cast<int32_t>((static_cast<uint32_t>(hash) & 0x7fffffffu) %
                              static_cast<uint32_t>(num_buckets));
}

}  // namespace floe::iceberg
