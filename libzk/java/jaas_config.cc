// SPDX-License-Identifier: Apache-2.0
#include "libzk/java/jaas_config.h"

#include <cctype>

namespace zk::java {
namespace {

// Tokens: words (anything up to blank space or one of {};=), quoted strings,
// and the single characters { } ; =.
struct Token {
  enum class Kind { kWord, kQuoted, kPunct, kEnd, kError } kind = Kind::kEnd;
  std::string text;
  int line = 1;
};

class Lexer {
 public:
  explicit Lexer(std::string_view text) : text_(text) {}

  // The next token; kError carries a message naming the line.
  Token next() {
    skip_blank_and_comments();
    Token t;
    t.line = line_;
    if (pos_ >= text_.size()) return t;
    const char c = text_[pos_];
    if (c == '{' || c == '}' || c == ';' || c == '=') {
      ++pos_;
      t.kind = Token::Kind::kPunct;
      t.text = std::string(1, c);
      return t;
    }
    if (c == '"') {
      ++pos_;
      t.kind = Token::Kind::kQuoted;
      while (pos_ < text_.size() && text_[pos_] != '"') {
        if (text_[pos_] == '\\' && pos_ + 1 < text_.size()) ++pos_;
        if (text_[pos_] == '\n') ++line_;
        t.text += text_[pos_++];
      }
      if (pos_ >= text_.size()) {
        t.kind = Token::Kind::kError;
        t.text = "line " + std::to_string(t.line) + ": a quoted value does not end";
        return t;
      }
      ++pos_;
      return t;
    }
    t.kind = Token::Kind::kWord;
    while (pos_ < text_.size() && !std::isspace(static_cast<unsigned char>(text_[pos_])) &&
           std::string_view("{};=\"").find(text_[pos_]) == std::string_view::npos) {
      t.text += text_[pos_++];
    }
    return t;
  }

 private:
  void skip_blank_and_comments() {
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c == '\n') {
        ++line_;
        ++pos_;
      } else if (std::isspace(static_cast<unsigned char>(c))) {
        ++pos_;
      } else if (text_.substr(pos_, 2) == "//") {
        while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
      } else if (text_.substr(pos_, 2) == "/*") {
        const size_t end = text_.find("*/", pos_ + 2);
        const size_t stop = end == std::string_view::npos ? text_.size() : end + 2;
        for (size_t i = pos_; i < stop; ++i) line_ += text_[i] == '\n' ? 1 : 0;
        pos_ = stop;
      } else {
        return;
      }
    }
  }

  std::string_view text_;
  size_t pos_ = 0;
  int line_ = 1;
};

std::string at(const Token& t, std::string_view what) {
  return "line " + std::to_string(t.line) + ": " + std::string(what);
}

bool is(const Token& t, char punct) {
  return t.kind == Token::Kind::kPunct && t.text.size() == 1 && t.text[0] == punct;
}

}  // namespace

std::variant<std::vector<JaasSection>, std::string> parse_jaas(std::string_view text) {
  Lexer lexer(text);
  std::vector<JaasSection> sections;
  for (Token name = lexer.next(); name.kind != Token::Kind::kEnd; name = lexer.next()) {
    if (name.kind == Token::Kind::kError) return name.text;
    if (name.kind != Token::Kind::kWord) return at(name, "expected a section name");
    if (Token open = lexer.next(); !is(open, '{')) {
      return open.kind == Token::Kind::kError ? open.text
                                              : at(open, "expected '{' after the section name");
    }
    JaasSection section{name.text, {}};
    for (Token module = lexer.next(); !is(module, '}'); module = lexer.next()) {
      if (module.kind == Token::Kind::kError) return module.text;
      if (module.kind != Token::Kind::kWord) {
        return at(module, "expected a login module class name or '}'");
      }
      Token flag = lexer.next();
      if (flag.kind == Token::Kind::kError) return flag.text;
      if (flag.kind != Token::Kind::kWord) {
        return at(flag, "expected a control flag (required, requisite, sufficient, optional)");
      }
      JaasModule m{module.text, flag.text, {}};
      for (Token key = lexer.next(); !is(key, ';'); key = lexer.next()) {
        if (key.kind == Token::Kind::kError) return key.text;
        if (key.kind != Token::Kind::kWord) return at(key, "expected an option name or ';'");
        if (Token eq = lexer.next(); !is(eq, '=')) {
          return eq.kind == Token::Kind::kError ? eq.text
                                                : at(eq, "expected '=' after option " + key.text);
        }
        Token value = lexer.next();
        if (value.kind == Token::Kind::kError) return value.text;
        if (value.kind != Token::Kind::kWord && value.kind != Token::Kind::kQuoted) {
          return at(value, "expected a value for option " + key.text);
        }
        m.options[key.text] = value.text;
      }
      section.modules.push_back(std::move(m));
    }
    if (Token semi = lexer.next(); !is(semi, ';')) {
      return semi.kind == Token::Kind::kError ? semi.text
                                              : at(semi, "expected ';' after the section's '}'");
    }
    sections.push_back(std::move(section));
  }
  return sections;
}

const JaasSection* find_section(const std::vector<JaasSection>& sections, std::string_view name) {
  for (const JaasSection& s : sections) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

std::optional<DigestCredentials> digest_credentials(const JaasModule& module) {
  const auto user = module.options.find("username");
  const auto password = module.options.find("password");
  if (user == module.options.end() || password == module.options.end()) return std::nullopt;
  return DigestCredentials{user->second, password->second};
}

}  // namespace zk::java
