// SPDX-License-Identifier: BSD-3-Clause
// The command lines of strata-analyze and strata-score, walked alike: "--"
// ends the options; an option is a flag or takes a value ("--name value" or
// "--name=value"); every other argument (a lone "-" too) is positional.
#pragma once

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <string>
#include <vector>

namespace strata::analysis {

/// Walks `args`.  `flag(arg)` applies an option without a value and returns
/// false when `arg` is not one; `valued` names the options that take a value,
/// which `value(name, value)` applies; `positional(arg)` takes the others.
/// Throws `Error` ("unknown option '<arg>'", "<name> needs a value").
template <typename Error, typename Flag, typename Value, typename Positional>
void walk_command_line(const std::vector<std::string>& args, const std::vector<std::string>& valued, Flag&& flag,
                       Value&& value, Positional&& positional) {
    bool options_end = false;  // after "--", every argument is positional
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& arg = args[i];
        const bool is_option = !options_end && arg.size() > 1 && arg[0] == '-';
        if (!is_option) {
            positional(arg);
        } else if (arg == "--") {
            options_end = true;
        } else if (!flag(arg)) {
            const std::size_t equals = arg.find('=');
            const std::string name = arg.substr(0, equals);
            if (std::find(valued.begin(), valued.end(), name) == valued.end())
                throw Error("unknown option '" + arg + "'");
            if (equals != std::string::npos) {
                value(name, arg.substr(equals + 1));
            } else if (i + 1 < args.size()) {
                value(name, args[++i]);
            } else {
                throw Error(name + " needs a value");
            }
        }
    }
}

}  // namespace strata::analysis
