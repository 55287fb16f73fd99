// SPDX-License-Identifier: BSD-3-Clause
// HTML escaping, the balanced writer and the SVG charts (see html_writer.hpp).
// Chart geometry is integer arithmetic on fixed sizes, printed with fixed
// formats, so the same figures always give the same bytes.
#include "report/html_writer.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "analyze/report_format.hpp"

namespace strata::analysis::report {
namespace {

/// `text` cut to at most `limit` bytes at a UTF-8 character boundary, with "…" when cut.
std::string shorten(const std::string& text, std::size_t limit) {
    if (text.size() <= limit) return text;
    std::size_t cut = limit;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
    return text.substr(0, cut) + "\u2026";
}

/// A label of at most `limit` bytes keeping its end ("…/exchange/MPI_Sendrecv"):
/// the end of a call path says most.  The full label is in the bar's tooltip.
std::string label_tail(const std::string& text, std::size_t limit) {
    if (text.size() <= limit) return text;
    std::size_t cut = text.size() - limit;
    while (cut < text.size() && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) ++cut;
    return "\u2026" + text.substr(cut);
}

/// The chart labels of `names`: C++ names shortened (display_name), then
/// their ends (label_tail); two that come out alike are told apart by their
/// place in the chart ("… [2]").
template <typename Item>
std::vector<std::string> chart_labels(const std::vector<Item>& items, std::size_t limit) {
    std::vector<std::string> labels;
    for (const Item& item : items) labels.push_back(label_tail(display_name(item.label), limit));
    std::vector<bool> alike(labels.size(), false);
    for (std::size_t i = 0; i < labels.size(); ++i)
        for (std::size_t j = i + 1; j < labels.size(); ++j)
            if (labels[i] == labels[j]) alike[i] = alike[j] = true;
    for (std::size_t i = 0; i < labels.size(); ++i)
        if (alike[i]) labels[i] = label_tail(display_name(items[i].label), limit - 5) + " [" + std::to_string(i + 1) + "]";
    return labels;
}

std::string fixed(double value) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.1f", value);
    return buffer;
}

/// `value` / `scale` of `width`, clamped to [0, width].
double scaled(double value, double scale, double width) {
    if (!(scale > 0) || !std::isfinite(value)) return 0.0;
    return std::clamp(value / scale * width, 0.0, width);
}

std::string svg_open(const std::string& title, int width, int height, const std::string& css_class) {
    return "<svg class=\"" + css_class + "\" role=\"img\" viewBox=\"0 0 " + std::to_string(width) + " " +
           std::to_string(height) + "\" width=\"" + std::to_string(width) + "\" height=\"" +
           std::to_string(height) + "\"><title>" + escape(title) +
           "</title>\n";
}

constexpr int label_width = 300, plot_width = 360, text_width = 280, row_height = 22;

}  // namespace

std::string escape(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (unsigned char c : text) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            case '\'': out += "&#39;"; break;
            default:
                if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7F) out += "\uFFFD";
                else out += static_cast<char>(c);
        }
    }
    return out;
}

std::string short_number(double value, int digits) {
    if (!std::isfinite(value)) return "";
    if (value == 0.0) return "0";  // also -0
    char buffer[48];
    std::snprintf(buffer, sizeof buffer, "%.*g", std::clamp(digits, 1, 17), value);
    return buffer;
}

std::string json_for_script(const std::string& json) {
    std::string data;
    data.reserve(json.size());
    for (const char c : json) {
        if (c == '<')
            data += "\\u003c";
        else
            data += c;
    }
    return data;
}

void embed_data_and_script(HtmlWriter& html, const char* id, const std::string& json, const char* script) {
    // Data, not code: nothing in it runs.
    html.open("script", {{"type", "application/json"}, {"id", id}});
    html.raw(json_for_script(json));
    html.close("script");
    html.open("script");
    html.raw(script);
    html.close("script");
}

