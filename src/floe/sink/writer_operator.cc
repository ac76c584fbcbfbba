#include "floe/sink/writer_operator.h"

#include <sys/resource.h>

#include <algorithm>
#include <optional>

#include <spdlog/spdlog.h>

#include "floe/io/deferred_sync_file_io.h"
#include "floe/sink/parallel_for.h"

namespace floe::sink {

WriterOperator::WriterOperator(SinkOptions options, std::shared_ptr<MemoryBudget> budget,
                               std::shared_ptr<io::FileIO> io)
    : options_(std::move(options)), budget_(std::move(budget)), io_holder_(std::move(io)) {}

WriterOperator::~WriterOperator() { Close(); }

Status WriterOperator::Open(const engine::OperatorContext& context,
                            const engine::RestoredState& state) {
  subtask_ = context.subtask;
  if (io_holder_) {
    io_ = io_holder_.get();
  } else {
    if (!options_.catalog) {
      return InvalidArgument("writer {}: no FileIO and no catalog factory", context.subtask);
    }
    FLOE_ASSIGN_OR_RETURN(catalog_, options_.catalog());
    io_ = &catalog_->file_io();
  }
  // Files are made durable together when a checkpoint completes them (one
  // file system flush instead of one per file; see SnapshotState).
  deferred_io_ = std::make_unique<io::DeferredSyncFileIO>(*io_);
  io_ = deferred_io_.get();
  if (!budget_) budget_ = std::make_shared<MemoryBudget>(options_.memory_budget_bytes);
  max_open_files_ = static_cast<size_t>(std::max(0, options_.max_open_files));
  if (max_open_files_ == 0) {
    rlimit limit{};
    const rlim_t files = ::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY
                             ? limit.rlim_cur
                             : 4096;
    max_open_files_ = std::max<size_t>(
        16, files / 4 / static_cast<size_t>(std::max(1, options_.write_parallelism)));
  }
  account_ = std::make_unique<MemoryBudget::Account>(budget_.get());
  return Ok();
}

void WriterOperator::Account(Table& table) {
  int64_t now = static_cast<int64_t>(table.writer->buffered_bytes());
  total_bytes_ += now - table.bytes;
  table.bytes = now;
  const size_t open = table.writer->num_open_files();
  open_files_ = open_files_ - table.open_files + open;
  table.open_files = open;
}

Status WriterOperator::CloseOtherFiles(const Table* keep) {
  ++open_file_sweeps_;
  for (auto& [key, table] : tables_) {
    if (&table == keep || table.open_files == 0) continue;
    FLOE_RETURN_IF_ERROR(table.writer->CloseFiles());
    ++file_closes_;
    Account(table);
  }
  spdlog::debug("writer {}: over {} open files: completed the files of other tables ({} open now)",
                subtask_, max_open_files_, open_files_);
  return Ok();
}

Status WriterOperator::Process(RowBatch batch, engine::Collector<WriteResult>& out) {
  if (!batch.target) return InvalidArgument("writer {}: a row batch without a target", subtask_);
  if (io_ == nullptr) return InvalidArgument("writer {}: Process before Open", subtask_);
  auto it = tables_.find(batch.target->key);
  if (it == tables_.end()) {
    FLOE_ASSIGN_OR_RETURN(auto writer, TableWriter::Make(*io_, batch.target, options_, subtask_));
    it = tables_.emplace(batch.target->key, Table{std::move(writer), 0}).first;
  } else if (it->second.writer->target() != batch.target) {
    FLOE_RETURN_IF_ERROR(it->second.writer->SetTarget(batch.target));
  }
  Table& table = it->second;
  table.last_batch = ++batches_;
  TableWriter& writer = *table.writer;
  const size_t n = batch.rows.size();
  if (batch.kinds.size() != n) {
    return InvalidArgument("table {}: a batch with {} rows and {} row kinds", batch.target->key, n,
                           batch.kinds.size());
  }
  if (batch.truncate) {
    // Everything this subtask wrote for the table in this checkpoint goes;
    // the committer removes what earlier checkpoints committed.
    writer.Truncate();
    ++truncates_;
  }
  for (size_t i = 0; i < n; ++i) FLOE_RETURN_IF_ERROR(writer.Write(batch.kinds[i], batch.rows[i]));
  Account(table);
  if (open_files_ > max_open_files_) FLOE_RETURN_IF_ERROR(CloseOtherFiles(&table));
  account_->Report(total_bytes_);
  if (account_->ShouldRelieve()) FLOE_RETURN_IF_ERROR(Relieve(&table));
  return Ok();
}

Status WriterOperator::Relieve(const Table* current) {
  budget_->CountRelief();
  const int64_t target = account_->relief_target();
  // First the row groups, largest first: a flush writes the pages out and
  // frees the dictionaries' tables; the file stays open and goes on.
  const size_t min_flush =
      std::max<size_t>(kMinFlushBytes, static_cast<size_t>(budget_->share() / 16));
  std::vector<std::pair<size_t, Table*>> groups;
  for (auto& [key, table] : tables_) {
    if (table.open_files == 0) continue;
    const size_t flushable = table.writer->flushable_bytes();
    if (flushable >= min_flush) groups.emplace_back(flushable, &table);
  }
  std::sort(groups.begin(), groups.end(),
            [](const auto& a, const auto& b) { return a.first > b.first; });
  for (auto& [flushable, table] : groups) {
    if (total_bytes_ <= target) break;
    FLOE_RETURN_IF_ERROR(table->writer->Flush());
    ++flushes_;
    Account(*table);
  }
  // Then the fixed buffers of open files (many tables), least recently
  // written first, but only of tables idle for a while: completing the file
  // of a table that is being written frees nothing (its next rows reopen
  // one) and leaves a small file behind.
  if (total_bytes_ > target) {
    std::vector<Table*> idle;
    for (auto& [key, table] : tables_) {
      if (&table != current && table.open_files > 0 &&
          batches_ - table.last_batch >= kMinIdleBatches) {
        idle.push_back(&table);
      }
    }
    std::sort(idle.begin(), idle.end(),
              [](const Table* a, const Table* b) { return a->last_batch < b->last_batch; });
    for (Table* table : idle) {
      if (total_bytes_ <= target) break;
      FLOE_RETURN_IF_ERROR(table->writer->CloseFiles());
      ++file_closes_;
      Account(*table);
    }
  }
  account_->Report(total_bytes_);
  if (total_bytes_ > target) {
    // What is left may be memory that only the checkpoint frees.
    int64_t pinned = 0;
    for (auto& [key, table] : tables_) pinned += static_cast<int64_t>(table.writer->pinned_bytes());
    if (pinned > target && pinned_over_target_++ == 0) {
      spdlog::warn(
          "writer {}: key maps, pending deletes and file metadata hold {} MiB, more than this "
          "subtask's share of the memory budget ({} MiB) allows; they are freed at the next "
          "checkpoint (a larger memory budget or a shorter checkpoint interval avoids this)",
          subtask_, pinned >> 20, budget_->share() >> 20);
    }
  }
  return Ok();
}

Result<std::string> WriterOperator::SnapshotState(engine::CheckpointId id,
                                                  engine::Collector<WriteResult>& out) {
  // Complete every table first, then emit: a failure leaves nothing emitted.
  std::vector<Table*> work;
  work.reserve(tables_.size());
  for (auto& [key, table] : tables_) work.push_back(&table);
  // Tables are independent: their files are completed (written out and
  // synced) side by side.
  std::vector<std::optional<Result<std::vector<WriteResult>>>> completed(work.size());
  ParallelFor(work.size(), options_.commit_threads,
              [&](size_t i) { completed[i] = work[i]->writer->Complete(); });
  std::vector<WriteResult> results;
  for (size_t i = 0; i < work.size(); ++i) {
    Account(*work[i]);
    if (!*completed[i]) return std::unexpected(completed[i]->error());
    for (auto& one : **completed[i]) results.push_back(std::move(one));
  }
  if (account_) account_->Report(total_bytes_);
  // Every file the state refers to is durable before the state is handed out.
  const size_t files = deferred_io_->deferred_files();
  FLOE_RETURN_IF_ERROR_CTX(deferred_io_->SyncDeferred(),
                           "writer {}: making the {} files of checkpoint {} durable", subtask_,
                           files, id);
  std::sort(results.begin(), results.end(), [](const WriteResult& a, const WriteResult& b) {
    return a.target->key != b.target->key ? a.target->key < b.target->key : a.spec_id < b.spec_id;
  });
  for (auto& r : results) FLOE_RETURN_IF_ERROR(out.Emit(std::move(r)));
  return std::string();
}

size_t WriterOperator::num_open_files() const {
  size_t n = 0;
  for (const auto& [key, table] : tables_) n += table.writer->num_open_files();
  return n;
}

void WriterOperator::Close() {
  for (auto& [key, table] : tables_) table.writer->Abort();
  tables_.clear();
  total_bytes_ = 0;
  open_files_ = 0;
  account_.reset();
}

}  // namespace floe::sink
