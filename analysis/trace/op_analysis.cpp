// SPDX-License-Identifier: BSD-3-Clause
// DLProf's op and kernel reports (see op_analysis.hpp).
#include "trace/op_analysis.hpp"

#include <otf2/otf2.h>

#include <algorithm>
#include <cctype>
#include <set>

#include "analyze/report_format.hpp"
#include "trace/gpu_analysis.hpp"

namespace strata::analysis::trace {

namespace {

constexpr std::uint32_t none = UINT32_MAX;

std::string lower(std::string text) {
    for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return text;
}

std::string seconds(const OpReport& r, Ticks t) {
    return format_number(r.seconds(t));
}

std::string share_or(Ticks part, Ticks whole, const char* none_text) {
    return whole > 0 ? format_number(static_cast<double>(part) / static_cast<double>(whole)) : none_text;
}

std::string mean_seconds(const OpReport& r, Ticks sum) {
    return format_number(r.seconds(sum) / static_cast<double>(std::max<std::size_t>(1, r.ranks)));
}

std::string json_list(const std::vector<std::string>& items) {
    std::string t = "[";
    for (std::size_t i = 0; i < items.size(); ++i) t += (i > 0 ? ", " : "") + json_string(items[i]);
    return t + "]";
}

const char* flag(bool b) {
    return b ? "1" : "0";
}

const char* json_bool(bool b) {
    return b ? "true" : "false";
}

constexpr const char* op_definition =
    "a region of paradigm USER and role CODE: an NVTX range or a region of the user API; ops of one name "
    "are one op, whatever their call paths (DLProf)";
constexpr const char* kernel_op_definition =
    "a kernel belongs to the innermost op open on the launching thread when the host region carrying its "
    "CUDA_CORRELATION_ID was entered; (no op): none open, or the launch was not recorded";

std::string ops_csv(const OpReport& r) {
    std::string t =
        "op,tc_eligible,uses_tc,eligible_not_using,calls,cpu_s,gpu_s,kernels,distinct_kernels,tc_kernels,"
        "tc_gpu_s,tc_share,callpaths,gpu_rank_min_s,gpu_rank_mean_s,gpu_rank_max_s,gpu_max_rank,"
        "cpu_rank_min_s,cpu_rank_mean_s,cpu_rank_max_s,cpu_max_rank\n";
    for (const OpRow& o : r.ops) {
        t += csv_field(o.name) + "," + flag(o.eligible) + "," + flag(o.uses_tc) + "," +
             flag(o.eligible_not_using) + "," + std::to_string(o.calls) + "," + seconds(r, o.cpu) + "," +
             seconds(r, o.gpu) + "," + std::to_string(o.kernels) + "," +
             std::to_string(o.tc_kernel_names.size() + o.other_kernel_names.size()) + "," +
             std::to_string(o.tc_kernels) + "," + seconds(r, o.tc_gpu) + "," + share_or(o.tc_gpu, o.gpu, "") +
             "," + std::to_string(o.callpaths.size()) + "," + seconds(r, o.gpu_rank_min) + "," +
             mean_seconds(r, o.gpu) + "," + seconds(r, o.gpu_rank_max) + "," +
             std::to_string(o.gpu_max_rank) + "," + seconds(r, o.cpu_rank_min) + "," +
             mean_seconds(r, o.cpu) + "," + seconds(r, o.cpu_rank_max) + "," +
             std::to_string(o.cpu_max_rank) + "\n";
    }
    return t;
}

/// DLProf's "All Ops" table: totals of the ops using Tensor Cores, eligible but not using, the others.
struct OpTotals {
    std::size_t ops = 0;
    Ticks gpu = 0, cpu = 0;
    void add(const OpRow& o) {
        ++ops;
        gpu += o.gpu;
        cpu += o.cpu;
    }
};

struct Totals {
    OpTotals all, using_tc, eligible_not_using, other;
    Ticks kernel_time = 0, tc_time = 0, no_op_time = 0;
    std::uint64_t no_op_kernels = 0;
};

Totals totals(const OpReport& r) {
    Totals t;
    for (const OpRow& o : r.ops) {
        t.kernel_time += o.gpu;
        t.tc_time += o.tc_gpu;
        if (o.name == no_op_name) {
            t.no_op_time += o.gpu;
            t.no_op_kernels += o.kernels;
            continue;
        }
        t.all.add(o);
        (o.uses_tc ? t.using_tc : o.eligible_not_using ? t.eligible_not_using : t.other).add(o);
    }
    return t;
}

std::string json_totals(const OpReport& r, const OpTotals& t) {
    return "{\"ops\": " + std::to_string(t.ops) + ", \"gpu_s\": " + seconds(r, t.gpu) +
           ", \"cpu_s\": " + seconds(r, t.cpu) + "}";
}

std::string ops_json(const OpReport& r) {
    std::string t = "{\n  \"report\": \"ops\",\n";
    t += "  \"definitions\": {\"op\": \"" + std::string(op_definition) + "\", \"kernel_op\": \"" +
         kernel_op_definition +
         "\", \"calls\": \"instances of the op's regions on CPU threads\", \"cpu\": \"sum of the durations "
         "of those instances (an instance nested in one of the same op counts in both)\", \"gpu\": \"sum of "
         "the durations of the op's kernels (DLProf; copies and memsets apart)\", \"kernels\": \"kernel "
         "instances; distinct_kernels: distinct kernel names (DLProf's kernel count)\", \"tensor_core\": \"a "
         "kernel whose name contains one of tensor_core_patterns and neither _ffma_ nor simt, and that is "
         "no NCCL kernel (gpu_kernels)\", \"uses_tc\": \"at least one of the op's kernels is a Tensor Core "
         "kernel\", \"tc_eligible\": \"a word of the op's name (its runs of letters and digits, "
         "case-insensitive) begins with one of tc_eligible_patterns\", \"eligible_not_using\": \"eligible, "
         "with kernels, none of them a Tensor Core kernel (DLProf's 'eligible for TC but not using')\", "
         "\"tc_share\": \"tc_gpu / gpu\", \"rank\": \"per-rank sums over the job's " +
         std::to_string(r.ranks) +
         " ranks (0 where the op did not run): min, mean = sum / ranks, max and the rank of the max "
         "(the lowest on ties)\", \"times\": \"seconds on rank 0's clock\"},\n";
    t += "  \"tc_eligible_patterns\": " + json_list(r.eligible_patterns) + ",\n";
    t += "  \"tensor_core_patterns\": " + json_list(r.tc_patterns) + ",\n";
    t += "  \"ranks\": " + std::to_string(r.ranks) + ",\n";
    t += "  \"restricted_to_iterations\": " +
         (r.restricted ? "{\"start\": " + std::to_string(r.first_iteration) +
                             ", \"stop\": " + std::to_string(r.last_iteration) + "}"
                       : std::string("null")) +
         ",\n";
    const Totals s = totals(r);
    t += "  \"totals\": {\"all_ops\": " + json_totals(r, s.all) +
         ", \"ops_using_tc\": " + json_totals(r, s.using_tc) +
         ", \"eligible_not_using\": " + json_totals(r, s.eligible_not_using) +
         ", \"other_ops\": " + json_totals(r, s.other) +
         ", \"no_op\": {\"kernels\": " + std::to_string(s.no_op_kernels) +
         ", \"gpu_s\": " + seconds(r, s.no_op_time) + "}, \"kernel_s\": " + seconds(r, s.kernel_time) +
         ", \"tc_kernel_s\": " + seconds(r, s.tc_time) + "},\n";
    t += "  \"rows\": [";
    for (std::size_t i = 0; i < r.ops.size(); ++i) {
        const OpRow& o = r.ops[i];
        t += std::string(i > 0 ? "," : "") + "\n    {\"op\": " + json_string(o.name) +
             ", \"tc_eligible\": " + json_bool(o.eligible) + ", \"uses_tc\": " + json_bool(o.uses_tc) +
             ", \"eligible_not_using\": " + json_bool(o.eligible_not_using) +
             ", \"calls\": " + std::to_string(o.calls) + ", \"cpu_s\": " + seconds(r, o.cpu) +
             ", \"gpu_s\": " + seconds(r, o.gpu) + ", \"kernels\": " + std::to_string(o.kernels) +
             ", \"distinct_kernels\": " +
             std::to_string(o.tc_kernel_names.size() + o.other_kernel_names.size()) +
             ", \"tc_kernels\": " + std::to_string(o.tc_kernels) + ", \"tc_gpu_s\": " + seconds(r, o.tc_gpu) +
             ", \"tc_share\": " + share_or(o.tc_gpu, o.gpu, "null") +
             ", \"gpu_rank_min_s\": " + seconds(r, o.gpu_rank_min) +
             ", \"gpu_rank_mean_s\": " + mean_seconds(r, o.gpu) +
             ", \"gpu_rank_max_s\": " + seconds(r, o.gpu_rank_max) +
             ", \"gpu_max_rank\": " + std::to_string(o.gpu_max_rank) +
             ", \"cpu_rank_min_s\": " + seconds(r, o.cpu_rank_min) +
             ", \"cpu_rank_mean_s\": " + mean_seconds(r, o.cpu) +
             ", \"cpu_rank_max_s\": " + seconds(r, o.cpu_rank_max) +
             ", \"cpu_max_rank\": " + std::to_string(o.cpu_max_rank) +
             ", \"tc_kernel_names\": " + json_list(o.tc_kernel_names) +
             ", \"other_kernel_names\": " + json_list(o.other_kernel_names) + ", \"callpaths\": [";
        for (std::size_t p = 0; p < o.callpaths.size(); ++p) {
            const OpRow::Path& path = o.callpaths[p];
            t += std::string(p > 0 ? ", " : "") + "{\"callpath\": " + json_string(path.callpath) +
                 ", \"calls\": " + std::to_string(path.calls) + ", \"cpu_s\": " + seconds(r, path.cpu) +
                 ", \"gpu_s\": " + seconds(r, path.gpu) + ", \"kernels\": " + std::to_string(path.kernels) +
                 "}";
        }
        t += "]}";
    }
    t += r.ops.empty() ? "]\n}\n" : "\n  ]\n}\n";
    return t;
}

std::string op_kernels_csv(const OpReport& r) {
    std::string t = "op,kernel,callpath,tensor_core,communication,count,total_s,mean_s,min_s,max_s\n";
    for (const OpKernelRow& k : r.kernels) {
        t += csv_field(k.op) + "," + csv_field(k.kernel) + "," + csv_field(k.callpath) + "," +
             flag(k.tensor_core) + "," + flag(k.communication) + "," + std::to_string(k.count) + "," +
             seconds(r, k.total) + "," + format_number(r.seconds(k.total) / static_cast<double>(k.count)) +
             "," + seconds(r, k.min) + "," + seconds(r, k.max) + "\n";
    }
    return t;
}

std::string op_kernels_json(const OpReport& r) {
    std::string t = "{\n  \"report\": \"op_kernels\",\n";
    t += "  \"definitions\": {\"op\": \"" + std::string(op_definition) + "\", \"kernel_op\": \"" +
         kernel_op_definition +
         "\", \"callpath\": \"the host call path of the region whose Enter carries the kernel's "
         "CUDA_CORRELATION_ID ((launch not recorded): none)\", \"time\": \"count, total, mean, min, max of "
         "the kernels' durations, summed over the ranks\", \"tensor_core\": \"as in gpu_kernels\", "
         "\"communication\": \"an NCCL kernel\"},\n";
    t += "  \"rows\": [";
    for (std::size_t i = 0; i < r.kernels.size(); ++i) {
        const OpKernelRow& k = r.kernels[i];
        t += std::string(i > 0 ? "," : "") + "\n    {\"op\": " + json_string(k.op) +
             ", \"kernel\": " + json_string(k.kernel) + ", \"callpath\": " + json_string(k.callpath) +
             ", \"tensor_core\": " + json_bool(k.tensor_core) +
             ", \"communication\": " + json_bool(k.communication) +
             ", \"count\": " + std::to_string(k.count) + ", \"total_s\": " + seconds(r, k.total) +
             ", \"mean_s\": " + format_number(r.seconds(k.total) / static_cast<double>(k.count)) +
             ", \"min_s\": " + seconds(r, k.min) + ", \"max_s\": " + seconds(r, k.max) + "}";
    }
    t += r.kernels.empty() ? "]\n}\n" : "\n  ]\n}\n";
    return t;
}

std::string plural(std::uint64_t n, const char* one, const char* many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
}

}  // namespace

bool is_op_region(const TraceRegion& region) {
    return region.paradigm == OTF2_PARADIGM_USER && region.role == OTF2_REGION_ROLE_CODE;
}

const std::vector<std::string>& default_tc_eligible_patterns() {
    // DLProf decides by op type and gives no list: these are the names of matrix products and
    // convolutions in PyTorch (aten::mm, addmm, bmm, baddbmm, linear, matmul, conv2d, einsum,
    // scaled_dot_product_attention) and TensorFlow (MatMul, BatchMatMulV2, Conv2D...).
    static const std::vector<std::string> patterns = {"matmul",  "mm",     "bmm",         "addmm",
                                                      "baddbmm", "addbmm", "gemm",        "linear",
                                                      "conv",    "einsum", "batchmatmul", "attention"};
    return patterns;
}

bool tc_eligible(const std::string& op, const std::vector<std::string>& patterns) {
    const std::string l = lower(op);
    std::size_t i = 0;
    while (i < l.size()) {
        if (!std::isalnum(static_cast<unsigned char>(l[i]))) {
            ++i;
            continue;
        }
        std::size_t end = i;
        while (end < l.size() && std::isalnum(static_cast<unsigned char>(l[end]))) ++end;
        for (const std::string& p : patterns) {
            if (!p.empty() && p.size() <= end - i && l.compare(i, p.size(), lower(p)) == 0) return true;
        }
        i = end;
    }
    return false;
}

namespace {
/// The op a range stands for.  PyTorch's emit_nvtx names every call apart
/// ("aten::mm, seq = 21, op_id = 2", "..., sizes = [[256, 512]]"): the part
/// before those fields is the operator, as DLProf counts it.
std::string op_name(const std::string& range) {
    std::size_t cut = std::string::npos;
    for (const char* field : {", seq = ", ", op_id = ", ", sizes = "}) cut = std::min(cut, range.find(field));
    return cut == std::string::npos || cut == 0 ? range : range.substr(0, cut);
}
}  // namespace

void put_op_partial(ByteWriter& out, const ShareRecords& records, const TraceDefinitions& definitions,
                    Ticks begin, Ticks end) {
    std::map<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>, OpReport::Calls> ops;
    for (const OpInstance& o : records.op_instances) {
        if (o.enter < begin || o.enter >= end) continue;
        OpReport::Calls& c = ops[{o.rank, o.region, o.callpath}];
        ++c.calls;
        c.cpu += o.exit - o.enter;
    }
    out.put<std::uint64_t>(ops.size());
    for (const auto& [key, c] : ops) {
        const auto& [rank, region, callpath] = key;
        out.put_string(op_name(definitions.regions[region].name));
        out.put_string(records.callpaths.name(callpath));
        out.put(rank);
        out.put(c.calls);
        out.put(c.cpu);
    }
    // Kernels joined to their launch as gpu_analysis joins them.
    std::vector<LaunchRecord> launches = records.launches;
    const auto launch_order = [](const LaunchRecord& a, const LaunchRecord& b) {
        return std::tie(a.rank, a.correlation) < std::tie(b.rank, b.correlation);
    };
    std::sort(launches.begin(), launches.end(), launch_order);
    // (rank, op region, op call path, kernel region, launch call path); none: no op / no launch.
    using Key = std::tuple<std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t>;
    std::map<Key, OpKernelRow> kernels;
    for (const GpuOp& op : records.gpu_ops) {
        if (definitions.regions[op.region].role == OTF2_REGION_ROLE_DATA_TRANSFER) continue;
        if (op.start < begin || op.start >= end) continue;
        const auto rank = static_cast<std::uint32_t>(definitions.locations[op.location].rank);
        const LaunchRecord* launch = nullptr;
        if (op.correlation != 0) {
            const LaunchRecord wanted{rank, 0, op.correlation};
            const auto it = std::lower_bound(launches.begin(), launches.end(), wanted, launch_order);
            if (it != launches.end() && it->rank == rank && it->correlation == op.correlation) launch = &*it;
        }
        const bool in_op = launch != nullptr && launch->op_callpath != none;
        OpKernelRow& k = kernels[{rank, in_op ? launch->op_region : none, in_op ? launch->op_callpath : none,
                                  op.region, launch != nullptr ? launch->callpath : none}];
        const Ticks d = op.end - op.start;
        k.min = k.count == 0 ? d : std::min(k.min, d);
        k.max = k.count == 0 ? d : std::max(k.max, d);
        k.total += d;
        ++k.count;
    }
    out.put<std::uint64_t>(kernels.size());
    for (const auto& [key, k] : kernels) {
        const auto& [rank, op_region, op_callpath, region, callpath] = key;
        out.put_string(op_region == none ? std::string(no_op_name)
                                         : op_name(definitions.regions[op_region].name));
        out.put_string(op_callpath == none ? std::string() : records.callpaths.name(op_callpath));
        out.put_string(definitions.regions[region].name);
        out.put_string(callpath == none ? std::string("(launch not recorded)")
                                        : records.callpaths.name(callpath));
        out.put(rank);
        out.put(k.count);
        out.put(k.total);
        out.put(k.min);
        out.put(k.max);
    }
}

void add_op_partial(OpReport& report, ByteReader& in) {
    const auto ops = in.get<std::uint64_t>();
    for (std::uint64_t i = 0; i < ops; ++i) {
        std::string name = in.get_string(), callpath = in.get_string();
        const auto rank = in.get<std::uint32_t>();
        OpReport::Calls& c = report.op_parts[{std::move(name), std::move(callpath), rank}];
        c.calls += in.get<std::uint64_t>();
        c.cpu += in.get<Ticks>();
    }
    const auto kernels = in.get<std::uint64_t>();
    for (std::uint64_t i = 0; i < kernels; ++i) {
        std::string op = in.get_string(), op_callpath = in.get_string(), kernel = in.get_string(),
                    callpath = in.get_string();
        const auto rank = in.get<std::uint32_t>();
        OpKernelRow part;
        part.count = in.get<std::uint64_t>();
        part.total = in.get<Ticks>();
        part.min = in.get<Ticks>();
        part.max = in.get<Ticks>();
        OpKernelRow& k = report.kernel_parts[{op, op_callpath, kernel, callpath, rank}];
        if (k.count == 0) {
            k = part;
            k.op = std::move(op);
            k.kernel = std::move(kernel);
            k.callpath = std::move(callpath);
            continue;
        }
        k.min = std::min(k.min, part.min);
        k.max = std::max(k.max, part.max);
        k.total += part.total;
        k.count += part.count;
    }
}

void finish_op_report(OpReport& report, const std::vector<std::string>& tc_patterns,
                      const std::vector<std::string>& eligible_patterns) {
    report.tc_patterns = tc_patterns;
    report.eligible_patterns = eligible_patterns;
    struct Sums {
        OpRow row;
        std::map<std::uint32_t, std::pair<Ticks, Ticks>> ranks;  ///< rank -> (CPU, GPU)
        std::map<std::string, OpRow::Path> paths;
        std::set<std::string> tc_names, other_names;
    };
    std::map<std::string, Sums> ops;
    std::uint32_t highest = 0;
    for (const auto& [key, c] : report.op_parts) {
        const auto& [name, callpath, rank] = key;
        Sums& s = ops[name];
        s.row.calls += c.calls;
        s.row.cpu += c.cpu;
        s.ranks[rank].first += c.cpu;
        OpRow::Path& p = s.paths[callpath];
        p.calls += c.calls;
        p.cpu += c.cpu;
        highest = std::max(highest, rank);
    }
    std::map<std::tuple<std::string, std::string, std::string>, OpKernelRow>
        merged;  // (op, kernel, call path)
    for (const auto& [key, k] : report.kernel_parts) {
        const auto& [name, op_callpath, kernel, callpath, rank] = key;
        const bool communication = is_communication_kernel(kernel);
        const bool tc = !communication && uses_tensor_cores(kernel, tc_patterns);
        Sums& s = ops[name];
        s.row.gpu += k.total;
        s.row.kernels += k.count;
        if (tc) {
            s.row.tc_gpu += k.total;
            s.row.tc_kernels += k.count;
        }
        (tc ? s.tc_names : s.other_names).insert(kernel);
        s.ranks[rank].second += k.total;
        highest = std::max(highest, rank);
        if (name != no_op_name) {
            OpRow::Path& p = s.paths[op_callpath];
            p.gpu += k.total;
            p.kernels += k.count;
        }
        OpKernelRow& m = merged[{name, kernel, callpath}];
        if (m.count == 0) {
            m = k;
            m.tensor_core = tc;
            m.communication = communication;
            continue;
        }
        m.min = std::min(m.min, k.min);
        m.max = std::max(m.max, k.max);
        m.total += k.total;
        m.count += k.count;
    }
    if (!ops.empty()) report.ranks = std::max<std::size_t>(report.ranks, std::size_t{highest} + 1);
    report.ops.clear();
    for (auto& [name, s] : ops) {
        OpRow row = std::move(s.row);
        row.name = name;
        row.tc_kernel_names.assign(s.tc_names.begin(), s.tc_names.end());
        row.other_kernel_names.assign(s.other_names.begin(), s.other_names.end());
        for (auto& [callpath, p] : s.paths) {
            p.callpath = callpath;
            row.callpaths.push_back(std::move(p));
        }
        row.eligible = name != no_op_name && tc_eligible(name, eligible_patterns);
        row.uses_tc = row.tc_kernels > 0;
        row.eligible_not_using = row.eligible && !row.uses_tc && row.kernels > 0;
        // Every rank of the job, 0 where the op did not run.
        for (std::uint32_t r = 0; r < report.ranks; ++r) {
            const auto it = s.ranks.find(r);
            const Ticks cpu = it != s.ranks.end() ? it->second.first : 0;
            const Ticks gpu = it != s.ranks.end() ? it->second.second : 0;
            if (r == 0 || cpu < row.cpu_rank_min) row.cpu_rank_min = cpu;
            if (r == 0 || gpu < row.gpu_rank_min) row.gpu_rank_min = gpu;
            if (r == 0 || cpu > row.cpu_rank_max) {
                row.cpu_rank_max = cpu;
                row.cpu_max_rank = r;
            }
            if (r == 0 || gpu > row.gpu_rank_max) {
                row.gpu_rank_max = gpu;
                row.gpu_max_rank = r;
            }
        }
        report.ops.push_back(std::move(row));
    }
    std::sort(report.ops.begin(), report.ops.end(), [](const OpRow& a, const OpRow& b) {
        const bool a_none = a.name == no_op_name, b_none = b.name == no_op_name;
        if (a_none != b_none) return b_none;
        if (a.gpu != b.gpu) return a.gpu > b.gpu;
        if (a.cpu != b.cpu) return a.cpu > b.cpu;
        return a.name < b.name;
    });
    report.kernels.clear();
    for (auto& [key, k] : merged) report.kernels.push_back(std::move(k));
    std::sort(report.kernels.begin(), report.kernels.end(), [](const OpKernelRow& a, const OpKernelRow& b) {
        if (a.total != b.total) return a.total > b.total;
        return std::tie(a.op, a.kernel, a.callpath) < std::tie(b.op, b.kernel, b.callpath);
    });
    report.op_parts.clear();
    report.kernel_parts.clear();
}

std::vector<std::pair<std::string, std::string>> op_files(const OpReport& report) {
    return {{"ops.csv", ops_csv(report)},
            {"ops.json", ops_json(report)},
            {"op_kernels.csv", op_kernels_csv(report)},
            {"op_kernels.json", op_kernels_json(report)}};
}

std::string op_text(const OpReport& r, std::size_t top) {
    std::string t =
        "Ops (DLProf; an op is an NVTX range or a user region, a kernel belongs to the innermost op open at "
        "its launch, an op's GPU time is the sum of its kernels' durations):\n";
    const Totals s = totals(r);
    t += "  " + plural(s.all.ops, "op", "ops") + "; kernels in ops " +
         text_seconds(r.seconds(s.kernel_time - s.no_op_time)) + " of " +
         text_seconds(r.seconds(s.kernel_time)) +
         " kernel time; kernels in no op: " + plural(s.no_op_kernels, "kernel", "kernels") + ", " +
         text_seconds(r.seconds(s.no_op_time)) +
         (r.restricted ? "; restricted to iterations " + std::to_string(r.first_iteration) + " to " +
                             std::to_string(r.last_iteration)
                       : "") +
         "\n";
    std::string names;
    for (const OpRow& o : r.ops)
        if (o.eligible_not_using) names += (names.empty() ? "" : ", ") + display_name(o.name);
    t += "  Ops using Tensor Cores: " + std::to_string(s.using_tc.ops) + " (GPU " +
         text_seconds(r.seconds(s.using_tc.gpu)) +
         "); eligible but using none: " + std::to_string(s.eligible_not_using.ops) + " (GPU " +
         text_seconds(r.seconds(s.eligible_not_using.gpu)) + ")" + (names.empty() ? "" : ": " + names) + "\n";
    std::size_t shown = 0;
    for (const OpRow& o : r.ops) {
        if (o.name == no_op_name || o.kernels == 0 || shown == top) continue;
        if (shown++ == 0) t += "  Top ops by GPU time (over the ranks: the most loaded and the mean):\n";
        t += "    " + display_name(o.name) + ": GPU " + text_seconds(r.seconds(o.gpu)) + " in " +
             plural(o.kernels, "kernel", "kernels") + ", Tensor Cores " +
             text_percent(o.gpu > 0 ? static_cast<double>(o.tc_gpu) / static_cast<double>(o.gpu) : 0) + ", " +
             plural(o.calls, "call", "calls") + ", CPU " + text_seconds(r.seconds(o.cpu)) + "; rank " +
             std::to_string(o.gpu_max_rank) + " most (" + text_seconds(r.seconds(o.gpu_rank_max)) +
             ", mean " +
             text_seconds(r.seconds(o.gpu) / static_cast<double>(std::max<std::size_t>(1, r.ranks))) + ")" +
             (o.eligible_not_using ? " [eligible, using no Tensor Cores]" : "") + "\n";
    }
    return t;
}

std::vector<Finding> op_findings(const OpReport& r) {
    std::vector<Finding> findings;
    const Totals s = totals(r);
    if (s.eligible_not_using.ops == 0 || s.kernel_time <= 0) return findings;
    Finding f;
    f.kind = "tc_eligible_not_used";
    f.metric = "gpu_share";
    f.value = static_cast<double>(s.eligible_not_using.gpu) / static_cast<double>(s.kernel_time);
    f.stake = f.value;  // of the kernel time
    f.time_s = r.seconds(s.eligible_not_using.gpu);
    std::string listed;
    std::size_t count = 0;
    for (const OpRow& o : r.ops) {  // by GPU time, largest first
        if (!o.eligible_not_using) continue;
        if (f.region.empty()) {
            f.region = o.name;
            f.ranks = {static_cast<std::int64_t>(o.gpu_max_rank)};
        }
        if (++count > 5) continue;
        listed += (listed.empty() ? "" : ", ") + display_name(o.name) + " (GPU " +
                  text_seconds(r.seconds(o.gpu)) + " in " + plural(o.kernels, "kernel", "kernels") +
                  ", most on rank " + std::to_string(o.gpu_max_rank) + ")";
    }
    if (count > 5) listed += " and " + std::to_string(count - 5) + " more (ops.csv)";
    f.message = std::string(count == 1 ? "An op eligible for Tensor Cores uses none: "
                                       : "Ops eligible for Tensor Cores use none: ") +
                listed + "; " + text_seconds(*f.time_s) + ", " + text_percent(f.value) +
                " of the kernel time. " +
                (count == 1 ? "Run it in fp16 or bf16 (automatic mixed precision) and make its "
                            : "Run them in fp16 or bf16 (automatic mixed precision) and make their ") +
                "matrix dimensions (batch size, channels, hidden sizes) multiples of 8, so that cuBLAS and "
                "cuDNN choose Tensor Core kernels [DLProf's 'eligible for TC but not using': eligible by op "
                "name, Tensor Core kernels by kernel name]";
    findings.push_back(std::move(f));
    return findings;
}

}  // namespace strata::analysis::trace
