// SPDX-License-Identifier: Apache-2.0
// The replicated state machine without I/O: a write prepared and applied
// (Database::prepare + apply, as the leader and every follower do), a read
// served (Database::read), a snapshot of N znodes written and loaded, and
// the memory a tree of N znodes takes.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <fstream>
#include <memory>
#include <optional>
#include <string>

#include "libzk/wire/jute.h"
#include "libzk/wire/records.h"
#include "zkd/tree/database.h"
#include "zkd/tree/snapshot.h"

namespace {

using zk::wire::encode;
using zk::wire::OpCode;
using zkd::tree::Database;

constexpr zkd::tree::SessionId kSession = 1;
constexpr int kKeys = 1000;

std::string key(int i) { return "/k" + std::to_string(i); }

// A database holding /k0 .. /k<n-1> with `value_bytes` each; returns the next zxid.
int64_t fill(Database& db, int n, size_t value_bytes) {
  int64_t zxid = 1;
  benchmark::DoNotOptimize(db.apply(db.prepare_create_session(kSession, 30'000, zxid++, 0)));
  for (int i = 0; i < n; ++i, ++zxid) {
    zk::wire::CreateRequest create{key(i), std::string(value_bytes, 'v'),
                                   zk::wire::open_acl_unsafe(), 0};
    auto txn = db.prepare(kSession, i, OpCode::kCreate, encode(create), zxid, 0);
    benchmark::DoNotOptimize(db.apply(txn));
  }
  if (db.counts().znodes < n) std::abort();  // every create must have worked
  return zxid;
}

void BM_SetDataPrepareApply(benchmark::State& state) {
  Database db;
  int64_t zxid = fill(db, kKeys, 100);
  std::string value(static_cast<size_t>(state.range(0)), 'w');
  int i = 0;
  for (auto _ : state) {
    zk::wire::SetDataRequest set{key(i++ % kKeys), value, -1};
    auto txn = db.prepare(kSession, i, OpCode::kSetData, encode(set), zxid++, 0);
    auto result = db.apply(txn);
    benchmark::DoNotOptimize(result);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_SetDataPrepareApply)->Arg(100)->Arg(1024);

// The process's resident bytes (/proc/self/statm).
int64_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  int64_t pages = 0;
  int64_t resident = 0;
  statm >> pages >> resident;
  return resident * 4096;
}

// What `zkbench populate` makes (/zkbench-pop/p<i>, 100-byte values), as the
// memory benchmark (bench/memory_restart) measures it in a server: the
// resident bytes the tree adds, per znode, index and children sets included.
void BM_TreeMemory(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  for (auto _ : state) {
    const int64_t before = resident_bytes();
    auto db = std::make_unique<Database>();
    int64_t zxid = 1;
    db->apply(db->prepare_create_session(kSession, 30'000, zxid++, 0));
    auto create = [&](std::string path) {
      zk::wire::CreateRequest request{std::move(path), std::string(100, 'v'),
                                      zk::wire::open_acl_unsafe(), 0};
      db->apply(db->prepare(kSession, 1, OpCode::kCreate, encode(request), zxid++, 0));
    };
    create("/zkbench-pop");
    for (int i = 0; i < n; ++i) create("/zkbench-pop/p" + std::to_string(i));
    if (db->counts().znodes < n) std::abort();
    state.counters["bytes_per_znode"] =
        static_cast<double>(resident_bytes() - before) / static_cast<double>(n);
    state.PauseTiming();
    db.reset();
    state.ResumeTiming();
  }
}
BENCHMARK(BM_TreeMemory)->Arg(1'000'000)->Iterations(1)->Unit(benchmark::kMillisecond);

void BM_GetDataRead(benchmark::State& state) {
  Database db;
  fill(db, kKeys, static_cast<size_t>(state.range(0)));
  std::vector<std::string> requests;
  for (int i = 0; i < kKeys; ++i)
    requests.push_back(encode(zk::wire::PathWatchRequest{key(i), false}));
  int i = 0;
  for (auto _ : state) {
    auto response = db.read(0, OpCode::kGetData, requests[static_cast<size_t>(i++ % kKeys)]);
    benchmark::DoNotOptimize(response);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_GetDataRead)->Arg(100)->Arg(1024);

void BM_CreateNodes(benchmark::State& state) {
  for (auto _ : state) {
    Database db;
    fill(db, static_cast<int>(state.range(0)), 100);
    benchmark::DoNotOptimize(db.counts());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_CreateNodes)->Arg(100'000)->Unit(benchmark::kMillisecond);

std::string snapshot_of(const Database& db) {
  auto cursor = db.begin_snapshot();
  std::string payload;
  while (true) {
    std::string chunk = cursor->next_chunk(4096);
    if (chunk.empty()) break;
    payload += chunk;
  }
  return payload;
}

void BM_SnapshotWrite(benchmark::State& state) {
  Database db;
  fill(db, static_cast<int>(state.range(0)), 100);
  size_t bytes = 0;
  for (auto _ : state) {
    std::string payload = snapshot_of(db);
    bytes = payload.size();
    benchmark::DoNotOptimize(payload.data());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
}
BENCHMARK(BM_SnapshotWrite)->Arg(100'000)->Unit(benchmark::kMillisecond);

void BM_SnapshotLoad(benchmark::State& state) {
  Database db;
  fill(db, static_cast<int>(state.range(0)), 100);
  const std::string payload = snapshot_of(db);
  for (auto _ : state) {
    auto loaded = zkd::tree::read_snapshot(payload);
    if (!loaded.ok()) state.SkipWithError(loaded.status().message().c_str());
    benchmark::DoNotOptimize(loaded);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * payload.size()));
}
BENCHMARK(BM_SnapshotLoad)->Arg(100'000)->Unit(benchmark::kMillisecond);

}  // namespace
