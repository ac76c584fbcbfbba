#pragma once
/// A bump allocator for values that live until the next `Reset()`, e.g. the
/// strings and nested children of one batch of rows. Not thread-safe.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

namespace floe {

class Arena {
 public:
  explicit Arena(size_t block_size = 64 * 1024) : block_size_(block_size) {}
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;

  /// Returns `n` bytes aligned to `align` (a power of two), valid until Reset().
  void* Allocate(size_t n, size_t align = alignof(std::max_align_t)) {
    uintptr_t p = (reinterpret_cast<uintptr_t>(cursor_) + align - 1) & ~(uintptr_t{align} - 1);
    if (cursor_ == nullptr || p + n > reinterpret_cast<uintptr_t>(limit_)) {
      NewBlock(n + align);
      p = (reinterpret_cast<uintptr_t>(cursor_) + align - 1) & ~(uintptr_t{align} - 1);
    }
    cursor_ = reinterpret_cast<char*>(p + n);
    return reinterpret_cast<void*>(p);
  }

  template <typename T>
  T* AllocateArray(size_t n) {
    return static_cast<T*>(Allocate(n * sizeof(T), alignof(T)));
  }

  /// Copies `s` into the arena.
  std::string_view Copy(std::string_view s) {
    if (s.empty()) return {};
    char* p = static_cast<char*>(Allocate(s.size(), 1));
    std::memcpy(p, s.data(), s.size());
    return {p, s.size()};
  }

  /// Frees everything allocated, keeping the first block for reuse.
  void Reset() {
    if (blocks_.size() > 1) {
      // Keep the largest block so steady state allocates nothing.
      size_t largest = 0;
      for (size_t i = 1; i < blocks_.size(); ++i) {
        if (blocks_[i].size > blocks_[largest].size) largest = i;
      }
      Block keep = std::move(blocks_[largest]);
      blocks_.clear();
      blocks_.push_back(std::move(keep));
    }
    if (!blocks_.empty()) {
      cursor_ = blocks_[0].data.get();
      limit_ = cursor_ + blocks_[0].size;
    }
  }

  /// Bytes held by the arena's blocks.
  size_t capacity() const {
    size_t total = 0;
    for (const auto& b : blocks_) total += b.size;
    return total;
  }

 private:
  struct Block {
    std::unique_ptr<char[]> data;
    size_t size;
  };
  void NewBlock(size_t min_size) {
    size_t size = std::max(block_size_, min_size);
    blocks_.push_back(Block{std::make_unique<char[]>(size), size});
    cursor_ = blocks_.back().data.get();
    limit_ = cursor_ + size;
  }

  size_t block_size_;
  std::vector<Block> blocks_;
  char* cursor_ = nullptr;
  char* limit_ = nullptr;
};

}  // namespace floe
