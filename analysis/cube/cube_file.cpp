// SPDX-License-Identifier: BSD-3-Clause
// The CUBE4 encoding (see cube_file.hpp).
#include "cube/cube_file.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "filter/filter_rules.hpp"

namespace strata::analysis::cube {
namespace {

void put_u32(std::string& out, std::uint32_t value) {
    for (int i = 0; i < 4; ++i) out += static_cast<char>(value >> (8 * i) & 0xFFu);
}
void put_u64(std::string& out, std::uint64_t value) {
    for (int i = 0; i < 8; ++i) out += static_cast<char>(value >> (8 * i) & 0xFFu);
}

/// An element holding text, on one line.
std::string element(const char* name, const std::string& text) {
    return std::string("<") + name + ">" + xml_text(text) + "</" + name + ">";
}

/// Children lists of a forest given by parent indices, checking that the
/// nodes are in depth-first order (the numbering Cube gives them).
std::vector<std::vector<std::size_t>> children_in_order(const std::vector<std::int64_t>& parents,
                                                        const char* what) {
    const std::size_t n = parents.size();
    std::vector<std::vector<std::size_t>> children(n + 1);  // [n]: the roots
    for (std::size_t i = 0; i < n; ++i) {
        const std::int64_t parent = parents[i];
        if (parent >= static_cast<std::int64_t>(i))
            throw std::logic_error(std::string("cube report: a ") + what + " comes before its parent");
        children[parent < 0 ? n : static_cast<std::size_t>(parent)].push_back(i);
    }
    // Depth-first order: walking the lists meets 0, 1, 2, ...
    std::size_t expected = 0;
    std::vector<std::size_t> stack(children[n].rbegin(), children[n].rend());
    while (!stack.empty()) {
        const std::size_t node = stack.back();
        stack.pop_back();
        if (node != expected++)
            throw std::logic_error(std::string("cube report: the ") + what +
                                   "s are not in depth-first order");
        stack.insert(stack.end(), children[node].rbegin(), children[node].rend());
    }
    return children;
}

std::string indent(std::size_t depth) {
    return std::string(2 * depth, ' ');
}

void write_metric(std::string& xml, const CubeReport& report,
                  const std::vector<std::vector<std::size_t>>& children, std::size_t id, std::size_t depth) {
    const CubeMetric& m = report.metrics[id];
    const std::string pad = indent(depth + 1);
    xml += indent(depth) + "<metric id=\"" + std::to_string(id) + "\" type=\"EXCLUSIVE\">\n";
    xml += pad + element("disp_name", m.display_name) + "\n";
    xml += pad + element("uniq_name", m.unique_name) + "\n";
    xml += pad + element("dtype", m.integer ? "INTEGER" : "FLOAT") + "\n";
    xml += pad + element("uom", m.unit) + "\n";
    xml += pad + "<url></url>\n";
    xml += pad + element("descr", m.description) + "\n";
    for (std::size_t child : children[id]) write_metric(xml, report, children, child, depth + 1);
    xml += indent(depth) + "</metric>\n";
}

/// The cnodes below the roots, nested as Cube wants them: a loop, not a
/// recursion (recursive programs make call trees 10^5 deep), and the indent
/// capped, or a deep tree would take space quadratic in its depth.
void write_cnodes(std::string& xml, const CubeReport& report,
                  const std::vector<std::vector<std::size_t>>& children) {
    constexpr std::size_t max_depth_shown = 32;
    // (cnode, depth, opening) : opening false closes the element.
    struct Step {
        std::size_t id, depth;
        bool opening;
    };
    std::vector<Step> todo;
    for (auto root = children.back().rbegin(); root != children.back().rend(); ++root)
        todo.push_back({*root, 2, true});
    while (!todo.empty()) {
        const Step step = todo.back();
        todo.pop_back();
        const std::string pad = indent(std::min(step.depth, max_depth_shown));
        if (!step.opening) {
            xml += pad + "</cnode>\n";
            continue;
        }
        const CubeCnode& c = report.cnodes[step.id];
        xml += pad + "<cnode id=\"" + std::to_string(step.id) + "\" calleeId=\"" + std::to_string(c.region) +
               "\">\n";
        if (!c.parameter.empty()) {
            xml += pad + "  <parameter partype=\"" + (c.numeric ? "numeric" : "string") + "\" parkey=\"" +
                   xml_text(c.parameter) + "\" parvalue=\"" + xml_text(c.parameter_value) + "\"/>\n";
        }
        todo.push_back({step.id, step.depth, false});
        for (auto child = children[step.id].rbegin(); child != children[step.id].rend(); ++child)
            todo.push_back({*child, step.depth + 1, true});
    }
}

void write_system(std::string& xml, const CubeReport& report) {
    xml += "  <system>\n";
    xml += "    <systemtreenode Id=\"0\">\n";
    xml += "      " + element("name", report.machine) + "\n      <class>machine</class>\n";
    std::size_t group = 0;
    for (std::size_t i = 0; i < report.locations.size();) {
        const std::uint32_t node = report.locations[i].node;
        if (node >= report.nodes.size() || (i > 0 && node < report.locations[i - 1].node))
            throw std::logic_error("cube report: the locations are not grouped by node in ascending order");
        xml += "      <systemtreenode Id=\"" + std::to_string(node + 1) + "\">\n";
        xml += "        " + element("name", report.nodes[node]) + "\n        <class>node</class>\n";
        for (; i < report.locations.size() && report.locations[i].node == node;) {
            const std::uint32_t rank = report.locations[i].rank;
            if (i > 0 && report.locations[i - 1].node == node && rank <= report.locations[i - 1].rank)
                throw std::logic_error("cube report: the locations of a node are not grouped by rank in ascending order");
            xml += "        <locationgroup Id=\"" + std::to_string(group++) + "\">\n";
            xml += "          " + element("name", "MPI Rank " + std::to_string(rank)) + "\n";
            xml += "          <rank>" + std::to_string(rank) + "</rank>\n          <type>process</type>\n";
            for (; i < report.locations.size() && report.locations[i].node == node &&
                   report.locations[i].rank == rank;
                 ++i) {
                const CubeLocation& l = report.locations[i];
                xml += "          <location Id=\"" + std::to_string(i) + "\">\n";
                xml += "            " + element("name", l.name) + "\n";
                xml += "            <rank>" + std::to_string(l.thread) + "</rank>\n";
                xml += "            " + element("type", l.type) + "\n";
                xml += "          </location>\n";
            }
            xml += "        </locationgroup>\n";
        }
        xml += "      </systemtreenode>\n";
    }
    xml += "    </systemtreenode>\n    <topologies>\n    </topologies>\n  </system>\n";
}

/// An octal number field of a tar header, NUL-terminated.
void octal_field(char* field, std::size_t width, std::uint64_t value) {
    std::snprintf(field, width, "%0*llo", static_cast<int>(width - 1),
                  static_cast<unsigned long long>(value));
}

}  // namespace

std::string xml_text(const std::string& text) {
    // Bytes that are not UTF-8, then control characters, as \xNN (the helpers
    // the measurement and the reports use); then XML's markup characters.
    const std::string visible = filter::visible_text(filter::valid_utf8(text));
    std::string out;
    out.reserve(visible.size());
    for (const char c : visible) {
        switch (c) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '"':
                out += "&quot;";
                break;
            case '\'':
                out += "&apos;";
                break;
            default:
                out += c;
        }
    }
    return out;
}

