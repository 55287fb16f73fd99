// SPDX-License-Identifier: BSD-3-Clause
// strata-fixture-experiment DIR: writes calltree_profile() (analyze_fixtures.hpp)
// as DIR/profile.h5, the experiment the browser test (browser_report.py)
// analyses and opens: known figures, a parameter node, bytes, a counter, a
// GPU stream and a region named </script><img src=x onerror=alert(1)>.
// strata-fixture-experiment DIR GPU_DIR: also writes gpu_trace() (otf2_fixture.hpp)
// as the trace of a second experiment, for the page's GPU section.
#include <exception>
#include <iostream>

#include "analyze_fixtures.hpp"
#include "otf2_fixture.hpp"

int main(int argc, char** argv) {
    if (argc != 2 && argc != 3) {
        std::cerr << "usage: strata-fixture-experiment DIR [GPU_DIR]\n";
        return 2;
    }
    try {
        strata::analysis::test::write_experiment(strata::analysis::test::calltree_profile(), argv[1]);
        if (argc == 3) strata::analysis::test::gpu_trace().write(argv[2]);
    } catch (const std::exception& error) {
        std::cerr << "strata-fixture-experiment: " << error.what() << '\n';
        return 1;
    }
    return 0;
}