std::string human_seconds(double seconds) {
    if (!std::isfinite(seconds)) return "";
    if (seconds == 0.0) return "0 s";
    const double magnitude = std::fabs(seconds);
    // Rounded to three significant figures first, so that 999.96 ms becomes 1.00 s.
    const int exponent = static_cast<int>(std::floor(std::log10(magnitude)));
    const double scale = std::pow(10.0, 2 - exponent);
    const double rounded = std::round(magnitude * scale) / scale;
    struct Unit {
        double seconds;
        const char* name;
    };
    static const Unit units[] = {{1.0, "s"}, {1e-3, "ms"}, {1e-6, "\u00B5s"}, {1e-9, "ns"}};
    const Unit* unit = &units[3];
    for (const Unit& u : units) {
        if (rounded >= u.seconds * (1 - 1e-12)) {
            unit = &u;
            break;
        }
    }
    const double value = rounded / unit->seconds;
    char buffer[48];
    const int decimals = value >= 100 ? 0 : value >= 10 ? 1 : 2;
    std::snprintf(buffer, sizeof buffer, "%s%.*f %s", seconds < 0 ? "-" : "", decimals, value, unit->name);
    return buffer;
}

std::string percent(double share) {
    if (!std::isfinite(share)) return "";
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.1f%%", share * 100.0 == 0.0 ? 0.0 : share * 100.0);
    return buffer;
}

void HtmlWriter::start_tag(std::string_view tag, const Attributes& attributes) {
    out_ += '<';
    out_ += tag;
    for (const auto& [name, value] : attributes) out_ += " " + name + "=\"" + escape(value) + "\"";
    out_ += '>';
}

void HtmlWriter::open(std::string_view tag, const Attributes& attributes) {
    start_tag(tag, attributes);
    open_.emplace_back(tag);
}

void HtmlWriter::close(std::string_view tag) {
    if (open_.empty() || open_.back() != tag)
        throw std::logic_error("HtmlWriter: closing <" + std::string(tag) + "> but <" +
                               (open_.empty() ? std::string("nothing") : open_.back()) + "> is open");
    open_.pop_back();
    out_ += "</";
    out_ += tag;
    out_ += '>';
}

void HtmlWriter::element(std::string_view tag, std::string_view text, const Attributes& attributes) {
    start_tag(tag, attributes);
    out_ += escape(text);
    out_ += "</";
    out_ += tag;
    out_ += '>';
}

void HtmlWriter::empty(std::string_view tag, const Attributes& attributes) { start_tag(tag, attributes); }

void HtmlWriter::text(std::string_view text) { out_ += escape(text); }

void HtmlWriter::raw(std::string_view markup) { out_ += markup; }

std::string HtmlWriter::finish() {
    if (!open_.empty()) throw std::logic_error("HtmlWriter: <" + open_.back() + "> is not closed");
    return std::move(out_);
}

std::string svg_bar_chart(const std::string& title, const std::vector<Bar>& bars) {
    double scale = 0.0;
    for (const Bar& bar : bars) scale = std::max(scale, bar.value);
    const int width = label_width + plot_width + text_width;
    const int height = static_cast<int>(bars.size()) * row_height + 4;
    std::string svg = svg_open(title, width, height, "chart");
    const std::vector<std::string> labels = chart_labels(bars, 38);
    for (std::size_t i = 0; i < bars.size(); ++i) {
        const Bar& bar = bars[i];
        const int y = static_cast<int>(i) * row_height + 2;
        const double w = scaled(bar.value, scale, plot_width);
        svg += "<g><title>" + escape(bar.label + ": " + bar.text) + "</title>";
        svg += "<text x=\"" + std::to_string(label_width - 6) + "\" y=\"" + std::to_string(y + 15) +
               "\" text-anchor=\"end\">" + escape(labels[i]) + "</text>";
        svg += "<rect class=\"bar\" x=\"" + std::to_string(label_width) + "\" y=\"" + std::to_string(y + 3) +
               "\" width=\"" + fixed(w) + "\" height=\"" + std::to_string(row_height - 6) + "\"/>";
        svg += "<text x=\"" + fixed(label_width + w + 6) + "\" y=\"" + std::to_string(y + 15) + "\">" +
               escape(bar.text) + "</text></g>\n";
    }
    return svg + "</svg>";
}

