// SPDX-License-Identifier: BSD-3-Clause
// Strata's own writes under a file-size limit (ulimit -f).
//
// A write past RLIMIT_FSIZE raises SIGXFSZ, whose default action kills the
// process: the measured program would die of the measurement, with nothing
// written and no message.  While a FileSizeGuard lives, the calling thread
// (only it: the signal is sent to the thread that wrote, and the program's
// other threads and its own signal handling stay as they were) has SIGXFSZ
// blocked, so such a write fails with EFBIG, which the writers report like a
// full disk.  The signal left pending by it is taken before the mask is
// restored, so it is never delivered late.
//
//   {
//       FileSizeGuard guard;
//       write the trace ...   // EFBIG instead of death
//   }
#pragma once

#include <signal.h>

namespace strata {

class FileSizeGuard {
public:
    FileSizeGuard();
    ~FileSizeGuard();
    FileSizeGuard(const FileSizeGuard&) = delete;
    FileSizeGuard& operator=(const FileSizeGuard&) = delete;

    /// True when a write under this guard hit the limit (its SIGXFSZ was taken); a later
    /// call says false until another write hits it.
    bool limit_hit();

private:
    sigset_t previous_;
    bool blocked_ = false;
    bool hit_ = false;
};

}  // namespace strata
