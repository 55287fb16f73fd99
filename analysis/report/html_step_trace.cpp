// SPDX-License-Identifier: BSD-3-Clause
// The "Step trace" section of report.html (see html_step_trace.hpp).
#include "report/html_step_trace.hpp"

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "report/html_sections.hpp"

namespace strata::analysis::report {

namespace {

double member(const JsonValue* object, const char* key) {
    const JsonValue* value = object ? object->find(key) : nullptr;
    return value ? value->number(NAN) : NAN;
}

std::string cell(const JsonValue* object, const char* key) {
    const JsonValue* value = object ? object->find(key) : nullptr;
    if (!value || value->is_null()) return "";
    return unit_of(key) == "s" && value->is_number() ? human_seconds(value->number(NAN)) : value->display();
}

}  // namespace

void write_step_trace(HtmlWriter& html, const JsonValue* steps) {
    if (!steps) return;
    const JsonValue* slowest = steps->find("slowest");
    const double iteration = member(slowest, "iteration_s");
    if (!(iteration > 0)) return;
    html.newline();
    html.open("section", {{"aria-labelledby", "step-trace"}});
    html.element("h2", "Step trace", {{"id", "step-trace"}});
    const JsonValue* used = steps->find("used");
    html.element(
        "p",
        "MindSpore's breakdown of the slowest rank's iterations " + cell(used, "start") + " to " +
            cell(used, "stop") + " (" + cell(used, "iterations") +
            "): the iteration gap (GPU idle while the host prepares the step), GPU computation, "
            "communication (NCCL kernels and MPI calls, counted once where they overlap) and GPU idle "
            "inside the step, as shares of the iteration time; the definitions are in step_trace.json.",
        {{"class", "note"}});
    // One bar per part: computation may overlap communication, and the GPU runs behind the
    // host, so the parts need not add up to the iteration time (a stacked bar would hide that).
    std::vector<Bar> bars;
    for (const auto& [key, label] :
         std::vector<std::pair<const char*, const char*>>{{"gap_s", "iteration gap"},
                                                          {"compute_s", "GPU computation"},
                                                          {"comm_s", "communication"},
                                                          {"idle_s", "GPU idle in the step"},
                                                          {"copy_s", "copies"}}) {
        const double share = member(slowest, key) / iteration;
        if (!std::isfinite(share)) continue;
        bars.push_back({label, share, percent(share) + " (" + cell(slowest, key) + ")", ""});
    }
    html.raw(svg_bar_chart("Parts of the slowest rank's iteration time", bars));
    std::vector<const JsonValue*> ranks;
    const JsonValue* list = steps->find("ranks");
    if (list && list->is_array())
        for (const JsonValue& r : list->items)
            if (r.is_object()) ranks.push_back(&r);
    if (!ranks.empty()) {
        const std::vector<std::pair<const char*, const char*>> columns = {{"rank", "rank"},
                                                                          {"iteration_s", "iteration"},
                                                                          {"gap_s", "gap"},
                                                                          {"compute_s", "computation"},
                                                                          {"nccl_s", "NCCL"},
                                                                          {"mpi_s", "MPI"},
                                                                          {"comm_s", "communication"},
                                                                          {"idle_s", "GPU idle"},
                                                                          {"host_copy_s", "HtoD + DtoH"},
                                                                          {"short_kernels", "short kernels"}};
        html.open("div", {{"class", "scroll"}});
        html.open("table", {{"class", "sortable"}});
        html.element("caption",
                     "Per rank, summed over those iterations (the first 64 ranks; all in step_trace.json)");
        html.open("thead");
        html.open("tr");
        for (const auto& c : columns) html.element("th", c.second, {{"scope", "col"}, {"class", "num"}});
        html.close("tr");
        html.close("thead");
        html.open("tbody");
        for (std::size_t i = 0; i < ranks.size() && i < 64; ++i) {
            html.open("tr");
            for (const auto& c : columns) html.element("td", cell(ranks[i], c.first), {{"class", "num"}});
            html.close("tr");
            html.newline();
        }
        html.close("tbody");
        html.close("table");
        html.close("div");
    }
    html.close("section");
}

}  // namespace strata::analysis::report
