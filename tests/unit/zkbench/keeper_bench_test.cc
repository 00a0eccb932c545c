// SPDX-License-Identifier: Apache-2.0
// `zkbench keeper-bench` without a server: the parser reads keeper-bench's
// YAML (repeated keys, both places of the setup, the aliases of its example)
// and every workload in tests/zkbench/keeper_bench, and refuses what zkbench
// cannot honour with a message that names the key; the generators draw what
// the file asks for (weights, creates and the removes of the oldest, multis,
// the setup tree, children_of); the JSON report has keeper-bench's shape.
#include <gtest/gtest.h>

#include <boost/json/src.hpp>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "libzk/wire/records.h"
#include "zkbench/keeper_bench_config.h"
#include "zkbench/keeper_bench_generator.h"
#include "zkbench/keeper_bench_report.h"
#include "zkbench/keeper_bench_send.h"

namespace {

using namespace zk::bench::keeper;

// keeper-bench's example configuration, in its shape: repeated node, multi
// and path keys, the setup under generator, `delay` and `continue_on_errors`.
constexpr const char* kExampleShape = R"(
concurrency: 20
iterations: 10000
delay: 4
timelimit: 300
continue_on_errors: true

connections:
  operation_timeout_ms: 3000
  connection_timeout_ms: 40000

  connection:
    secure: false
    operation_timeout_ms: 2000
    session_timeout_ms: 2000
    connection_timeout_ms: 50000
    host: "localhost:9181"
    sessions: 3

  host: "localhost:9182"

generator:
  setup:
    node:
      name: "one"
    node:
      name: "made"
    node:
      name: "tree"
      data: "somedata"
      node:
        repeat: 4
        name:
          random_string:
            size: 15
        data:
          random_string:
            size:
              min_value: 10
              max_value: 20
      node:
        repeat: 2
        node:
          repeat: 2
          name:
            random_string:
              size: 12
        name:
          random_string:
            size: 15
  requests:
    create:
      path: "/made"
      name_length: 10
      remove_factor: 0.5
    multi:
      size: 20
      create:
        path: "/tree"
        remove_factor: 0.8
      set:
        weight: 2
        path:
          - "/one"
          - "/made"
        path:
          children_of: "/tree"
        data:
          random_string:
            size: 10
    get:
      path:
        - "/one"
      path:
        children_of: "/tree"
    multi:
      weight: 10
      get:
        path: "/one"
      list:
        path:
          children_of: "/tree"
    list:
      path: "/one"

output:
  file:
    path: "output.json"
    with_timestamp: true
  stdout: true
)";

Config parsed(const std::string& yaml) {
  const ConfigParse p = parse_config(yaml);
  EXPECT_EQ(p.error, "") << yaml;
  return p.config;
}

// The minimal valid file with `extra` added at the top level.
std::string with(const std::string& extra) {
  return extra + "\ngenerator:\n  requests:\n    get:\n      path: /a\n";
}

