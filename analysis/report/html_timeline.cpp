// SPDX-License-Identifier: BSD-3-Clause
// The "Timeline" section of report.html (see html_timeline.hpp).
#include "report/html_timeline.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "report/html_sections.hpp"
#include "report/json_fields.hpp"

namespace strata::analysis::report {

namespace {

namespace f = fields;

// Draws the lanes on the canvas from the embedded timeline.json.  Times are
// microseconds from the trace start.  The bins give each lane's colour over
// the whole run; inside the detail window (to where a lane's detail ends)
// its region instances are drawn instead, outer first, so the innermost
// region shows, as in the bins.
constexpr const char* script = R"js(
(function () {
  var node = document.getElementById("timeline-data"), canvas = document.getElementById("tl-canvas");
  if (!node || !canvas || !canvas.getContext) return;
  var data = JSON.parse(node.textContent);
  var COLORS = {computation: "#2b7a3d", mpi: "#b8472a", io: "#2f8f9d", openmp: "#7a4fa0", gpu_wait: "#d4a017",
                cuda_api: "#76b900", measurement: "#6b6b6b", mpi_init_finalize: "#9a9a9a", kernel: "#2b5797",
                copy: "#e07b00"};
  var classes = data.classes, bins = data.bins, length = Math.max(data.length_us, 1e-3), lanes = data.lanes;
  var win = data.window, LANE = 16, LABEL = 150, AXIS = 26;
  var ctx = canvas.getContext("2d"), tip = document.getElementById("tl-tip");
  var range = document.getElementById("tl-range"), present = {};
  lanes.forEach(function (lane) {
    Object.keys(lane.shares).forEach(function (name) { present[name] = true; });
    lane.slices = [];
    lane.detailEnd = lane.detail_ends_us === null ? win.end_us : Math.min(win.end_us, lane.detail_ends_us);
    lane.label = "rank " + lane.rank + " \u00b7 " + lane.name;
  });
  data.slices.forEach(function (s) {
    lanes[s[0]].slices.push({region: s[1], cls: s[2], begin: s[3], end: s[3] + s[4]});
    present[classes[s[2]]] = true;
  });
  lanes.forEach(function (lane) {  // nesting depth: the instances come outer first, by begin
    var stack = [];
    lane.slices.forEach(function (s) {
      while (stack.length && stack[stack.length - 1].end <= s.begin && stack[stack.length - 1].begin < s.begin)
        stack.pop();
      s.depth = stack.length;
      stack.push(s);
    });
    lane.byDepth = lane.slices.slice().sort(function (a, b) { return a.depth - b.depth; });
  });
  var legend = document.getElementById("tl-legend");
  classes.forEach(function (name) {
    if (!present[name]) return;
    var key = document.createElement("span"), swatch = document.createElement("i");
    key.className = "tl-key";
    swatch.style.background = COLORS[name];
    key.appendChild(swatch);
    key.appendChild(document.createTextNode(name.replace(/_/g, " ")));
    legend.appendChild(key);
  });
  var view = {from: 0, to: length};
  function width() { return Math.max(canvas.clientWidth, LABEL + 50); }
  function xOf(us) { return LABEL + (us - view.from) / (view.to - view.from) * (width() - LABEL); }
  function timeAt(px) { return view.from + (px - LABEL) / (width() - LABEL) * (view.to - view.from); }
  function fmt(us) {
    var a = Math.abs(us);
    if (a === 0) return "0 s";
    if (a >= 1e6) return (us / 1e6).toPrecision(4) + " s";
    if (a >= 1e3) return (us / 1e3).toPrecision(4) + " ms";
    return (a >= 1 ? us.toPrecision(4) : us.toFixed(3)) + " \u00b5s";
  }
  function draw() {
    var w = width(), h = AXIS + lanes.length * LANE, ratio = window.devicePixelRatio || 1;
    canvas.style.height = h + "px";
    if (canvas.width !== Math.round(w * ratio) || canvas.height !== Math.round(h * ratio)) {
      canvas.width = Math.round(w * ratio);
      canvas.height = Math.round(h * ratio);
    }
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    ctx.clearRect(0, 0, w, h);
    ctx.font = "11px system-ui, sans-serif";
    ctx.save();
    ctx.beginPath();
    ctx.rect(LABEL, 0, w - LABEL, h);
    ctx.clip();
    var binWidth = length / bins;
    lanes.forEach(function (lane, i) {
      var y = AXIS + i * LANE;
      ctx.fillStyle = i % 2 ? "#f4f6fa" : "#ffffff";
      ctx.fillRect(LABEL, y, w - LABEL, LANE);
      // Whole pixels: several bins in one are summed, one bin over several is one rectangle.
      var names = Object.keys(lane.shares), sums = new Array(names.length);
      for (var px = Math.floor(Math.max(LABEL, xOf(0))); px < Math.min(w, xOf(length)); ) {
        var b0 = Math.min(bins - 1, Math.max(0, Math.floor(timeAt(px) / binWidth)));
        var b1 = Math.min(bins - 1, Math.max(b0, Math.ceil(timeAt(px + 1) / binWidth) - 1));
        var next = Math.max(px + 1, Math.round(xOf((b1 + 1) * binWidth)));
        var best = -1, total = 0;
        for (var k = 0; k < names.length; ++k) {
          sums[k] = 0;
          for (var b = b0; b <= b1; ++b) sums[k] += lane.shares[names[k]][b];
          total += sums[k];
          if (sums[k] > 0 && (best < 0 || sums[k] > sums[best])) best = k;
        }
        if (best >= 0) {
          ctx.globalAlpha = 0.2 + 0.8 * Math.min(1, sums[best] / (100 * (b1 - b0 + 1)));
          ctx.fillStyle = COLORS[names[best]];
          ctx.fillRect(px, y + 1, next - px, LANE - 2);
        }
        px = next;
      }
      ctx.globalAlpha = 1;
      var d0 = Math.max(view.from, win.begin_us), d1 = Math.min(view.to, lane.detailEnd);
      if (d1 <= d0 || !lane.slices.length) return;
      var p0 = xOf(d0), p1 = xOf(d1);
      ctx.fillStyle = i % 2 ? "#f4f6fa" : "#ffffff";
      ctx.fillRect(p0, y, Math.max(1, p1 - p0), LANE);
      lane.byDepth.forEach(function (s) {
        if (s.end < d0 || s.begin > d1) return;
        var a = xOf(Math.max(s.begin, d0)), e = xOf(Math.min(s.end, d1));
        ctx.fillStyle = COLORS[classes[s.cls]];
        ctx.fillRect(a, y + 1, Math.max(1, e - a), LANE - 2);
      });
    });
    ctx.strokeStyle = "rgba(20, 20, 20, 0.6)";
    ctx.lineWidth = 1;
    data.messages.forEach(function (m) {
      if (Math.max(m[1], m[3]) < view.from || Math.min(m[1], m[3]) > view.to) return;
      ctx.beginPath();
      ctx.moveTo(xOf(m[1]), AXIS + m[0] * LANE + LANE / 2);
      ctx.lineTo(xOf(m[3]), AXIS + m[2] * LANE + LANE / 2);
      ctx.stroke();
    });
    ctx.setLineDash([3, 3]);
    ctx.strokeStyle = "#444";
    data.iterations_us.forEach(function (us) {
      if (us < view.from || us > view.to) return;
      ctx.beginPath();
      ctx.moveTo(xOf(us) + 0.5, AXIS - 6);
      ctx.lineTo(xOf(us) + 0.5, h);
      ctx.stroke();
    });
    ctx.setLineDash([]);
    // The axis: the detail window as a band, ticks at 1, 2 or 5 times a power of ten.
    ctx.fillStyle = "#dbe6f7";
    var wa = xOf(Math.max(win.begin_us, view.from)), wb = xOf(Math.min(win.end_us, view.to));
    if (wb > wa) ctx.fillRect(wa, 0, Math.max(2, wb - wa), 8);
    var span = view.to - view.from, step = Math.pow(10, Math.floor(Math.log(span / 6) / Math.LN10));
    if (span / step > 30) step *= 5; else if (span / step > 12) step *= 2;
    ctx.fillStyle = "#333";
    ctx.strokeStyle = "#888";
    // Labels in the unit of the view's end, with the decimals the step needs.
    var unit = view.to >= 1e6 ? [1e6, " s"] : view.to >= 1e3 ? [1e3, " ms"] : [1, " \u00b5s"];
    var decimals = Math.min(9, Math.max(0, Math.ceil(-Math.log(step / unit[0]) / Math.LN10 - 1e-9)));
    for (var t = Math.ceil(view.from / step) * step; t <= view.to; t += step) {
      var px = xOf(t);
      ctx.beginPath();
      ctx.moveTo(px + 0.5, 16);
      ctx.lineTo(px + 0.5, AXIS);
      ctx.stroke();
      ctx.fillText((t / unit[0]).toFixed(decimals) + unit[1], px + 3, 19);
    }
    ctx.restore();
    ctx.fillStyle = "#ffffff";
    ctx.fillRect(0, 0, LABEL, h);
    ctx.fillStyle = "#1a1a1a";
    lanes.forEach(function (lane, i) {
      var text = lane.label;
      while (text.length > 4 && ctx.measureText(text).width > LABEL - 8) text = text.slice(0, -2);
      if (text !== lane.label) text = text.slice(0, -1) + "\u2026";
      ctx.fillText(text, 4, AXIS + i * LANE + LANE - 4);
    });
    var detail = win.end_us > view.from && win.begin_us < view.to;
    range.textContent = "Showing " + fmt(view.from) + " \u2013 " + fmt(view.to) + " of " + fmt(length) +
                        (detail ? "; the detail window is in view" : "");
  }
  function show(from, to) {
    var span = Math.min(length, Math.max(to - from, 1e-3));
    from = Math.min(Math.max(from, 0), length - span);
    view.from = from;
    view.to = from + span;
    draw();
  }
  function zoom(factor, at) {
    show(at - (at - view.from) * factor, at - (at - view.from) * factor + (view.to - view.from) * factor);
  }
  Array.prototype.forEach.call(document.querySelectorAll("button[data-tl]"), function (button) {
    button.addEventListener("click", function () {
      var what = button.getAttribute("data-tl"), middle = (view.from + view.to) / 2;
      if (what === "all") show(0, length);
      if (what === "window") show(win.begin_us, win.end_us);
      if (what === "in") zoom(0.5, middle);
      if (what === "out") zoom(2, middle);
    });
  });
  canvas.addEventListener("wheel", function (e) {
    if (document.activeElement !== canvas && !e.ctrlKey) return;  // the page scrolls until the timeline is chosen
    e.preventDefault();
    var box = canvas.getBoundingClientRect();
    zoom(e.deltaY < 0 ? 0.8 : 1.25, timeAt(e.clientX - box.left));
  }, {passive: false});
  canvas.addEventListener("keydown", function (e) {
    var span = view.to - view.from, middle = view.from + span / 2;
    if (e.key === "+" || e.key === "=") zoom(0.5, middle);
    else if (e.key === "-") zoom(2, middle);
    else if (e.key === "0") show(0, length);
    else if (e.key === "ArrowLeft") show(view.from - span / 5, view.to - span / 5);
    else if (e.key === "ArrowRight") show(view.from + span / 5, view.to + span / 5);
    else return;
    e.preventDefault();
  });
  var drag = null;
  canvas.addEventListener("mousedown", function (e) { drag = {x: e.clientX, from: view.from, to: view.to}; });
  window.addEventListener("mouseup", function () { drag = null; });
  function describe(lane, t) {
    var inner = null;
    if (t >= win.begin_us && t < lane.detailEnd)
      lane.slices.forEach(function (s) { if (s.begin <= t && t < s.end && (!inner || s.depth >= inner.depth)) inner = s; });
    if (inner)
      return lane.label + "\n" + data.regions[inner.region] + " (" + classes[inner.cls].replace(/_/g, " ") + "): " +
             fmt(inner.end - inner.begin) + " from " + fmt(inner.begin);
    var b = Math.min(bins - 1, Math.max(0, Math.floor(t / (length / bins)))), parts = [], busy = 0;
    Object.keys(lane.shares).forEach(function (name) {
      var v = lane.shares[name][b];
      if (v > 0) { parts.push(name.replace(/_/g, " ") + " " + v + " %"); busy += v; }
    });
    parts.push("idle " + Math.max(0, 100 - busy) + " %");
    return lane.label + "\n" + fmt(b * length / bins) + " \u2013 " + fmt((b + 1) * length / bins) + ": " +
           parts.join(", ");
  }
  canvas.addEventListener("mousemove", function (e) {
    var box = canvas.getBoundingClientRect(), px = e.clientX - box.left, py = e.clientY - box.top;
    if (drag) {
      var shift = (drag.x - e.clientX) / (width() - LABEL) * (drag.to - drag.from);
      show(drag.from + shift, drag.to + shift);
    }
    var i = Math.floor((py - AXIS) / LANE);
    if (px < LABEL || i < 0 || i >= lanes.length) { tip.hidden = true; return; }
    tip.textContent = describe(lanes[i], timeAt(px));
    tip.hidden = false;
    tip.style.left = Math.min(px + 12, Math.max(0, width() - 260)) + "px";
    tip.style.top = (py + 14) + "px";
  });
  canvas.addEventListener("mouseleave", function () { tip.hidden = true; });
  window.addEventListener("resize", draw);
  draw();
})();
)js";

/// "12.3 ms" from microseconds.
std::string time_of(double microseconds) {
    return std::isfinite(microseconds) ? human_seconds(microseconds * 1e-6) : "";
}

}  // namespace

