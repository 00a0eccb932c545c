// SPDX-License-Identifier: Apache-2.0
// The workload generators: the op mix and the key distribution are what was
// asked for, within a tolerance, over many draws with a fixed seed.
#include "zkbench/workload.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace {

using namespace zk::bench;

constexpr int kDraws = 400'000;

std::vector<double> op_shares(const OpMix& mix, uint64_t seed) {
  OpChooser chooser(mix);
  Rng rng(seed);
  std::vector<double> counts(kOpTypes, 0);
  for (int i = 0; i < kDraws; ++i) ++counts[static_cast<size_t>(chooser.draw(rng))];
  for (double& c : counts) c /= kDraws;
  return counts;
}

TEST(OpMix, ParsesTypesAndWeights) {
  const MixParse p = parse_mix("get=70,set=20,exists=10");
  ASSERT_EQ(p.error, "");
  EXPECT_EQ(p.mix.weights[static_cast<size_t>(OpType::kGet)], 70);
  EXPECT_EQ(p.mix.weights[static_cast<size_t>(OpType::kSet)], 20);
  EXPECT_EQ(p.mix.weights[static_cast<size_t>(OpType::kExists)], 10);
  EXPECT_EQ(p.mix.total(), 100);
  EXPECT_EQ(p.mix.describe(), "get=70,exists=10,set=20");
  EXPECT_EQ(parse_mix("children=1,create=3").mix.describe(), "children=1,create=3");
}

TEST(OpMix, ParsesMulti) {
  const MixParse p = parse_mix("multi=50,get=50");
  ASSERT_EQ(p.error, "");
  EXPECT_EQ(p.mix.weights[static_cast<size_t>(OpType::kMulti)], 50);
  EXPECT_EQ(p.mix.weights[static_cast<size_t>(OpType::kGet)], 50);
  EXPECT_DOUBLE_EQ(p.mix.share(OpType::kMulti), 0.5);
  EXPECT_EQ(p.mix.describe(), "get=50,multi=50");
  EXPECT_EQ(parse_mix("multi=1,create=2,set=3").mix.describe(), "set=3,create=2,multi=1");
}

TEST(OpMix, RejectsBadMixes) {
  for (const char* bad :
       {"", "get", "get=", "get=-1", "get=x", "get=1,get=2", "bogus=3", "delete=5", "get=0,set=0",
        "get=1,", "get=1.5", "multi=1,multi=2", "multi=-1"}) {
    EXPECT_NE(parse_mix(bad).error, "") << bad;
  }
}

TEST(OpMix, ReadsMixIsGetAndSet) {
  EXPECT_EQ(reads_mix(70).describe(), "get=70,set=30");
  EXPECT_EQ(reads_mix(100).describe(), "get=100");
  EXPECT_EQ(reads_mix(0).describe(), "set=100");
}

TEST(OpChooser, DrawsTheMixWithinTolerance) {
  const OpMix mix = parse_mix("get=50,exists=10,children=5,set=15,create=10,multi=10").mix;
  const auto shares = op_shares(mix, 42);
  for (OpType op : kAllOpTypes) {
    const double want = mix.share(op);
    // 5 standard deviations of a binomial share over kDraws.
    const double tolerance = 5 * std::sqrt(want * (1 - want) / kDraws) + 1e-9;
    EXPECT_NEAR(shares[static_cast<size_t>(op)], want, tolerance) << op_name(op);
  }
  EXPECT_EQ(shares[static_cast<size_t>(OpType::kDelete)], 0);  // never drawn
}

TEST(OpChooser, ExtremeMixesDrawOnlyWhatWasAsked) {
  EXPECT_EQ(op_shares(reads_mix(100), 1)[static_cast<size_t>(OpType::kGet)], 1.0);
  EXPECT_EQ(op_shares(reads_mix(0), 1)[static_cast<size_t>(OpType::kSet)], 1.0);
  EXPECT_EQ(op_shares(parse_mix("multi=7").mix, 1)[static_cast<size_t>(OpType::kMulti)], 1.0);
}

