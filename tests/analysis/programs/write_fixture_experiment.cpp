// SPDX-License-Identifier: BSD-3-Clause
// strata-fixture-experiment DIR: writes calltree_profile() (analyze_fixtures.hpp)
// as DIR/profile.h5, the experiment the browser test (browser_report.py)
// analyses and opens: known figures, a parameter node, bytes, a counter, a
// GPU stream and a region named </script><img src=x onerror=alert(1)>.
#include <exception>
#include <iostream>

#include "analyze_fixtures.hpp"

int main(int argc, char** argv) {
    if (argc != 2) {
        std::cerr << "usage: strata-fixture-experiment DIR\n";
        return 2;
    }
    try {
        strata::analysis::test::write_experiment(strata::analysis::test::calltree_profile(), argv[1]);
    } catch (const std::exception& error) {
        std::cerr << "strata-fixture-experiment: " << error.what() << '\n';
        return 1;
    }
    return 0;
}