std::string anchor_xml(const CubeReport& report) {
    std::vector<std::int64_t> parents;
    for (const CubeMetric& m : report.metrics) parents.push_back(m.parent);
    const auto metric_children = children_in_order(parents, "metric");
    parents.clear();
    for (const CubeCnode& c : report.cnodes) {
        if (c.region >= report.regions.size()) throw std::logic_error("cube report: a cnode names no region");
        parents.push_back(c.parent);
    }
    const auto cnode_children = children_in_order(parents, "cnode");

    std::string xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\n<cube version=\"4.4\">\n";
    for (const auto& [key, value] : report.attributes)
        xml += "  <attr key=\"" + xml_text(key) + "\" value=\"" + xml_text(value) + "\"/>\n";
    xml += "  <metrics>\n";
    for (std::size_t root : metric_children.back()) write_metric(xml, report, metric_children, root, 2);
    xml += "  </metrics>\n  <program>\n";
    for (std::size_t i = 0; i < report.regions.size(); ++i) {
        const CubeRegion& r = report.regions[i];
        // Only the first line is known; -1 is Cube's "unknown".
        xml += "    <region id=\"" + std::to_string(i) + "\" mod=\"" + xml_text(r.file) + "\" begin=\"" +
               std::to_string(r.line) + "\" end=\"-1\">\n";
        xml += "      " + element("name", r.name) + "\n";
        xml += "      " + element("mangled_name", r.name) + "\n";
        xml += "      " + element("paradigm", r.paradigm) + "\n";
        xml += "      " + element("role", r.role) + "\n";
        xml += "      <url></url>\n      <descr></descr>\n    </region>\n";
    }
    write_cnodes(xml, report, cnode_children);
    xml += "  </program>\n";
    write_system(xml, report);
    xml += "</cube>\n";
    return xml;
}

