// SPDX-License-Identifier: Apache-2.0
#include "zkd/server/authentication.h"

#include <openssl/evp.h>

#include <cstdio>

#include "zkd/tree/auth_ids.h"

namespace zkd::server {

bool valid_digest_algorithm(const std::string& algorithm) {
  EVP_MD* md = EVP_MD_fetch(nullptr, algorithm.c_str(), nullptr);
  EVP_MD_free(md);
  return md != nullptr;
}

std::string digest_id(std::string_view user_password, const std::string& algorithm) {
  unsigned char hash[EVP_MAX_MD_SIZE];
  unsigned int hash_length = 0;
  EVP_MD* md = EVP_MD_fetch(nullptr, algorithm.c_str(), nullptr);
  EVP_Digest(user_password.data(), user_password.size(), hash, &hash_length, md, nullptr);
  EVP_MD_free(md);
  // base64, and the terminating NUL EVP_EncodeBlock writes.
  unsigned char text[4 * ((EVP_MAX_MD_SIZE + 2) / 3) + 1];
  const int length = EVP_EncodeBlock(text, hash, static_cast<int>(hash_length));
  std::string id(user_password.substr(0, user_password.find(':')));
  id += ':';
  id.append(reinterpret_cast<const char*>(text), static_cast<size_t>(length));
  return id;
}

std::optional<std::vector<zk::wire::Id>> authenticate(const zk::wire::AuthPacket& packet,
                                                      std::string_view peer_ip,
                                                      const DigestSettings& digest) {
  if (packet.scheme == tree::kDigestScheme && digest.enabled) {
    std::string id = digest_id(packet.auth.value_or(""), digest.algorithm);
    std::vector<zk::wire::Id> ids;
    if (!digest.super_digest.empty() && id == digest.super_digest) {
      ids.push_back({std::string(tree::kSuperScheme), ""});
    }
    ids.push_back({std::string(tree::kDigestScheme), std::move(id)});
    return ids;
  }
  if (packet.scheme == tree::kIpScheme) {
    return std::vector<zk::wire::Id>{{std::string(tree::kIpScheme), std::string(peer_ip)}};
  }
  return std::nullopt;
}

std::string kerberos_sasl_id(std::string_view principal, bool remove_host, bool remove_realm) {
  const size_t at = principal.find('@');
  const std::string_view name = principal.substr(0, at);
  const std::string_view realm = at == std::string_view::npos ? "" : principal.substr(at + 1);
  const size_t slash = name.find('/');
  std::string id(name.substr(0, slash));
  if (slash != std::string_view::npos && !remove_host) {
    id += '/';
    id += name.substr(slash + 1);
  }
  if (!realm.empty() && !remove_realm) {
    id += '@';
    id += realm;
  }
  return id;
}

std::string ipv6_host_address(const std::array<uint8_t, 16>& b) {
  std::string out;
  for (size_t i = 0; i < b.size(); i += 2) {
    char group[8];
    std::snprintf(group, sizeof group, "%x", (b[i] << 8) | b[i + 1]);
    if (i != 0) out += ':';
    out += group;
  }
  return out;
}

zk::wire::WhoAmIResponse who_am_i(const std::vector<zk::wire::Id>& ids) {
  zk::wire::WhoAmIResponse out;
  for (const zk::wire::Id& id : ids) {
    std::string user;
    if (id.scheme == tree::kDigestScheme) {
      user = id.id.substr(0, id.id.find(':'));
    } else if (id.scheme != tree::kSuperScheme) {
      user = id.id;
    }
    out.client_info.push_back({id.scheme, std::move(user)});
  }
  return out;
}

}  // namespace zkd::server
