#include <gtest/gtest.h>

#include "zklab/check_verdict.h"

// STUB: to be written (helper B).
TEST(CheckVerdictTest, EmptyHistoryPasses) {
  EXPECT_TRUE(zk::lab::check::check_history({}).ok());
}
