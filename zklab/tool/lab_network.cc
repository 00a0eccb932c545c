// SPDX-License-Identifier: Apache-2.0
#include "zklab/tool/lab_network.h"

#include <charconv>
#include <map>
#include <regex>

#include "zklab/relay/relay_control.h"
#include "zklab/tool/lab_status.h"
#include "zklab/tool/node_spec.h"
#include "zklab/tool/relay_daemon.h"

namespace zk::lab {

namespace {

// The longest delay `slow` takes.
constexpr std::chrono::milliseconds kMaxDelay = std::chrono::hours(1);

// A bad argument: says why; main.cc then prints the command's usage.
LabExit usage(const LabContext& ctx, const std::string& message) {
  ctx.err << "zklab: " << message << "\n";
  return LabExit::kUsage;
}

// "1,2" -> {1, 2}; nothing unless it is ids (> 0) separated by single commas.
std::optional<std::vector<int>> parse_group(const std::string& text) {
  std::vector<int> ids;
  size_t at = 0;
  while (true) {
    const size_t comma = std::min(text.find(',', at), text.size());
    int id = 0;
    const auto [end, ec] = std::from_chars(text.data() + at, text.data() + comma, id);
    if (comma == at || ec != std::errc() || end != text.data() + comma || id <= 0) {
      return std::nullopt;
    }
    ids.push_back(id);
    if (comma == text.size()) return ids;
    at = comma + 1;
  }
}

// "50ms", "1s", "200" (ms); nothing for anything else or more than kMaxDelay.
std::optional<std::chrono::milliseconds> parse_delay(const std::string& text) {
  static const std::regex kDelay(R"(^(\d{1,10})(ms|s)?$)");
  std::smatch m;
  if (!std::regex_match(text, m, kDelay)) return std::nullopt;
  const auto ms = std::stoll(m[1].str()) * (m[2].str() == "s" ? 1000 : 1);
  if (ms > kMaxDelay.count()) return std::nullopt;
  return std::chrono::milliseconds(ms);
}

// The faults in force, changed by `change`, applied; prints them. kError when
// the relay daemon cannot be asked or does not apply them.
template <typename Change>
LabExit change_faults(const LabContext& ctx, const std::string& done, Change change) {
  std::string error;
  auto faults = get_network(ctx.dir, ctx.deadline, error);
  if (!faults) {
    ctx.err << "zklab: " << error << "\n";
    return LabExit::kError;
  }
  change(*faults);
  if (error = set_network(ctx.dir, *faults, ctx.deadline); !error.empty()) {
    ctx.err << "zklab: " << error << "\n";
    return LabExit::kError;
  }
  ctx.out << done << "; network faults now: " << describe_faults(*faults) << "\n";
  return LabExit::kOk;
}

// The node NODE names, as "node N (role, pid P)"; nothing (with a message).
std::optional<int> resolve(const LabContext& ctx, const std::vector<LabNode>& nodes,
                           const std::string& spec, std::string& what) {
  const auto status = lab_status(nodes);
  auto id = resolve_node(status, spec, RandomAmong::kAlive, ctx.err);
  if (!id) return std::nullopt;
  const NodeStatus& s = status[static_cast<size_t>(*id - 1)];
  what = "node " + std::to_string(*id) + " (" + s.role() +
         (s.pid ? ", pid " + std::to_string(*s.pid) : "") + ")";
  return id;
}

}  // namespace

std::optional<std::set<std::pair<int, int>>> partition_links(
    const std::vector<std::vector<int>>& groups, int nodes, std::string& error) {
  const int rest = static_cast<int>(groups.size());  // the group of nodes named in none
  std::map<int, int> group_of;
  for (int g = 0; g < rest; ++g) {
    for (int id : groups[static_cast<size_t>(g)]) {
      if (id < 1 || id > nodes) {
        error = "no node " + std::to_string(id) + " (the lab has nodes 1.." +
                std::to_string(nodes) + ")";
        return std::nullopt;
      }
      if (!group_of.emplace(id, g).second) {
        error = "node " + std::to_string(id) + " is named twice";
        return std::nullopt;
      }
    }
  }
  const auto group = [&](int id) {
    const auto it = group_of.find(id);
    return it == group_of.end() ? rest : it->second;
  };
  std::set<std::pair<int, int>> cut;
  for (int a = 1; a <= nodes; ++a) {
    for (int b = a + 1; b <= nodes; ++b) {
      if (group(a) != group(b)) cut.emplace(a, b);
    }
  }
  return cut;
}

std::string set_network(const std::filesystem::path& lab_dir, const NetworkFaults& faults,
                        std::chrono::milliseconds deadline) {
  std::string error;
  auto port = relay_control_port(lab_dir, error);
  if (port) control_set(*port, faults, deadline, error);
  return error;
}

std::optional<NetworkFaults> get_network(const std::filesystem::path& lab_dir,
                                         std::chrono::milliseconds deadline, std::string& error) {
  auto port = relay_control_port(lab_dir, error);
  if (!port) return std::nullopt;
  return control_get(*port, deadline, error);
}

LabExit lab_partition(const LabContext& ctx, const std::vector<std::string>& args) {
  std::vector<std::vector<int>> groups;
  for (const auto& arg : args) {
    auto group = parse_group(arg);
    if (!group) return usage(ctx, "'" + arg + "' is not a group of node ids");
    groups.push_back(*group);
  }
  auto nodes = load_lab(ctx);
  if (!nodes) return LabExit::kError;
  std::string error;
  auto cut = partition_links(groups, static_cast<int>(nodes->size()), error);
  if (!cut) return usage(ctx, error);
  std::string done = "partitioned";
  for (const auto& arg : args) done += " " + arg;
  return change_faults(ctx, done, [&](NetworkFaults& f) { f.cut = *cut; });
}

LabExit lab_isolate(const LabContext& ctx, const std::string& spec) {
  auto nodes = load_lab(ctx);
  if (!nodes) return LabExit::kError;
  std::string what;
  auto id = resolve(ctx, *nodes, spec, what);
  if (!id) return LabExit::kError;
  std::string error;
  auto cut = partition_links({{*id}}, static_cast<int>(nodes->size()), error);
  return change_faults(ctx, "isolated " + what, [&](NetworkFaults& f) { f.cut = *cut; });
}

LabExit lab_slow(const LabContext& ctx, const std::string& spec, const std::string& delay_text) {
  auto delay = parse_delay(delay_text);
  if (!delay) {
    return usage(ctx, "'" + delay_text + "' is not a delay (e.g. 50ms, 1s; at most 1 hour)");
  }
  auto nodes = load_lab(ctx);
  if (!nodes) return LabExit::kError;
  std::string what;
  auto id = resolve(ctx, *nodes, spec, what);
  if (!id) return LabExit::kError;
  const std::string done = delay->count() == 0 ? "removed the delay of " + what
                                               : "delayed the peer links of " + what + " by " +
                                                     std::to_string(delay->count()) + "ms";
  return change_faults(ctx, done, [&](NetworkFaults& f) {
    if (delay->count() == 0) {
      f.slow.erase(*id);
    } else {
      f.slow[*id] = *delay;
    }
  });
}

LabExit lab_heal(const LabContext& ctx) {
  if (!load_lab(ctx)) return LabExit::kError;
  return change_faults(ctx, "healed", [](NetworkFaults& f) { f = NetworkFaults{}; });
}

}  // namespace zk::lab
