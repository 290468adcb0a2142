// File: commands/report_dir.hpp
// What compare and sweep say on stderr about the files they wrote to --report-dir.
#pragma once

#include "tokenlab/report_bundle.hpp"

namespace tokenlab::cli {

/// Its warnings, then the path of report.html.
void report_bundle(const ReportBundle& bundle);

}  // namespace tokenlab::cli