TEST(KeeperBenchConfig, ReadsKeeperBenchsExampleShape) {
  const Config c = parsed(kExampleShape);
  EXPECT_EQ(c.concurrency, 20u);
  EXPECT_EQ(c.iterations, 10000u);
  EXPECT_EQ(c.report_delay_s, 4);
  EXPECT_EQ(c.timelimit_s, 300);
  EXPECT_TRUE(c.continue_on_error);

  ASSERT_EQ(c.connections.size(), 2u);
  EXPECT_EQ(c.connections[0].host, "localhost:9181");
  EXPECT_EQ(c.connections[0].sessions, 3u);
  EXPECT_EQ(c.connections[0].operation_timeout.count(), 2000);
  EXPECT_EQ(c.connections[0].session_timeout.count(), 2000);
  EXPECT_EQ(c.connections[0].connection_timeout.count(), 50000);
  EXPECT_EQ(c.connections[1].host, "localhost:9182");
  EXPECT_EQ(c.connections[1].sessions, 1u);
  EXPECT_EQ(c.connections[1].operation_timeout.count(), 3000);  // the defaults at the top
  EXPECT_EQ(c.connections[1].connection_timeout.count(), 40000);
  EXPECT_EQ(c.connections[1].session_timeout.count(), 30000);  // keeper-bench's own default

  ASSERT_EQ(c.setup.size(), 3u);
  EXPECT_EQ(c.setup[0].name.text, "one");
  EXPECT_EQ(c.setup[2].name.text, "tree");
  EXPECT_EQ(c.setup[2].data->text, "somedata");
  ASSERT_EQ(c.setup[2].children.size(), 2u);
  EXPECT_EQ(c.setup[2].children[0].repeat, 4u);
  EXPECT_TRUE(c.setup[2].children[0].name.random());
  EXPECT_EQ(c.setup[2].children[0].data->random_size.min, 10u);
  EXPECT_EQ(c.setup[2].children[0].data->random_size.max, 20u);
  EXPECT_EQ(c.setup[2].children[1].key, "generator.setup.node[2].node[1]");
  EXPECT_EQ(c.setup[2].children[1].children.size(), 1u);

  ASSERT_EQ(c.requests.size(), 5u);
  EXPECT_EQ(c.requests[0].kind, RequestKind::kCreate);
  EXPECT_EQ(c.requests[0].name_length.min, 10u);
  EXPECT_EQ(c.requests[0].remove_factor, 0.5);
  const RequestSpec& multi = c.requests[1];
  EXPECT_EQ(multi.kind, RequestKind::kMulti);
  EXPECT_FALSE(multi.read_only);
  EXPECT_EQ(multi.size->min, 20u);
  ASSERT_EQ(multi.requests.size(), 2u);
  EXPECT_EQ(multi.requests[1].kind, RequestKind::kSet);
  EXPECT_EQ(multi.requests[1].weight, 2u);
  EXPECT_EQ(multi.requests[1].path.paths, (std::vector<std::string>{"/one", "/made"}));
  EXPECT_EQ(multi.requests[1].path.children_of, (std::vector<std::string>{"/tree"}));
  EXPECT_EQ(c.requests[2].kind, RequestKind::kGet);
  EXPECT_EQ(c.requests[3].key, "generator.requests.multi[1]");
  EXPECT_TRUE(c.requests[3].read_only);
  EXPECT_EQ(c.requests[3].weight, 10u);
  EXPECT_FALSE(c.requests[3].size.has_value());
  EXPECT_EQ(c.requests[4].kind, RequestKind::kList);

  EXPECT_EQ(c.output.file, "output.json");
  EXPECT_TRUE(c.output.with_timestamp);
  EXPECT_TRUE(c.output.to_stdout);
}

TEST(KeeperBenchConfig, ReadsTheSetupAtTheTopAndKeysByTheirBeginning) {
  const Config c = parsed(R"(
report_delay: 0.5
continue_on_error: yes
pipeline_depth: 3
warmup_seconds: 1.5
connections:
  host:
    - "127.0.0.1:2181"
    - "127.0.0.1:2182"
  connection_b:
    host: "127.0.0.1:2183"
setup:
  node_a:
    name: a
  node_b:
    name: b
generator:
  requests:
    get_first:
      path: /a
    get_second:
      paths: /b
output:
  file: out.json
)");
  EXPECT_EQ(c.report_delay_s, 0.5);
  EXPECT_TRUE(c.continue_on_error);
  EXPECT_EQ(c.pipeline_depth, 3u);
  EXPECT_EQ(c.warmup_s, 1.5);
  ASSERT_EQ(c.connections.size(), 3u);
  EXPECT_EQ(c.connections[2].host, "127.0.0.1:2183");
  EXPECT_EQ(c.setup.size(), 2u);
  ASSERT_EQ(c.requests.size(), 2u);
  EXPECT_EQ(c.requests[1].path.paths, std::vector<std::string>{"/b"});
  EXPECT_EQ(c.output.file, "out.json");
  EXPECT_FALSE(c.output.with_timestamp);
}

