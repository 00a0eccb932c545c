// SPDX-License-Identifier: Apache-2.0
#include "zklab/checker/check_verdict.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>

namespace zk::lab::check {
namespace {

// Hand-made histories on one register "/r"; times are plain numbers.
RegisterOp read(int client, int64_t value, int32_t version, int64_t invoke, int64_t complete) {
  return {client, "/r", RegisterOpKind::kRead, value, version, invoke, complete, Outcome::kOk};
}
RegisterOp write(int client, int64_t value, int64_t invoke, int64_t complete,
                 Outcome outcome = Outcome::kOk) {
  return {client,
          "/r",
          RegisterOpKind::kWrite,
          value,
          0,
          invoke,
          outcome == Outcome::kUnknown ? kNever : complete,
          outcome};
}
RegisterOp cas(int client, int32_t expected, int64_t value, int64_t invoke, int64_t complete,
               Outcome outcome = Outcome::kOk) {
  return {client,
          "/r",
          RegisterOpKind::kCas,
          value,
          expected,
          invoke,
          outcome == Outcome::kUnknown ? kNever : complete,
          outcome};
}
RegisterOp unknown_write(int client, int64_t value, int64_t invoke) {
  return write(client, value, invoke, kNever, Outcome::kUnknown);
}

bool same(const RegisterOp& a, const RegisterOp& b) {
  return a.client == b.client && a.key == b.key && a.kind == b.kind && a.value == b.value &&
         a.version == b.version && a.invoke_ns == b.invoke_ns && a.complete_ns == b.complete_ns &&
         a.outcome == b.outcome;
}

// The window as describe() lines, for readable failures.
std::vector<std::string> lines(const std::vector<RegisterOp>& ops) {
  std::vector<std::string> out;
  for (const RegisterOp& op : ops) out.push_back(describe(op));
  return out;
}

// Expects exactly one linearizability violation on "/r" whose window is `window`.
void expect_caught(const std::vector<RegisterOp>& history, const std::vector<RegisterOp>& window) {
  std::vector<Violation> found = check_registers(history);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].kind, "linearizability");
  EXPECT_EQ(found[0].what.rfind("/r: not linearizable", 0), 0u) << found[0].what;
  EXPECT_EQ(lines(found[0].window), lines(window)) << found[0].what;
}

void expect_linearizable(const std::vector<RegisterOp>& history) {
  std::vector<Violation> found = check_registers(history);
  for (const Violation& v : found) ADD_FAILURE() << v.what;
}

TEST(CheckRegisters, EmptyHistoryPasses) { EXPECT_TRUE(check_history({}).ok()); }

TEST(CheckRegisters, ConcurrentOverlappingWritesAndReadsPass) {
  // w1 and w2 overlap; the reads say w2 went first, then w1.
  expect_linearizable({
      write(1, 1, 0, 10),
      write(2, 2, 5, 15),
      read(3, 2, 1, 6, 8),
      read(4, 1, 2, 9, 20),
      read(3, 1, 2, 21, 22),
  });
}

TEST(CheckRegisters, CasRaceWithOneWinnerPasses) {
  expect_linearizable({
      cas(1, 0, 5, 0, 10),
      cas(2, 0, 6, 1, 11, Outcome::kFailed),
      read(3, 5, 1, 12, 13),
      cas(3, 1, 7, 14, 15),
      cas(1, 1, 8, 14, 16, Outcome::kFailed),
      read(2, 7, 2, 17, 18),
  });
}

TEST(CheckRegisters, UnknownWriteThatTookEffectPasses) {
  // Not seen at first, seen later: it took effect in between.
  expect_linearizable({
      unknown_write(1, 7, 0),
      read(2, 0, 0, 1, 2),
      read(3, 7, 1, 3, 4),
  });
}

TEST(CheckRegisters, UnknownWriteSeenOnlyThroughTheVersionPasses) {
  expect_linearizable({
      unknown_write(1, 7, 0),
      write(2, 8, 10, 11),
      read(2, 8, 2, 12, 13),
  });
}

TEST(CheckRegisters, UnknownWriteNeverSeenPasses) {
  expect_linearizable({
      unknown_write(1, 7, 0),
      read(2, 0, 0, 1, 2),
      write(2, 8, 3, 4),
      read(3, 8, 1, 5, 6),
      cas(3, 1, 9, 7, 8),
      read(2, 9, 2, 9, 10),
  });
}

