// SPDX-License-Identifier: Apache-2.0
// The registry of zoo.cfg keys: every key Apache ZooKeeper 3.8 and 3.9
// document for the server (including the zoo.cfg form of their JVM
// properties: the key without its `zookeeper.` prefix), each with one class
// saying what zkd does with it. parse_config (config.h) consults it for every
// key: a refused key stops start-up, a warned key logs a warning, a key of no
// effect is accepted in silence; an honoured key is acted on by its entry's
// apply function, which parses the value into ServerConfig. A key may carry its class only for some
// values (e.g. refused only when true): with any other value it is accepted, because that value is
// what zkd does anyway.
//
// docs/zoo-cfg.md shows the same table; a test (ConfigKeysDoc) checks that the
// two list the same keys with the same classes.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace zkd::server {

class ConfigParser;   // config_parser.h
struct Property;      // properties.h
struct ServerConfig;  // config.h

// Parses one line of an honoured key into `config`: checks the value
// (errors through parser.fail, naming file, line and key), sets the fields,
// and records in parser.seen() what parse_config checks after the last line.
// False after parser.fail: parsing stops.
using ApplyKey = bool (*)(ConfigParser& parser, const Property& line, ServerConfig& config);

enum class KeyClass {
  kHonoured,  // zkd does what Apache does (the entry's apply function)
  kNoEffect,  // accepted, no effect in zkd; `note` says why
  kWarned,    // zkd starts but logs `note`: what differs
  kRefused,   // start-up stops with `note`: why and what to do
};

// When the class applies; otherwise the key is accepted without effect.
enum class KeyWhen {
  kAlways,
  kTrue,   // the value is true as Java's Boolean.parseBoolean reads it
  kFalse,  // the value is not true (Boolean.parseBoolean)
  kIs,     // the value equals `value` (ignoring case)
  kIsNot,  // the value differs from `value` (ignoring case)
};

struct ConfigKey {
  // The key as written in zoo.cfg; a key ending in ".*" stands for every key
  // with that prefix (server.*, authProvider.*), unless a longer entry
  // matches.
  std::string_view key;
  KeyClass key_class;
  KeyWhen when;
  std::string_view value;  // for kIs and kIsNot
  std::string_view note;   // what zkd does, why, what to do: one or two sentences
  // Set exactly for honoured entries (checked by ConfigKeys.OnlyHonouredKeysHaveAnApplyFunction;
  // not a static_assert, which the sanitizers' build cannot evaluate).
  ApplyKey apply = nullptr;
};

// Every entry, in the order of docs/zoo-cfg.md's table.
std::span<const ConfigKey> config_keys();

// The entry for `key`: an exact entry, else the longest ".*" entry whose
// prefix it starts with; nullptr for an unknown key.
const ConfigKey* find_config_key(std::string_view key);

// Whether `entry`'s class applies to `value` (see KeyWhen).
bool class_applies(const ConfigKey& entry, std::string_view value);

// The class as docs/zoo-cfg.md writes it: "honoured", "no effect",
// "warned", "refused", with the condition when there is one ("refused when
// true", "warned unless 0", "refused when yes").
std::string class_label(const ConfigKey& entry);

// For an unknown key: a hint naming the known key it was probably meant to
// be ("did you mean 'tickTime'?"), or saying that zoo.cfg keys drop
// Apache's "zookeeper." prefix; "" when nothing is close.
std::string closest_config_key_hint(std::string_view unknown);

// zoo.cfg values as Apache's Java reads them, for the parser (config.cc) and
// the registry alike: `s` in ASCII lower case, and Boolean.parseBoolean
// ("true" in any case is true, anything else false).
std::string lower_case(std::string_view s);
bool java_true(std::string_view value);

}  // namespace zkd::server