TEST(KeeperBenchConfig, ReadsEveryTestWorkload) {
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(KEEPER_BENCH_DIR)) {
    if (entry.path().extension() != ".yaml") continue;
    ++files;
    const ConfigParse p = load_config(entry.path().string());
    EXPECT_EQ(p.error, "") << entry.path();
    EXPECT_FALSE(p.config.requests.empty()) << entry.path();
  }
  EXPECT_GE(files, 6);
}

struct Refused {
  std::string yaml;
  std::string key;  // the message starts with it
  std::string why;  // and says this
};

TEST(KeeperBenchConfig, RefusesWhatItCannotHonourNamingTheKey) {
  const std::vector<Refused> cases = {
      {with("concurrency: -1"), "concurrency:", "whole number"},
      {with("concurrency: 0"), "concurrency:", "from 1"},
      {with("iterations: lots"), "iterations:", "whole number"},
      {with("timelimit: -2"), "timelimit:", "number from 0"},
      {with("continue_on_error: maybe"), "continue_on_error:", "true or false"},
      {with("report_delay: 1\ndelay: 2"), "delay:", "report_delay"},
      {with("enable_tracing: true"), "enable_tracing:", "tracing"},
      {with("threads: 4"), "threads:", "not a key"},
      {with("concurrency: 2\nconcurrency: 3"), "concurrency[1]:", "more than once"},
      {with("connections:\n  use_compression: true"), "connections.use_compression:", "compressed"},
      {with("connections:\n  connection:\n    host: h:1\n    use_xid_64: true"),
       "connections.connection.use_xid_64:", "64-bit"},
      {with("connections:\n  connection:\n    sessions: 2"),
       "connections.connection:", "needs a host"},
      {with("connections:\n  host: nohostport"), "connections.host:", "HOST:PORT"},
      {with("connections:\n  hosts_file: x"), "connections.hosts_file:", "HOST:PORT"},
      {with("connections:\n  timeout: 5"), "connections.timeout:", "not a key"},
      {with("output:\n  file:\n    with_timestamp: true"), "output.file:", "needs a path"},
      {with("output:\n  stderr: true"), "output.stderr:", "not a key"},
      {with("setup:\n  node:\n    data: x"), "setup.node:", "needs a name"},
      {with("setup:\n  node:\n    name: a\n    repeat: 3"), "setup.node.repeat:", "random name"},
      {with("setup:\n  node:\n    name: a/b"), "setup.node.name:", "no znode name"},
      {with("setup:\n  node:\n    name: zookeeper"), "setup.node.name:", "server's own"},
      {with("setup:\n  node:\n    name: a\n  node:\n    name: a"), "setup.node[1]:", "also"},
      {with("setup:\n  node:\n    name:\n      random_string: {}"),
       "setup.node.name.random_string:", "needs a size"},
      {with("setup:\n  node:\n    name:\n      random_string:\n        size: 0"),
       "setup.node.name.random_string.size:", "from 1"},
      {with("setup:\n  tree: x"), "setup.tree:", "not a key"},
      {"concurrency: 1\n", "generator:", "missing"},
      {"generator:\n  setup:\n    node:\n      name: a\n", "generator:", "needs requests"},
      {"generator:\n  requests: {}\n", "generator.requests:", "no request"},
      {"generator:\n  requests:\n    remove:\n      path: /a\n",
       "generator.requests.remove:", "not a request kind"},
      {"generator:\n  requests:\n    get:\n      paht: /a\n",
       "generator.requests.get.paht:", "not a key"},
      {"generator:\n  requests:\n    get:\n      weight: 1\n",
       "generator.requests.get:", "needs a path"},
      {"generator:\n  requests:\n    get:\n      path: a\n",
       "generator.requests.get.path:", "no znode path"},
      {"generator:\n  requests:\n    get:\n      path:\n        children: /a\n",
       "generator.requests.get.path.children:", "not a key"},
      {"generator:\n  requests:\n    get:\n      path: /a\n      weight: 0\n",
       "generator.requests.get.weight:", "from 1"},
      {"generator:\n  requests:\n    set:\n      path: /a\n",
       "generator.requests.set:", "needs data"},
      {"generator:\n  requests:\n    get:\n      path: /a\n      data: x\n",
       "generator.requests.get.data:", "not a key"},
      {"generator:\n  requests:\n    create:\n      path: /a\n      remove_factor: 2\n",
       "generator.requests.create.remove_factor:", "from 0 to 1"},
      {"generator:\n  requests:\n    create:\n      path: /a\n      name_length:\n        "
       "min_value: 5\n        max_value: 2\n",
       "generator.requests.create.name_length:", "below min_value"},
      {"generator:\n  requests:\n    create:\n      path: /a\n      data:\n        "
       "random_string:\n          size:\n            min_value: 5\n",
       "generator.requests.create.data.random_string.size:", "both"},
      {"generator:\n  requests:\n    multi:\n      size: 2\n",
       "generator.requests.multi:", "at least one request"},
      {"generator:\n  requests:\n    multi:\n      multi:\n        get:\n          path: /a\n",
       "generator.requests.multi.multi:", "inside a multi"},
      {"generator:\n  requests:\n    multi:\n      get:\n        path: /a\n      set:\n        "
       "path: /a\n        data: x\n",
       "generator.requests.multi:", "mixes reads"},
      {"generator:\n  requests:\n    multi:\n      path: /a\n      get:\n        path: /a\n",
       "generator.requests.multi.path:", "not a key"},
      {"- a\n- b\n", "the file is not a YAML map", ""},
  };
  for (const Refused& c : cases) {
    const ConfigParse p = parse_config(c.yaml);
    EXPECT_TRUE(p.error.starts_with(c.key)) << "error: " << p.error << "\nfor:\n" << c.yaml;
    EXPECT_NE(p.error.find(c.why), std::string::npos) << "error: " << p.error;
  }
}