TEST(OpChooser, SameSeedSameSequence) {
  const OpMix mix = reads_mix(50);
  OpChooser chooser(mix);
  Rng a(derive_seed(9, 3)), b(derive_seed(9, 3)), c(derive_seed(9, 4));
  std::string sa, sb, sc;
  for (int i = 0; i < 200; ++i) {
    sa += op_name(chooser.draw(a));
    sb += op_name(chooser.draw(b));
    sc += op_name(chooser.draw(c));
  }
  EXPECT_EQ(sa, sb);
  EXPECT_NE(sa, sc);
}

std::vector<double> key_frequencies(const KeySpec& spec, uint64_t seed) {
  KeyChooser chooser(spec);
  Rng rng(seed);
  std::vector<double> counts(static_cast<size_t>(spec.znodes), 0);
  for (int i = 0; i < kDraws; ++i) {
    const int64_t k = chooser.draw(rng);
    EXPECT_GE(k, 0);
    EXPECT_LT(k, spec.znodes);
    ++counts[static_cast<size_t>(k)];
  }
  for (double& c : counts) c /= kDraws;
  return counts;
}

// Every key's frequency is within 5 standard deviations of its probability,
// and the total variation distance is small.
void expect_distribution(const KeySpec& spec, const std::vector<double>& want) {
  const auto got = key_frequencies(spec, 2024);
  double tv = 0;
  for (size_t k = 0; k < want.size(); ++k) {
    const double tolerance = 5 * std::sqrt(want[k] * (1 - want[k]) / kDraws) + 1e-9;
    EXPECT_NEAR(got[k], want[k], tolerance) << "key " << k;
    tv += std::abs(got[k] - want[k]) / 2;
  }
  EXPECT_LT(tv, 0.01);
}

TEST(KeyChooser, UniformIsUniform) {
  KeySpec spec;
  spec.znodes = 100;
  const std::vector<double> want(100, 0.01);
  expect_distribution(spec, want);
  EXPECT_DOUBLE_EQ(KeyChooser(spec).probability(7), 0.01);
}

TEST(KeyChooser, ZipfFollowsThePowerLaw) {
  for (double s : {0.99, 1.5}) {
    KeySpec spec;
    spec.znodes = 100;
    spec.distribution = KeyDistribution::kZipf;
    spec.zipf_s = s;
    std::vector<double> want(100);
    double norm = 0;
    for (size_t k = 0; k < want.size(); ++k) norm += 1 / std::pow(static_cast<double>(k + 1), s);
    for (size_t k = 0; k < want.size(); ++k) {
      want[k] = 1 / std::pow(static_cast<double>(k + 1), s) / norm;
    }
    expect_distribution(spec, want);
    const KeyChooser chooser(spec);
    EXPECT_NEAR(chooser.probability(0), want[0], 1e-12);
    EXPECT_NEAR(chooser.probability(99), want[99], 1e-12);
    // The head is hot: key 0 is drawn (k+1)^s times as often as key k.
    EXPECT_NEAR(chooser.probability(0) / chooser.probability(9), std::pow(10.0, s), 1e-9);
  }
}

TEST(KeyChooser, OneKey) {
  for (auto d : {KeyDistribution::kUniform, KeyDistribution::kZipf}) {
    KeySpec spec;
    spec.znodes = 1;
    spec.distribution = d;
    KeyChooser chooser(spec);
    Rng rng(5);
    for (int i = 0; i < 100; ++i) EXPECT_EQ(chooser.draw(rng), 0);
  }
}

TEST(Workload, NamesRoundTrip) {
  for (OpType op : kAllOpTypes) EXPECT_EQ(parse_op_type(op_name(op)), op);
  EXPECT_EQ(parse_op_type("multi"), OpType::kMulti);
  EXPECT_FALSE(parse_op_type("multiRead"));
  EXPECT_FALSE(is_read(OpType::kMulti));
  EXPECT_TRUE(is_read(OpType::kChildren));
  EXPECT_EQ(parse_distribution("zipf"), KeyDistribution::kZipf);
  EXPECT_FALSE(parse_distribution("gauss"));
  EXPECT_EQ(make_value(5), "abcde");
  EXPECT_EQ(make_value(0), "");
}

}  // namespace