TEST(CheckRegisters, FailedWritesAndUnknownCasPass) {
  expect_linearizable({
      write(1, 3, 0, 1, Outcome::kFailed),
      cas(2, 0, 4, 2, kNever, Outcome::kUnknown),  // took effect
      cas(3, 0, 5, 2, kNever, Outcome::kUnknown),  // did not
      read(1, 4, 1, 10, 11),
  });
}

TEST(CheckRegisters, StaleReadAfterAcknowledgedWriteIsCaught) {
  std::vector<RegisterOp> h = {
      write(1, 1, 0, 10), read(2, 1, 1, 11, 12), write(1, 2, 13, 14),
      read(2, 1, 1, 15, 16),  // stale: w2 completed before
  };
  expect_caught(h, {h[2], h[3]});
}

TEST(CheckRegisters, StaleReadOfTheInitialStateIsCaught) {
  std::vector<RegisterOp> h = {write(1, 1, 0, 1), read(2, 0, 0, 2, 3)};
  expect_caught(h, h);
}

TEST(CheckRegisters, LostAcknowledgedWriteIsCaught) {
  // The final read shows the value before an acknowledged write.
  std::vector<RegisterOp> h = {
      write(1, 1, 0, 1),   read(2, 1, 1, 2, 3), write(3, 2, 4, 5),
      read(1, 2, 2, 6, 7), write(2, 3, 8, 9),   read(1, 2, 2, 100, 101),  // final read: w3 is lost
  };
  expect_caught(h, {h[4], h[5]});
}

TEST(CheckRegisters, TwoCasAtTheSameVersionIsCaught) {
  std::vector<RegisterOp> h = {cas(1, 0, 1, 0, 10), cas(2, 0, 2, 1, 11)};
  expect_caught(h, h);
}

TEST(CheckRegisters, TwoCasAtTheSameVersionLaterIsCaughtWithASmallWindow) {
  std::vector<RegisterOp> h = {
      write(1, 1, 0, 1),  write(1, 2, 2, 3),   read(2, 2, 2, 4, 5),
      cas(1, 2, 3, 6, 9), cas(2, 2, 4, 7, 10), read(3, 4, 3, 11, 12),
  };
  // From any state: both cas need version 2.
  expect_caught(h, {h[3], h[4]});
}

TEST(CheckRegisters, ReadOfAValueNeverWrittenIsCaught) {
  std::vector<RegisterOp> h = {write(1, 1, 0, 1), read(2, 42, 1, 2, 3)};
  expect_caught(h, h);
}

TEST(CheckRegisters, ReadOfAValueNeverWrittenAfterAnotherReadIsCaught) {
  std::vector<RegisterOp> h = {write(1, 1, 0, 1), read(2, 1, 1, 2, 3), read(2, 42, 2, 4, 5)};
  expect_caught(h, {h[1], h[2]});
}

TEST(CheckRegisters, ReadWithTheWrongVersionIsCaught) {
  std::vector<RegisterOp> h = {write(1, 7, 0, 1), read(2, 7, 2, 2, 3)};
  expect_caught(h, h);
}

TEST(CheckRegisters, FailedCasWhenTheVersionMatchedIsCaught) {
  std::vector<RegisterOp> h = {
      write(1, 1, 0, 1),
      cas(2, 1, 5, 2, 3, Outcome::kFailed),  // BadVersion, yet the version was 1
      read(3, 1, 1, 4, 5),
  };
  // The cas's own answer is where it fails: the later read is not needed.
  expect_caught(h, {h[0], h[1]});
}

TEST(CheckRegisters, FailedCasBetweenTwoReadsIsCaughtWithoutTheWrite) {
  std::vector<RegisterOp> h = {
      write(1, 1, 0, 1),
      read(3, 1, 1, 2, 3),
      cas(2, 1, 5, 4, 5, Outcome::kFailed),
      read(3, 1, 1, 6, 7),
  };
  expect_caught(h, {h[1], h[2]});
}

TEST(CheckRegisters, InFlightWritesAreInTheWindow) {
  // c1's write is in flight across the window; the window must count it.
  std::vector<RegisterOp> h = {
      write(1, 9, 0, 100), read(2, 0, 0, 1, 2), write(3, 5, 3, 4),
      read(2, 5, 1, 5, 6), read(2, 0, 0, 7, 8),
  };
  std::vector<Violation> found = check_registers(h);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(lines(found[0].window), lines({h[0], h[3], h[4]})) << found[0].what;
  EXPECT_NE(found[0].what.find("already in flight"), std::string::npos) << found[0].what;
}

