// SPDX-License-Identifier: Apache-2.0
// A minimal JSON writer for the tools' --json output: one compact object per call
// site, keys in insertion order, no parsing. Strings are escaped per RFC 8259
// (quote, backslash and every control character; "\u007f" as well, for
// terminals); bytes that are not UTF-8 become U+FFFD, so the output is always
// valid JSON (callers that must keep binary data base64-encode it first).
//
// Usage:
//   JsonWriter w;
//   w.begin_object().key("path").string("/a").key("n").number(3).end_object();
//   w.str() == R"({"path":"/a","n":3})"
// The writer inserts commas itself; misuse (a value without a key inside an
// object, unbalanced ends) is a programming error and is not diagnosed.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace zk::json {

// The JSON string literal for `text`, quotes included.
std::string json_quote(std::string_view text);

class JsonWriter {
 public:
  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  JsonWriter& key(std::string_view name);
  JsonWriter& string(std::string_view value);
  JsonWriter& number(int64_t value);
  // The shortest text that reads back as `value`; 0 for a value that is not
  // finite, which JSON cannot carry.
  JsonWriter& real(double value);
  JsonWriter& boolean(bool value);
  JsonWriter& null();

  const std::string& str() const { return out_; }

 private:
  void before_value();

  std::string out_;
  // One entry per open container: true once it holds an element.
  std::vector<bool> has_element_;
  bool after_key_ = false;
};

}  // namespace zk::json
