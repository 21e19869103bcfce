// costmodel/report/svg.cpp — dry_run_svg(): every candidate of every contraction as a bar of
// predicted time (disk, network, kernel of its compute stage, then stages 1 and 3), the chosen
// plan marked, the I/O lower bound as a line.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "costmodel/analysis.h"
#include "costmodel/costmodel.h"
#include "costmodel/method.h"
#include "costmodel/program_plan.h"

namespace tcec::costmodel {

namespace {

constexpr double kWidth = 980, kLabel = 330, kRight = 40, kRow = 20, kBar = 14;
constexpr const char* kColours[4] = {"#4e79a7", "#f28e2b", "#59a14f", "#bab0ac"};  // disk, network, kernel, stages 1/3
constexpr const char* kParts[4] = {"disk", "network", "kernel", "stages 1 and 3"};

std::string escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '&')
      out += "&amp;";
    else if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else if (c == '"')
      out += "&quot;";
    else
      out += c;
  }
  return out;
}

/// One bar: its label, the four parts (seconds) and its predicted total.
struct Bar {
  std::string label;
  double parts[4] = {};
  double total = 0;
  bool chosen = false;
};

/// A round step for about five ticks over [0, most].
double tick_step(double most) {
  const double raw = most / 5, power = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (raw <= m * power) return m * power;
  return 10 * power;
}

/// "inside-replication ABC bcast B overlap", "cosma grid 2x2x1": the method and what tells its
/// candidates apart, from the plan's text.
std::string short_label(const Plan& plan) {
  const std::string text = plan.to_string();
  std::string out = text.substr(0, text.find(' '));
  std::size_t at = 0;
  while ((at = text.find(' ', at)) != std::string::npos) {
    const std::string word = text.substr(at + 1, text.find(' ', at + 1) - at - 1);
    ++at;
    // (fmt, not " " + word: GCC 12's -Wrestrict false positive)
    if (word.rfind("order=", 0) == 0)
      out += fmt::format(" {}", word.substr(6));
    else if (word.rfind("bcast=", 0) == 0)
      out += fmt::format(" bcast {}", word.substr(6));
    else if (word.rfind("grid=", 0) == 0)
      out += fmt::format(" grid {}", word.substr(5));
    else if (word == "overlap=yes")
      out += " overlap";
  }
  return out;
}

std::vector<Bar> bars_of(const ContractionAnalysis& a, const Machine& machine) {
  std::vector<Bar> out;
  std::vector<const PlannedCandidate*> plans;
  for (const Candidate& candidate : a.candidates) plans.push_back(&candidate.plan);
  const bool listed = std::any_of(plans.begin(), plans.end(),
                                  [&](const PlannedCandidate* c) { return c->feasible && c->plan == a.plan().plan; });
  if (a.pinned && !listed) plans.push_back(&a.plan());  // a pinned plan no method proposed
  for (const PlannedCandidate* candidate : plans) {
    const PlannedCandidate& c = *candidate;
    if (!c.feasible || c.volumes.disk_read_bytes.empty()) continue;
    const WallParts w = slowest_wall_parts(c.plan, machine, c.volumes);
    Bar b;
    b.label = short_label(c.plan);
    b.parts[0] = w.disk, b.parts[1] = w.network, b.parts[2] = w.kernel, b.parts[3] = c.redistribution.time_s;
    b.total = c.total_s();
    b.chosen = a.plan().feasible && c.plan == a.plan().plan;
    out.push_back(std::move(b));
  }
  return out;
}

}  // namespace

