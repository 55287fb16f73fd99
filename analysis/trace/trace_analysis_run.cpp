// SPDX-License-Identifier: BSD-3-Clause
// The phases of the trace analysis driven over an Exchange: MPI in
// strata-analyze, or K shares in one process (see wait_state_analysis.hpp).
#include "trace/wait_state_analysis.hpp"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

namespace strata::analysis::trace {

namespace {

/// True on every rank when `mine` is true on any.  Collective.
bool anywhere(Exchange& exchange, bool mine) {
    const std::vector<std::string> all =
        exchange.all_to_all(std::vector<std::string>(exchange.size(), mine ? "1" : ""));
    return std::any_of(all.begin(), all.end(), [](const std::string& s) { return !s.empty(); });
}

}  // namespace

TraceReport run_trace_analysis(const TraceDefinitions& definitions, Exchange& exchange,
                                   const TimelineOptions& timeline, const TraceAnalysisOptions& options) {
    TraceShareAnalysis share(definitions, exchange.rank(), exchange.size(), options);
    if (!timeline.part.empty())
        share.write_timeline({timeline_part(timeline, exchange.rank()), timeline.events});
    const auto read_and_match = [&] {
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
    };
    read_and_match();
    if (options.logical_clock && anywhere(exchange, share.clock_violated())) {
        for (bool moved = true; moved && share.clock_rounds() < LogicalClock::kMaxRounds;) {
            const std::vector<std::string> moves = exchange.all_to_all(share.clock_outbox());
            moved = anywhere(exchange, share.clock_enforce(exchange.all_to_all(share.clock_answers(moves))));
        }
        if (share.move_clocks(exchange.all_to_all(std::vector<std::string>(exchange.size(), share.clock_shifts()))))
            read_and_match();
    }
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
    // One exchange: every share's outbox (from `outbox(share, its inbox)`), then each share's inbox.
    std::vector<std::vector<std::string>> inboxes(shares);
    const auto exchange = [&](const auto& outbox) {
        std::vector<std::vector<std::string>> boxes;
        for (std::size_t a = 0; a < shares; ++a) boxes.push_back(outbox(*all[a], inboxes[a]));
        inboxes = transpose(std::move(boxes));
    };
    const auto each = [&](const auto& take) {
        for (std::size_t a = 0; a < shares; ++a) take(*all[a], inboxes[a]);
    };
    using Inbox = std::vector<std::string>;
    const auto anywhere = [&](const std::vector<bool>& said) {
        return std::find(said.begin(), said.end(), true) != said.end();
    };
    const auto read_and_match = [&] {
        for (std::size_t a = 0; a < shares; ++a) {
            RoundRobinUnits units(static_cast<std::int64_t>(all[a]->unit_count()), a, shares);
            all[a]->read(units);
        }
        exchange([](TraceShareAnalysis& s, const Inbox&) { return s.ownership_outbox(); });
        each([](TraceShareAnalysis& s, const Inbox& in) { s.ownership_inbox(in); });
        exchange([](TraceShareAnalysis& s, const Inbox&) { return s.iteration_outbox(); });
        each([](TraceShareAnalysis& s, const Inbox& in) { s.iteration_inbox(in); });
        exchange([](TraceShareAnalysis& s, const Inbox&) { return s.message_outbox(); });
        each([](TraceShareAnalysis& s, const Inbox& in) { s.message_inbox(in); });
        exchange([](TraceShareAnalysis& s, const Inbox&) { return s.collective_outbox(); });
        exchange([](TraceShareAnalysis& s, const Inbox& in) { return s.collective_answers(in); });
        each([](TraceShareAnalysis& s, const Inbox& in) { s.collective_inbox(in); });
    };
    read_and_match();
    std::vector<bool> said(shares);
    for (std::size_t a = 0; a < shares; ++a) said[a] = all[a]->clock_violated();
    if (options.logical_clock && anywhere(said)) {
        for (bool moved = true; moved && all.front()->clock_rounds() < LogicalClock::kMaxRounds;) {
            exchange([](TraceShareAnalysis& s, const Inbox&) { return s.clock_outbox(); });
            exchange([](TraceShareAnalysis& s, const Inbox& in) { return s.clock_answers(in); });
            for (std::size_t a = 0; a < shares; ++a) said[a] = all[a]->clock_enforce(inboxes[a]);
            moved = anywhere(said);
        }
        exchange([shares](TraceShareAnalysis& s, const Inbox&) { return Inbox(shares, s.clock_shifts()); });
        for (std::size_t a = 0; a < shares; ++a) said[a] = all[a]->move_clocks(inboxes[a]);
        if (said.front()) read_and_match();
    }
    std::vector<std::string> partials;
    for (std::size_t a = 0; a < shares; ++a) partials.push_back(all[a]->partial());
    TraceReport report = combine_partials(partials, definitions, options);
    add_iterations(report, all.front()->plan());
    return report;
}

}  // namespace strata::analysis::trace