TEST(KeeperBenchConfig, NamesTheLine) {
  const ConfigParse refused =
      parse_config("concurrency: 1\n\ngenerator:\n  requests:\n    got: 1\n");
  EXPECT_EQ(refused.error,
            "generator.requests.got: not a request kind (create, set, get, list, multi) (line 5)");
  const ConfigParse broken = parse_config("concurrency: [1, 2\n");
  EXPECT_TRUE(broken.error.starts_with("line 2")) << broken.error;
  EXPECT_TRUE(load_config("/nonexistent/kb.yaml").error.starts_with("/nonexistent/kb.yaml: "));
}

RequestSpec spec(RequestKind kind, std::vector<std::string> paths, uint64_t weight = 1) {
  RequestSpec s;
  s.kind = kind;
  s.path.paths = std::move(paths);
  s.weight = weight;
  return s;
}

TEST(KeeperBenchGenerator, DrawsByWeight) {
  RequestSpec set = spec(RequestKind::kSet, {"/s"});
  set.data = StringSpec{"v", {}};
  auto plan = std::make_shared<GeneratorPlan>(
      std::vector<RequestSpec>{spec(RequestKind::kGet, {"/a", "/b"}, 3), set});
  RequestGenerator g(plan, 7);
  std::map<StatKind, int> kinds;
  std::map<std::string, int> paths;
  constexpr int kDraws = 40'000;
  for (int i = 0; i < kDraws; ++i) {
    const Request r = g.next();
    ASSERT_EQ(r.ops.size(), 1u);
    ++kinds[r.kind];
    ++paths[r.ops[0].path];
  }
  EXPECT_NEAR(static_cast<double>(kinds[StatKind::kGet]) / kDraws, 0.75, 0.02);
  EXPECT_NEAR(static_cast<double>(paths["/a"]) / kDraws, 0.375, 0.02);
  EXPECT_EQ(kinds[StatKind::kSet], paths["/s"]);
}