std::string svg_range_chart(const std::string& title, const std::vector<Range>& ranges) {
    double scale = 0.0;
    for (const Range& range : ranges) scale = std::max(scale, range.max);
    const int width = label_width + plot_width + text_width;
    const int height = static_cast<int>(ranges.size()) * row_height + 4;
    std::string svg = svg_open(title, width, height, "chart");
    const std::vector<std::string> labels = chart_labels(ranges, 38);
    for (std::size_t i = 0; i < ranges.size(); ++i) {
        const Range& range = ranges[i];
        const int y = static_cast<int>(i) * row_height + 2;
        const double x_min = label_width + scaled(range.min, scale, plot_width);
        const double x_mean = label_width + scaled(range.mean, scale, plot_width);
        const double x_max = label_width + scaled(range.max, scale, plot_width);
        svg += "<g><title>" + escape(range.label + ": " + range.text) + "</title>";
        svg += "<text x=\"" + std::to_string(label_width - 6) + "\" y=\"" + std::to_string(y + 15) +
               "\" text-anchor=\"end\">" + escape(labels[i]) + "</text>";
        // The track from 0 to max, the span min..max, the mean as a tick.
        svg += "<rect class=\"track\" x=\"" + std::to_string(label_width) + "\" y=\"" + std::to_string(y + 9) +
               "\" width=\"" + fixed(x_max - label_width) + "\" height=\"4\"/>";
        svg += "<rect class=\"span\" x=\"" + fixed(x_min) + "\" y=\"" + std::to_string(y + 4) + "\" width=\"" +
               fixed(std::max(x_max - x_min, 1.0)) + "\" height=\"" + std::to_string(row_height - 8) + "\"/>";
        svg += "<rect class=\"mean\" x=\"" + fixed(x_mean - 1) + "\" y=\"" + std::to_string(y + 1) +
               "\" width=\"3\" height=\"" + std::to_string(row_height - 2) + "\"/>";
        svg += "<text x=\"" + fixed(x_max + 6) + "\" y=\"" + std::to_string(y + 15) + "\">" +
               escape(range.text) + "</text></g>\n";
    }
    return svg + "</svg>";
}

std::string svg_stacked_bar(const std::string& title, const std::vector<Segment>& segments) {
    const int width = label_width + plot_width + text_width, bar_height = 30;
    const int height = bar_height + 8 + static_cast<int>(segments.size()) * row_height;
    double total = 0.0;
    for (const Segment& segment : segments) total += std::max(segment.share, 0.0);
    std::string svg = svg_open(title, width, height, "chart");
    double x = 0.0;
    for (const Segment& segment : segments) {
        const double w = scaled(std::max(segment.share, 0.0), std::max(total, 1.0), width);
        if (w <= 0.0) continue;
        svg += "<g><title>" + escape(segment.label + ": " + percent(segment.share)) + "</title>";
        svg += "<rect class=\"" + segment.css_class + "\" x=\"" + fixed(x) + "\" y=\"0\" width=\"" + fixed(w) +
               "\" height=\"" + std::to_string(bar_height) + "\"/>";
        if (w > 90)
            svg += "<text class=\"inbar\" x=\"" + fixed(x + 4) + "\" y=\"20\">" +
                   escape(segment.label + " " + percent(segment.share)) + "</text>";
        svg += "</g>\n";
        x += w;
    }
    for (std::size_t i = 0; i < segments.size(); ++i) {
        const int y = bar_height + 8 + static_cast<int>(i) * row_height;
        svg += "<rect class=\"" + segments[i].css_class + "\" x=\"0\" y=\"" + std::to_string(y + 3) +
               "\" width=\"14\" height=\"14\"/>";
        svg += "<text x=\"20\" y=\"" + std::to_string(y + 15) + "\">" +
               escape(segments[i].label + ": " + percent(segments[i].share)) + "</text>\n";
    }
    return svg + "</svg>";
}

