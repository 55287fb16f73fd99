// SPDX-License-Identifier: BSD-3-Clause
// The owner of an OTF2_Reader: opened on an anchor file with serial
// collective callbacks (every analysis rank reads its own share alone),
// closed once.  Not copyable, not movable.
#pragma once

#include <otf2/otf2.h>

#include <functional>
#include <string>

#include "strata/measurement/error.hpp"

namespace strata::analysis::trace {

/// An open OTF2 reader; check ok() before use.
class Otf2Reader {
public:
    /// Opens `anchor`; on failure ok() is false and error() says why.
    explicit Otf2Reader(const std::string& anchor);
    ~Otf2Reader();
    Otf2Reader(const Otf2Reader&) = delete;
    Otf2Reader& operator=(const Otf2Reader&) = delete;

    bool ok() const { return reader_ != nullptr; }
    const Error& error() const { return error_; }
    OTF2_Reader* get() const { return reader_; }

private:
    OTF2_Reader* reader_ = nullptr;
    Error error_;
};

/// Reads the local definitions (the .def file) of location `id` through the
/// callbacks `choose` sets, which get `user`; the error is in words that
/// follow the location's name.
Error read_local_definitions(Otf2Reader& reader, OTF2_LocationRef id,
                             const std::function<OTF2_ErrorCode(OTF2_DefReaderCallbacks*)>& choose, void* user);

}  // namespace strata::analysis::trace