TEST(KeeperBenchGenerator, CreatesNewNamesAndRemovesTheOldest) {
  RequestSpec create = spec(RequestKind::kCreate, {"/p"});
  create.name_length = {10, 10};
  create.data = StringSpec{std::nullopt, {3, 5}};
  create.remove_factor = 0.5;
  auto plan = std::make_shared<GeneratorPlan>(std::vector<RequestSpec>{create});
  RequestGenerator g(plan, 11);
  std::deque<std::string> live;
  std::set<std::string> ever;
  int removes = 0;
  for (int i = 0; i < 2000; ++i) {
    const Request r = g.next();
    const Op& op = r.ops.at(0);
    if (r.kind == StatKind::kRemove) {
      ASSERT_FALSE(live.empty());
      EXPECT_EQ(op.path, live.front());
      live.pop_front();
      ++removes;
      continue;
    }
    ASSERT_EQ(r.kind, StatKind::kCreate);
    ASSERT_EQ(op.path.size(), std::string("/p/").size() + 10) << op.path;
    EXPECT_TRUE(op.path.starts_with("/p/"));
    EXPECT_TRUE(ever.insert(op.path).second) << "twice: " << op.path;
    EXPECT_GE(op.data.size(), 3u);
    EXPECT_LE(op.data.size(), 5u);
    live.push_back(op.path);
  }
  EXPECT_NEAR(removes, 1000, 100);
}

TEST(KeeperBenchGenerator, MultisOfASizeOrOneOfEach) {
  RequestSpec sized;
  sized.kind = RequestKind::kMulti;
  sized.size = NumberSpec{3, 3};
  sized.requests = {spec(RequestKind::kGet, {"/a"}), spec(RequestKind::kList, {"/b"})};
  sized.read_only = true;
  RequestSpec each = sized;
  each.size.reset();
  each.read_only = false;
  each.requests = {spec(RequestKind::kCreate, {"/c"}), spec(RequestKind::kSet, {"/d"})};
  each.requests[1].data = StringSpec{"x", {}};
  auto read_plan = std::make_shared<GeneratorPlan>(std::vector<RequestSpec>{sized});
  RequestGenerator reads(read_plan, 1);
  const Request r = reads.next();
  EXPECT_EQ(r.kind, StatKind::kMultiRead);
  EXPECT_EQ(r.ops.size(), 3u);
  auto write_plan = std::make_shared<GeneratorPlan>(std::vector<RequestSpec>{each});
  RequestGenerator writes(write_plan, 1);
  const Request w = writes.next();
  EXPECT_EQ(w.kind, StatKind::kMulti);
  ASSERT_EQ(w.ops.size(), 2u);
  EXPECT_EQ(w.ops[0].type, Op::Type::kCreate);
  EXPECT_EQ(w.ops[1].type, Op::Type::kSet);
  EXPECT_EQ(w.ops[1].data, "x");
}

TEST(KeeperBenchGenerator, ExpandsTheSetupTree) {
  const Config c = parsed(kExampleShape);
  Rng rng(3);
  const SetupTree tree = expand_setup(c.setup, rng);
  // one, made, tree (+4 random, +2 random each with 2 random children).
  EXPECT_EQ(tree.znodes.size(), 3u + 4 + 2 * 3);
  EXPECT_EQ(tree.roots, (std::vector<std::string>{"/one", "/made", "/tree"}));
  std::set<std::string> paths;
  size_t depth = 0;
  for (const SetupZnode& z : tree.znodes) {
    EXPECT_GE(z.depth, depth) << "by depth: " << z.path;
    depth = z.depth;
    const std::string parent = z.path.substr(0, z.path.rfind('/'));
    if (z.depth > 0) {
      EXPECT_TRUE(paths.contains(parent)) << z.path;
    }
    EXPECT_TRUE(paths.insert(z.path).second) << "twice: " << z.path;
    if (z.depth == 1 && z.path.size() == std::string("/tree/").size() + 15 && !z.data.empty()) {
      EXPECT_GE(z.data.size(), 10u);
      EXPECT_LE(z.data.size(), 20u);
    }
  }
  EXPECT_EQ(tree.znodes[2].data, "somedata");
}

TEST(KeeperBenchGenerator, ResolvesChildrenOf) {
  const Config c = parsed(kExampleShape);
  EXPECT_EQ(parents_to_list(c.requests), std::vector<std::string>{"/tree"});
  std::vector<RequestSpec> specs = c.requests;
  EXPECT_EQ(resolve_paths(specs, {{"/tree", {}}}),
            "generator.requests.multi[1].list: no path to go to (/tree has no children)");
  specs = c.requests;
  EXPECT_EQ(resolve_paths(specs, {{"/tree", {"x", "y"}}}), "");
  EXPECT_EQ(specs[1].requests[1].path.paths,
            (std::vector<std::string>{"/one", "/made", "/tree/x", "/tree/y"}));
  EXPECT_TRUE(specs[2].path.children_of.empty());
}