TEST(CheckRegisters, WindowFallsBackToTheLastOperations) {
  // Only the initial state shows the version is off by one: no short window fails.
  std::vector<RegisterOp> h;
  for (int i = 1; i <= 30; ++i) h.push_back(write(1, i, 10 * i, 10 * i + 1));
  h.push_back(read(2, 30, 31, 1000, 1001));
  std::vector<Violation> found = check_registers(h, 8);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].what.find("no window of at most 8"), std::string::npos) << found[0].what;
  ASSERT_EQ(found[0].window.size(), 8u);
  EXPECT_TRUE(same(found[0].window.back(), h.back()));
  EXPECT_TRUE(same(found[0].window.front(), h[h.size() - 8]));
}

TEST(CheckRegisters, KeysAreCheckedApart) {
  RegisterOp a = write(1, 1, 0, 1);
  RegisterOp b = read(2, 1, 1, 2, 3);
  b.key = "/s";  // /s was never written
  std::vector<Violation> found = check_registers({a, b});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].what.rfind("/s: not linearizable", 0), 0u) << found[0].what;
}

// Twelve unknown writes, then a read no order explains (version 100): the
// search has to try every subset of the writes (4096) before it can say so.
// Later reads name every value, so that no two writes are alike.
std::vector<RegisterOp> hard_history() {
  std::vector<RegisterOp> h;
  for (int i = 1; i <= 12; ++i) h.push_back(unknown_write(i, i, 0));
  h.push_back(read(0, 7, 100, 200, 201));
  for (int i = 1; i <= 12; ++i) h.push_back(read(0, i, i, 300 + 2 * i, 301 + 2 * i));
  return h;
}

TEST(CheckRegisters, SearchBeyondItsBudgetIsInconclusive) {
  // No window of at most 8 operations (the read and the writes in flight)
  // shows it.
  std::vector<RegisterOp> h = hard_history();
  std::vector<Violation> found = check_registers(h, 8, 1000);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].kind, "linearizability");
  EXPECT_EQ(found[0].what.rfind("/r: inconclusive", 0), 0u) << found[0].what;
  EXPECT_TRUE(found[0].window.empty());
  // With the default budget the search completes: not linearizable.
  found = check_registers(h, 8);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].what.rfind("/r: not linearizable", 0), 0u) << found[0].what;
  ASSERT_EQ(found[0].window.size(), 8u);
  EXPECT_TRUE(same(found[0].window.back(), h[12]));
}

TEST(CheckRegisters, SearchBeyondItsBudgetStillFailsWhenAWindowShowsIt) {
  // From the initial state the writes and the read have no order: that
  // window proves the violation without the whole search.
  std::vector<RegisterOp> h = hard_history();
  std::vector<Violation> found = check_registers(h, 24, 1000);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].what.rfind("/r: not linearizable", 0), 0u) << found[0].what;
  EXPECT_EQ(lines(found[0].window), lines({h.begin(), h.begin() + 13}));
}