std::string dry_run_svg(const ProgramPlan& plan) {
  const ir::Program& program = *plan.program;
  const Machine& machine = *plan.machine;
  std::string body;
  double y = 40;
  for (std::size_t i = 0; i < program.statements.size(); ++i) {
    const ir::Statement& s = program.statements[i];
    if (s.operands.size() != 2) continue;
    const ContractionAnalysis& a = *plan.analysis->analyses[i];
    const std::vector<Bar> bars = bars_of(a, machine);
    body += fmt::format("<text class=\"title\" x=\"10\" y=\"{}\">{}:{}: {}</text>\n", y, escape(program.file),
                        s.loc.line, escape(s.source_text));
    y += 30;  // room for the bound's label above the bars
    if (bars.empty()) {
      body += fmt::format("<text x=\"10\" y=\"{}\">no feasible plan: {}</text>\n", y + 12, escape(a.plan().reason));
      y += 40;
      continue;
    }
    const double bound = a.plan().feasible ? io_bound(a, machine).time_s : 0;
    double most = bound;
    for (const Bar& b : bars) most = std::max({most, b.total, b.parts[0] + b.parts[1] + b.parts[2] + b.parts[3]});
    const double step = tick_step(most), axis_end = std::ceil(most / step) * step;
    const double scale = (kWidth - kLabel - kRight) / axis_end;
    const double top = y;
    for (const Bar& b : bars) {
      body += fmt::format("<g class=\"bar{}\"><title>{}: {:.4g} s predicted</title>\n", b.chosen ? " chosen" : "",
                          escape(b.label), b.total);
      body += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\"{}>{}{}</text>\n", kLabel - 8, y + kBar - 3,
                          b.chosen ? " font-weight=\"bold\"" : "", b.chosen ? "chosen: " : "", escape(b.label));
      double x = kLabel;
      for (int p = 0; p < 4; ++p) {
        const double w = b.parts[p] * scale;
        if (w > 0)
          body += fmt::format("<rect class=\"{}\" x=\"{:.1f}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\" fill=\"{}\"/>\n",
                              kParts[p][0] == 's' ? "stages" : kParts[p], x, y, w, kBar, kColours[p]);
        x += w;
      }
      // The predicted total: below the sum of the parts when the plan overlaps them.
      body += fmt::format(
          "<line class=\"total\" x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1}\" y2=\"{2}\" stroke=\"black\" "
          "stroke-width=\"2\"/>\n</g>\n",
          kLabel + b.total * scale, y - 2, y + kBar + 2);
      y += kRow;
    }
    if (bound > 0)
      body += fmt::format(
          "<line class=\"bound\" x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1}\" y2=\"{2}\" stroke=\"#e15759\" "
          "stroke-dasharray=\"4 3\"/>\n<text x=\"{0:.1f}\" y=\"{3}\" fill=\"#e15759\" "
          "text-anchor=\"middle\">I/O lower bound {4:.4g} s</text>\n",
          kLabel + bound * scale, top - 4, y, top - 6, bound);
    for (double t = 0; t <= axis_end * (1 + 1e-9); t += step)  // the axis, in seconds
      body += fmt::format(
          "<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1}\" y2=\"{2}\" stroke=\"#999\"/>\n"
          "<text class=\"tick\" x=\"{0:.1f}\" y=\"{3}\" text-anchor=\"middle\">{4:g}</text>\n",
          kLabel + t * scale, y, y + 4, y + 16, t);
    body += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">predicted time (s)</text>\n",
                        kLabel + (kWidth - kLabel - kRight) / 2, y + 32);
    y += 56;
  }
  std::string legend;
  for (int p = 0; p < 4; ++p)
    legend += fmt::format(
        "<rect x=\"{0}\" y=\"10\" width=\"12\" height=\"12\" fill=\"{1}\"/><text x=\"{2}\" y=\"21\">{3}</text>\n",
        10 + 150 * p, kColours[p], 26 + 150 * p, kParts[p]);
  legend +=
      "<line x1=\"610\" x2=\"610\" y1=\"9\" y2=\"23\" stroke=\"black\" stroke-width=\"2\"/>"
      "<text x=\"616\" y=\"21\">predicted total (overlap: below the sum)</text>\n";
  return fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
      "font-family=\"sans-serif\" font-size=\"11\">\n"
      "<style>.title {{ font-weight: bold; font-size: 12px; }}</style>\n"
      "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n{2}{3}</svg>\n",
      kWidth, static_cast<int>(y), legend, body);
}

}  // namespace tcec::costmodel
