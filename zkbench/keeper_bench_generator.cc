// SPDX-License-Identifier: Apache-2.0
#include "zkbench/keeper_bench_generator.h"

#include <algorithm>
#include <unordered_set>

namespace zk::bench::keeper {

namespace {

constexpr std::string_view kAlphabet =
    "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
// Tries at a random name that is not taken before taking it anyway (the
// server then answers NODEEXISTS).
constexpr int kNameTries = 100;

std::string child_path(const std::string& parent, std::string_view name) {
  return (parent == "/" ? std::string("/") : parent + "/") + std::string(name);
}

StatKind stat_of(Op::Type type) {
  switch (type) {
    case Op::Type::kCreate:
      return StatKind::kCreate;
    case Op::Type::kRemove:
      return StatKind::kRemove;
    case Op::Type::kSet:
      return StatKind::kSet;
    case Op::Type::kGet:
      return StatKind::kGet;
    case Op::Type::kList:
      return StatKind::kList;
  }
  return StatKind::kGet;
}

void expand(const SetupNode& node, const std::string& parent, size_t depth, Rng& rng,
            std::unordered_set<std::string>& siblings,
            std::vector<std::vector<SetupZnode>>& levels) {
  for (uint64_t copy = 0; copy < node.repeat; ++copy) {
    std::string name = draw(rng, node.name);
    for (int t = 0; node.name.random() && t < kNameTries &&
                    (siblings.contains(name) || (depth == 0 && name == "zookeeper"));
         ++t) {
      name = draw(rng, node.name);
    }
    siblings.insert(name);
    const std::string path = child_path(parent, name);
    if (levels.size() <= depth) levels.resize(depth + 1);
    levels[depth].push_back({path, node.data ? draw(rng, *node.data) : std::string(), depth});
    std::unordered_set<std::string> children;
    for (const SetupNode& c : node.children) {
      if (c.name.text) children.insert(*c.name.text);
    }
    for (const SetupNode& c : node.children) expand(c, path, depth + 1, rng, children, levels);
  }
}

void collect_parents(const std::vector<RequestSpec>& specs, std::vector<std::string>& out) {
  for (const RequestSpec& s : specs) {
    out.insert(out.end(), s.path.children_of.begin(), s.path.children_of.end());
    collect_parents(s.requests, out);
  }
}

}  // namespace

std::string_view stat_name(StatKind kind) {
  switch (kind) {
    case StatKind::kCreate:
      return "create";
    case StatKind::kRemove:
      return "remove";
    case StatKind::kSet:
      return "set";
    case StatKind::kGet:
      return "get";
    case StatKind::kList:
      return "list";
    case StatKind::kMulti:
      return "multi";
    case StatKind::kMultiRead:
      return "multiread";
  }
  return "?";
}

bool is_read(StatKind kind) {
  return kind == StatKind::kGet || kind == StatKind::kList || kind == StatKind::kMultiRead;
}

std::string random_string(Rng& rng, uint64_t length) {
  std::uniform_int_distribution<size_t> pick(0, kAlphabet.size() - 1);
  std::string s(length, '0');
  for (char& c : s) c = kAlphabet[pick(rng)];
  return s;
}

uint64_t draw(Rng& rng, const NumberSpec& spec) {
  if (spec.min >= spec.max) return spec.min;
  return std::uniform_int_distribution<uint64_t>(spec.min, spec.max)(rng);
}

std::string draw(Rng& rng, const StringSpec& spec) {
  return spec.text ? *spec.text : random_string(rng, draw(rng, spec.random_size));
}

SetupTree expand_setup(const std::vector<SetupNode>& roots, Rng& rng) {
  std::vector<std::vector<SetupZnode>> levels;
  std::unordered_set<std::string> names;
  for (const SetupNode& r : roots) {
    if (r.name.text) names.insert(*r.name.text);
  }
  for (const SetupNode& r : roots) expand(r, "/", 0, rng, names, levels);
  SetupTree tree;
  for (auto& level : levels) {
    for (SetupZnode& z : level) tree.znodes.push_back(std::move(z));
  }
  for (const SetupZnode& z : tree.znodes) {
    if (z.depth == 0) tree.roots.push_back(z.path);
  }
  return tree;
}

std::vector<std::string> parents_to_list(const std::vector<RequestSpec>& requests) {
  std::vector<std::string> out;
  collect_parents(requests, out);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::string resolve_paths(std::vector<RequestSpec>& requests,
                          const std::map<std::string, std::vector<std::string>>& listed) {
  for (RequestSpec& s : requests) {
    std::string empty_parents;
    for (const std::string& parent : s.path.children_of) {
      const auto it = listed.find(parent);
      if (it == listed.end() || it->second.empty()) {
        empty_parents += (empty_parents.empty() ? "" : ", ") + parent;
        continue;
      }
      for (const std::string& child : it->second) s.path.paths.push_back(child_path(parent, child));
    }
    s.path.children_of.clear();
    if (s.kind != RequestKind::kMulti && s.path.paths.empty()) {
      return s.key + ": no path to go to (" + empty_parents + " has no children)";
    }
    if (std::string e = resolve_paths(s.requests, listed); !e.empty()) return e;
  }
  return "";
}

GeneratorPlan::GeneratorPlan(std::vector<RequestSpec> specs) : specs_(std::move(specs)) {
  add_states(specs_);
}

void GeneratorPlan::add_states(const std::vector<RequestSpec>& specs) {
  for (const RequestSpec& s : specs) {
    if (s.kind == RequestKind::kCreate) created_.emplace(&s, std::make_unique<Created>());
    add_states(s.requests);
  }
}

RequestGenerator::RequestGenerator(std::shared_ptr<GeneratorPlan> plan, uint64_t seed)
    : plan_(std::move(plan)), rng_(seed) {}

Request RequestGenerator::next() {
  const RequestSpec& s = pick(plan_->specs());
  Request r;
  if (s.kind != RequestKind::kMulti) {
    r.ops.push_back(op(s));
    r.kind = stat_of(r.ops.front().type);
    return r;
  }
  r.kind = s.read_only ? StatKind::kMultiRead : StatKind::kMulti;
  if (s.size) {
    const uint64_t n = draw(rng_, *s.size);
    for (uint64_t i = 0; i < n; ++i) r.ops.push_back(op(pick(s.requests)));
  } else {
    for (const RequestSpec& nested : s.requests) r.ops.push_back(op(nested));
  }
  return r;
}

const RequestSpec& RequestGenerator::pick(const std::vector<RequestSpec>& among) {
  if (among.size() == 1) return among.front();
  uint64_t total = 0;
  for (const RequestSpec& s : among) total += s.weight;
  uint64_t x = std::uniform_int_distribution<uint64_t>(0, total - 1)(rng_);
  for (const RequestSpec& s : among) {
    if (x < s.weight) return s;
    x -= s.weight;
  }
  return among.back();
}

const std::string& RequestGenerator::path(const RequestSpec& spec) {
  const auto& paths = spec.path.paths;
  if (paths.size() == 1) return paths.front();
  return paths[std::uniform_int_distribution<size_t>(0, paths.size() - 1)(rng_)];
}

Op RequestGenerator::op(const RequestSpec& spec) {
  switch (spec.kind) {
    case RequestKind::kCreate: {
      GeneratorPlan::Created& created = *plan_->created_.at(&spec);
      const bool remove = spec.remove_factor &&
                          std::uniform_real_distribution<double>(0, 1)(rng_) < *spec.remove_factor;
      if (remove) {
        std::lock_guard lock(created.mu);
        if (!created.order.empty()) {
          Op o{Op::Type::kRemove, std::move(created.order.front()), {}};
          created.order.pop_front();
          created.live.erase(o.path);
          return o;
        }
      }
      // Names are drawn outside the lock; only the check and the insert are in it.
      std::string candidate =
          child_path(path(spec), random_string(rng_, draw(rng_, spec.name_length)));
      std::string data = spec.data ? draw(rng_, *spec.data) : std::string();
      for (int t = 0;; ++t) {
        {
          std::lock_guard lock(created.mu);
          if (t + 1 >= kNameTries || !created.live.contains(candidate)) {
            created.live.insert(candidate);
            created.order.push_back(candidate);
            break;
          }
        }
        candidate = child_path(path(spec), random_string(rng_, draw(rng_, spec.name_length)));
      }
      return {Op::Type::kCreate, std::move(candidate), std::move(data)};
    }
    case RequestKind::kSet:
      return {Op::Type::kSet, path(spec), draw(rng_, *spec.data)};
    case RequestKind::kGet:
      return {Op::Type::kGet, path(spec), {}};
    case RequestKind::kList:
      return {Op::Type::kList, path(spec), {}};
    case RequestKind::kMulti:
      break;  // a multi inside a multi: refused by the parser
  }
  return {Op::Type::kGet, "/", {}};
}

}  // namespace zk::bench::keeper
