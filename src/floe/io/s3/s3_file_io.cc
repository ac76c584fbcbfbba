#include "floe/io/s3/s3_file_io.h"

#include <algorithm>
#include <deque>
#include <future>
#include <mutex>
#include <optional>

namespace floe::io::s3 {
namespace {

class S3InputFile final : public InputFile {
 public:
  S3InputFile(std::shared_ptr<S3Client> client, S3Location at, std::string path, uint64_t size)
      : client_(std::move(client)), at_(std::move(at)), path_(std::move(path)), size_(size) {}

  const std::string& path() const override { return path_; }
  uint64_t size() const override { return size_; }

  Status ReadAt(uint64_t offset, std::span<uint8_t> out) const override {
    if (offset > size_ || out.size() > size_ - offset) {
      return Corruption("{}: read of {} bytes at offset {} is past the end ({} bytes)", path_,
                        out.size(), offset, size_);
    }
    if (out.empty()) return Ok();
    uint64_t tail_start = size_ > S3FileIO::kTailBytes ? size_ - S3FileIO::kTailBytes : 0;
    if (offset >= tail_start) {
      std::lock_guard lock(mu_);
      if (!tail_loaded_) {
        tail_.resize(size_ - tail_start);
        FLOE_RETURN_IF_ERROR(client_->ReadObject(at_, tail_start, tail_));
        tail_loaded_ = true;
      }
      std::copy_n(tail_.data() + (offset - tail_start), out.size(), out.data());
      return Ok();
    }
    return client_->ReadObject(at_, offset, out);
  }

  Status ReadRanges(std::span<const Range> ranges) const override {
    uint64_t tail_start = size_ > S3FileIO::kTailBytes ? size_ - S3FileIO::kTailBytes : 0;
    std::vector<const Range*> rest;
    for (const Range& r : ranges) {
      if (r.offset > size_ || r.out.size() > size_ - r.offset) {
        return Corruption("{}: read of {} bytes at offset {} is past the end ({} bytes)", path_,
                          r.out.size(), r.offset, size_);
      }
      if (r.out.empty()) continue;
      if (r.offset >= tail_start) {
        FLOE_RETURN_IF_ERROR(ReadAt(r.offset, r.out));  // from the tail
      } else {
        rest.push_back(&r);
      }
    }
    std::sort(rest.begin(), rest.end(),
              [](const Range* a, const Range* b) { return a->offset < b->offset; });
    // Ranges closer than kCoalesceGapBytes become one GET, up to kMaxCoalescedBytes.
    struct Group {
      uint64_t begin = 0, end = 0;
      std::vector<const Range*> members;
    };
    std::vector<Group> groups;
    for (const Range* r : rest) {
      uint64_t end = r->offset + r->out.size();
      if (!groups.empty() && r->offset <= groups.back().end + S3FileIO::kCoalesceGapBytes &&
          std::max(end, groups.back().end) - groups.back().begin <= S3FileIO::kMaxCoalescedBytes) {
        groups.back().end = std::max(end, groups.back().end);
        groups.back().members.push_back(r);
      } else {
        groups.push_back(Group{r->offset, end, {r}});
      }
    }
    auto fetch = [this](const Group& g) -> Status {
      if (g.members.size() == 1) return client_->ReadObject(at_, g.begin, g.members[0]->out);
      std::vector<uint8_t> buffer(g.end - g.begin);
      FLOE_RETURN_IF_ERROR(client_->ReadObject(at_, g.begin, buffer));
      for (const Range* r : g.members) {
        std::copy_n(buffer.data() + (r->offset - g.begin), r->out.size(), r->out.data());
      }
      return Ok();
    };
    // Up to max_parts_in_flight GETs at once.
    size_t parallel = static_cast<size_t>(std::max(1, client_->options().max_parts_in_flight));
    Status first_error = Ok();
    for (size_t i = 0; i < groups.size(); i += parallel) {
      std::vector<std::future<Status>> running;
      for (size_t j = i + 1; j < std::min(groups.size(), i + parallel); ++j) {
        running.push_back(std::async(std::launch::async, fetch, std::cref(groups[j])));
      }
      Status st = fetch(groups[i]);
      if (!st && first_error) first_error = std::move(st);
      for (auto& f : running) {
        Status other = f.get();
        if (!other && first_error) first_error = std::move(other);
      }
      if (!first_error) return first_error;
    }
    return Ok();
  }

