// SPDX-License-Identifier: BSD-3-Clause
// The phases of the trace analysis driven over an Exchange: MPI in
// strata-analyze, or K shares in one process (see wait_state_analysis.hpp).
#include "trace/wait_state_analysis.hpp"

#include <memory>
#include <string>
#include <vector>

namespace strata::analysis::trace {

TraceReport run_trace_analysis(const TraceDefinitions& definitions, Exchange& exchange,
                                   const TimelineOptions& timeline, const TraceAnalysisOptions& options) {
    TraceShareAnalysis share(definitions, exchange.rank(), exchange.size(), options);
    if (!timeline.part.empty())
        share.write_timeline({timeline_part(timeline, exchange.rank()), timeline.events});
    {
        const std::unique_ptr<UnitDispenser> units =
            exchange.dispenser(static_cast<std::int64_t>(share.unit_count()),
                               exchange.rank() == 0 ? share.unit_order() : std::vector<std::int64_t>{});
        share.read(*units);
    }
    share.ownership_inbox(exchange.all_to_all(share.ownership_outbox()));
    share.iteration_inbox(exchange.all_to_all(share.iteration_outbox()));
    {  // the outbox is freed before the matching, the inbox after it
        const std::vector<std::string> messages = exchange.all_to_all(share.message_outbox());
        share.message_inbox(messages);
    }
    const std::vector<std::string> calls = exchange.all_to_all(share.collective_outbox());
    share.collective_inbox(exchange.all_to_all(share.collective_answers(calls)));
    const std::vector<std::string> partials = exchange.gather(share.partial());
    if (exchange.rank() != 0) return {};
    TraceReport report = combine_partials(partials, definitions, options);
    add_iterations(report, share.plan());
    return report;
}

namespace {

/// Unit u to share u mod K: the in-process shares run one after another, so
/// none could ask while another reads.  Not in blocks, so that the tests see
/// that what a share reads does not change the results.
class RoundRobinUnits : public UnitDispenser {
public:
    RoundRobinUnits(std::int64_t units, std::size_t share, std::size_t shares)
        : units_(units), next_(static_cast<std::int64_t>(share)), step_(static_cast<std::int64_t>(shares)) {}
    std::int64_t next() override {
        if (next_ >= units_) return -1;
        const std::int64_t unit = next_;
        next_ += step_;
        return unit;
    }
    std::vector<std::int64_t> stop() override {
        std::vector<std::int64_t> left;
        for (; next_ < units_; next_ += step_) left.push_back(next_);
        return left;
    }

private:
    std::int64_t units_, next_, step_;
};

/// inbox[r][s] = outbox[s][r].
std::vector<std::vector<std::string>> transpose(std::vector<std::vector<std::string>> outboxes) {
    const std::size_t k = outboxes.size();
    std::vector<std::vector<std::string>> inboxes(k, std::vector<std::string>(k));
    for (std::size_t s = 0; s < k; ++s) {
        for (std::size_t r = 0; r < k; ++r) inboxes[r][s] = std::move(outboxes[s][r]);
    }
    return inboxes;
}

}  // namespace

TraceReport analyze_trace_in_process(const TraceDefinitions& definitions, std::size_t shares,
                                         const TimelineOptions& timeline,
                                         const TraceAnalysisOptions& options) {
    std::vector<std::unique_ptr<TraceShareAnalysis>> all;
    for (std::size_t a = 0; a < shares; ++a) {
        all.push_back(std::make_unique<TraceShareAnalysis>(definitions, a, shares, options));
        if (!timeline.part.empty()) all.back()->write_timeline({timeline_part(timeline, a), timeline.events});
    }
    std::vector<std::vector<std::string>> boxes;
    for (std::size_t a = 0; a < shares; ++a) {
        RoundRobinUnits units(static_cast<std::int64_t>(all[a]->unit_count()), a, shares);
        all[a]->read(units);
        boxes.push_back(all[a]->ownership_outbox());
    }
    auto inboxes = transpose(std::move(boxes));
    boxes.clear();
    for (std::size_t a = 0; a < shares; ++a) {
        all[a]->ownership_inbox(inboxes[a]);
        boxes.push_back(all[a]->iteration_outbox());
    }
    inboxes = transpose(std::move(boxes));
    boxes.clear();
    for (std::size_t a = 0; a < shares; ++a) {
        all[a]->iteration_inbox(inboxes[a]);
        boxes.push_back(all[a]->message_outbox());
    }
    inboxes = transpose(std::move(boxes));
    boxes.clear();
    for (std::size_t a = 0; a < shares; ++a) {
        all[a]->message_inbox(inboxes[a]);
        boxes.push_back(all[a]->collective_outbox());
    }
    inboxes = transpose(std::move(boxes));
    boxes.clear();
    for (std::size_t a = 0; a < shares; ++a) boxes.push_back(all[a]->collective_answers(inboxes[a]));
    inboxes = transpose(std::move(boxes));
    std::vector<std::string> partials;
    for (std::size_t a = 0; a < shares; ++a) {
        all[a]->collective_inbox(inboxes[a]);
        partials.push_back(all[a]->partial());
    }
    TraceReport report = combine_partials(partials, definitions, options);
    add_iterations(report, all.front()->plan());
    return report;
}

}  // namespace strata::analysis::trace
