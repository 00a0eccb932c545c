// SPDX-License-Identifier: Apache-2.0
// The jute codec on the hot path: decoding a setData request, encoding a
// getData reply (data + Stat), splitting a stream into frames.
#include <benchmark/benchmark.h>

#include <string>

#include "libzk/wire/frame.h"
#include "libzk/wire/jute.h"
#include "libzk/wire/records.h"

namespace {

using zk::wire::Reader;
using zk::wire::Writer;

std::string value_of(int64_t bytes) { return std::string(static_cast<size_t>(bytes), 'v'); }

void BM_DecodeSetDataRequest(benchmark::State& state) {
  zk::wire::SetDataRequest request{"/zkbench/k123", value_of(state.range(0)), -1};
  std::string bytes;
  Writer w(bytes);
  request.write(w);
  for (auto _ : state) {
    Reader r(bytes);
    zk::wire::SetDataRequest decoded;
    decoded.read(r);
    benchmark::DoNotOptimize(decoded);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes.size()));
}
BENCHMARK(BM_DecodeSetDataRequest)->Arg(100)->Arg(1024);

void BM_EncodeGetDataResponse(benchmark::State& state) {
  zk::wire::GetDataResponse response{value_of(state.range(0)), zk::wire::Stat{}};
  std::string bytes;
  for (auto _ : state) {
    bytes.clear();
    Writer w(bytes);
    response.write(w);
    benchmark::DoNotOptimize(bytes.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes.size()));
}
BENCHMARK(BM_EncodeGetDataResponse)->Arg(100)->Arg(1024);

// 64 getData requests back to back, as a pipelining client sends them.
void BM_SplitFrames(benchmark::State& state) {
  std::string stream;
  for (int i = 0; i < 64; ++i) {
    std::string body;
    Writer w(body);
    w.int32(i + 1);  // xid
    w.int32(4);      // getData
    w.ustring("/zkbench/k" + std::to_string(i));
    w.boolean(false);
    std::string frame;
    Writer f(frame);
    f.int32(static_cast<int32_t>(body.size()));
    stream += frame + body;
  }
  for (auto _ : state) {
    std::string_view rest = stream;
    int frames = 0;
    while (true) {
      zk::wire::FrameView frame = zk::wire::next_frame(rest);
      if (frame.status != zk::wire::FrameStatus::kFrame) break;
      rest.remove_prefix(frame.consumed);
      ++frames;
    }
    benchmark::DoNotOptimize(frames);
  }
  state.SetItemsProcessed(state.iterations() * 64);
}
BENCHMARK(BM_SplitFrames);

}  // namespace
