// SPDX-License-Identifier: Apache-2.0
// What `zkbench keeper-bench` sends, drawn from a keeper-bench configuration
// (keeper_bench_config.h): the setup tree made concrete, the request
// generators' children_of paths resolved, and one request after another.
// No I/O, no clock, no thread of its own; randomness from seeded
// std::mt19937_64 streams only, so that a seed replays the setup tree and
// each loop's draws (the order in which loops share the created znodes
// depends on timing).
//
// Requests as keeper-bench draws them: a generator of generator.requests by
// weight; create: a new znode PARENT/NAME (parent drawn from its paths, NAME
// random of name_length characters, data as configured), or, with chance
// remove_factor once it has created some, a remove of the oldest znode it
// created and has not removed yet (keeper-bench: any of them); set: a setData
// of a drawn path (version -1); get: a getData; list: a getChildren (not
// ClickHouse Keeper's filtered list); multi: `size` operations drawn by
// weight from its requests, or one of each in order without a size, sent as
// one multi (writes) or multiRead (reads). Paths are drawn uniformly from
// the fixed ones and the children listed.
//
// Each request loop of a run owns a RequestGenerator (its own random
// stream); the loops share a GeneratorPlan (the specs and the znodes the
// create generators made).
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "zkbench/keeper_bench_config.h"

namespace zk::bench::keeper {

using Rng = std::mt19937_64;

// How keeper-bench counts a request: reads (get, list, multiRead) apart
// from writes (create, remove, set, multi).
enum class StatKind : uint8_t { kCreate, kRemove, kSet, kGet, kList, kMulti, kMultiRead };
inline constexpr size_t kStatKinds = 7;

// "create", "remove", "set", "get", "list", "multi", "multiread".
std::string_view stat_name(StatKind kind);
bool is_read(StatKind kind);

// One operation: a request of its own, or a part of a multi.
struct Op {
  enum class Type : uint8_t { kCreate, kRemove, kSet, kGet, kList };
  Type type = Type::kGet;
  std::string path;
  std::string data;  // create, set
};

struct Request {
  StatKind kind = StatKind::kGet;
  std::vector<Op> ops;  // one, except for a multi or multiRead
};

// [0-9a-zA-Z]{length}.
std::string random_string(Rng& rng, uint64_t length);
// A number of `spec`: min when min == max, else uniform in [min, max].
uint64_t draw(Rng& rng, const NumberSpec& spec);
// The text of `spec`, or random characters of a drawn length.
std::string draw(Rng& rng, const StringSpec& spec);

// A znode of the setup tree, made concrete.
struct SetupZnode {
  std::string path;
  std::string data;
  size_t depth = 0;  // 0 for a root (a child of /)
};

struct SetupTree {
  std::vector<std::string> roots;  // the roots' paths, in order
  std::vector<SetupZnode> znodes;  // every znode, parents before children, by depth
};

// The setup tree with every repeat expanded and every random name and datum
// drawn. Random siblings never share a name, and no root is /zookeeper.
SetupTree expand_setup(const std::vector<SetupNode>& roots, Rng& rng);

// The parents whose children some generator of `requests` goes to
// (children_of), sorted, without repeats.
std::vector<std::string> parents_to_list(const std::vector<RequestSpec>& requests);

// Replaces every children_of of `requests` by the children `listed` has for
// that parent (as full paths, after the generator's fixed paths). Empty on
// success, else "KEY: no path to go to (PARENT has no children)" for a
// generator left without a path.
std::string resolve_paths(std::vector<RequestSpec>& requests,
                          const std::map<std::string, std::vector<std::string>>& listed);

// What the request loops of a run share: the generators' specs (paths
// resolved by resolve_paths()), and for each create generator the znodes it
// created and has not removed yet, oldest first (one list for every loop, as
// keeper-bench keeps one, so that loops do not pick the same new name).
// Thread-safe: each list has a mutex of its own.
class GeneratorPlan {
 public:
  explicit GeneratorPlan(std::vector<RequestSpec> specs);
  GeneratorPlan(const GeneratorPlan&) = delete;
  GeneratorPlan& operator=(const GeneratorPlan&) = delete;

  const std::vector<RequestSpec>& specs() const { return specs_; }

 private:
  friend class RequestGenerator;
  struct Created {
    std::mutex mu;  // guards order and live
    std::deque<std::string> order;
    std::unordered_set<std::string> live;
  };
  void add_states(const std::vector<RequestSpec>& specs);

  const std::vector<RequestSpec> specs_;
  std::map<const RequestSpec*, std::unique_ptr<Created>> created_;  // built once
};

// Draws requests from a plan, with a random stream of its own (one per
// request loop; used from one thread at a time).
class RequestGenerator {
 public:
  RequestGenerator(std::shared_ptr<GeneratorPlan> plan, uint64_t seed);

  Request next();

 private:
  const RequestSpec& pick(const std::vector<RequestSpec>& among);
  Op op(const RequestSpec& spec);
  const std::string& path(const RequestSpec& spec);

  std::shared_ptr<GeneratorPlan> plan_;
  Rng rng_;
};

}  // namespace zk::bench::keeper
