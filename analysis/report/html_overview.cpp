// SPDX-License-Identifier: BSD-3-Clause
// The POP efficiency tree of report.html (see html_overview.hpp).
#include "report/html_overview.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace strata::analysis::report {
namespace {

/// One node of the tree: a figure of summary.json's "pop", or none (with the reason).
struct PopNode {
    std::string title;
    std::string formula;     ///< shown under the name
    std::string definition;  ///< the tooltip
    const JsonValue* value;  ///< nullptr: not measured
    std::string why;         ///< why not, when not measured
    std::vector<PopNode> children;
};

/// POP's traffic light: >= 0.8 good, >= 0.6 fair, below poor.
const char* rating(double value) {
    return value >= 0.8 ? "good" : value >= 0.6 ? "fair" : "poor";
}

std::string band_width(double value) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "width: %.1f%%", std::clamp(value, 0.0, 1.0) * 100.0);
    return buffer;
}

void write_node(HtmlWriter& html, const PopNode& node) {
    html.open("li");
    const bool measured = node.value && node.value->is_number() && std::isfinite(node.value->number(NAN));
    const double value = measured ? node.value->number(NAN) : NAN;
    // The tooltip has the definition and every digit (the page shows a percentage).
    const std::string tooltip =
        node.definition +
        (measured ? "; value " + node.value->display() + " (summary.json)" : "; " + node.why);
    html.open("div", {{"class", std::string("pop-node ") + (measured ? rating(value) : "unmeasured")},
                      {"title", tooltip}});
    html.element("span", node.title, {{"class", "pop-name"}});
    if (measured) {
        html.element("span", percent(value), {{"class", "pop-value"}});
        html.element("span", rating(value), {{"class", "rating"}});
        html.open("span", {{"class", "pop-band"}, {"aria-hidden", "true"}});
        html.element("span", "", {{"class", rating(value)}, {"style", band_width(value)}});
        html.close("span");
    } else {
        html.element("span", "not measured", {{"class", "pop-value"}});
    }
    if (!node.formula.empty()) html.element("span", node.formula, {{"class", "pop-formula"}});
    if (!measured) html.element("span", node.why, {{"class", "pop-why"}});
    html.close("div");
    if (!node.children.empty()) {
        html.open("ul");
        for (const PopNode& child : node.children) write_node(html, child);
        html.close("ul");
    }
    html.close("li");
}

/// The names of calltree.json's metrics that contain `part` ("PAPI_TOT_INS").
std::vector<std::string> counters_named(const JsonValue* calltree, const std::string& part) {
    std::vector<std::string> names;
    const JsonValue* metrics = calltree ? calltree->find("metrics") : nullptr;
    if (metrics && metrics->is_array())
        for (const JsonValue& m : metrics->items)
            if (m.find("name") && m.find("name")->text.find(part) != std::string::npos)
                names.push_back(m.find("name")->text);
    return names;
}

std::string joined(const std::vector<std::string>& names) {
    std::string t;
    for (const std::string& name : names) t += (t.empty() ? "" : ", ") + name;
    return t;
}

}  // namespace

void write_overview(HtmlWriter& html, const JsonValue* summary, const JsonValue* calltree) {
    html.newline();
    html.open("section", {{"aria-labelledby", "overview"}});
    html.element("h2", "Overview: POP efficiencies", {{"id", "overview"}});
    const JsonValue* pop = summary ? summary->find("pop") : nullptr;
    if (!pop) {
        html.element("p", "No profile (profile.h5) was analysed: the POP efficiencies are computed from one.",
                     {{"class", "note"}});
        html.close("section");
        return;
    }
    const JsonValue* definitions = pop->find("definitions");
    const auto definition = [&](const char* key) {
        const JsonValue* text = definitions ? definitions->find(key) : nullptr;
        return text ? text->display() : std::string();
    };
    const std::string no_denominator = "not computed: its denominator is 0 (no useful time or no run time)";
    const std::string no_ideal =
        "strata-analyze does not compute R_ideal, the run time less the waiting found in a trace, which "
        "SerE = max_p U_p / R_ideal and TE = R_ideal / R need";
    const std::string no_reference =
        "it compares this run with a reference run (another number of ranks); strata-analyze reads one "
        "experiment";
    const std::vector<std::string> instructions = counters_named(calltree, "PAPI_TOT_INS"),
                                   cycles = counters_named(calltree, "PAPI_TOT_CYC");
    const std::string ipc_why =
        !instructions.empty() && !cycles.empty()
            ? no_reference + "; this profile has the counters (" + joined(instructions) + ", " +
                  joined(cycles) + ": their sums per call path are in the call tree below)"
            : no_reference +
                  ", and it needs instruction and cycle counters, which this profile does not have "
                  "(STRATA_METRIC_PAPI=PAPI_TOT_INS,PAPI_TOT_CYC records them)";

    PopNode load_balance{"Load balance",
                         "mean_p U_p / max_p U_p",
                         definition("load_balance"),
                         pop->find("load_balance"),
                         no_denominator,
                         {}};
    PopNode serialisation{"Serialisation efficiency",
                          "max_p U_p / R_ideal",
                          "serialisation efficiency SerE = max_p U_p / R_ideal (POP; R_ideal: the run time "
                          "without waiting, as Scalasca and Cube estimate it)",
                          nullptr,
                          no_ideal,
                          {}};
    PopNode transfer{"Transfer efficiency",
                     "R_ideal / R",
                     "transfer efficiency TE = R_ideal / R (POP), so that CommE = SerE x TE",
                     nullptr,
                     no_ideal,
                     {}};
    PopNode communication{"Communication efficiency",
                          "max_p U_p / R = SerE \u00D7 TE",
                          definition("communication_efficiency"),
                          pop->find("communication_efficiency"),
                          no_denominator,
                          {serialisation, transfer}};
    PopNode parallel{"Parallel efficiency",
                     "LB \u00D7 CommE = mean_p U_p / R",
                     definition("parallel_efficiency"),
                     pop->find("parallel_efficiency"),
                     no_denominator,
                     {load_balance, communication}};
    PopNode ipc{"IPC scalability",
                "IPC of this run / IPC of the reference run",
                "IPC scalability (POP): instructions per cycle in useful computation against a reference run",
                nullptr,
                ipc_why,
                {}};
    PopNode computation{"Computation scalability",
                        "\u03A3 U (reference run) / \u03A3 U (this run)",
                        "computation scalability (POP): total useful time of a reference run over this run's",
                        nullptr,
                        no_reference,
                        {ipc}};
    PopNode global{"Global efficiency",
                   "parallel efficiency \u00D7 computation scalability",
                   "global efficiency (POP) = parallel efficiency x computation scalability",
                   nullptr,
                   "computation scalability is not measured",
                   {parallel, computation}};

    html.open("ul", {{"class", "pop-tree"}});
    write_node(html, global);
    html.close("ul");
    html.element(
        "p",
        "Rating: good \u2265 80%, fair 60% to 80%, poor < 60%, as the POP Centre of Excellence colours "
        "its efficiency tables; the word is written beside each value. " +
            definition("U_p") + "; " + definition("R") + "; " + definition("means") +
            ". Hover over a node for its definition; every digit is in summary.json and the Summary "
            "below.",
        {{"class", "note"}});
    html.close("section");
}

}  // namespace strata::analysis::report