void write_timeline(HtmlWriter& html, const JsonValue* timeline, const std::string* raw,
                    const JsonValue* iterations, const std::string& experiment) {
    if (!timeline || !raw) return;
    const std::vector<const JsonValue*> lanes = f::objects(timeline->find("lanes"));
    const JsonValue* window = timeline->find("window");
    const JsonValue* slices = timeline->find("slices");
    const JsonValue* messages = timeline->find("messages");
    const std::size_t instances = slices && slices->is_array() ? slices->items.size() : 0;
    const std::size_t sent = messages && messages->is_array() ? messages->items.size() : 0;
    const double left_out = f::number(timeline, "lanes_left_out");
    html.newline();
    html.open("section", {{"aria-labelledby", "timeline"}});
    html.element("h2", "Timeline", {{"id", "timeline"}});
    if (lanes.empty()) {
        html.element("p", "No rank's thread or GPU stream was chosen for the timeline (--timeline-ranks).",
                     {{"class", "note"}});
        html.close("section");
        return;
    }
    std::string lanes_text = "Each lane is a rank's CPU thread or GPU stream: " + std::to_string(lanes.size()) +
                             (lanes.size() == 1 ? " lane" : " lanes");
    if (left_out > 0)
        lanes_text += "; " + f::text(timeline, "lanes_left_out") +
                      " more are left out (--timeline-ranks chooses the ranks shown)";
    html.element("p", lanes_text + ".");
    // Six figures: a window of milliseconds in a run of seconds must not read "from 2.00 s to 2.00 s".
    const double begin = f::number(window, "begin_us"), end = f::number(window, "end_us");
    char bounds[96];
    std::snprintf(bounds, sizeof bounds, "%.6g s to %.6g s", begin * 1e-6, end * 1e-6);
    const std::string from_to = std::string(bounds) + " (" + time_of(end - begin);
    html.element("p", "Over the whole run, each of the " + f::text(timeline, "bins") +
                          " columns of a lane shows what its time went to most: the class of the innermost region, "
                          "as strong as its share of the column (hover for every share). From " + from_to +
                          ", " + f::text(window, "chosen") + ", the blue band above the lanes) each region "
                          "instance and message is drawn (" + std::to_string(instances) +
                          (instances == 1 ? " instance, " : " instances, ") + std::to_string(sent) +
                          (sent == 1 ? " message" : " messages") + " as lines): zoom in there to see them. "
                          "Dashed lines mark the iterations.");
    std::size_t cut = 0;
    std::string first_cut;
    for (const JsonValue* lane : lanes) {
        if (f::number(lane, "detail_left_out") > 0) {
            if (cut++ == 0)
                first_cut = "rank " + f::text(lane, "rank") + ", " + f::text(lane, "name") + " at " +
                            time_of(f::number(lane, "detail_ends_us"));
        }
    }
    if (cut > 0)
        html.element("p", "On " + std::to_string(cut) + (cut == 1 ? " lane" : " lanes") + " the window holds more than " +
                              f::text(window, "slices_per_lane") + " instances, the most a lane embeds: the detail "
                              "ends early there (first: " + first_cut + "). A shorter --timeline-window, or fewer "
                              "--timeline-ranks, shows all of it.",
                     {{"class", "note"}});
    const std::string where = experiment.empty() ? "<experiment>" : experiment;
    html.open("p", {{"class", "note"}});
    html.raw("Another window or other ranks: ");
    html.element("code", "strata-analyze --timeline-window A:B --timeline-ranks 0-3,8 " + where);
    html.raw(" (seconds from the trace start). The whole trace, up to --timeline-events instances: trace.json in "
             "Perfetto (ui.perfetto.dev) or chrome://tracing.");
    html.close("p");
    // The first iterations of the suggested stable range (--iter-start/--iter-stop) as a window.
    const JsonValue* ends = timeline->find("iterations_us");
    const JsonValue* stable = iterations ? iterations->find("stable_range") : nullptr;
    const double first = f::number(stable, "start"), last = f::number(stable, "stop");
    if (ends && ends->is_array() && std::isfinite(first) && std::isfinite(last) && first >= 0 && last >= first) {
        const std::size_t n = ends->items.size();  // key-region ends: iteration i runs from end i-1 to end i
        const auto a = static_cast<std::size_t>(first);
        const std::size_t b = std::min(static_cast<std::size_t>(last), a + 2);
        const double begin_us = a == 0 ? 0.0 : a - 1 < n ? ends->items[a - 1].number(NAN) : NAN;
        const double end_us = b < n ? ends->items[b].number(NAN) : f::number(timeline, "length_us");
        if (std::isfinite(begin_us) && std::isfinite(end_us) && end_us > begin_us) {
            // Seconds to the nanosecond, without trailing zeros.
            const auto seconds = [](double us) {
                char text[48];
                std::snprintf(text, sizeof text, "%.9f", us * 1e-6);
                std::string t = text;
                t.erase(t.find_last_not_of('0') + 1);
                if (!t.empty() && t.back() == '.') t.pop_back();
                return t;
            };
            const std::string window_text = seconds(begin_us) + ":" + seconds(end_us);
            html.open("p", {{"class", "note"}});
            html.raw(a == b ? "Iteration " + std::to_string(a) : "Iterations " + std::to_string(a) + " to " + std::to_string(b));
            html.raw(", the first of the stable range the Iterations section suggests, one by one: ");
            html.element("code", "strata-analyze --timeline-window " + window_text + " " + where);
            html.close("p");
        }
    }
    html.open("div", {{"class", "tl-controls"}});
    html.element("button", "Whole run", {{"type", "button"}, {"data-tl", "all"}});
    html.element("button", "Detail window", {{"type", "button"}, {"data-tl", "window"}});
    html.element("button", "Zoom in", {{"type", "button"}, {"data-tl", "in"}});
    html.element("button", "Zoom out", {{"type", "button"}, {"data-tl", "out"}});
    html.element("span", "", {{"id", "tl-range"}, {"class", "note"}, {"aria-live", "polite"}});
    html.close("div");
    html.element("div", "", {{"id", "tl-legend"}});
    html.open("div", {{"class", "tl-box"}});
    html.element("canvas", "",
                 {{"id", "tl-canvas"},
                  {"tabindex", "0"},
                  {"role", "img"},
                  {"aria-label", "Timeline of " + std::to_string(lanes.size()) + " lanes"}});
    html.element("div", "", {{"id", "tl-tip"}, {"hidden", "hidden"}});
    html.close("div");
    html.element("p",
                 "Drag to move; click the timeline, then zoom with the wheel (or Ctrl and the wheel anywhere), "
                 "+ and \u2212, 0 for the whole run, arrow keys to move.",
                 {{"class", "note"}});
    html.open("noscript");
    html.element("p", "The timeline needs JavaScript; timeline.json holds its data.");
    html.close("noscript");
    embed_data_and_script(html, "timeline-data", *raw, script);
    html.close("section");
}

}  // namespace strata::analysis::report