TEST(CheckRegisters, DescribeShowsOneOperationPerLine) {
  RegisterOp r = read(3, 12, 4, 1'203'117'000, 1'207'020'000);
  r.key = "/r1";
  EXPECT_EQ(describe(r), "c3 read /r1 = 12 @v4 ok [1.203117 s, 1.207020 s]");
  RegisterOp w = unknown_write(3, 12, 1'203'117'000);
  EXPECT_EQ(describe(w, 1'000'000'000), "c3 write /r := 12 unknown [0.203117 s, ?]");
  RegisterOp c = cas(3, 4, 12, 1'203'117'000, 1'207'020'000, Outcome::kFailed);
  EXPECT_EQ(describe(c), "c3 cas /r @v4 := 12 failed [1.203117 s, 1.207020 s]");
}

// --- A generated history: a linearizable register under random concurrency.

struct Generated {
  std::vector<RegisterOp> ops;
  // Per op: the state (value, version) just before it took effect, for writes and cas.
  std::vector<std::pair<int64_t, int32_t>> before;
};

// `clients` clients each run one operation at a time on random keys; every
// operation takes effect at a random point within its interval (or, for
// those made unknown, perhaps later or never). Times in nanoseconds.
Generated simulate(uint64_t seed, int clients, int keys, int total, int unknowns) {
  std::mt19937_64 rng(seed);
  auto uniform = [&rng](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  Generated g;
  std::vector<int64_t> free_at(static_cast<size_t>(clients));
  for (int64_t& t : free_at) t = uniform(0, 1000);
  std::vector<int64_t> takes_effect;
  for (int i = 0; i < total; ++i) {
    size_t c =
        static_cast<size_t>(std::min_element(free_at.begin(), free_at.end()) - free_at.begin());
    RegisterOp op;
    op.client = static_cast<int>(c);
    op.key = "/r" + std::to_string(uniform(0, keys - 1));
    int64_t roll = uniform(0, 99);
    op.kind = roll < 45 ? RegisterOpKind::kRead
                        : (roll < 75 ? RegisterOpKind::kWrite : RegisterOpKind::kCas);
    op.invoke_ns = free_at[c] + uniform(0, 20'000);
    op.complete_ns = op.invoke_ns + uniform(1'000, 200'000);
    op.outcome = Outcome::kOk;
    free_at[c] = op.complete_ns;
    takes_effect.push_back(uniform(op.invoke_ns, op.complete_ns));
    g.ops.push_back(op);
  }
  // Make some writes and cas unknown: they take effect late, or never.
  std::vector<bool> applied(g.ops.size(), true);
  for (int made = 0; made < unknowns;) {
    size_t i = static_cast<size_t>(uniform(0, total - 1));
    RegisterOp& op = g.ops[i];
    if (op.kind == RegisterOpKind::kRead || op.outcome == Outcome::kUnknown) continue;
    op.outcome = Outcome::kUnknown;
    op.complete_ns = kNever;
    takes_effect[i] = op.invoke_ns + uniform(0, 2'000'000);
    applied[i] = uniform(0, 1) == 1;
    ++made;
  }
  // Run the register in order of the effect times.
  std::vector<size_t> order(g.ops.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return takes_effect[a] < takes_effect[b]; });
  std::map<std::string, std::pair<int64_t, int32_t>> state;
  g.before.assign(g.ops.size(), {0, 0});
  int64_t next_value = 1;
  for (size_t i : order) {
    RegisterOp& op = g.ops[i];
    auto& [value, version] = state[op.key];
    g.before[i] = {value, version};
    switch (op.kind) {
      case RegisterOpKind::kRead:
        op.value = value;
        op.version = version;
        break;
      case RegisterOpKind::kWrite:
        op.value = next_value++;
        if (applied[i]) value = op.value, ++version;
        break;
      case RegisterOpKind::kCas: {
        op.value = next_value++;
        int64_t guess = uniform(0, 9);
        op.version = guess < 6 ? version : std::max(0, version + static_cast<int32_t>(guess) - 7);
        bool matches = op.version == version;
        if (op.outcome != Outcome::kUnknown && !matches) op.outcome = Outcome::kFailed;
        if (matches && applied[i]) value = op.value, ++version;
        break;
      }
    }
  }
  return g;
}

TEST(CheckRegistersGenerated, LinearizableRegisterPasses) {
  for (uint64_t seed : {1, 2, 3}) {
    Generated g = simulate(seed, 6, 3, 30'000, 12);
    std::vector<Violation> found = check_registers(g.ops);
    for (const Violation& v : found) ADD_FAILURE() << "seed " << seed << ": " << v.what;
  }
}

TEST(CheckRegistersGenerated, ManyUnknownsPass) {
  Generated g = simulate(7, 6, 1, 5'000, 40);
  std::vector<Violation> found = check_registers(g.ops);
  for (const Violation& v : found) ADD_FAILURE() << v.what;
}

TEST(CheckRegistersGenerated, OneStaleReadIsCaught) {
  for (uint64_t seed : {1, 2, 3}) {
    Generated g = simulate(seed, 6, 3, 30'000, 12);
    // A read past the middle made to return the state from before an
    // acknowledged write (or cas) of its key that completed before it began.
    size_t victim = g.ops.size();
    for (size_t r = g.ops.size() / 2; r < g.ops.size() && victim == g.ops.size(); ++r) {
      const RegisterOp& read_op = g.ops[r];
      if (read_op.kind != RegisterOpKind::kRead) continue;
      for (size_t w = r; w-- > 0;) {
        const RegisterOp& w_op = g.ops[w];
        if (w_op.key != read_op.key || w_op.kind == RegisterOpKind::kRead ||
            w_op.outcome != Outcome::kOk || w_op.complete_ns >= read_op.invoke_ns) {
          continue;
        }
        g.ops[r].value = g.before[w].first;
        g.ops[r].version = g.before[w].second;
        victim = r;
        break;
      }
    }
    ASSERT_LT(victim, g.ops.size());
    std::vector<Violation> found = check_registers(g.ops);
    ASSERT_EQ(found.size(), 1u) << "seed " << seed;
    const Violation& v = found[0];
    EXPECT_EQ(v.kind, "linearizability");
    EXPECT_EQ(v.what.rfind(g.ops[victim].key + ": not linearizable", 0), 0u) << v.what;
    EXPECT_EQ(v.what.find("no window"), std::string::npos) << v.what;
    EXPECT_LE(v.window.size(), 24u);
    EXPECT_TRUE(std::any_of(v.window.begin(), v.window.end(),
                            [&](const RegisterOp& op) { return same(op, g.ops[victim]); }))
        << "seed " << seed << ": " << v.what;
  }
}

// --- The checker against the definition, on small random histories.

// Whether `ops` (one register) is linearizable, by trying every order: an op
// can go next when no mandatory op not yet placed completed before it was
// invoked; unknown writes and cas may go or not; the rest must.
bool linearizable_by_brute_force(const std::vector<RegisterOp>& all) {
  std::vector<RegisterOp> ops;
  for (const RegisterOp& op : all) {
    bool dropped = (op.kind == RegisterOpKind::kRead && op.outcome != Outcome::kOk) ||
                   (op.kind == RegisterOpKind::kWrite && op.outcome == Outcome::kFailed);
    if (!dropped) ops.push_back(op);
  }
  std::vector<bool> placed(ops.size(), false);
  auto mandatory = [](const RegisterOp& op) { return op.outcome != Outcome::kUnknown; };
  auto go = [&](auto&& self, int64_t value, int64_t version) -> bool {
    bool all_placed = true;
    for (size_t i = 0; i < ops.size(); ++i) all_placed &= placed[i] || !mandatory(ops[i]);
    if (all_placed) return true;
    for (size_t i = 0; i < ops.size(); ++i) {
      if (placed[i]) continue;
      bool blocked = false;
      for (size_t j = 0; j < ops.size(); ++j) {
        blocked |= !placed[j] && mandatory(ops[j]) && ops[j].complete_ns < ops[i].invoke_ns;
      }
      if (blocked) continue;
      const RegisterOp& op = ops[i];
      int64_t v = value, ver = version;
      switch (op.kind) {
        case RegisterOpKind::kRead:
          if (op.value != value || op.version != version) continue;
          break;
        case RegisterOpKind::kWrite:
          v = op.value, ver = version + 1;
          break;
        case RegisterOpKind::kCas:
          if (op.outcome == Outcome::kFailed) {
            if (op.version == version) continue;
          } else {
            if (op.version != version) continue;
            v = op.value, ver = version + 1;
          }
          break;
      }
      placed[i] = true;
      bool ok = self(self, v, ver);
      placed[i] = false;
      if (ok) return true;
    }
    return false;
  };
  return go(go, 0, 0);
}

TEST(CheckRegistersRandom, AgreesWithTheDefinition) {
  std::mt19937_64 rng(42);
  auto uniform = [&rng](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  int failing = 0;
  for (int round = 0; round < 4000; ++round) {
    std::vector<RegisterOp> h;
    const int64_t n = uniform(1, 7);
    for (int64_t i = 0; i < n; ++i) {
      RegisterOp op;
      op.client = static_cast<int>(i);
      op.key = "/r";
      op.kind = static_cast<RegisterOpKind>(uniform(0, 2));
      op.value = uniform(op.kind == RegisterOpKind::kRead ? 0 : 1, 3);  // values repeat
      op.version = static_cast<int32_t>(uniform(0, 3));
      op.invoke_ns = uniform(0, 20);
      op.complete_ns = op.invoke_ns + uniform(0, 10);
      int64_t roll = uniform(0, 99);
      op.outcome = roll < 70 ? Outcome::kOk : (roll < 85 ? Outcome::kFailed : Outcome::kUnknown);
      if (op.outcome == Outcome::kUnknown) op.complete_ns = kNever;
      h.push_back(op);
    }
    bool expected = linearizable_by_brute_force(h);
    std::vector<Violation> found = check_registers(h);
    failing += !expected;
    std::string text;
    for (const std::string& line : lines(h)) text += "\n  " + line;
    ASSERT_EQ(found.empty(), expected) << "round " << round << ":" << text;
    if (!found.empty()) {
      EXPECT_EQ(found[0].what.find("inconclusive"), std::string::npos) << found[0].what;
      EXPECT_FALSE(found[0].window.empty());
    }
  }
  EXPECT_GT(failing, 400);  // both verdicts are well exercised
  EXPECT_LT(failing, 3600);
}

// --- Sequential creates.

SequentialCreate create(int client, int64_t sequence, int64_t invoke, int64_t complete,
                        Outcome outcome = Outcome::kOk) {
  return {client, "/q", sequence, invoke, outcome == Outcome::kUnknown ? kNever : complete,
          outcome};
}

using Listing = std::vector<std::pair<std::string, std::vector<int64_t>>>;

TEST(CheckSequential, UniqueIncreasingAndListedPasses) {
  std::vector<SequentialCreate> creates = {
      create(1, 0, 0, 10),
      create(2, 2, 5, 12),  // concurrent: any order
      create(3, 1, 6, 11),
      create(1, 3, 20, 21),
      create(2, -1, 22, 23, Outcome::kFailed),
      create(3, -1, 24, 0, Outcome::kUnknown),  // made child 5
  };
  EXPECT_TRUE(check_sequential(creates, Listing{{"/q", {0, 1, 2, 3, 5}}}).empty());
}

TEST(CheckSequential, DuplicateNumberIsCaught) {
  std::vector<Violation> found =
      check_sequential({create(1, 4, 0, 10), create(2, 4, 5, 15)}, Listing{{"/q", {4}}});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].kind, "sequential");
  EXPECT_NE(found[0].what.find("0000000004 was given twice"), std::string::npos) << found[0].what;
}

TEST(CheckSequential, RealTimeOrderViolationIsCaught) {
  std::vector<Violation> found =
      check_sequential({create(1, 7, 0, 10), create(2, 3, 11, 15), create(3, 2, 12, 16)},
                       Listing{{"/q", {2, 3, 7}}});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].what.find("c2 create /q -> 0000000003"), std::string::npos) << found[0].what;
  EXPECT_NE(found[0].what.find("and 1 more"), std::string::npos) << found[0].what;
}

TEST(CheckSequential, AcknowledgedCreateMissingFromTheListingIsCaught) {
  std::vector<Violation> found =
      check_sequential({create(1, 0, 0, 10), create(2, 1, 11, 15)}, Listing{{"/q", {0}}});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].what.find("0000000001 ok"), std::string::npos) << found[0].what;
  EXPECT_NE(found[0].what.find("missing from the final listing"), std::string::npos);
}

TEST(CheckSequential, ListedChildNoCreateCouldHaveMadeIsCaught) {
  // 9 has no create; the unknown one can explain only one number above 1.
  std::vector<SequentialCreate> creates = {create(1, 0, 0, 10), create(2, 1, 11, 15),
                                           create(3, -1, 20, 0, Outcome::kUnknown)};
  EXPECT_TRUE(check_sequential(creates, Listing{{"/q", {0, 1, 9}}}).empty());
  std::vector<Violation> found = check_sequential(creates, Listing{{"/q", {0, 1, 8, 9}}});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].what.find("0000000009, which no create"), std::string::npos) << found[0].what;
  // An unknown create invoked after 5 was acknowledged can only have made a larger number.
  found = check_sequential({create(1, 5, 0, 10), create(3, -1, 20, 0, Outcome::kUnknown)},
                           Listing{{"/q", {2, 5}}});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].what.find("0000000002, which no create"), std::string::npos) << found[0].what;
}

