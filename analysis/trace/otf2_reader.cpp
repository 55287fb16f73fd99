// SPDX-License-Identifier: BSD-3-Clause
// The owner of an OTF2_Reader (see otf2_reader.hpp).
#include "trace/otf2_reader.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "trace/trace_definitions.hpp"

namespace strata::analysis::trace {

Otf2Reader::Otf2Reader(const std::string& anchor) {
    silence_otf2_errors();
    struct stat status {};
    if (::stat(anchor.c_str(), &status) != 0) {
        error_ = anchor + ": cannot open: " + std::strerror(errno);
        return;
    }
    // A FIFO or a device would block the reader (it waits for a writer): only a file is read.
    if (!S_ISREG(status.st_mode)) {
        error_ = anchor + ": not a regular file (a directory, a FIFO or a device), not an OTF2 anchor file";
        return;
    }
    reader_ = OTF2_Reader_Open(anchor.c_str());
    if (reader_ == nullptr) {
        error_ = anchor + ": not a readable OTF2 anchor file (truncated, damaged or not OTF2)";
        return;
    }
    const OTF2_ErrorCode rc = OTF2_Reader_SetSerialCollectiveCallbacks(reader_);
    if (rc != OTF2_SUCCESS) {
        error_ = anchor + ": cannot set up the OTF2 reader: " + describe_otf2(rc);
        OTF2_Reader_Close(reader_);
        reader_ = nullptr;
    }
}

Otf2Reader::~Otf2Reader() {
    if (reader_ != nullptr) OTF2_Reader_Close(reader_);
}

Error read_local_definitions(Otf2Reader& reader, OTF2_LocationRef id,
                             const std::function<OTF2_ErrorCode(OTF2_DefReaderCallbacks*)>& choose, void* user) {
    OTF2_DefReader* defs = OTF2_Reader_GetDefReader(reader.get(), id);
    if (defs == nullptr) return "its local definitions (.def file) cannot be opened";
    OTF2_DefReaderCallbacks* callbacks = OTF2_DefReaderCallbacks_New();
    if (callbacks == nullptr) {
        OTF2_Reader_CloseDefReader(reader.get(), defs);
        return "out of memory";
    }
    OTF2_ErrorCode rc = choose(callbacks);
    if (rc == OTF2_SUCCESS) rc = OTF2_Reader_RegisterDefCallbacks(reader.get(), defs, callbacks, user);
    OTF2_DefReaderCallbacks_Delete(callbacks);
    uint64_t read = 0;
    if (rc == OTF2_SUCCESS) rc = OTF2_Reader_ReadAllLocalDefinitions(reader.get(), defs, &read);
    const OTF2_ErrorCode closed = OTF2_Reader_CloseDefReader(reader.get(), defs);
    if (rc != OTF2_SUCCESS) return "its local definitions (.def file) cannot be read: " + describe_otf2(rc);
    if (closed != OTF2_SUCCESS) return "its local definitions cannot be closed: " + describe_otf2(closed);
    return {};
}

}  // namespace strata::analysis::trace
