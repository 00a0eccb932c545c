// SPDX-License-Identifier: Apache-2.0
// The txn log writer: appending records (in memory, so the figure is the
// writer's own cost: framing, checksums, segment bookkeeping), and appending
// a group of records then syncing on the real file system (the group commit
// the log thread does; the figure is dominated by the disk's fdatasync).
#include <benchmark/benchmark.h>

#include <unistd.h>

#include <filesystem>
#include <string>

#include "zkd/storage/memory_env.h"
#include "zkd/storage/txn_log.h"

namespace {

using zkd::storage::LogOptions;
using zkd::storage::TxnLogWriter;

void BM_LogAppendInMemory(benchmark::State& state) {
  zkd::storage::MemoryEnv env;
  auto writer = TxnLogWriter::open(env, LogOptions{"/log", 64ull << 20, true}, {});
  if (!writer.ok()) return state.SkipWithError("cannot open the log");
  const std::string txn(static_cast<size_t>(state.range(0)), 't');
  int64_t zxid = 1;
  for (auto _ : state) {
    auto status = (*writer)->append(zxid++, txn);
    if (!status.ok()) return state.SkipWithError("append failed");
  }
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_LogAppendInMemory)->Arg(150)->Arg(1100);

// range(0) records of 1,100 bytes, then one sync.
void BM_LogGroupCommitOnDisk(benchmark::State& state) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("zk_log_bench_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  {
    auto writer = TxnLogWriter::open(zkd::storage::posix_env(),
                                     LogOptions{dir.string(), 64ull << 20, true}, {});
    if (!writer.ok()) return state.SkipWithError("cannot open the log");
    const std::string txn(1100, 't');
    int64_t zxid = 1;
    for (auto _ : state) {
      for (int64_t i = 0; i < state.range(0); ++i) {
        if (!(*writer)->append(zxid++, txn).ok()) return state.SkipWithError("append failed");
      }
      if (!(*writer)->sync().ok()) return state.SkipWithError("sync failed");
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
  }
  std::filesystem::remove_all(dir);
}
BENCHMARK(BM_LogGroupCommitOnDisk)->Arg(1)->Arg(64)->UseRealTime();

}  // namespace
