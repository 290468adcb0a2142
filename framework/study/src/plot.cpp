#include "tokenlab/plot.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "tokenlab/error.hpp"

namespace tokenlab {

namespace {

// gnuplot single-quoted string: only the quote itself needs doubling.
std::string quote(const std::string& s) {
  std::string out = "'";
  for (const char c : s) {
    if (c == '\'') out += '\'';
    out += c;
  }
  return out + "'";
}

// Category names go into data blocks, where white space separates columns.
std::string token(const std::string& s) {
  std::string out;
  for (const char c : s) out += (c == ' ' || c == '\t' || c == '"') ? '_' : c;
  return out.empty() ? "-" : out;
}

std::string number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

}  // namespace

bool gnuplot_available() {
  return std::system("command -v gnuplot >/dev/null 2>&1") == 0;
}

std::string render_svg(const PlotSpec& spec) {
  if (!gnuplot_available())
    throw Error("gnuplot is not installed (Debian: apt-get install gnuplot-nox); plots skipped");
  std::string output = (std::filesystem::temp_directory_path() / "tokenlab-plot-XXXXXX").string();
  const int fd = ::mkstemp(output.data());
  if (fd < 0) throw Error("cannot create a temporary file for a plot");
  ::close(fd);

  std::ostringstream script;
  script << "set terminal svg size 900,520 dynamic enhanced font 'sans,12' background rgb 'white'\n"
         << "set output " << quote(output) << "\n"
         << "set title " << quote(spec.title) << " noenhanced\n"
         << "set xlabel " << quote(spec.x_label) << " noenhanced\n"
         << "set ylabel " << quote(spec.y_label) << " noenhanced\n"
         << "set key outside right top noenhanced\n"
         << "set grid ytics lc rgb '#dddddd'\n";
  if (spec.log_x) script << "set logscale x 2\n";
  if (spec.log_y) script << "set logscale y\n";
  if (spec.style == PlotStyle::lines) {
    for (std::size_t s = 0; s < spec.series.size(); ++s) {
      script << "$d" << s << " << EOD\n";
      for (const auto& [x, y] : spec.series[s].points)
        script << number(x) << ' ' << number(y) << '\n';
      script << "EOD\n";
    }
    if (!spec.diagonal.empty()) script << "set size square\nset xrange [0:1]\nset yrange [0:1]\n";
    script << "plot ";
    for (std::size_t s = 0; s < spec.series.size(); ++s)
      script << (s ? ", " : "") << "$d" << s
             << " using 1:2 with linespoints lw 2 pt 7 ps 0.6 title " << quote(spec.series[s].name);
    if (!spec.diagonal.empty())
      script << (spec.series.empty() ? "" : ", ")
             << "x with lines dt 2 lw 1 lc rgb '#888888' title " << quote(spec.diagonal);
    else if (spec.series.empty())
      script << "NaN notitle";
    script << '\n';
  } else {
    script << "set style data histograms\nset style histogram clustered gap 1\n"
           << "set style fill solid 0.85 border -1\nset boxwidth 0.9\nset yrange [0:*]\n"
           << "set xtics noenhanced rotate by -30\n$d << EOD\n";
    for (std::size_t c = 0; c < spec.categories.size(); ++c) {
      script << token(spec.categories[c]);
      for (const auto& series : spec.series)
        script << ' ' << (c < series.values.size() ? number(series.values[c]) : std::string("NaN"));
      script << '\n';
    }
    script << "EOD\nplot ";
    for (std::size_t s = 0; s < spec.series.size(); ++s)
      script << (s ? ", " : "") << "$d using " << s + 2 << (s == 0 ? ":xtic(1)" : "") << " title "
             << quote(spec.series[s].name);
    if (spec.series.empty()) script << "NaN notitle";
    script << '\n';
  }
  script << "unset output\n";

  FILE* pipe = ::popen("gnuplot 2>/dev/null", "w");
  if (pipe == nullptr) throw Error("cannot run gnuplot");
  const std::string text = script.str();
  std::fwrite(text.data(), 1, text.size(), pipe);
  const int status = ::pclose(pipe);
  std::ifstream in(output, std::ios::binary);
  std::string svg((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::error_code ec;
  std::filesystem::remove(output, ec);
  if (status != 0 || svg.find("<svg") == std::string::npos)
    throw Error("gnuplot failed to draw '" + spec.title + "'");
  return svg;
}

}  // namespace tokenlab
