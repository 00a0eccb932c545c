// SPDX-License-Identifier: Apache-2.0
#include "zklab/tool/lab_sasl.h"

#include <fstream>
#include <random>

namespace zk::lab {

namespace {

// 24 random letters and digits.
std::string random_password() {
  static constexpr char kAlphabet[] =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  std::random_device random;
  std::uniform_int_distribution<size_t> pick(0, sizeof kAlphabet - 2);
  std::string out;
  for (int i = 0; i < 24; ++i) out.push_back(kAlphabet[pick(random)]);
  return out;
}

constexpr const char* kDigestModule = "org.apache.zookeeper.server.auth.DigestLoginModule";

}  // namespace

std::filesystem::path lab_jaas(const std::filesystem::path& dir) {
  return std::filesystem::absolute(dir) / "jaas.conf";
}

std::string write_lab_sasl(const std::filesystem::path& dir) {
  const std::string client = random_password();
  const std::string peer = random_password();
  const auto path = lab_jaas(dir);
  std::ofstream out(path, std::ios::trunc);
  std::error_code ec;
  std::filesystem::permissions(
      path, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write, ec);
  out << "Server {\n  " << kDigestModule << " required\n    user_zklab=\"" << client << "\";\n};\n"
      << "Client {\n  " << kDigestModule << " required\n    username=\"zklab\"\n    password=\""
      << client << "\";\n};\n"
      << "QuorumServer {\n  " << kDigestModule << " required\n    user_zkpeer=\"" << peer
      << "\";\n};\n"
      << "QuorumLearner {\n  " << kDigestModule
      << " required\n    username=\"zkpeer\"\n    password=\"" << peer << "\";\n};\n";
  out.close();
  if (!out || ec) return "cannot write " + path.string();
  return {};
}

std::string lab_sasl_config() {
  return "authProvider.1=org.apache.zookeeper.server.auth.SASLAuthenticationProvider\n"
         "enforce.auth.enabled=true\n"
         "enforce.auth.schemes=sasl\n"
         "quorum.auth.enableSasl=true\n"
         "quorum.auth.learnerRequireSasl=true\n"
         "quorum.auth.serverRequireSasl=true\n";
}

}  // namespace zk::lab
