// SPDX-License-Identifier: Apache-2.0
// The workload file of ClickHouse's keeper-bench (utils/keeper-bench in the
// ClickHouse repository), as `zkbench keeper-bench` reads it: plain data and
// the parser. The keys, their meaning and what zkbench does differently are
// in man/zkbench.1 (KEEPER-BENCH); in short:
//
//   connections: {host: H | [H..], connection: {host, sessions, ...} | [..],
//                 secure, session_timeout_ms, connection_timeout_ms,
//                 operation_timeout_ms, use_compression, use_xid_64}
//   concurrency, pipeline_depth, iterations, report_delay (alias delay),
//   timelimit, warmup_seconds, continue_on_error (alias continue_on_errors),
//   enable_tracing
//   setup: {node: {name, data, repeat, node: ...} ...}   (or generator.setup)
//   generator: {requests: {create|set|get|list|multi: ...}}
//   output: {file: PATH | {path, with_timestamp}, stdout}
//
// As in keeper-bench, a key may appear more than once in a map (`node:`,
// `path:`, `multi:`), a list value counts as one occurrence per element, and
// the keys of hosts, connections, nodes, paths and request kinds are matched
// by their beginning ("node_a", "create_2"). Unlike keeper-bench, every key
// zkbench does not know, every value it cannot honour (use_compression:
// true, a multi mixing reads and writes, ...) and every malformed value is
// refused: the message names the key as KEY.SUBKEY[N] (N counting repeats
// of a key from 1, as keeper-bench's configuration does) and its line.
//
// Parsing does no I/O beyond load_config()'s read of the file; it throws
// nothing (errors are values).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace zk::bench::keeper {

// A count drawn at each use: min when min == max, else uniform in [min, max].
struct NumberSpec {
  uint64_t min = 0;
  uint64_t max = 0;
};

// A string: `text` when it has one, else random characters of [0-9a-zA-Z]
// (keeper-bench's random_string) of a length drawn from `random_size`.
struct StringSpec {
  std::optional<std::string> text;
  NumberSpec random_size;

  bool random() const { return !text.has_value(); }
};

// The znodes a request goes to: fixed paths, and the children of parents
// (children_of), listed once after the setup and before the run.
struct PathSpec {
  std::vector<std::string> paths;
  std::vector<std::string> children_of;

  bool empty() const { return paths.empty() && children_of.empty(); }
};

enum class RequestKind { kCreate, kSet, kGet, kList, kMulti };

// "create", "set", "get", "list", "multi".
std::string_view kind_name(RequestKind kind);

// One request generator of generator.requests (or of a multi).
struct RequestSpec {
  RequestKind kind = RequestKind::kGet;
  std::string key;      // where it is in the file, e.g. "generator.requests.multi[1].get"
  uint64_t weight = 1;  // relative to its siblings', at least 1
  // create: the parents of the znodes created; set, get, list: the znodes.
  PathSpec path;
  NumberSpec name_length{5, 5};         // create: the names' length, at least 1
  std::optional<StringSpec> data;       // create (none: empty data), set (always)
  std::optional<double> remove_factor;  // create: the chance, in [0, 1], of a remove instead
  std::optional<NumberSpec> size;       // multi: operations per multi, drawn by weight;
                                        // none: one of each nested request, in order
  std::vector<RequestSpec> requests;    // multi: what it is made of
  bool read_only = false;               // multi: of get and list only (a multiRead)
};

// A znode of the setup tree. Created before the run with its children; a
// root (a child of /) is removed with everything under it first. `repeat`
// copies (each with a name of its own) need a random name.
struct SetupNode {
  std::string key;  // "setup.node[2]"
  StringSpec name;
  std::optional<StringSpec> data;  // none: empty
  uint64_t repeat = 1;
  std::vector<SetupNode> children;
};

// The sessions to one server and how they behave.
struct Connection {
  std::string host;  // "host:port"
  uint64_t sessions = 1;
  bool secure = false;                                 // TLS
  std::chrono::milliseconds session_timeout{30000};    // requested
  std::chrono::milliseconds connection_timeout{1000};  // to open a session
  std::chrono::milliseconds operation_timeout{10000};  // for an answer, per request
};

// Where the JSON report goes.
struct Output {
  std::optional<std::string> file;  // a path, relative to the working directory
  bool with_timestamp = false;      // file STEM_<start ms>.EXT instead of the path
  bool to_stdout = false;
};

struct Config {
  std::vector<Connection> connections;  // may be empty: the command line gives them
  // The settings given at the top of `connections`: the defaults of every
  // connection, and of the servers of --server (host empty here).
  Connection connection_defaults;
  uint64_t concurrency = 1;     // request loops
  uint64_t pipeline_depth = 1;  // requests in flight per loop
  uint64_t iterations = 0;      // requests in all; 0: no limit
  double report_delay_s = 1;    // between progress reports; 0: none
  double timelimit_s = 0;       // seconds of sending; 0: no limit
  double warmup_s = 0;          // seconds of requests not counted, before the measured ones
  bool continue_on_error = false;
  std::vector<SetupNode> setup;       // the roots
  std::vector<RequestSpec> requests;  // generator.requests, at least one
  Output output;
};

struct ConfigParse {
  Config config;
  std::string error;  // empty on success, else "KEY: what is wrong (line N)"
};

// Parses the YAML text of a keeper-bench configuration.
ConfigParse parse_config(std::string_view yaml);
// Reads and parses the file at `path`; an error names the file.
ConfigParse load_config(const std::string& path);

}  // namespace zk::bench::keeper
