// SPDX-License-Identifier: BSD-3-Clause
// How the runtime and its adapters report a failure: by value, never by an
// exception.  They run inside the measured program, often under a C
// library's callback (MPI, OMPT, CUPTI, NVTX), where an exception must not
// pass.  A function that can fail returns an Error; what it makes on success
// goes to an out-parameter.  The tools (strata-analyze, strata-score, the
// wrapper, strata-preload) return it too where a failure is reported and the
// work goes on (a location that cannot be read, a file that cannot be
// written, a bad option); exceptions stay inside the module that throws them
// (the profile writer, the filter parser) and, in the tools, end the run and
// are caught in main.
#pragma once

#include <string>
#include <utility>

namespace strata {

/// What went wrong, as one message for the user that names what was wrong and
/// what is accepted; none when all went well.
///
///     if (const Error error = experiment::create(path, false)) say(*error);
///
/// An empty message is no error: a function may build its message in a
/// string that stays empty when nothing failed.
class [[nodiscard]] Error {
public:
    /// No error.
    Error() = default;
    Error(std::string message) : message_(std::move(message)) {}
    Error(const char* message) : message_(message != nullptr ? message : "") {}

    explicit operator bool() const noexcept { return !message_.empty(); }
    const std::string& message() const noexcept { return message_; }
    const std::string& operator*() const noexcept { return message_; }
    std::string& operator*() noexcept { return message_; }
    const std::string* operator->() const noexcept { return &message_; }

    friend bool operator==(const Error& a, const Error& b) { return a.message_ == b.message_; }
    friend bool operator!=(const Error& a, const Error& b) { return !(a == b); }

private:
    std::string message_;
};

}  // namespace strata