// --- Ephemerals.

TEST(CheckEphemerals, EachFailureIsCaught) {
  std::vector<EphemeralRecord> records = {
      {"/e/alive", 0x10, false, true},
      {"/e/gone", 0x11, true, false},
      {"/e/stale", 0x12, true, true},
      {"/e/lost", 0x13, false, false},
  };
  std::vector<Violation> found = check_ephemerals(records);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].kind, "ephemeral");
  EXPECT_EQ(found[0].what, "/e/stale: still present after its session 0x12 ended");
  EXPECT_EQ(found[1].what, "/e/lost: missing while its session 0x13 is alive");
}

TEST(CheckHistory, CombinesAllThreeAndCounts) {
  History h;
  h.registers = {write(1, 1, 0, 1), read(2, 0, 0, 2, 3)};
  h.creates = {create(1, 0, 0, 1)};
  h.final_children = {{"/q", {}}};
  h.ephemerals = {{"/e", 1, true, true}};
  Verdict v = check_history(h);
  EXPECT_FALSE(v.ok());
  ASSERT_EQ(v.violations.size(), 3u);
  EXPECT_EQ(v.violations[0].kind, "linearizability");
  EXPECT_EQ(v.violations[1].kind, "sequential");
  EXPECT_EQ(v.violations[2].kind, "ephemeral");
  EXPECT_EQ(v.register_ops, 2);
  EXPECT_EQ(v.creates, 1);
  EXPECT_EQ(v.ephemerals, 1);

  h.registers[1] = read(2, 1, 1, 2, 3);
  h.final_children = {{"/q", {0}}};
  h.ephemerals[0].present_at_end = false;
  EXPECT_TRUE(check_history(h).ok());
}

