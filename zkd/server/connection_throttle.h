// SPDX-License-Identifier: Apache-2.0
// The connection-rate throttle of Apache 3.6+ (its BlueThrottle): a token
// bucket every new ConnectRequest draws from, with an optional random drop
// whose probability rises while the bucket stays empty and falls while it
// refills (the BLUE queue-management scheme). docs/overload.md says how
// each zoo.cfg key tunes it.
//
// The bucket holds at most max_tokens; every fill_time_ms it gains
// fill_count tokens (counted when a request comes: the elapsed time over
// fill_time_ms, as Apache's integer arithmetic does). A ConnectRequest needs
// one token, or with weights enabled 3 for a new session and 2 for a resumed
// one (the global and renew weights; zkd makes no local sessions). With
// freeze_time_ms >= 0, at most every freeze_time_ms the drop probability
// grows by drop_increase when the bucket is empty and shrinks by
// drop_decrease when no more than decrease_ratio of it is used; a request is
// dropped with that probability before the tokens are looked at.
// max_tokens 0 turns the throttle off: every request passes.
//
// Pure: time and the random draws come from the caller. Threading: one owner.
#pragma once

#include <cstdint>

namespace zkd::server {

class ConnectionThrottle {
 public:
  // Apache's defaults (its zookeeper.connection_throttle_* properties).
  struct Options {
    int32_t max_tokens = 0;  // connectionMaxTokens; 0: off
    int32_t fill_time_ms = 1;
    int32_t fill_count = 1;
    int32_t freeze_time_ms = -1;  // -1: no random drop
    double drop_increase = 0.02;
    double drop_decrease = 0.002;
    double decrease_ratio = 0.0;
    bool weight_enabled = false;
    int32_t global_weight = 3;  // a new session
    int32_t local_weight = 1;   // kept for the weights' checks; zkd has no local sessions
    int32_t renew_weight = 2;   // a resumed session
  };

  // `now_ms`: the steady time the bucket starts full. Weights of 0 or less
  // take their defaults, as in Apache.
  ConnectionThrottle(const Options& options, int64_t now_ms);

  bool enabled() const { return max_tokens_ > 0; }
  // The tokens a ConnectRequest for `session_id` (0: a new session) needs.
  int32_t tokens_needed(int64_t session_id) const;
  // Whether a ConnectRequest needing `need` tokens passes at `now_ms`;
  // `draw` is a uniform random number in [0, 1) for the random drop. A
  // passing request takes its tokens.
  bool admit(int32_t need, int64_t now_ms, double draw);
  // Apache's connection_token_deficit: tokens used of the bucket.
  int64_t deficit() const { return max_tokens_ - tokens_; }
  // Apache's connection_drop_probability.
  double drop_probability() const { return drop_; }

 private:
  // Adjusts the drop probability (at most every freeze time) and draws.
  bool passes_random_drop(int64_t now_ms, double draw);

  Options options_;
  int64_t max_tokens_;
  int64_t fill_count_;
  int64_t tokens_;
  int64_t last_fill_ms_;
  int64_t last_freeze_ms_;
  double drop_ = 0.0;
};

}  // namespace zkd::server
