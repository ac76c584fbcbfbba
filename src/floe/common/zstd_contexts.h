#pragma once
/// zstd's compression and decompression contexts kept per thread: making a
/// context allocates its tables, more work than compressing a small page or
/// block. Users link zstd themselves (the Avro and Parquet codecs).

#include <zstd.h>

namespace floe {

struct ZstdContexts {
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  ZSTD_DCtx* dctx = ZSTD_createDCtx();
  ZstdContexts() = default;
  ZstdContexts(const ZstdContexts&) = delete;
  ZstdContexts& operator=(const ZstdContexts&) = delete;
  ~ZstdContexts() {
    ZSTD_freeCCtx(cctx);
    ZSTD_freeDCtx(dctx);
  }
};

/// This thread's contexts (either may be null if zstd could not allocate).
/// The caller resets what it relies on (ZSTD_compressCCtx sets the level;
/// a streaming decompression resets the session first).
inline ZstdContexts& ThreadZstdContexts() {
  thread_local ZstdContexts contexts;
  return contexts;
}

}  // namespace floe
