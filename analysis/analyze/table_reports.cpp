// SPDX-License-Identifier: BSD-3-Clause
// The table reports (see table_reports.hpp).
#include "analyze/table_reports.hpp"

#include <utility>

#include "analyze/report_format.hpp"

namespace strata::analysis {
namespace {

/// A row as (column, CSV text, JSON text) triples, in column order.
using Fields = std::vector<std::pair<std::string, std::pair<std::string, std::string>>>;

void add(Fields& f, const std::string& column, const std::string& text) {
    f.push_back({column, {csv_field(text), json_string(text)}});
}
void add_number(Fields& f, const std::string& column, double value) {
    f.push_back({column, {format_number(value), json_number(value)}});
}
void add_integer(Fields& f, const std::string& column, long long value) {
    f.push_back({column, {std::to_string(value), std::to_string(value)}});
}
void add_bool(Fields& f, const std::string& column, bool value) {
    f.push_back({column, {value ? "1" : "0", value ? "true" : "false"}});
}

std::string csv_header(const Fields& f) {
    std::string line;
    for (const auto& field : f) line += (line.empty() ? "" : ",") + field.first;
    return line + "\n";
}
std::string csv_line(const Fields& f) {
    std::string line;
    for (std::size_t i = 0; i < f.size(); ++i) line += (i > 0 ? "," : "") + f[i].second.first;
    return line + "\n";
}
std::string json_object(const Fields& f) {
    std::string object = "{";
    for (std::size_t i = 0; i < f.size(); ++i)
        object += (i > 0 ? ", " : "") + json_string(f[i].first) + ": " + f[i].second.second;
    return object + "}";
}

/// `rows` as the elements of a JSON array, one per line.
std::string json_array(const std::vector<Fields>& rows) {
    if (rows.empty()) return "[]";
    std::string array = "[";
    for (std::size_t i = 0; i < rows.size(); ++i)
        array += (i > 0 ? ",\n    " : "\n    ") + json_object(rows[i]);
    return array + "\n  ]";
}

Fields balance_fields(const RowResult& r) {
    Fields f;
    add(f, "level", r.level == RowResult::Level::region ? "region" : "callpath");
    add(f, "name", r.name);
    add(f, "region", r.region);
    add(f, "paradigm", r.paradigm);
    add(f, "class", std::string(time_class_name(r.time_class)));
    add_integer(f, "ranks", static_cast<long long>(r.ranks));
    add_bool(f, "single_participant", r.single_participant);
    add_number(f, "min_s", r.min_s);
    add_number(f, "mean_s", r.mean_s);
    add_number(f, "max_s", r.max_s);
    add_number(f, "stddev_s", r.stddev_s);
    add_integer(f, "rank_at_min", r.rank_at_min);
    add_integer(f, "rank_at_max", r.rank_at_max);
    add_number(f, "imbalance", r.imbalance);
    add_number(f, "saved_s", r.saved_s);
    add_number(f, "total_s", r.total_s);
    f.push_back({"visits", {format_wide(r.visits), format_wide(r.visits)}});
    return f;
}

/// The rows of the load-balance table as JSON array elements; one row's
/// fields at a time (a profile may have 10^5 call paths).
std::string balance_json_array(const std::vector<RowResult>& rows) {
    if (rows.empty()) return "[]";
    std::string array = "[";
    for (std::size_t i = 0; i < rows.size(); ++i)
        array += (i > 0 ? ",\n    " : "\n    ") + json_object(balance_fields(rows[i]));
    return array + "\n  ]";
}

std::vector<Fields> rank_rows(const AnalysisResult& result) {
    std::vector<Fields> out;
    for (std::size_t i = 0; i < result.ranks.size(); ++i) {
        const RankResult& r = result.ranks[i];
        Fields f;
        add_integer(f, "order", static_cast<long long>(i) + 1);
        add_integer(f, "rank", r.rank);
        add_integer(f, "threads", r.threads);
        add_number(f, "useful_s", r.useful_s());
        add_number(f, "mpi_s", r.class_s[static_cast<std::size_t>(TimeClass::mpi)]);
        add_number(f, "io_s", r.class_s[static_cast<std::size_t>(TimeClass::io)]);
        add_number(f, "openmp_s", r.class_s[static_cast<std::size_t>(TimeClass::openmp)]);
        add_number(f, "gpu_wait_s", r.class_s[static_cast<std::size_t>(TimeClass::gpu_wait)]);
        add_number(f, "cuda_api_s", r.class_s[static_cast<std::size_t>(TimeClass::cuda_api)]);
        add_number(f, "measurement_s", r.class_s[static_cast<std::size_t>(TimeClass::measurement)]);
        add_number(f, "mpi_init_finalize_s",
                   r.class_s[static_cast<std::size_t>(TimeClass::mpi_init_finalize)]);
        add_number(f, "run_time_s", r.run_s);
        add_number(f, "wall_time_s", r.wall_s);
        out.push_back(std::move(f));
    }
    return out;
}

std::vector<Fields> finding_rows(const std::vector<Finding>& findings) {
    std::vector<Fields> out;
    for (std::size_t i = 0; i < findings.size(); ++i) {
        const Finding& x = findings[i];
        Fields f;
        add_integer(f, "index", static_cast<long long>(i) + 1);
        add(f, "kind", x.kind);
        add(f, "region", x.region);
        add(f, "callpath", x.callpath);
        std::string ranks, ranks_json = "[";
        for (std::size_t r = 0; r < x.ranks.size(); ++r) {
            ranks += (r > 0 ? " " : "") + std::to_string(x.ranks[r]);
            ranks_json += (r > 0 ? ", " : "") + std::to_string(x.ranks[r]);
        }
        f.push_back({"ranks", {csv_field(ranks), ranks_json + "]"}});
        add(f, "metric", x.metric);
        add_number(f, "value", x.value);
        add_number(f, "threshold", x.threshold);
        f.push_back({"time_s", {x.time_s ? format_number(*x.time_s) : "", json_number(x.time_s)}});
        f.push_back({"stake", {x.stake ? format_number(*x.stake) : "", json_number(x.stake)}});
        add(f, "message", x.message);
        out.push_back(std::move(f));
    }
    return out;
}

std::string csv_table(const std::vector<Fields>& rows, const Fields& header) {
    std::string t = csv_header(header);
    for (const Fields& f : rows) t += csv_line(f);
    return t;
}

}  // namespace

std::string loadbalance_csv(const AnalysisResult& result) {
    std::string t = csv_header(balance_fields(RowResult{}));
    for (const RowResult& r : result.regions) t += csv_line(balance_fields(r));
    for (const RowResult& r : result.callpaths) t += csv_line(balance_fields(r));
    return t;
}

std::string loadbalance_json(const AnalysisResult& result) {
    return "{\n  \"report\": \"loadbalance\",\n"
           "  \"definitions\": {\"time\": " +
           json_string(
               "exclusive time of a rank on the region or call path: summed over the rank's CPU threads, "
               "divided by their number") +
           ", \"mean\": " +
           json_string(
               "over the ranks that take part (visited it or spent time there); single_participant when "
               "only one does") +
           ", \"imbalance\": " + json_string("(max - mean) / max") +
           ", \"saved\": " + json_string("max - mean: the time perfect balance would save") + "},\n" +
           "  \"regions\": " + balance_json_array(result.regions) + ",\n" +
           "  \"callpaths\": " + balance_json_array(result.callpaths) + "\n}\n";
}

std::string ranks_csv(const AnalysisResult& result) {
    const std::vector<Fields> rows = rank_rows(result);
    AnalysisResult one;
    one.ranks.resize(1);
    return csv_table(rows, rank_rows(one)[0]);
}

std::string ranks_json(const AnalysisResult& result) {
    return "{\n  \"report\": \"loadbalance_ranks\",\n  \"ranks\": " + json_array(rank_rows(result)) + "\n}\n";
}

std::string advice_csv(const std::vector<Finding>& findings) {
    return csv_table(finding_rows(findings), finding_rows({Finding{}})[0]);
}

std::string advice_json(const std::vector<Finding>& findings, const AdviceOptions& options) {
    return "{\n  \"report\": \"advice\",\n  \"imbalance_threshold\": " +
           format_number(options.imbalance_threshold) +
           ",\n  \"imbalance_significance\": " + format_number(imbalance_significance) +
           ",\n  \"min_stake\": " + format_number(options.min_stake) +
           ",\n  \"mpi_threshold\": " + format_number(options.mpi_threshold) +
           ",\n  \"io_threshold\": " + format_number(options.io_threshold) +
           ",\n  \"openmp_threshold\": " + format_number(options.openmp_threshold) +
           ",\n  \"wait_threshold\": " + format_number(options.wait_threshold) +
           ",\n  \"findings\": " + json_array(finding_rows(findings)) + "\n}\n";
}

}  // namespace strata::analysis
