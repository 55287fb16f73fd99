// SPDX-License-Identifier: BSD-3-Clause
// The host's name (see host_name.hpp).
#include "core/host_name.hpp"

#include <unistd.h>

#include "filter/filter_rules.hpp"

namespace strata {

const std::string& host_name() {
    static const std::string name = [] {
        char host[256] = "localhost";
        if (gethostname(host, sizeof host - 1) != 0) return std::string("localhost");
        host[sizeof host - 1] = '\0';
        return filter::valid_utf8(host);
    }();
    return name;
}

}  // namespace strata
