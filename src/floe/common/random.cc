#include "floe/common/random.h"

#include <fmt/format.h>

#include <random>

namespace floe {
namespace {

std::mt19937_64& Generator() {
  thread_local std::mt19937_64 generator([] {
    std::random_device device;
    std::seed_seq seed{device(), device(), device(), device(),
                       device(), device(), device(), device()};
    return std::mt19937_64(seed);
  }());
  return generator;
}

}  // namespace

uint64_t RandomU64() { return Generator()(); }

double RandomUnit() { return std::uniform_real_distribution<double>(0.0, 1.0)(Generator()); }

std::string RandomUuid() {
  uint64_t hi = RandomU64();
  uint64_t lo = RandomU64();
  hi = (hi & 0xFFFFFFFFFFFF0FFFull) | 0x0000000000004000ull;  // version 4
  lo = (lo & 0x3FFFFFFFFFFFFFFFull) | 0x8000000000000000ull;  // variant 10
  return fmt::format("{:08x}-{:04x}-{:04x}-{:04x}-{:012x}", hi >> 32, (hi >> 16) & 0xFFFF,
                     hi & 0xFFFF, lo >> 48, lo & 0xFFFFFFFFFFFFull);
}

}  // namespace floe
