// SPDX-License-Identifier: BSD-3-Clause
// Conversion of Score-P filter rules to GCC's exclude lists.
#include "filter_file.hpp"

#include <algorithm>

namespace strata::instrumenter {
namespace {

/// Why a later INCLUDE rule may give back a name that contains `text`; empty when it cannot.
std::string overriding_include(const FilterFile& filter, std::size_t index, const std::string& text) {
    const auto& rule = filter.rules[index];
    for (std::size_t j = index + 1; j < filter.rules.size(); ++j) {
        const auto& later = filter.rules[j];
        if (later.target != rule.target || later.action != FilterAction::include) continue;
        const auto literal = later.mangled ? std::nullopt : literal_pattern(later.pattern);
        if (literal && literal->find(text) == std::string::npos) continue;
        return "the later rule 'INCLUDE " + std::string(later.mangled ? "MANGLED " : "") + later.pattern +
               "' (line " + std::to_string(later.line) + ") may include such names back";
    }
    return {};
}

std::string escape_commas(const std::string& text) {
    std::string escaped;
    for (char c : text) {
        if (c == ',') escaped += '\\';
        escaped += c;
    }
    return escaped;
}

}  // namespace

CompileTimeFilter compile_time_filter(const FilterFile& filter, bool through_nvcc) {
    CompileTimeFilter result;
    for (std::size_t i = 0; i < filter.rules.size(); ++i) {
        const auto& rule = filter.rules[i];
        if (rule.action != FilterAction::exclude) continue;
        std::string reason;
        const auto text = substring_pattern(rule.pattern);
        if (rule.mangled) {
            reason = "MANGLED names are known only at run time";
        } else if (!text) {
            reason = "GCC matches substrings, so only patterns of the form *text* are exact";
        } else if (text->back() == '\\') {
            reason = "GCC would read the final backslash as an escape";
        } else if (through_nvcc && text->find(',') != std::string::npos) {
            reason = "nvcc splits -Xcompiler values at commas";
        } else {
            reason = overriding_include(filter, i, *text);
        }
        if (!reason.empty()) {
            result.run_time_only.push_back(filter.path + ":" + std::to_string(rule.line) + ": EXCLUDE " +
                                           (rule.mangled ? "MANGLED " : "") + rule.pattern + ": " + reason);
            continue;
        }
        auto& list = rule.target == FilterTarget::region ? result.functions : result.files;
        if (std::find(list.begin(), list.end(), *text) == list.end()) list.push_back(*text);
    }
    return result;
}

namespace {

std::string joined_list(const std::vector<std::string>& names) {
    std::string joined;
    for (const auto& name : names) {
        if (!joined.empty()) joined += ',';
        joined += escape_commas(name);
    }
    return joined;
}

}  // namespace

std::vector<std::string> gcc_exclude_flags(const CompileTimeFilter& filter, bool through_nvcc) {
    std::vector<std::string> flags;
    const auto add = [&](const std::vector<std::string>& names, const std::string& option) {
        if (names.empty()) return;
        if (through_nvcc) {
            for (const auto& name : names) {
                flags.push_back("-Xcompiler");
                flags.push_back(option + name);
            }
            return;
        }
        flags.push_back(option + joined_list(names));
    };
    add(filter.functions, "-finstrument-functions-exclude-function-list=");
    add(filter.files, "-finstrument-functions-exclude-file-list=");
    return flags;
}

}  // namespace strata::instrumenter