std::string svg_stacked_rows(const std::string& title, const std::vector<StackedRow>& rows,
                             const std::vector<std::string>& part_texts) {
    double scale = 0.0;
    for (const StackedRow& row : rows) {
        double total = 0.0;
        for (const Segment& part : row.parts) total += std::max(part.share, 0.0);
        scale = std::max(scale, total);
    }
    // The legend: every kind of part that has a value somewhere, once, in the order of the parts.
    std::vector<const Segment*> kinds;
    for (const StackedRow& row : rows)
        for (const Segment& part : row.parts)
            if (part.share > 0.0 &&
                std::none_of(kinds.begin(), kinds.end(), [&](const Segment* k) { return k->label == part.label; }))
                kinds.push_back(&part);
    const int width = label_width + plot_width + text_width;
    const int legend_rows = static_cast<int>((kinds.size() + 3) / 4);
    const int height = static_cast<int>(rows.size()) * row_height + 8 + legend_rows * row_height;
    std::string svg = svg_open(title, width, height, "chart");
    std::size_t text_index = 0;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const StackedRow& row = rows[i];
        const int y = static_cast<int>(i) * row_height + 2;
        svg += "<g><title>" + escape(row.label + ": " + row.text) + "</title>";
        svg += "<text x=\"" + std::to_string(label_width - 6) + "\" y=\"" + std::to_string(y + 15) +
               "\" text-anchor=\"end\">" + escape(row.label) + "</text></g>";
        double x = label_width;
        for (const Segment& part : row.parts) {
            const std::string& value = text_index < part_texts.size() ? part_texts[text_index] : std::string();
            ++text_index;
            const double w = scaled(std::max(part.share, 0.0), scale, plot_width);
            if (w <= 0.0) continue;
            svg += "<g><title>" + escape(row.label + ", " + part.label + ": " + value) + "</title><rect class=\"" +
                   part.css_class + "\" x=\"" + fixed(x) + "\" y=\"" + std::to_string(y + 3) + "\" width=\"" +
                   fixed(w) + "\" height=\"" + std::to_string(row_height - 6) + "\"/></g>";
            x += w;
        }
        svg += "<text x=\"" + fixed(x + 6) + "\" y=\"" + std::to_string(y + 15) + "\">" + escape(row.text) +
               "</text>\n";
    }
    const int legend_top = static_cast<int>(rows.size()) * row_height + 8;
    for (std::size_t k = 0; k < kinds.size(); ++k) {
        const int x = label_width + static_cast<int>(k % 4) * 150;
        const int y = legend_top + static_cast<int>(k / 4) * row_height;
        svg += "<rect class=\"" + kinds[k]->css_class + "\" x=\"" + std::to_string(x) + "\" y=\"" +
               std::to_string(y + 3) + "\" width=\"14\" height=\"14\"/>";
        svg += "<text x=\"" + std::to_string(x + 20) + "\" y=\"" + std::to_string(y + 15) + "\">" +
               escape(kinds[k]->label) + "</text>\n";
    }
    return svg + "</svg>";
}

std::string svg_column_chart(const std::string& title, const std::vector<Bar>& bars) {
    double scale = 0.0;
    for (const Bar& bar : bars) scale = std::max(scale, bar.value);
    const int plot_height = 200, axis = 40, left = 70;
    const int column = bars.size() > 200 ? 3 : bars.size() > 50 ? 8 : 20;
    const int width = std::max(left + static_cast<int>(bars.size()) * column + 10, 300);
    const std::size_t label_every = std::max<std::size_t>(1, 50 / static_cast<std::size_t>(column));
    std::string svg = svg_open(title, width, plot_height + axis, "chart");
    svg += "<text x=\"" + std::to_string(left - 6) + "\" y=\"12\" text-anchor=\"end\">" +
           escape(short_number(scale)) + "</text>";
    svg += "<text x=\"" + std::to_string(left - 6) + "\" y=\"" + std::to_string(plot_height) +
           "\" text-anchor=\"end\">0</text>";
    svg += "<rect class=\"axis\" x=\"" + std::to_string(left - 2) + "\" y=\"0\" width=\"1\" height=\"" +
           std::to_string(plot_height) + "\"/>\n";
    for (std::size_t i = 0; i < bars.size(); ++i) {
        const double h = scaled(bars[i].value, scale, plot_height - 4);
        const int x = left + static_cast<int>(i) * column;
        svg += "<g><title>" + escape(bars[i].label + ": " + bars[i].text) + "</title><rect class=\"bar\" x=\"" +
               std::to_string(x) + "\" y=\"" + fixed(plot_height - h) + "\" width=\"" +
               std::to_string(std::max(column - 2, 1)) + "\" height=\"" + fixed(h) + "\"/>";
        if (i % label_every == 0)
            svg += "<text x=\"" + std::to_string(x) + "\" y=\"" + std::to_string(plot_height + 16) + "\">" +
                   escape(shorten(bars[i].tick.empty() ? bars[i].label : bars[i].tick, 8)) + "</text>";
        svg += "</g>\n";
    }
    return svg + "</svg>";
}

