// SPDX-License-Identifier: BSD-3-Clause
// The call tree and the heatmap of report.html (see html_calltree.hpp).
#include "report/html_calltree.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "analyze/report_format.hpp"

namespace strata::analysis::report {
namespace {

// The distribution beside the tree.  Elements are made with DOM calls and
// names go in as textContent, so no name is ever parsed as markup; the data
// is read with JSON.parse.  human() writes values as human_value() does.
constexpr const char* script = R"js(
(function () {
  "use strict";
  var source = document.getElementById("calltree-data");
  var table = document.getElementById("ct-table");
  var detail = document.getElementById("ct-detail");
  if (!source || !table || !detail || !window.JSON || !window.Map) return;
  var data;
  try { data = JSON.parse(source.textContent); } catch (e) { return; }
  var svgNS = "http://www.w3.org/2000/svg";
  var metrics = data.metrics, nodes = new Map(), kids = new Map(), byPath = new Map();
  var rows = new Map(), open = new Map(), buttons = new Map(), locations = new Map();
  var shown = data.locations.slice(0, data.shown_locations);
  data.locations.forEach(function (l) { locations.set(l.location, l); });
  data.callpaths.forEach(function (cp) {
    nodes.set(cp.id, cp);
    kids.set(cp.id, []);
    if (!byPath.has(cp.callpath)) byPath.set(cp.callpath, cp.id);
  });
  data.callpaths.forEach(function (cp) {
    if (cp.parent !== null && kids.has(cp.parent)) kids.get(cp.parent).push(cp.id);
  });
  Array.prototype.forEach.call(table.tBodies[0].rows, function (tr) {
    rows.set(Number(tr.getAttribute("data-id")), tr);
  });

  function round3(a) {
    if (a === 0) return 0;
    var s = Math.pow(10, 2 - Math.floor(Math.log10(a)));
    return Math.round(a * s) / s;
  }
  function sig3(a) { return a >= 100 ? a.toFixed(0) : a >= 10 ? a.toFixed(1) : a.toFixed(2); }
  function seconds(v) {
    if (v === 0) return "0 s";
    var r = round3(Math.abs(v)), units = [[1, "s"], [1e-3, "ms"], [1e-6, "\u00B5s"], [1e-9, "ns"]];
    var u = units[3];
    for (var i = 0; i < units.length; i++) if (r >= units[i][0] * (1 - 1e-12)) { u = units[i]; break; }
    return (v < 0 ? "-" : "") + sig3(r / u[0]) + " " + u[1];
  }
  function human(v, unit) {
    if (v === null || v === undefined || !isFinite(v)) return "";
    if (unit === "s") return seconds(v);
    if (unit === "ns") return seconds(v * 1e-9);
    if (unit === "us" || unit === "\u00B5s") return seconds(v * 1e-6);
    var bytes = unit === "bytes" || unit === "B" || unit === "KiB";
    if (unit === "KiB") v *= 1024;
    var base = bytes ? 1024 : 1000;
    var names = bytes ? ["B", "KiB", "MiB", "GiB", "TiB", "PiB"] : ["", "k", "M", "G", "T", "P"];
    var suffix = bytes || unit === "count" || unit === "" ? "" : " " + unit;
    var a = Math.abs(v), sign = v < 0 ? "-" : "", i = 0;
    if (a < base && a === Math.floor(a)) return sign + String(a) + (bytes ? " B" : "") + suffix;
    var r = round3(a);
    while ((a >= base || r >= base) && i < names.length - 1) { a /= base; r = round3(a); i++; }
    return sign + sig3(r) + (names[i] ? " " + names[i] : "") + suffix;
  }
  function where(location) {
    var l = locations.get(location);
    if (!l) return "location " + location;
    return "rank " + l.rank + (l.type === "gpu_stream" ? " stream " : " thread ") + l.thread;
  }
  function make(tag, text, parent) {
    var e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = text;
    if (parent) parent.appendChild(e);
    return e;
  }
  function makeSvg(tag, attributes, parent) {
    var e = document.createElementNS(svgNS, tag);
    Object.keys(attributes).forEach(function (k) { e.setAttribute(k, String(attributes[k])); });
    if (parent) parent.appendChild(e);
    return e;
  }

  // Expanding and collapsing: rows are in tree order, parents first.
  function paint() {
    var visible = new Map();
    data.callpaths.forEach(function (cp) {
      var v = cp.parent === null || (visible.get(cp.parent) === true && open.get(cp.parent) === true);
      visible.set(cp.id, v);
      var tr = rows.get(cp.id);
      if (tr) tr.hidden = !v;
    });
  }
  function setOpen(id, value) {
    open.set(id, value);
    var b = buttons.get(id);
    if (b) {
      b.setAttribute("aria-expanded", value ? "true" : "false");
      b.textContent = value ? "\u25BE" : "\u25B8";
      b.title = (value ? "Collapse " : "Expand ") + nodes.get(id).label;
    }
  }
  data.callpaths.forEach(function (cp) {
    var tr = rows.get(cp.id);
    if (!tr) return;
    var cell = tr.cells[0], mark;
    if (kids.get(cp.id).length > 0) {
      mark = document.createElement("button");
      mark.type = "button";
      mark.className = "ct-toggle";
      mark.addEventListener("click", function () { setOpen(cp.id, !open.get(cp.id)); paint(); });
      buttons.set(cp.id, mark);
    } else {
      mark = document.createElement("span");
      mark.className = "ct-leaf";
    }
    cell.insertBefore(mark, cell.firstChild);
    setOpen(cp.id, cp.depth < 1);
  });
  paint();

  var selected = null, metric = metrics.length > 1 ? 1 : 0, chosen = null;
  function render() {
    while (detail.firstChild) detail.removeChild(detail.firstChild);
    var cp = nodes.get(selected), m = metrics[metric], unit = m.unit;
    make("h3", cp.callpath, detail);
    make("p", "Region " + cp.region + " (" + cp.paradigm + "); " + cp.participants + " of " +
         data.locations_total + " locations take part (visited it or spent time in it).", detail);
    var label = make("label", "Metric ", detail);
    var choice = make("select", null, label);
    choice.id = "ct-metric";
    metrics.forEach(function (x, i) {
      var o = make("option", x.name + (x.unit ? " (" + x.unit + ")" : ""), choice);
      o.value = String(i);
      if (i === metric) o.selected = true;
    });
    choice.addEventListener("change", function () { metric = Number(choice.value); render(); });
    var largest = cp.largest[metric], smallest = cp.smallest[metric], mean = cp.mean[metric];
    var facts = make("dl", null, detail);
    facts.className = "facts";
    function fact(term, text, title) {
      make("dt", term, facts);
      var d = make("dd", text, facts);
      if (title) d.title = title;
    }
    function named(list) {
      return list.map(function (p) {
        var note = mean > 0 && p[1] !== mean
          ? " (" + (p[1] > mean ? "+" : "") + (100 * (p[1] - mean) / mean).toFixed(1) + "% against the mean)"
          : "";
        return where(p[0]) + ": " + human(p[1], unit) + note;
      }).join("; ");
    }
    fact("Sum", human(cp.sum[metric], unit), String(cp.sum[metric]) + " " + unit);
    fact("Mean", mean === null ? "none take part" : human(mean, unit),
         mean === null ? "" : String(mean) + " " + unit);
    if (largest.length > 0) {
      fact("Largest", named(largest));
      fact("Smallest", named(smallest));
      var max = largest[0][1];
      if (max > 0 && mean !== null)
        fact("Imbalance", (100 * (max - mean) / max).toFixed(1) + "% = (max \u2212 mean) / max");
    }
    var values = cp.values ? cp.values[metric] : null;
    if (values) {
      var n = values.length, width = 720, height = 190, left = 70, bottom = 22, top = 12;
      var plot = height - top - bottom;
      var scale = 0;
      values.forEach(function (v) { scale = Math.max(scale, v); });
      var step = (width - left - 8) / Math.max(n, 1);
      var svg = makeSvg("svg", {"class": "chart ct-chart", "viewBox": "0 0 " + width + " " + height,
                                "role": "img", "aria-label": m.name + " per location"}, detail);
      makeSvg("title", {}, svg).textContent = m.name + " of " + cp.callpath + " per location";
      makeSvg("text", {"x": left - 6, "y": top + 10, "text-anchor": "end", "class": "scale"}, svg)
        .textContent = human(scale, unit);
      makeSvg("text", {"x": left - 6, "y": top + plot, "text-anchor": "end", "class": "scale"}, svg)
        .textContent = "0";
      var high = largest.length > 0 ? largest[0][0] : null, low = smallest.length > 0 ? smallest[0][0] : null;
      values.forEach(function (v, j) {
        var loc = shown[j].location, h = scale > 0 ? v / scale * plot : 0;
        var kind = loc === high ? " ct-high" : loc === low ? " ct-low" : "";
        var bar = makeSvg("rect", {"class": "ct-bar" + kind + (j === chosen ? " ct-chosen" : ""),
                                   "x": (left + j * step).toFixed(2), "y": (top + plot - h).toFixed(2),
                                   "width": Math.max(step - (step > 3 ? 1 : 0), 0.5).toFixed(2),
                                   "height": Math.max(h, 0.5).toFixed(2), "tabindex": "0",
                                   "data-location": loc}, svg);
        makeSvg("title", {}, bar).textContent = where(loc) + ": " + human(v, unit) + " (" + v + ")";
        function choose() { chosen = j; render(); }
        bar.addEventListener("click", choose);
        bar.addEventListener("keydown", function (e) {
          if (e.key === "Enter" || e.key === " ") { e.preventDefault(); choose(); }
        });
      });
      if (mean !== null && scale > 0) {
        var y = (top + plot - mean / scale * plot).toFixed(2);
        makeSvg("line", {"class": "ct-mean", "x1": left, "x2": width - 8, "y1": y, "y2": y}, svg);
      }
      var every = Math.max(1, Math.ceil(56 / step));
      for (var j = 0; j < n; j += every)
        makeSvg("text", {"x": (left + (j + 0.5) * step).toFixed(2), "y": height - 6, "text-anchor": "middle",
                         "class": "scale"}, svg)
          .textContent = "r" + shown[j].rank + (shown[j].type === "gpu_stream" ? " s" : " t") +
                         shown[j].thread;
      make("p", "One bar per location (r: rank, t: thread, s: GPU stream; as many labels as fit, every " +
           "bar's " +
           "tooltip names it), the dashed line marks the mean; " +
           "the largest is dark, the smallest light. A click on a bar shows that location's figures." +
           (data.shown_locations < data.locations_total ? " The first " + data.shown_locations + " of " +
            data.locations_total + " locations are drawn; sum, mean, largest and smallest are over all " +
            "of them." : ""),
           detail).className = "note";
    } else {
      make("p", "The values per location of this call path were left out of calltree.json (its size cap); " +
           "sum, mean, largest and smallest above are over all locations.", detail).className = "note";
    }
    if (chosen !== null && values && shown[chosen]) {
      var loc = shown[chosen].location;
      var t = make("table", null, make("div", null, detail));
      t.parentNode.className = "scroll";
      t.id = "ct-location";
      var name = locations.get(loc).name;
      make("caption", where(loc) + (name && name !== where(loc) ? " (" + name + ")" : "") + " on " + cp.label,
           t);
      var head = make("tr", null, make("thead", null, t));
      ["metric", "this location", "mean", "sum"].forEach(function (h, i) {
        var th = make("th", h, head);
        th.scope = "col";
        if (i > 0) th.className = "num";
      });
      var body = make("tbody", null, t);
      metrics.forEach(function (x, i) {
        var tr = make("tr", null, body);
        make("th", x.name, tr).scope = "row";
        [cp.values[i][chosen], cp.mean[i], cp.sum[i]].forEach(function (v) {
          var td = make("td", human(v, x.unit), tr);
          td.className = "num";
          if (v !== null) td.title = String(v) + " " + x.unit;
        });
      });
    }
  }
  function select(id, scroll) {
    var cp = nodes.get(id);
    if (!cp) return;
    for (var p = cp.parent; p !== null && nodes.has(p); p = nodes.get(p).parent) setOpen(p, true);
    paint();
    if (selected !== null && rows.get(selected)) rows.get(selected).classList.remove("ct-selected");
    if (selected !== id) chosen = null;
    selected = id;
    var tr = rows.get(id);
    if (tr) {
      tr.classList.add("ct-selected");
      if (scroll && tr.scrollIntoView) tr.scrollIntoView({block: "nearest"});
    }
    render();
  }
  function fromHash() {
    var m = /^#callpath=(.*)$/.exec(window.location.hash);
    if (!m) return;
    var path;
    try { path = decodeURIComponent(m[1]); } catch (e) { return; }
    if (byPath.has(path)) {
      select(byPath.get(path), true);
    } else {
      while (detail.firstChild) detail.removeChild(detail.firstChild);
      make("p", "The call path " + path + " is not in calltree.json (see its size caps).", detail)
        .className = "note";
    }
  }
  window.addEventListener("hashchange", fromHash);
  fromHash();
})();
)js";

/// A column's heading: the known metrics in words, the others by name.
std::string metric_title(const std::string& name) {
    if (name == "time_inclusive") return "inclusive time";
    if (name == "time_exclusive") return "exclusive time";
    if (name == "bytes_sent") return "bytes sent";
    if (name == "bytes_received") return "bytes received";
    return name;
}

double round3(double magnitude) {
    if (magnitude == 0.0) return 0.0;
    const double scale = std::pow(10.0, 2 - static_cast<int>(std::floor(std::log10(magnitude))));
    return std::round(magnitude * scale) / scale;
}

std::string sig3(double value) {
    char buffer[48];
    std::snprintf(buffer, sizeof buffer, "%.*f", value >= 100 ? 0 : value >= 10 ? 1 : 2, value);
    return buffer;
}

/// A name for a row of the heatmap: C++ parts elided, its end kept, at most `limit` bytes.
std::string short_label(const std::string& name, std::size_t limit) {
    std::string text = display_name(name);
    if (text.size() <= limit) return text;
    std::size_t cut = text.size() - limit;
    while (cut < text.size() && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) ++cut;
    return "\u2026" + text.substr(cut);
}

std::string fixed1(double value) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.1f", value);
    return buffer;
}