// Watch events: a write of "/r" acknowledged at `zxid`, and events of one
// watcher.
RegisterOp write_at(int64_t zxid, int64_t value) {
  RegisterOp op = write(1, value, zxid, zxid + 1);
  op.zxid = zxid;
  return op;
}
WatchEventRecord event(int64_t zxid, int connection = 1, std::string path = "/r") {
  return {1, connection, std::move(path), zxid};
}

TEST(CheckWatches, EveryChangeInOrderOnceEachPasses) {
  const std::vector<RegisterOp> ops = {write_at(10, 1), write_at(11, 2), write_at(14, 3)};
  EXPECT_TRUE(check_watches({event(10), event(11), event(14)}, ops).empty());
  // Events of other registers in between, two of them at one zxid (a multi).
  const std::vector<WatchEventRecord> mixed = {event(10), event(11), event(12, 1, "/q"),
                                               event(12, 1, "/s"), event(14)};
  EXPECT_TRUE(check_watches(mixed, ops).empty());
}

TEST(CheckWatches, AMissedChangeBetweenTwoEventsOfOneConnectionIsCaught) {
  const std::vector<RegisterOp> ops = {write_at(10, 1), write_at(11, 2), write_at(14, 3)};
  const auto found = check_watches({event(10), event(14)}, ops);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].kind, "watch");
  EXPECT_NE(found[0].what.find("no event for"), std::string::npos) << found[0].what;
  EXPECT_NE(found[0].what.find("(zxid 11)"), std::string::npos) << found[0].what;
  // Across a reconnection events may be lost: not a violation.
  EXPECT_TRUE(check_watches({event(10, 1), event(14, 2)}, ops).empty());
}