std::string svg_iteration_chart(const std::string& title, const std::vector<IterationColumn>& columns,
                                double scale) {
    const int plot_top = 14, plot_height = 200, axis = 40, left = 70;
    const std::size_t n = columns.size();
    const int column = n > 200 ? 2 : n > 100 ? 4 : n > 40 ? 8 : 20;
    const int width = std::max(left + static_cast<int>(n) * column + 10, 300);
    const int bottom = plot_top + plot_height;
    const std::size_t label_every = std::max<std::size_t>(1, 50 / static_cast<std::size_t>(column));
    const auto y_of = [&](double value) { return bottom - scaled(std::min(value, scale), scale, plot_height); };
    std::string svg = svg_open(title, width, bottom + axis, "chart iterations");
    // The stable range behind its columns, one band per run of stable columns.
    for (std::size_t i = 0; i < n;) {
        if (!columns[i].stable) {
            ++i;
            continue;
        }
        std::size_t j = i;
        while (j < n && columns[j].stable) ++j;
        svg += "<rect class=\"stable-range\" x=\"" + std::to_string(left + static_cast<int>(i) * column) +
               "\" y=\"" + std::to_string(plot_top) + "\" width=\"" + std::to_string(static_cast<int>(j - i) * column) +
               "\" height=\"" + std::to_string(plot_height) + "\"><title>the suggested stable range</title></rect>\n";
        i = j;
    }
    svg += "<text class=\"scale\" x=\"" + std::to_string(left - 6) + "\" y=\"" + std::to_string(plot_top + 4) +
           "\" text-anchor=\"end\">" + escape(human_seconds(scale)) + "</text>";
    svg += "<text class=\"scale\" x=\"" + std::to_string(left - 6) + "\" y=\"" + std::to_string(bottom) +
           "\" text-anchor=\"end\">0</text>";
    svg += "<rect class=\"axis\" x=\"" + std::to_string(left - 2) + "\" y=\"" + std::to_string(plot_top) +
           "\" width=\"1\" height=\"" + std::to_string(plot_height) + "\"/>\n";
    for (std::size_t i = 0; i < n; ++i) {
        const IterationColumn& c = columns[i];
        const int x = left + static_cast<int>(i) * column;
        const bool above = c.value > scale;
        const double top = y_of(c.value);
        std::string css = "bar";
        if (!c.kind.empty()) css += " " + c.kind;
        if (above) css += " clipped";
        // Narrow columns touch (a gap would be as wide as the column).
        svg += "<g><title>" + escape(c.label + ": " + c.text) + "</title><rect class=\"" + css + "\" x=\"" +
               std::to_string(x) + "\" y=\"" + fixed(top) + "\" width=\"" +
               std::to_string(column > 4 ? column - 1 : column) + "\" height=\"" + fixed(bottom - top) + "\"/>";
        if (above)  // cut at the top of the scale: a mark above it
            svg += "<text class=\"over\" x=\"" + std::to_string(x + column / 2) + "\" y=\"" +
                   std::to_string(plot_top - 2) + "\" text-anchor=\"middle\">\u25B2</text>";
        if (n <= kIterationWhiskersUpTo && std::isfinite(c.low) && std::isfinite(c.high) && c.high > c.low &&
            c.low < scale) {
            const double y_low = y_of(c.low), y_high = y_of(c.high);
            svg += "<rect class=\"spread\" x=\"" + std::to_string(x + std::max(column - 1, 1) / 2) + "\" y=\"" +
                   fixed(y_high) + "\" width=\"1\" height=\"" + fixed(std::max(y_low - y_high, 1.0)) + "\"/>";
        }
        if (i % label_every == 0)
            svg += "<text x=\"" + std::to_string(x) + "\" y=\"" + std::to_string(bottom + 16) + "\">" +
                   escape(shorten(c.tick.empty() ? c.label : c.tick, 8)) + "</text>";
        svg += "</g>\n";
    }
    return svg + "</svg>";
}

}  // namespace strata::analysis::report