std::string index_member(const CubeMetric& metric) {
    std::string out = "CUBEX.INDEX";
    put_u32(out, 1);              // endianness mark: a reader that sees 1 reads as written
    out += std::string(2, '\0');  // version 0
    out += '\1';                  // format: sparse, the listed cnodes
    put_u32(out, static_cast<std::uint32_t>(metric.rows.size()));
    for (const CubeMetric::Row& row : metric.rows) put_u32(out, row.cnode);
    return out;
}

std::string data_member(const CubeMetric& metric, std::size_t locations) {
    std::string out = "CUBEX.DATA";
    out.reserve(out.size() + metric.rows.size() * locations * 8);
    for (const CubeMetric::Row& row : metric.rows) {
        if (metric.integer) {
            for (std::int64_t v : row.counts) put_u64(out, static_cast<std::uint64_t>(v));
        } else {
            for (double v : row.values) {
                std::uint64_t bits = 0;
                std::memcpy(&bits, &v, sizeof bits);
                put_u64(out, bits);
            }
        }
    }
    return out;
}

std::string tar_archive(const std::vector<std::pair<std::string, std::string>>& members) {
    std::string out;
    for (const auto& [name, content] : members) {
        if (name.size() >= 100) throw std::logic_error("tar member name too long: " + name);
        char header[512] = {};
        std::memcpy(header, name.data(), name.size());
        octal_field(header + 100, 8, 0644);  // mode
        octal_field(header + 108, 8, 0);     // uid
        octal_field(header + 116, 8, 0);     // gid
        if (content.size() >= (1ull << 33)) {
            // Beyond 11 octal digits: the base-256 form GNU tar and libarchive read.
            header[124] = static_cast<char>(0x80);
            for (int i = 0; i < 8; ++i)
                header[135 - i] =
                    static_cast<char>(static_cast<std::uint64_t>(content.size()) >> (8 * i) & 0xFFu);
        } else {
            octal_field(header + 124, 12, content.size());
        }
        octal_field(header + 136, 12, 0);   // mtime: fixed, so that equal reports are equal files
        std::memset(header + 148, ' ', 8);  // the checksum counts its own field as spaces
        header[156] = '0';                  // a regular file
        std::memcpy(header + 257, "ustar", 6);
        std::memcpy(header + 263, "00", 2);
        unsigned sum = 0;
        for (unsigned char c : header) sum += c;
        std::snprintf(header + 148, 8, "%06o", sum);  // six digits, NUL, and the space left in place
        out.append(header, sizeof header);
        out += content;
        out.append((512 - content.size() % 512) % 512, '\0');
    }
    out.append(1024, '\0');  // two zero blocks end the archive
    return out;
}

std::string cubex_file(const CubeReport& report) {
    const std::size_t locations = report.locations.size();
    for (const CubeMetric& m : report.metrics) {
        std::int64_t previous = -1;
        for (const CubeMetric::Row& row : m.rows) {
            const std::size_t width = m.integer ? row.counts.size() : row.values.size();
            if (width != locations)
                throw std::logic_error("cube report: a row of " + m.unique_name + " has " +
                                       std::to_string(width) + " values for " + std::to_string(locations) +
                                       " locations");
            if (static_cast<std::int64_t>(row.cnode) <= previous || row.cnode >= report.cnodes.size())
                throw std::logic_error("cube report: the rows of " + m.unique_name +
                                       " are not ascending cnodes");
            previous = row.cnode;
        }
    }
    std::vector<std::pair<std::string, std::string>> members;
    members.emplace_back("anchor.xml", anchor_xml(report));
    for (std::size_t id = 0; id < report.metrics.size(); ++id) {
        members.emplace_back(std::to_string(id) + ".index", index_member(report.metrics[id]));
        members.emplace_back(std::to_string(id) + ".data", data_member(report.metrics[id], locations));
    }
    return tar_archive(members);
}

}  // namespace strata::analysis::cube
