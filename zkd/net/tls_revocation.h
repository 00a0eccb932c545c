// SPDX-License-Identifier: Apache-2.0
// Certificate revocation checks, as Apache's ssl.crl and ssl.ocsp turn them
// on in Java's PKIX validator (com.sun.security.enableCRLDP, ocsp.enable):
// every certificate a peer presents, up to but not including the trust
// anchor, is looked up in the revocation lists its CRL distribution points
// name (http:// or file:// URIs, fetched when needed and kept 30 s, as Java
// keeps them). With OCSP, the OCSP responder a certificate's authority
// information access names is asked first (each time, as Java asks), the
// lists consulted only when it has no answer. A
// certificate whose status cannot be learned either way is refused, as Java
// refuses it (hard fail). Lists and answers are fetched on the thread doing
// the handshake, each fetch bounded by kRevocationFetchTimeout. How long a
// list is kept is measured on the Clock handed to enable_revocation_checks().
#pragma once

#include <openssl/types.h>

#include <chrono>

#include "zkd/clock/clock.h"

namespace zkd::net {

inline constexpr std::chrono::seconds kRevocationFetchTimeout{5};

struct RevocationChecks {
  bool crl = false;   // ssl.crl / ssl.quorum.crl
  bool ocsp = false;  // ssl.ocsp / ssl.quorum.ocsp (CRLs too, as in Apache)
};

// Sets `ctx`'s certificate verification up for `checks` (nothing when both
// are off). Call after the context's verify mode is set: it keeps the mode
// and installs its own verify callback. `clock` (its steady clock) times the
// lists' cache, which the process's contexts share per clock; it must
// outlive `ctx`.
void enable_revocation_checks(SSL_CTX* ctx, RevocationChecks checks, Clock& clock);

}  // namespace zkd::net