std::vector<const JsonValue*> objects(const JsonValue* array) {
    std::vector<const JsonValue*> out;
    if (array && array->is_array())
        for (const JsonValue& item : array->items)
            if (item.is_object()) out.push_back(&item);
    return out;
}

void notes_of_cuts(HtmlWriter& html, const JsonValue* calltree, const std::string& prefix) {
    const JsonValue* cut = calltree->find("cut");
    if (!cut || !cut->is_array()) return;
    for (const JsonValue& note : cut->items)
        if (note.is_string() && note.text.compare(0, prefix.size(), prefix) == 0)
            html.element("p", "Cut: " + note.text + ".", {{"class", "note"}});
}

}  // namespace

std::string human_value(double value, const std::string& unit) {
    if (!std::isfinite(value)) return "";
    if (unit == "s") return human_seconds(value);
    if (unit == "ns") return human_seconds(value * 1e-9);
    if (unit == "us" || unit == "\u00B5s") return human_seconds(value * 1e-6);
    const bool bytes = unit == "bytes" || unit == "B" || unit == "KiB";
    if (unit == "KiB") value *= 1024;
    const double base = bytes ? 1024 : 1000;
    static const char* const binary[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    static const char* const decimal[] = {"", "k", "M", "G", "T", "P"};
    const char* const* names = bytes ? binary : decimal;
    const std::string suffix = bytes || unit == "count" || unit.empty() ? "" : " " + unit;
    double magnitude = std::fabs(value);
    const std::string sign = value < 0 ? "-" : "";
    if (magnitude < base && magnitude == std::floor(magnitude)) {
        char buffer[48];
        std::snprintf(buffer, sizeof buffer, "%.0f", magnitude);
        return sign + buffer + (bytes ? " B" : "") + suffix;
    }
    double rounded = round3(magnitude);
    std::size_t i = 0;
    while ((magnitude >= base || rounded >= base) && i < 5) {  // 999.6 k is 1.00 M
        magnitude /= base;
        rounded = round3(magnitude);
        ++i;
    }
    return sign + sig3(rounded) + (*names[i] ? std::string(" ") + names[i] : "") + suffix;
}

std::string uri_component(const std::string& text) {
    static const char* hex = "0123456789ABCDEF";
    std::string out;
    for (unsigned char c : text) {
        const bool alphanumeric = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        if (alphanumeric || c == '-' || c == '_' || c == '.' || c == '!' || c == '~' || c == '*' ||
            c == '\'' || c == '(' || c == ')') {
            out += static_cast<char>(c);
        } else {
            out += '%';
            out += hex[c >> 4];
            out += hex[c & 15];
        }
    }
    return out;
}

void write_calltree(HtmlWriter& html, const JsonValue* calltree, const std::string* raw) {
    if (!calltree) return;
    html.newline();
    html.open("section", {{"aria-labelledby", "calltree"}});
    html.element("h2", "Call tree \u00D7 locations", {{"id", "calltree"}});
    const std::vector<const JsonValue*> metrics = objects(calltree->find("metrics"));
    const std::vector<const JsonValue*> callpaths = objects(calltree->find("callpaths"));
    const std::string locations =
        calltree->find("locations_total") ? calltree->find("locations_total")->display() : "";
    html.element(
        "p",
        "As Cube shows a profile: every call path with each metric summed over the " + locations +
            " locations (CPU threads and GPU streams). With JavaScript, \u25B8 expands a call path and "
            "a click on its name shows beside the tree how the metric spreads over the locations; "
            "report.html#callpath=<path> opens one. calltree.json has every figure.",
        {{"class", "note"}});
    notes_of_cuts(html, calltree, "call paths");
    notes_of_cuts(html, calltree, "locations");
    notes_of_cuts(html, calltree, "values");
    html.open("div", {{"class", "ct-layout"}});
    html.open("div", {{"class", "ct-tree scroll"}});
    html.open("table", {{"class", "ct"}, {"id", "ct-table"}});
    html.element("caption", "Call tree: the sums over all locations");
    html.open("thead");
    html.open("tr");
    html.element("th", "call path", {{"scope", "col"}});
    for (const JsonValue* m : metrics) {
        const std::string name = m->find("name") ? m->find("name")->text : "";
        const std::string unit = m->find("unit") ? m->find("unit")->text : "";
        const std::string description = m->find("description") ? m->find("description")->text : "";
        html.element("th", metric_title(name),
                     {{"scope", "col"},
                      {"class", "num"},
                      {"title", name + (unit.empty() ? "" : " (" + unit + ")") +
                                    (description.empty() ? "" : ": " + description)}});
    }
    html.close("tr");
    html.close("thead");
    html.open("tbody");
    for (const JsonValue* cp : callpaths) {
        const auto text = [&](const char* key) {
            return cp->find(key) ? cp->find(key)->display() : std::string();
        };
        const double depth = std::min(cp->find("depth") ? cp->find("depth")->number(0.0) : 0.0, 40.0);
        html.open("tr", {{"data-id", text("id")}});
        html.open("td",
                  {{"class", "ct-name"}, {"style", "padding-left: " + fixed1(0.3 + 1.1 * depth) + "rem"}});
        html.element("a", text("label"),
                     {{"href", "#callpath=" + uri_component(text("callpath"))},
                      {"title", text("callpath") + " (" + text("paradigm") + ")"}});
        html.close("td");
        const JsonValue* sums = cp->find("sum");
        for (std::size_t m = 0; m < metrics.size(); ++m) {
            const JsonValue* sum =
                sums && sums->is_array() && m < sums->items.size() ? &sums->items[m] : nullptr;
            const std::string unit = metrics[m]->find("unit") ? metrics[m]->find("unit")->text : "";
            if (!sum || !sum->is_number()) {
                html.element("td", "", {{"class", "num"}});
                continue;
            }
            html.element("td", human_value(sum->number(NAN), unit),
                         {{"class", "num"}, {"title", sum->display() + (unit.empty() ? "" : " " + unit)}});
        }
        html.close("tr");
        html.newline();
    }
    html.close("tbody");
    html.close("table");
    html.close("div");
    html.open("div", {{"class", "ct-detail"}, {"id", "ct-detail"}, {"aria-live", "polite"}});
    html.element("p",
                 "A click on a call path's name shows its distribution over the locations here (this needs "
                 "JavaScript; calltree.json has the same figures).",
                 {{"class", "note"}});
    html.close("div");
    html.close("div");
    if (raw) embed_data_and_script(html, "calltree-data", *raw, script);
    html.close("section");
}

void write_heatmap(HtmlWriter& html, const JsonValue* calltree) {
    if (!calltree) return;
    const JsonValue* heatmap = calltree->find("heatmap");
    html.newline();
    html.open("section", {{"aria-labelledby", "heatmap"}});
    html.element("h2", "Region \u00D7 rank heatmap", {{"id", "heatmap"}});
    const std::vector<const JsonValue*> rows = objects(heatmap ? heatmap->find("rows") : nullptr);
    const JsonValue* rank_list = heatmap ? heatmap->find("ranks") : nullptr;
    std::vector<std::string> ranks;
    if (rank_list && rank_list->is_array())
        for (const JsonValue& r : rank_list->items) ranks.push_back(r.display());
    if (rows.empty() || ranks.empty()) {
        html.element("p", "No region has exclusive time on a CPU thread.", {{"class", "note"}});
        html.close("section");
        return;
    }
    html.element(
        "p",
        "Exclusive time of the " + std::to_string(rows.size()) +
            " regions with most of it (summed over all CPU threads) on each rank (its CPU threads "
            "summed). Each row has its own scale: the darker a cell, the closer the rank comes to the "
            "region's busiest rank. Values are in the tooltips; calltree.json has them all.",
        {{"class", "note"}});
    notes_of_cuts(html, calltree, "heatmap");
    constexpr int label_width = 250, text_width = 90, cell_height = 18, top = 22, legend_height = 46;
    const int n = static_cast<int>(ranks.size());
    const int cell_width = std::clamp(640 / n, 2, 28);
    constexpr int legend_step = 74, legend_steps = 9;
    const int width =
        std::max(label_width + cell_width * n + text_width, label_width + legend_step * legend_steps + 40);
    const int height = top + cell_height * static_cast<int>(rows.size()) + legend_height;
    std::string svg = "<svg class=\"chart heat\" role=\"img\" viewBox=\"0 0 " + std::to_string(width) + " " +
                      std::to_string(height) + "\" width=\"" + std::to_string(width) + "\" height=\"" +
                      std::to_string(height) + "\"><title>Exclusive time per region and rank</title>\n";
    // Rank numbers above the columns, as many as fit.
    const int every = std::max(1, (22 + cell_width - 1) / cell_width);
    for (int j = 0; j < n; j += every)
        svg += "<text class=\"scale\" x=\"" + fixed1(label_width + (j + 0.5) * cell_width) +
               "\" y=\"14\" "
               "text-anchor=\"middle\">" +
               escape(ranks[static_cast<std::size_t>(j)]) + "</text>";
    svg += "\n";
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const JsonValue* row = rows[i];
        const std::string region = row->find("region") ? row->find("region")->text : "";
        const JsonValue* cells = row->find("ranks_s");
        double largest = 0.0;
        if (cells && cells->is_array())
            for (const JsonValue& c : cells->items) largest = std::max(largest, c.number(0.0));
        const int y = top + static_cast<int>(i) * cell_height;
        const double total = row->find("total_s") ? row->find("total_s")->number(NAN) : NAN;
        svg += "<g><title>" + escape(region + ": " + human_seconds(total) + " over all CPU threads") +
               "</title>";
        svg += "<text x=\"" + std::to_string(label_width - 6) + "\" y=\"" + std::to_string(y + 13) +
               "\" text-anchor=\"end\">" + escape(short_label(region, 34)) + "</text></g>";
        for (int j = 0;
             j < n && cells && cells->is_array() && static_cast<std::size_t>(j) < cells->items.size(); ++j) {
            const JsonValue& c = cells->items[static_cast<std::size_t>(j)];
            const double value = c.number(0.0);
            const double share = largest > 0 ? value / largest : 0.0;
            // Eight steps of the row's scale, and "no time" apart from them.
            const std::string level =
                value > 0 ? "h" + std::to_string(std::min(7, static_cast<int>(share * 8))) : "hz";
            svg +=
                "<rect class=\"" + level + "\" x=\"" + std::to_string(label_width + j * cell_width) +
                "\" y=\"" + std::to_string(y) + "\" width=\"" + std::to_string(cell_width) + "\" height=\"" +
                std::to_string(cell_height - 1) + "\"><title>" +
                escape(region + ", rank " + ranks[static_cast<std::size_t>(j)] + ": " + human_seconds(value) +
                       " (" + c.display() + " s; " + percent(share) + " of the region's busiest rank)") +
                "</title></rect>";
        }
        svg += "<text x=\"" + std::to_string(label_width + cell_width * n + 6) + "\" y=\"" +
               std::to_string(y + 13) + "\">" + escape(human_seconds(total)) + "</text>\n";
    }
    // The legend: every step with its range, so that colour is not the only cue.
    const int legend_y = top + cell_height * static_cast<int>(rows.size()) + 10;
    svg += "<text class=\"scale\" x=\"" + std::to_string(label_width - 6) + "\" y=\"" +
           std::to_string(legend_y + 12) + "\" text-anchor=\"end\">share of the row's busiest rank</text>";
    static const char* const steps[] = {"0",       "< 12.5%", "< 25%",   "< 37.5%",    "< 50%",
                                        "< 62.5%", "< 75%",   "< 87.5%", "\u2264 100%"};
    for (int s = 0; s < legend_steps; ++s) {
        const int x = label_width + s * legend_step;
        svg += "<rect class=\"" + std::string(s == 0 ? "hz" : "h" + std::to_string(s - 1)) + "\" x=\"" +
               std::to_string(x) + "\" y=\"" + std::to_string(legend_y) + "\" width=\"14\" height=\"14\"/>";
        svg += "<text class=\"scale\" x=\"" + std::to_string(x + 17) + "\" y=\"" +
               std::to_string(legend_y + 12) + "\">" + escape(steps[s]) + "</text>";
    }
    svg += "</svg>";
    html.open("div", {{"class", "scroll"}});
    html.raw(svg);
    html.close("div");
    html.close("section");
}

}  // namespace strata::analysis::report
