// SPDX-License-Identifier: BSD-3-Clause
// The forward replay of one location's event file, streamed in batches: a
// stack of open regions (call path, enter time), and a record for every MPI
// message and collective call (trace_records.hpp).  Events the analysis
// does not use (parameters, metrics, thread fork/join, OpenMP, I/O ...) are
// skipped.  The event file is decoded by EventFile (event_file.hpp), or by
// OTF2's reader where that cannot (compressed archives, for instance).
//
//   local .def: ClockOffset points  -> ClockCorrection (OTF2's own offset
//               application is switched off; mapping tables OTF2 applies)
//   .evt:       Enter/Leave         -> stack, call paths, MPI time
//               MpiSend/MpiIsend    -> ShareRecords::sends
//               MpiRecv/MpiIrecv    -> ShareRecords::receives (posted at the
//               (+MpiIrecvRequest)     MPI_Irecv, blocking in the Wait)
//               MpiIsendComplete    -> the blocking call of an Isend
//               MpiCollectiveEnd    -> ShareRecords::collectives
//
// Message keys get their sequence numbers later (number_records(),
// trace_records.hpp), once all locations of a rank are read.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "trace/logical_clock.hpp"
#include "trace/otf2_reader.hpp"
#include "trace/timeline_writer.hpp"
#include "trace/trace_definitions.hpp"
#include "trace/trace_records.hpp"

namespace strata::analysis::trace {

/// The event file of a location: <archive>/<name>/<id>.evt beside the anchor <archive>/<name>.otf2.
std::string event_file_path(const std::string& anchor, std::uint64_t location);

/// Replays location `index` of `definitions` through `reader` (whose event
/// and definition files are open) into `records`.  The error says why the
/// whole location was not read (what was read before the problem is kept).  With a `timeline`, every region instance is also
/// written there as a slice (begin_location() must have been called).
/// `between_batches`, when given, is called after each batch of events
/// (UnitDispenser::serve()).  `decode_directly`: the event file is decoded
/// by EventFile (event_file.hpp) where it can be; false: always by OTF2's
/// reader (the results are the same; --event-reader otf2).  `shift`, when
/// given, is the logical clock's move of the location's rank, added to every
/// corrected time (logical_clock.hpp).
Error replay_location(Otf2Reader& reader, const TraceDefinitions& definitions, std::size_t index,
                      ShareRecords& records, TimelineWriter* timeline = nullptr,
                      const std::function<void()>& between_batches = {}, bool decode_directly = true,
                      const LogicalShift* shift = nullptr);

}  // namespace strata::analysis::trace
