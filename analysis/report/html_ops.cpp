// SPDX-License-Identifier: BSD-3-Clause
// The "Ops (DLProf)" section of report.html (see html_ops.hpp).
#include "report/html_ops.hpp"

#include <cmath>
#include <string>
#include <vector>

#include "report/json_fields.hpp"

namespace strata::analysis::report {

using namespace fields;

void write_ops(HtmlWriter& html, const JsonValue* ops) {
    if (!ops) return;
    const JsonValue* list = ops->find("rows");
    std::vector<const JsonValue*> rows;  // ops.json lists them by GPU time, "(no op)" last
    if (list && list->is_array())
        for (const JsonValue& r : list->items)
            if (r.is_object() && number(&r, "kernels") > 0 && text(&r, "op") != "(no op)") rows.push_back(&r);
    if (rows.empty()) return;
    if (rows.size() > 10) rows.resize(10);
    html.newline();
    html.open("section", {{"aria-labelledby", "ops"}});
    html.element("h2", "Ops (DLProf)", {{"id", "ops"}});
    const JsonValue* totals = ops->find("totals");
    const JsonValue* eligible = totals ? totals->find("eligible_not_using") : nullptr;
    const JsonValue* using_tc = totals ? totals->find("ops_using_tc") : nullptr;
    html.open("dl", {{"class", "facts"}});
    html.element("dt", "Kernel time, on Tensor Cores");
    html.element("dd", seconds(totals, "kernel_s") + ", " + seconds(totals, "tc_kernel_s"));
    html.element("dt", "Ops using Tensor Cores");
    html.element("dd", text(using_tc, "ops") + " (GPU " + seconds(using_tc, "gpu_s") + ")");
    html.element("dt", "Eligible for Tensor Cores, using none");
    html.element("dd", text(eligible, "ops") + " (GPU " + seconds(eligible, "gpu_s") + ")");
    html.close("dl");
    std::vector<Bar> bars;
    for (const JsonValue* r : rows)
        bars.push_back(
            {text(r, "op"), number(r, "gpu_s"),
             seconds(r, "gpu_s") + (flag(r, "eligible_not_using") ? " (eligible, no Tensor Cores)" : ""),
             ""});
    html.raw(svg_bar_chart("GPU time per op (sum of its kernels' durations), over all ranks", bars));
    html.open("div", {{"class", "scroll"}});
    html.open("table", {{"class", "sortable"}});
    html.element("caption",
                 "The ops with most GPU time; every op is in ops.csv, every kernel in op_kernels.csv");
    html.open("thead");
    html.open("tr");
    const std::vector<std::pair<const char*, bool>> columns = {
        {"op", false},          {"GPU", true},   {"kernels", true}, {"Tensor Core share", true},
        {"TC eligible", false}, {"calls", true}, {"CPU", true},     {"most loaded rank", true}};
    for (const auto& [label, numeric] : columns)
        html.element("th", label,
                     numeric ? Attributes{{"scope", "col"}, {"class", "num"}} : Attributes{{"scope", "col"}});
    html.close("tr");
    html.close("thead");
    html.open("tbody");
    for (const JsonValue* r : rows) {
        const std::string eligible_text = !flag(r, "tc_eligible")         ? "no"
                                          : flag(r, "eligible_not_using") ? "yes, using none"
                                                                          : "yes";
        const std::vector<std::string> cells = {
            text(r, "op"),       seconds(r, "gpu_s"),
            text(r, "kernels"),  share(r, "tc_share"),
            eligible_text,       text(r, "calls"),
            seconds(r, "cpu_s"), text(r, "gpu_max_rank") + " (" + seconds(r, "gpu_rank_max_s") + ")"};
        html.open("tr");
        for (std::size_t i = 0; i < cells.size(); ++i)
            html.element("td", cells[i], columns[i].second ? Attributes{{"class", "num"}} : Attributes{});
        html.close("tr");
        html.newline();
    }
    html.close("tbody");
    html.close("table");
    html.close("div");
    html.close("section");
}

}  // namespace strata::analysis::report
