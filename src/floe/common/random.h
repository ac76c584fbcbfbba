#pragma once
/// Random numbers for names (file names, UUIDs, temporary files), markers
/// and backoff jitter. Not for secrets. Each thread has its own generator
/// (std::mt19937_64), seeded once from std::random_device, so no call takes
/// a lock or makes a system call.

#include <cstdint>
#include <string>

namespace floe {

/// A uniformly random 64-bit number.
uint64_t RandomU64();

/// A uniformly random number in [0, 1).
double RandomUnit();

/// A random version-4 UUID in canonical lower-case text
/// ("xxxxxxxx-xxxx-4xxx-[89ab]xxx-xxxxxxxxxxxx").
std::string RandomUuid();

}  // namespace floe