TEST(CheckWatches, ADuplicateOrABackwardEventIsCaughtOnlyWithinAConnection) {
  const std::vector<RegisterOp> ops = {write_at(10, 1), write_at(11, 2)};
  EXPECT_EQ(check_watches({event(10), event(11), event(11)}, ops).size(), 1u);
  EXPECT_EQ(check_watches({event(11), event(10)}, ops).size(), 1u);
  // A lagging server the watcher reconnected to fires 11 again.
  EXPECT_TRUE(check_watches({event(10, 1), event(11, 1), event(11, 2)}, ops).empty());
}

TEST(CheckWatches, EventsWithoutAZxidAreNotChecked) {
  // An Apache 3.8 server (a mixed lab's) sends -1 in the notification header.
  const std::vector<RegisterOp> ops = {write_at(10, 1), write_at(11, 2)};
  EXPECT_TRUE(check_watches({event(-1), event(-1), event(-1, 1, "/q")}, ops).empty());
  EXPECT_TRUE(check_watches({event(10), event(-1), event(11)}, ops).empty());
}

TEST(CheckWatches, CheckHistoryReportsThemAsWatchViolations) {
  History h;
  h.registers = {write_at(10, 1), write_at(11, 2), write_at(14, 3)};
  h.watch_events = {event(10), event(14)};
  const auto verdict = check_history(h);
  ASSERT_EQ(verdict.violations.size(), 1u);
  EXPECT_EQ(verdict.violations[0].kind, "watch");
  EXPECT_EQ(verdict.watch_events, 2);
}

}  // namespace
}  // namespace zk::lab::check
