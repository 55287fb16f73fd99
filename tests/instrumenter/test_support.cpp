// SPDX-License-Identifier: BSD-3-Clause
// Helpers shared by the wrapper's tests.
#include "test_support.hpp"

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "command_builder.hpp"

namespace strata::instrumenter::test {

Args operator+(Args a, const Args& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

Layout fixed_layout() {
    Layout layout;
    layout.include_dirs = {"/prefix/include"};
    layout.library_dirs = {"/prefix/lib"};
    for (const auto& name : strata_library_names()) layout.available_libraries.insert(name);
    return layout;
}

Args compile_additions() {
    return {"-finstrument-functions", "-DSTRATA_USER_ENABLE", "-I/prefix/include"};
}

Args link_additions(const Args& adapters) {
    return Args{"-L/prefix/lib", "-Wl,-rpath,/prefix/lib", "-Wl,--no-as-needed", "-lstrata-compiler"} +
           adapters + Args{"-lstrata-user", "-lstrata-measurement"};
}

TempDir::TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "strata-instr-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
}

TempDir::~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
}

std::string TempDir::write(const std::string& name, const std::string& text) const {
    const auto file = (std::filesystem::path(path_) / name).string();
    std::ofstream(file, std::ios::binary) << text;
    return file;
}

}  // namespace strata::instrumenter::test
