// SPDX-License-Identifier: BSD-3-Clause
// parse_score_options(): the accepted forms and the defaults.
#include <gtest/gtest.h>

#include "score/score_options.hpp"

namespace strata::analysis::test {
namespace {

TEST(ScoreOptionsTest, Defaults) {
    const ScoreOptions o = parse_score_options({"exp"});
    EXPECT_EQ(o.input, "exp");
    EXPECT_EQ(o.by, ScoreGrouping::region);
    EXPECT_EQ(o.sort, ScoreSort::exclusive);
    EXPECT_EQ(o.top, 0u);
    EXPECT_FALSE(o.csv);
    EXPECT_FALSE(o.help);
}

TEST(ScoreOptionsTest, SpaceAndEqualsForms) {
    const ScoreOptions o = parse_score_options({"--by", "callpath", "--top=5", "exp", "--sort", "visits", "--csv"});
    EXPECT_EQ(o.input, "exp");
    EXPECT_EQ(o.by, ScoreGrouping::callpath);
    EXPECT_EQ(o.top, 5u);
    EXPECT_EQ(o.sort, ScoreSort::visits);
    EXPECT_TRUE(o.csv);
    EXPECT_EQ(parse_score_options({"exp", "--sort=incl"}).sort, ScoreSort::inclusive);
}

TEST(ScoreOptionsTest, DoubleDashEndsOptions) {
    EXPECT_EQ(parse_score_options({"--", "--odd-name"}).input, "--odd-name");
}

TEST(ScoreOptionsTest, HelpNeedsNoInput) {
    EXPECT_TRUE(parse_score_options({"-h"}).help);
    EXPECT_TRUE(parse_score_options({"--help"}).help);
}

TEST(ScoreOptionsTest, Errors) {
    EXPECT_THROW(parse_score_options({}), UsageError);
    EXPECT_THROW(parse_score_options({"exp", "--top", "0"}), UsageError);
    EXPECT_THROW(parse_score_options({"exp", "--top", "-3"}), UsageError);
    EXPECT_THROW(parse_score_options({"exp", "--top", "99999999999999999999999"}), UsageError);
    EXPECT_THROW(parse_score_options({"exp", "--by="}), UsageError);
    EXPECT_THROW(parse_score_options({"exp", "--csv=yes"}), UsageError);
}

}  // namespace
}  // namespace strata::analysis::test
