// SPDX-License-Identifier: Apache-2.0
// What create and setACL store for the ACL a client gave (Apache's
// PrepRequestProcessor.fixupACL, §10.5 of docs/wire-protocol.md), or INVALIDACL.
#pragma once

#include <optional>
#include <string_view>

#include "libzk/wire/records.h"
#include "zkd/tree/auth_ids.h"

namespace zkd::tree {

// Duplicate entries are dropped (the first kept); then, entry by entry in
// order: world:anyone is kept; an `auth` entry becomes one entry with its
// perms per digest, sasl or x509 id of the caller (ip ids do not count;
// none: invalid); digest, ip, sasl and x509 entries are kept when their id
// is valid (valid_digest_acl, valid_ip_acl, valid_sasl_acl, valid_x509_acl). nullopt (INVALIDACL)
// for an empty list, any other world id, any other scheme, or an invalid id. Perms are not
// range-checked, and entries an `auth` expansion adds are not deduplicated
// again (as in Apache).
std::optional<zk::wire::ACLs> fixup_acl(const zk::wire::ACLs& given, const AuthIds& caller);

// Apache's DigestAuthenticationProvider.isValid: `id.split(":")` (Java's,
// which drops trailing empty parts) has exactly two parts, so "user:hash"
// and ":hash" and "user:hash:" are valid, "user", "user:" and "a:b:c" not.
bool valid_digest_acl(std::string_view id);

// Apache's SASLAuthenticationProvider.isValid (a Kerberos name parses):
// "user", "user@REALM" and "service/host@REALM" are valid, "a/b/c@R" and
// "a@b@c" not.
bool valid_sasl_acl(std::string_view id);

// Apache's X509AuthenticationProvider.isValid (an X.500 name parses), as
// far as zkd checks it: comma-separated type=value parts ("CN=client,O=zk";
// "\," escapes a comma). "", "client" and "CN=a,b" are invalid.
bool valid_x509_acl(std::string_view id);

}  // namespace zkd::tree
