// Report files: tables, plots, the HTML page, and atomic writing.
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "common/skip.hpp"
#include "tokenlab/compare.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/plot.hpp"
#include "tokenlab/plugin_registry.hpp"
#include "tokenlab/report_bundle.hpp"

namespace fs = std::filesystem;
using namespace tokenlab;

namespace {

const std::string kData = TOKENLAB_TEST_DATA_DIR "/experiments";

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

fs::path fresh_dir(const std::string& name) {
  const fs::path dir =
      fs::temp_directory_path() / ("tokenlab-reports-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

CompareResult fixture_result() {
  static PluginRegistry registry;
  static bool loaded = false;
  if (!loaded) registry.load_search_path({TOKENLAB_TEST_PLUGIN_DIR});
  loaded = true;
  CompareOptions o;
  o.languages = {{"en", {kData + "/parallel/en.txt"}}, {"de", {kData + "/parallel/de.txt"}}};
  o.aligned = true;
  o.held_out = 0.3;
  o.training.vocab_size = 120;
  o.training.threads = 1;
  o.algorithms = {"character", "word"};
  return run_compare(registry, o);
}

}  // namespace

TEST_CASE("A compare report directory holds tables, plots and one HTML page", "[reports]") {
  const fs::path dir = fresh_dir("compare");
  const CompareResult result = fixture_result();
  write_compare_reports(dir, result);
  for (const char* name :
       {"compare.csv", "compare.json", "compare.md", "fairness.csv", "report.html"}) {
    CAPTURE(name);
    CHECK(fs::file_size(dir / name) > 0);
  }
  SECTION("every report records what produced it") {
    const std::string json = slurp(dir / "compare.json");
    CHECK(json.find("\"tokenlab version\"") != std::string::npos);
    CHECK(json.find("sha1 ") != std::string::npos);
    CHECK(json.find("\"plugin word\"") != std::string::npos);
    CHECK(slurp(dir / "compare.md").find("normalizer") != std::string::npos);
  }
  SECTION("the HTML page shows each segmenter's tokens as chips with their ids") {
    const std::string html = slurp(dir / "report.html");
    CHECK(html.rfind("<!doctype html>", 0) == 0);
    CHECK(html.find("class=\"tok\"") != std::string::npos);
    CHECK(html.find("class=\"id\"") != std::string::npos);
    CHECK(html.find("How this report was made") != std::string::npos);
    CHECK(html.find("src=\"http") == std::string::npos);  // self-contained
  }
  SECTION("the rows over every language pooled are a table of their own") {
    REQUIRE_FALSE(result.pooled.empty());
    for (const char* name : {"pooled.csv", "pooled.json", "pooled.md"}) {
      CAPTURE(name);
      CHECK(fs::file_size(dir / name) > 0);
    }
    CHECK(slurp(dir / "pooled.csv").find("character") != std::string::npos);
    CHECK(slurp(dir / "report.html").find("tokenlab over all languages pooled") !=
          std::string::npos);
  }
  SECTION("no temporary file is left behind") {
    for (const auto& entry : fs::recursive_directory_iterator(dir))
      CHECK(entry.path().filename().string().find(".tmp-") == std::string::npos);
  }
  fs::remove_all(dir);
}

TEST_CASE("The compare report's plots are SVG drawn by gnuplot", "[reports][gnuplot]") {
  if (!gnuplot_available()) TOKENLAB_SKIP("gnuplot is not on the PATH");
  const fs::path dir = fresh_dir("plots");
  const ReportBundle bundle = write_compare_reports(dir, fixture_result());
  CHECK(bundle.warnings.empty());
  CHECK(slurp(dir / "plots" / "compression.svg").find("<svg") != std::string::npos);
  CHECK(slurp(dir / "plots" / "byte-fallback.svg").find("<svg") != std::string::npos);
  CHECK(slurp(dir / "plots" / "premium.svg").find("<svg") != std::string::npos);
  CHECK(slurp(dir / "report.html").find("<svg") != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("The compare report draws each segmenter's Lorenz curve with its Gini",
          "[reports][gnuplot]") {
  if (!gnuplot_available()) TOKENLAB_SKIP("gnuplot is not on the PATH");
  const fs::path dir = fresh_dir("lorenz");
  const CompareResult result = fixture_result();
  const ReportBundle bundle = write_compare_reports(dir, result);
  CHECK(bundle.warnings.empty());
  const std::string svg = slurp(dir / "plots" / "lorenz.svg");
  CHECK(svg.find("<svg") != std::string::npos);
  CHECK(svg.find("line of equality") != std::string::npos);
  for (const std::string label : {"character", "word"}) {
    CAPTURE(label);
    REQUIRE(result.gini.count(label) == 1);
    char legend[64];
    std::snprintf(legend, sizeof legend, "%s (Gini %.3f)", label.c_str(), result.gini.at(label));
    CHECK(svg.find(legend) != std::string::npos);
  }
  const std::string html = slurp(dir / "report.html");
  CHECK(html.find("Lorenz curves") != std::string::npos);
  CHECK(html.find("line of equality") != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("Without gnuplot the compare report is written with a warning and no plots",
          "[reports]") {
  const CompareResult result = fixture_result();
  const fs::path dir = fresh_dir("no-gnuplot");
  // A PATH with nothing on it: gnuplot_available() asks the shell (/bin/sh).
  const char* old = std::getenv("PATH");
  const std::string saved = old ? old : "";
  ::setenv("PATH", (dir / "empty-bin").c_str(), 1);
  const bool available = gnuplot_available();
  ReportBundle bundle;
  try {
    bundle = write_compare_reports(dir, result);
  } catch (...) {
    ::setenv("PATH", saved.c_str(), 1);
    throw;
  }
  ::setenv("PATH", saved.c_str(), 1);
  CHECK_FALSE(available);
  REQUIRE(bundle.warnings.size() == 1);  // once, not once per plot
  CHECK_THAT(bundle.warnings.front(), Catch::Contains("gnuplot is not installed"));
  for (const char* name : {"compare.csv", "fairness.csv", "pooled.csv", "report.html"}) {
    CAPTURE(name);
    CHECK(fs::file_size(dir / name) > 0);
  }
  CHECK_FALSE(fs::exists(dir / "plots"));
  const std::string html = slurp(dir / "report.html");
  CHECK(html.find("<svg") == std::string::npos);
  CHECK(html.find("tokenlab fairness across languages") != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("The HTML report renders in headless Chromium", "[reports][browser]") {
  const char* candidates[] = {"/usr/bin/chromium", "/usr/bin/chromium-browser"};
  std::string chromium;
  for (const char* c : candidates)
    if (fs::exists(c)) chromium = c;
  if (chromium.empty())
    TOKENLAB_SKIP("chromium is not installed (tools/scripts/check installs it)");
  const fs::path dir = fresh_dir("browser");
  write_compare_reports(dir, fixture_result());
  const fs::path shot = dir / "report.png";
  const std::string command =
      chromium +
      " --headless --no-sandbox --disable-gpu --disable-quic --no-first-run"
      " --disable-background-networking --disable-component-update --disable-sync"
      " --user-data-dir=" +
      (dir / "profile").string() + " --window-size=1280,1600 --screenshot=" + shot.string() +
      " file://" + (dir / "report.html").string() + " >/dev/null 2>&1";
  REQUIRE(std::system(command.c_str()) == 0);
  REQUIRE(fs::exists(shot));
  // A blank page compresses to a few hundred bytes; tables, plots and chips do not.
  CHECK(fs::file_size(shot) > 20000);
  const std::string png = slurp(shot);
  CHECK(png.compare(1, 3, "PNG") == 0);
  fs::remove_all(dir);
}

TEST_CASE("An unwritable report directory is a clear error and leaves no file", "[reports]") {
  const fs::path missing = fs::temp_directory_path() / "tokenlab-no-such-dir" / "deeper";
  fs::remove_all(missing.parent_path());
  CHECK_THROWS_WITH(write_compare_reports(missing, fixture_result()),
                    Catch::Contains("does not exist"));
  CHECK_FALSE(fs::exists(missing.parent_path()));
}

namespace {

fs::path sweep_reports(const std::string& name) {
  static PluginRegistry registry;
  registry.load_search_path({TOKENLAB_TEST_PLUGIN_DIR});
  CompareOptions o;
  o.corpus_files = {kData + "/parallel/en.txt"};
  o.held_out = 0.2;
  o.training.threads = 1;
  o.algorithms = {"character", "word"};
  const SweepResult sweep = run_sweep(registry, o, {20, 40, 80});
  const fs::path dir = fresh_dir(name);
  write_sweep_reports(dir, sweep);
  return dir;
}

}  // namespace

TEST_CASE("A sweep report has a table and an HTML page", "[reports][sweep]") {
  const fs::path dir = sweep_reports("sweep");
  CHECK(fs::file_size(dir / "sweep.csv") > 0);
  CHECK(fs::file_size(dir / "report.html") > 0);
  fs::remove_all(dir);
}

TEST_CASE("A sweep report plots its curves as SVG with gnuplot", "[reports][sweep][gnuplot]") {
  if (!gnuplot_available()) TOKENLAB_SKIP("gnuplot is not on the PATH");
  const fs::path dir = sweep_reports("sweep-plots");
  for (const char* name : {"sweep-tokens-per-character.svg", "sweep-unknown-rate.svg",
                           "sweep-byte-fallback-rate.svg", "sweep-embedding-tradeoff.svg"})
    CHECK(slurp(dir / "plots" / name).find("<svg") != std::string::npos);
  fs::remove_all(dir);
}
