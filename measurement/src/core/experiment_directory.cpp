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

namespace {

/// The file that marks a directory Strata made (written when it is claimed).
constexpr const char* marker_name = ".strata-experiment";

/// What Strata writes into an experiment directory (and strata-analyze's analysis/):
/// all that an overwrite may remove.
bool strata_wrote(const std::string& name) {
    static const char* const names[] = {marker_name, "strata.cfg", "strata.cfg.tmp", "profile.h5",
                                        "traces.otf2", "traces.def", "traces", "analysis", "INCOMPLETE",
                                        "losses"};
    for (const char* n : names)
        if (name == n) return true;
    // writing-<host>: the markers of ranks writing alone (ranks_writing_alone.hpp), left by a killed one.
    if (name.rfind("writing-", 0) == 0 && name.size() > 8) return true;
    return name.rfind("rank-", 0) == 0 && name.find_first_not_of("0123456789", 5) == std::string::npos &&
           name.size() > 5;
}

}  // namespace

Error refusal(const std::string& path, bool overwrite) {
    std::error_code ec;
    if (!fs::exists(fs::symlink_status(path, ec))) return {};
    if (!overwrite) {
        return "strata: the experiment directory '" + path +
               "' already exists and is not overwritten; choose another "
               "STRATA_EXPERIMENT_DIRECTORY, remove it, or set "
               "STRATA_OVERWRITE_EXPERIMENT_DIRECTORY=true to replace it";
    }
    if (fs::is_symlink(path, ec) || !fs::is_directory(path, ec) || !fs::exists(fs::path(path) / marker_name, ec)) {
        return "strata: STRATA_OVERWRITE_EXPERIMENT_DIRECTORY=true, but '" + path +
               "' is not a directory Strata made (it has no " + marker_name + "); it is left "
               "untouched and the run stops";
    }
    // Only what Strata wrote is replaced: a file of anyone else's keeps the whole directory.
    for (const auto& entry : fs::directory_iterator(path, ec)) {
        const std::string name = entry.path().filename().string();
        if (!strata_wrote(name)) {
            return "strata: STRATA_OVERWRITE_EXPERIMENT_DIRECTORY=true, but the experiment directory '" + path +
                   "' also holds '" + name + "', which Strata did not write; it is left untouched and the run "
                   "stops";
        }
    }
    if (ec) return "strata: cannot read the experiment directory '" + path + "': " + ec.message();
    return {};
}

Error create(const std::string& path, bool overwrite) {
    if (Error problem = refusal(path, overwrite)) return problem;
    std::error_code ec;
    if (fs::exists(fs::symlink_status(path, ec))) {
        // refusal() found only what Strata wrote in it.
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
    return write_file((fs::path(path) / marker_name).string(),
                      "This directory was made by Strata for one experiment.  STRATA_OVERWRITE_EXPERIMENT_DIRECTORY\n"
                      "replaces it only while it holds nothing but what Strata wrote.\n");
}

Error write_file(const std::string& path, const std::string& text) {
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
