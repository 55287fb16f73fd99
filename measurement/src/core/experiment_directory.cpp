// SPDX-License-Identifier: BSD-3-Clause
// Experiment directory handling.
#include "core/experiment_directory.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <system_error>

namespace strata::experiment {

namespace fs = std::filesystem;

std::string default_name(long id) {
    const std::time_t t = std::time(nullptr);
    std::tm local{};
    localtime_r(&t, &local);
    char stamp[32];
    std::strftime(stamp, sizeof stamp, "%Y%m%d_%H%M%S", &local);
    return std::string("strata-") + stamp + "_" + std::to_string(id);
}

std::string refusal(const std::string& path, bool overwrite) {
    std::error_code ec;
    if (!fs::exists(fs::symlink_status(path, ec))) return {};
    if (!overwrite) {
        return "strata: the experiment directory '" + path +
               "' already exists and is not overwritten; choose another "
               "STRATA_EXPERIMENT_DIRECTORY, remove it, or set "
               "STRATA_OVERWRITE_EXPERIMENT_DIRECTORY=true to replace it";
    }
    if (fs::is_symlink(path, ec) || !fs::is_directory(path, ec) || !fs::exists(fs::path(path) / "strata.cfg", ec)) {
        return "strata: STRATA_OVERWRITE_EXPERIMENT_DIRECTORY=true, but '" + path +
               "' is not a Strata experiment directory (it has no strata.cfg); it is left "
               "untouched and the run stops";
    }
    return {};
}

std::string create(const std::string& path, bool overwrite) {
    std::string problem = refusal(path, overwrite);
    if (!problem.empty()) return problem;
    std::error_code ec;
    if (fs::exists(fs::symlink_status(path, ec))) {
        fs::remove_all(path, ec);
        if (ec) return "strata: cannot remove the old experiment directory '" + path + "': " + ec.message();
    }
    const fs::path parent = fs::path(path).parent_path();
    if (!parent.empty()) {
        fs::create_directories(parent, ec);
        if (ec) return "strata: cannot create the experiment directory '" + path + "': " + ec.message();
    }
    // The claim: mkdir fails with EEXIST when another run made it since.
    if (mkdir(path.c_str(), 0777) != 0) {
        if (errno == EEXIST) {
            return "strata: the experiment directory '" + path +
                   "' was created by another run at the same moment; this run does not write into it (give "
                   "each run its own STRATA_EXPERIMENT_DIRECTORY)";
        }
        return "strata: cannot create the experiment directory '" + path + "': " + std::strerror(errno);
    }
    return {};
}

std::string write_file(const std::string& path, const std::string& text) {
    const std::string tmp = path + ".tmp";
    // Never through a symbolic link planted at the temporary's name (O_NOFOLLOW).
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) {
        return "strata: cannot write '" + path + "': " +
               (errno == ELOOP ? std::string(tmp + " is a symbolic link, which is not written through")
                               : std::string(std::strerror(errno)));
    }
    std::size_t done = 0;
    int saved = 0;
    while (done < text.size()) {
        const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            saved = n < 0 ? errno : EIO;
            break;
        }
        done += static_cast<std::size_t>(n);
    }
    if (::close(fd) != 0 && saved == 0) saved = errno;
    if (saved != 0) {
        std::remove(tmp.c_str());
        return "strata: cannot write '" + path + "': " + std::strerror(saved);
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
        return "strata: cannot write '" + path + "': " + std::strerror(errno);
    }
    return {};
}

}  // namespace strata::experiment
