#include "commands/report_dir.hpp"

#include <iostream>

namespace tokenlab::cli {

void report_bundle(const ReportBundle& bundle) {
  for (const auto& w : bundle.warnings) std::cerr << "warning: " << w << '\n';
  for (const auto& f : bundle.files)
    if (f.filename() == "report.html") std::cerr << "report: " << f.string() << '\n';
}

}  // namespace tokenlab::cli