TEST(KeeperBenchReport, JsonHasKeeperBenchsShape) {
  RunResult r;
  r.start_unix_ms = 1700000000123;
  r.measured = std::chrono::seconds(2);
  KindFigures& get = r.kinds[static_cast<size_t>(StatKind::kGet)];
  for (int i = 1; i <= 1000; ++i) get.figures.latency.record(int64_t{i} * 1000);  // 1 us .. 1 ms
  get.figures.ok = 1000;
  get.bytes = 100'000;
  get.figures.errors[zk::wire::Error::kNoNode] = 3;
  const boost::json::value v = boost::json::parse(keeper_json(r));
  const boost::json::object& o = v.as_object();
  EXPECT_EQ(o.at("timestamp").as_int64(), 1700000000123);
  EXPECT_EQ(o.at("errors").as_int64(), 3);
  EXPECT_EQ(o.at("ops").as_int64(), 1000);
  EXPECT_FALSE(o.contains("write_results"));
  const boost::json::object& reads = o.at("read_results").as_object();
  EXPECT_EQ(reads.at("total_requests").as_int64(), 1000);
  EXPECT_DOUBLE_EQ(reads.at("requests_per_second").to_number<double>(), 500);
  EXPECT_DOUBLE_EQ(reads.at("bytes_per_second").to_number<double>(), 50'000);
  const boost::json::array& percentiles = reads.at("percentiles").as_array();
  const std::vector<std::string> names = {"0.00",  "10.00", "20.00", "30.00", "40.00",
                                          "50.00", "60.00", "70.00", "80.00", "90.00",
                                          "95.00", "99.00", "99.90", "99.99"};
  ASSERT_EQ(percentiles.size(), names.size());
  double before = 0;
  for (size_t i = 0; i < names.size(); ++i) {
    const boost::json::object& p = percentiles[i].as_object();
    ASSERT_EQ(p.size(), 1u);
    const double ms = p.at(names[i]).to_number<double>();
    EXPECT_GE(ms, before) << names[i];
    before = ms;
  }
  // The median of 1..1000 us, exact to 1/64.
  EXPECT_NEAR(percentiles[5].as_object().at("50.00").to_number<double>(), 0.5, 0.5 / 64 + 1e-9);
  EXPECT_LE(before, 1.0);
}

// keeper-bench's byte counts start from each request's size, which send()
// works out by arithmetic (it runs for every request) and must equal the
// request header (xid, type: 8 bytes) and the record as zk::wire encodes it.
TEST(KeeperBenchSend, CountsEachRequestAsItsWireEncoding) {
  using zk::wire::encode;
  const auto one = [](Op::Type type, StatKind kind) {
    return Request{kind, {Op{type, "/a/b", "some data"}}};
  };
  EXPECT_EQ(request_bytes(one(Op::Type::kCreate, StatKind::kCreate)),
            8 + encode(zk::wire::CreateRequest{"/a/b", "some data", zk::wire::open_acl_unsafe(), 0})
                    .size());
  EXPECT_EQ(request_bytes(one(Op::Type::kRemove, StatKind::kRemove)),
            8 + encode(zk::wire::DeleteRequest{"/a/b", -1}).size());
  EXPECT_EQ(request_bytes(one(Op::Type::kSet, StatKind::kSet)),
            8 + encode(zk::wire::SetDataRequest{"/a/b", "some data", -1}).size());
  EXPECT_EQ(request_bytes(one(Op::Type::kGet, StatKind::kGet)),
            8 + encode(zk::wire::PathWatchRequest{"/a/b", false}).size());
  EXPECT_EQ(request_bytes(one(Op::Type::kList, StatKind::kList)),
            8 + encode(zk::wire::PathWatchRequest{"/a/b", false}).size());
}

}  // namespace