 private:
  std::shared_ptr<S3Client> client_;
  S3Location at_;
  std::string path_;
  uint64_t size_;
  mutable std::mutex mu_;
  mutable std::vector<uint8_t> tail_;
  mutable bool tail_loaded_ = false;
};

class S3OutputFile final : public OutputFile {
 public:
  S3OutputFile(std::shared_ptr<S3Client> client, S3Location at, std::string path,
               bool if_none_match)
      : client_(std::move(client)),
        at_(std::move(at)),
        path_(std::move(path)),
        if_none_match_(if_none_match),
        part_size_(std::max<uint64_t>(client_->options().part_size, 5ull << 20)),
        max_in_flight_(static_cast<size_t>(std::max(1, client_->options().max_parts_in_flight))) {}

  ~S3OutputFile() override {
    if (!closed_) Abandon();
  }

  const std::string& path() const override { return path_; }
  uint64_t position() const override { return position_; }

  Status Write(std::span<const uint8_t> bytes) override {
    if (closed_) return InvalidArgument("{}: write after Close", path_);
    if (failed_) return std::unexpected(*failed_);
    while (!bytes.empty()) {
      if (buffer_.capacity() < part_size_) buffer_.reserve(part_size_);
      size_t take = std::min<size_t>(bytes.size(), part_size_ - buffer_.size());
      buffer_.insert(buffer_.end(), bytes.begin(), bytes.begin() + take);
      bytes = bytes.subspan(take);
      position_ += take;
      if (buffer_.size() == part_size_) {
        Status st = StartPart();
        if (!st) return Fail(std::move(st).error());
      }
    }
    return Ok();
  }

  Status Sync() override {
    if (failed_) return std::unexpected(*failed_);
    // Collect parts that are done, to surface their errors early.
    while (!in_flight_.empty() &&
           in_flight_.front().wait_for(std::chrono::seconds(0)) == std::future_status::ready) {
      Status st = CollectOldest();
      if (!st) return Fail(std::move(st).error());
    }
    return Ok();
  }

  Status Close() override {
    if (closed_) {
      if (failed_) return std::unexpected(*failed_);
      return Ok();
    }
    closed_ = true;
    if (failed_) return std::unexpected(*failed_);
    if (upload_id_.empty()) {
      auto put = client_->PutObject(at_, buffer_, if_none_match_);
      std::vector<uint8_t>().swap(buffer_);
      if (!put) return Fail(std::move(put).error());
      return Ok();
    }
    if (!buffer_.empty()) {
      Status st = StartPart();
      if (!st) return Fail(std::move(st).error());
    }
    while (!in_flight_.empty()) {
      Status st = CollectOldest();
      if (!st) return Fail(std::move(st).error());
    }
    Status done = client_->CompleteMultipartUpload(at_, upload_id_, etags_, if_none_match_);
    if (!done) return Fail(std::move(done).error());
    upload_id_.clear();
    return Ok();
  }

 private:
  // Hands the full buffer to a background upload, waiting first for the
  // oldest part when max_in_flight_ are already going.
  Status StartPart() {
    if (upload_id_.empty()) {
      if (if_none_match_) {
        // Fail early, before uploading parts, when the key exists; Complete
        // checks again (If-None-Match) against a racing writer.
        FLOE_ASSIGN_OR_RETURN(auto existing, client_->StatObject(at_));
        if (existing) return AlreadyExists("{} exists already", path_);
      }
      FLOE_ASSIGN_OR_RETURN(upload_id_, client_->CreateMultipartUpload(at_));
    }
    while (in_flight_.size() >= max_in_flight_) FLOE_RETURN_IF_ERROR(CollectOldest());
    auto part = std::make_shared<std::vector<uint8_t>>(std::move(buffer_));
    buffer_ = std::vector<uint8_t>();
    int number = static_cast<int>(etags_.size() + in_flight_.size()) + 1;
    in_flight_.push_back(
        std::async(std::launch::async, [client = client_, at = at_, id = upload_id_, number, part] {
          return client->UploadPart(at, id, number, *part);
        }));
    return Ok();
  }

