// SPDX-License-Identifier: BSD-3-Clause
// SIGXFSZ blocked in the writing thread (see file_size_guard.hpp).
#include "core/file_size_guard.hpp"

#include <pthread.h>

#include <ctime>

namespace strata {

namespace {
sigset_t file_size_signal() {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGXFSZ);
    return set;
}
}  // namespace

FileSizeGuard::FileSizeGuard() {
    const sigset_t set = file_size_signal();
    blocked_ = pthread_sigmask(SIG_BLOCK, &set, &previous_) == 0;
}

bool FileSizeGuard::limit_hit() {
    if (!blocked_) return false;
    // Take every pending SIGXFSZ (a write raises one each time it fails).
    const sigset_t set = file_size_signal();
    const timespec now = {0, 0};
    while (sigtimedwait(&set, nullptr, &now) == SIGXFSZ) hit_ = true;
    const bool hit = hit_;
    hit_ = false;
    return hit;
}

FileSizeGuard::~FileSizeGuard() {
    if (!blocked_) return;
    limit_hit();
    pthread_sigmask(SIG_SETMASK, &previous_, nullptr);
}

}  // namespace strata
