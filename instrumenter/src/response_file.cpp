// SPDX-License-Identifier: BSD-3-Clause
// Reading and splitting of response files.
#include "response_file.hpp"

#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace strata::instrumenter {
namespace {

constexpr int max_depth = 16;

void expand_into(const std::vector<std::string>& args, bool nvcc, int depth, std::vector<std::string>& out);

/// Appends the arguments of response file `path`; returns false when it cannot be read.
bool expand_file(const std::string& path, bool nvcc, int depth, std::vector<std::string>& out) {
    if (depth >= max_depth) return false;
    const auto text = read_text_file(path);
    if (!text) return false;
    expand_into(split_response_text(*text), nvcc, depth + 1, out);
    return true;
}

void expand_into(const std::vector<std::string>& args, bool nvcc, int depth, std::vector<std::string>& out) {
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& arg = args[i];
        if (arg.size() > 1 && arg[0] == '@') {
            if (!expand_file(arg.substr(1), nvcc, depth, out)) out.push_back(arg);
            continue;
        }
        if (nvcc) {
            if ((arg == "-optf" || arg == "--options-file") && i + 1 < args.size()) {
                if (!expand_file(args[i + 1], nvcc, depth, out)) {
                    out.push_back(arg);
                    out.push_back(args[i + 1]);
                }
                ++i;
                continue;
            }
            constexpr std::string_view joined = "--options-file=";
            if (arg.rfind(joined, 0) == 0) {
                if (!expand_file(arg.substr(joined.size()), nvcc, depth, out)) out.push_back(arg);
                continue;
            }
        }
        out.push_back(arg);
    }
}

}  // namespace

std::vector<std::string> split_response_text(std::string_view text) {
    std::vector<std::string> args;
    std::string current;
    bool in_arg = false;
    bool single_quote = false;
    bool double_quote = false;
    bool backslash = false;
    for (char c : text) {
        if (backslash) {
            current += c;
            backslash = false;
            in_arg = true;
        } else if (c == '\\') {
            backslash = true;
            in_arg = true;
        } else if (single_quote) {
            if (c == '\'') {
                single_quote = false;
            } else {
                current += c;
            }
        } else if (double_quote) {
            if (c == '"') {
                double_quote = false;
            } else {
                current += c;
            }
        } else if (std::isspace(static_cast<unsigned char>(c))) {
            if (in_arg) {
                args.push_back(current);
                current.clear();
                in_arg = false;
            }
        } else if (c == '\'') {
            single_quote = true;
            in_arg = true;
        } else if (c == '"') {
            double_quote = true;
            in_arg = true;
        } else {
            current += c;
            in_arg = true;
        }
    }
    if (in_arg) args.push_back(current);
    return args;
}

std::optional<std::string> read_text_file(const std::string& path) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) return std::nullopt;
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::nullopt;
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) return std::nullopt;
    return text.str();
}

std::vector<std::string> expand_response_files(const std::vector<std::string>& args, bool nvcc) {
    std::vector<std::string> out;
    expand_into(args, nvcc, 0, out);
    return out;
}

}  // namespace strata::instrumenter