  Status CollectOldest() {
    Result<std::string> etag = in_flight_.front().get();
    in_flight_.pop_front();
    if (!etag) return std::unexpected(std::move(etag).error());
    etags_.push_back(std::move(*etag));
    return Ok();
  }

  // Records the first error, stops the upload, and returns the error.
  std::unexpected<Error> Fail(Error error) {
    error.AddContext(fmt::format("writing {}", path_));
    failed_ = error;
    Abandon();
    return std::unexpected(std::move(error));
  }

  // Waits for running parts and aborts the multipart upload, if any.
  void Abandon() {
    while (!in_flight_.empty()) {
      in_flight_.front().wait();
      in_flight_.pop_front();
    }
    if (!upload_id_.empty()) {
      (void)client_->AbortMultipartUpload(at_, upload_id_);
      upload_id_.clear();
    }
    std::vector<uint8_t>().swap(buffer_);
  }

  std::shared_ptr<S3Client> client_;
  S3Location at_;
  std::string path_;
  bool if_none_match_;
  uint64_t part_size_;
  size_t max_in_flight_;
  std::vector<uint8_t> buffer_;
  uint64_t position_ = 0;
  std::string upload_id_;
  std::deque<std::future<Result<std::string>>> in_flight_;
  std::vector<std::string> etags_;
  std::optional<Error> failed_;
  bool closed_ = false;
};

// "dir" as a key prefix that names its contents: "a/b" -> "a/b/", "" -> "".
std::string FolderPrefix(std::string_view key) {
  std::string prefix(key);
  if (!prefix.empty() && prefix.back() != '/') prefix.push_back('/');
  return prefix;
}

}  // namespace

S3FileIO::S3FileIO(std::shared_ptr<S3Client> client) : client_(std::move(client)) {}

Result<std::unique_ptr<S3FileIO>> S3FileIO::Make(
    const std::map<std::string, std::string>& properties, const EnvLookup& env) {
  FLOE_ASSIGN_OR_RETURN(S3Options options, S3OptionsFromProperties(properties, env));
  return std::make_unique<S3FileIO>(S3Client::Make(std::move(options)));
}

std::unique_ptr<ResolvingFileIO> MakeResolvingFileIO(std::map<std::string, std::string> properties,
                                                     EnvLookup env) {
  auto factory = [env = std::move(env)](
                     std::string_view scheme,
                     const ResolvingFileIO::Properties& props) -> Result<std::unique_ptr<FileIO>> {
    if (scheme != "s3") {
      return NotSupported("scheme '{}' not supported (local paths, file:// and s3://)", scheme);
    }
    FLOE_ASSIGN_OR_RETURN(auto io, S3FileIO::Make(props, env));
    return std::unique_ptr<FileIO>(std::move(io));
  };
  return std::make_unique<ResolvingFileIO>(std::move(properties), std::move(factory));
}

Result<std::unique_ptr<InputFile>> S3FileIO::OpenInput(std::string_view path) {
  FLOE_ASSIGN_OR_RETURN(S3Location at, ParseS3Uri(path));
  FLOE_ASSIGN_OR_RETURN(ObjectInfo info, client_->HeadObject(at));
  return std::make_unique<S3InputFile>(client_, std::move(at), std::string(path), info.size);
}

Result<std::unique_ptr<OutputFile>> S3FileIO::CreateOutput(std::string_view path, bool overwrite) {
  FLOE_ASSIGN_OR_RETURN(S3Location at, ParseS3Uri(path));
  if (at.key.empty() || at.key.back() == '/') {
    return InvalidArgument("{}: not a file name (the key is empty or ends with '/')", path);
  }
  if (!overwrite) {
    FLOE_ASSIGN_OR_RETURN(auto existing, client_->StatObject(at));
    if (existing) return AlreadyExists("{} exists already", path);
  }
  return std::make_unique<S3OutputFile>(client_, std::move(at), std::string(path), !overwrite);
}

Status S3FileIO::Delete(std::string_view path) {
  FLOE_ASSIGN_OR_RETURN(S3Location at, ParseS3Uri(path));
  return client_->DeleteObject(at);
}

Result<bool> S3FileIO::Exists(std::string_view path) {
  FLOE_ASSIGN_OR_RETURN(S3Location at, ParseS3Uri(path));
  if (!at.key.empty() && at.key.back() != '/') {
    FLOE_ASSIGN_OR_RETURN(auto info, client_->StatObject(at));
    if (info) return true;
  }
  // A "folder": any key under "key/". Also reports a missing bucket.
  FLOE_ASSIGN_OR_RETURN(ListPage page,
                        client_->ListObjectsV2(at.bucket, FolderPrefix(at.key), "", "", 1));
  return !page.objects.empty();
}

// Writes `bytes` with one PUT, or through an output file (multipart) when
// they are more than a part.
static Status PutWhole(S3FileIO& io, S3Client& client, std::string_view path,
                       std::string_view bytes, bool if_none_match) {
  if (bytes.size() > client.options().part_size) {
    FLOE_ASSIGN_OR_RETURN(auto out, io.CreateOutput(path, !if_none_match));
    FLOE_RETURN_IF_ERROR(out->Write(bytes));
    return out->Close();
  }
  FLOE_ASSIGN_OR_RETURN(S3Location at, ParseS3Uri(path));
  if (at.key.empty() || at.key.back() == '/') {
    return InvalidArgument("{}: not a file name (the key is empty or ends with '/')", path);
  }
  if (if_none_match) {
    FLOE_ASSIGN_OR_RETURN(auto existing, client.StatObject(at));
    if (existing) return AlreadyExists("{} exists already", path);
  }
  auto put = client.PutObject(at, {reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()},
                              if_none_match);
  if (!put) return std::unexpected(std::move(put).error());
  return Ok();
}

Status S3FileIO::WriteAtomically(std::string_view path, std::string_view bytes) {
  return PutWhole(*this, *client_, path, bytes, false);
}

Status S3FileIO::WriteNew(std::string_view path, std::string_view bytes) {
  return PutWhole(*this, *client_, path, bytes, true);
}

Status S3FileIO::Rename(std::string_view from, std::string_view to, bool replace) {
  FLOE_ASSIGN_OR_RETURN(S3Location src, ParseS3Uri(from));
  FLOE_ASSIGN_OR_RETURN(S3Location dst, ParseS3Uri(to));
  if (!replace) {
    FLOE_ASSIGN_OR_RETURN(auto existing, client_->StatObject(dst));
    if (existing) return AlreadyExists("renaming {}: {} exists already", from, to);
  }
  FLOE_ASSIGN_OR_RETURN(ObjectInfo info, client_->HeadObject(src));
  if (info.size > kMaxCopyBytes) {
    return NotSupported("renaming {}: {} bytes is more than one S3 copy takes (5 GiB)", from,
                        info.size);
  }
  FLOE_RETURN_IF_ERROR(client_->CopyObject(src, dst));
  return client_->DeleteObject(src);
}

Result<std::vector<FileInfo>> S3FileIO::List(std::string_view dir) {
  FLOE_ASSIGN_OR_RETURN(S3Location at, ParseS3Uri(dir));
  std::string prefix = FolderPrefix(at.key);
  std::string base = at.scheme + "://" + at.bucket + "/";
  std::vector<FileInfo> out;
  std::string token;
  do {
    FLOE_ASSIGN_OR_RETURN(ListPage page, client_->ListObjectsV2(at.bucket, prefix, "/", token));
    for (ListedObject& o : page.objects) {
      if (o.key == prefix) continue;  // a "folder marker" object
      out.push_back(FileInfo{base + o.key, o.size, false});
    }
    for (std::string& p : page.common_prefixes) {
      if (!p.empty() && p.back() == '/') p.pop_back();
      out.push_back(FileInfo{base + p, 0, true});
    }
    token = page.truncated ? page.next_continuation_token : std::string();
  } while (!token.empty());
  return out;
}

}  // namespace floe::io::s3
