// tokenlab.compare() and tokenlab.sweep(), and their results: rows as dicts,
// pandas frames, terminal tables and the CLI's report files.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "compare.hpp"
#include "counts.hpp"
#include "keywords.hpp"
#include "progress.hpp"
#include "registry.hpp"
#include "text.hpp"
#include "tokenlab/allocation_report.hpp"
#include "tokenlab/app/option_tables.hpp"
#include "tokenlab/app/workflows.hpp"
#include "tokenlab/compare.hpp"
#include "tokenlab/compare_tables.hpp"
#include "tokenlab/report.hpp"
#include "tokenlab/report_bundle.hpp"
#include "tokenlab/study_tables.hpp"
#include "tokenlab/vocabulary_report.hpp"
#include "vocabulary.hpp"

namespace tokenlab::python {

using namespace tokenlab;
using namespace tokenlab::app;

namespace {

py::object cell_value(const std::string& cell, ColumnKind kind) {
  if (kind == ColumnKind::text) return text(cell);
  if (cell.empty() || cell == "-") return py::none();
  try {
    std::size_t used = 0;
    if (kind == ColumnKind::integer) {
      const long long v = std::stoll(cell, &used);
      if (used == cell.size()) return py::int_(v);
    } else {
      const double v = std::stod(cell, &used);
      if (used == cell.size()) return py::float_(v);
    }
  } catch (const std::exception&) {
  }
  return text(cell);
}

py::list table_rows(const ReportTable& table) {
  py::list rows;
  for (const auto& row : table.rows) {
    py::dict d;
    for (std::size_t c = 0; c < table.columns.size(); ++c)
      d[text(table.columns[c].name)] =
          cell_value(c < row.size() ? row[c] : std::string(), table.columns[c].kind);
    rows.append(d);
  }
  return rows;
}

std::vector<std::string> table_columns(const ReportTable& table) {
  std::vector<std::string> names;
  for (const auto& c : table.columns) names.push_back(c.name);
  return names;
}

std::string terminal_text(const ReportTable& table) {
  std::ostringstream out;
  write_terminal(out, table);
  return std::move(out).str();
}

py::object to_pandas(const ReportTable& table) {
  py::module_ pandas;
  try {
    pandas = py::module_::import("pandas");
  } catch (py::error_already_set&) {
    throw py::import_error("to_pandas() needs pandas (Debian: python3-pandas)");
  }
  return pandas.attr("DataFrame")(table_rows(table), py::arg("columns") = table_columns(table));
}

std::vector<std::string> bundle_paths(const ReportBundle& bundle) {
  for (const auto& w : bundle.warnings)
    if (PyErr_WarnEx(PyExc_RuntimeWarning, ("tokenlab: " + w).c_str(), 1) < 0)
      throw py::error_already_set();
  std::vector<std::string> files;
  for (const auto& f : bundle.files) files.push_back(f.string());
  return files;
}

struct PyCompareResult {
  std::shared_ptr<const CompareResult> result;
};
struct PySweepResult {
  std::shared_ptr<const SweepResult> sweep;
};

// compare and sweep: the request from keyword arguments, resolved as the
// CLI resolves it; notes (the default corpus) are printed on sys.stderr.
template <class Request, class Run>
auto run_experiment(const app::OptionTable<Request>& table, const py::dict& arguments,
                    const py::object& callback, Run&& run) {
  Request experiment;
  apply_keywords(table, experiment, arguments, counts_object(experiment.given_counts));
  const PluginRegistry& registry = registry_for(experiment.plugin_dirs);
  std::vector<std::string> notes;
  resolve_experiment(experiment, registry, [&](const std::string& n) { notes.push_back(n); });
  for (const auto& n : notes)
    py::print(text(n), py::arg("file") = py::module_::import("sys").attr("stderr"));
  PythonProgress progress(callback);
  const ProgressFn report = [&](const std::string& stage, double fraction) {
    progress.report(stage, fraction);
  };
  auto result = progress.run([&] { return run(registry, experiment, report); });
  if (!experiment.report_dir.empty()) result.write(experiment.report_dir);
  return result;
}

struct CompareRun {
  PyCompareResult value;
  void write(const std::string& dir) const {
    (void)bundle_paths(write_compare_reports(dir, *value.result));
  }
};
struct SweepRun {
  PySweepResult value;
  void write(const std::string& dir) const {
    (void)bundle_paths(write_sweep_reports(dir, *value.sweep));
  }
};

PyCompareResult compare(const py::dict& arguments, const py::object& callback) {
  return run_experiment(compare_table(), arguments, callback,
                        [](const PluginRegistry& registry, const CompareRequest& request,
                           const ProgressFn& report) {
                          return CompareRun{{std::make_shared<const CompareResult>(
                              run_compare(registry, request.options, report))}};
                        })
      .value;
}

PySweepResult sweep(const py::dict& arguments, const py::object& callback) {
  return run_experiment(sweep_table(), arguments, callback,
                        [](const PluginRegistry& registry, const SweepRequest& request,
                           const ProgressFn& report) {
                          return SweepRun{{std::make_shared<const SweepResult>(
                              run_sweep(registry, request.options, request.vocab_sizes, report))}};
                        })
      .value;
}

// A property giving one of the allocation's tables as rows (none without --allocation).
auto allocation_rows(ReportTable (*make)(const CompareResult&)) {
  return [make](const PyCompareResult& r) {
    return r.result->allocations.empty() ? py::list() : table_rows(make(*r.result));
  };
}

}  // namespace

void bind_compare(py::module_& m) {
  py::class_<PyCompareResult>(
      m, "CompareResult",
      "The result of tokenlab.compare: rows (dicts with compare.csv's columns), to_pandas(), "
      "write_report(dir); str() is the CLI's table.")
      .def_property_readonly(
          "rows", [](const PyCompareResult& r) { return table_rows(comparison_table(*r.result)); })
      .def_property_readonly(
          "columns",
          [](const PyCompareResult& r) { return table_columns(comparison_table(*r.result)); })
      .def_property_readonly("fairness_rows",
                             [](const PyCompareResult& r) {
                               return r.result->languages.size() > 1
                                          ? table_rows(fairness_table(*r.result))
                                          : py::list();
                             })
      .def_property_readonly(
          "pooled_rows",
          [](const PyCompareResult& r) {
            return r.result->pooled.empty() ? py::list() : table_rows(pooled_table(*r.result));
          })
      // compare(morph_gold=..., inference=...): the CLI's morphology and inference tables.
      .def_property_readonly(
          "morphology_rows",
          [](const PyCompareResult& r) { return table_rows(morphology_table(*r.result)); })
      .def_property_readonly(
          "inference_rows",
          [](const PyCompareResult& r) { return table_rows(inference_table(*r.result)); })
      .def_property_readonly("audit_rows",
                             [](const PyCompareResult& r) {
                               return r.result->audits.empty() ? py::list()
                                                               : table_rows(audit_table(*r.result));
                             })
      .def_property_readonly("agreement_rows",
                             [](const PyCompareResult& r) {
                               return r.result->agreement.empty()
                                          ? py::list()
                                          : table_rows(agreement_table(*r.result));
                             })
      // compare(allocation=True): the CLI's allocation tables.
      .def_property_readonly("allocation_rows", allocation_rows(allocation_table))
      .def_property_readonly("allocation_summary_rows", allocation_rows(allocation_summary_table))
      .def_property_readonly("allocation_pruning_rows", allocation_rows(allocation_pruning_table))
      .def_property_readonly("allocation_entry_rows", allocation_rows(allocation_entries_table))
      .def_property_readonly("agreement_matrices",
                             [](const PyCompareResult& r) {
                               py::dict out;
                               for (const auto& [language, matrix] : r.result->agreement)
                                 out[text(language)] = agreement_as_dict(matrix);
                               return out;
                             })
      .def("to_pandas",
           [](const PyCompareResult& r) { return to_pandas(comparison_table(*r.result)); })
      .def(
          "write_report",
          [](const PyCompareResult& r, const std::filesystem::path& dir) {
            make_report_dir(dir.string());
            return bundle_paths(write_compare_reports(dir, *r.result));
          },
          py::arg("dir"))
      .def("__str__",
           [](const PyCompareResult& r) { return terminal_text(comparison_table(*r.result)); })
      .def("__repr__", [](const PyCompareResult& r) {
        return "<tokenlab.CompareResult: " + std::to_string(r.result->rows.size()) + " rows>";
      });
  py::class_<PySweepResult>(
      m, "SweepResult",
      "The result of tokenlab.sweep: rows (dicts with sweep.csv's columns), runs (a "
      "CompareResult per size), to_pandas(), write_report(dir).")
      .def_property_readonly(
          "rows", [](const PySweepResult& r) { return table_rows(sweep_table(*r.sweep)); })
      .def_property_readonly(
          "columns", [](const PySweepResult& r) { return table_columns(sweep_table(*r.sweep)); })
      .def_property_readonly("vocab_sizes",
                             [](const PySweepResult& r) { return r.sweep->vocab_sizes; })
      .def_property_readonly(
          "runs",
          [](const PySweepResult& r) {
            std::vector<PyCompareResult> runs;
            for (const auto& run : r.sweep->runs)
              runs.push_back({std::shared_ptr<const CompareResult>(r.sweep, &run)});
            return runs;
          })
      .def("to_pandas", [](const PySweepResult& r) { return to_pandas(sweep_table(*r.sweep)); })
      .def(
          "write_report",
          [](const PySweepResult& r, const std::filesystem::path& dir) {
            make_report_dir(dir.string());
            return bundle_paths(write_sweep_reports(dir, *r.sweep));
          },
          py::arg("dir"))
      .def("__str__", [](const PySweepResult& r) { return terminal_text(sweep_table(*r.sweep)); })
      .def("__repr__", [](const PySweepResult& r) {
        return "<tokenlab.SweepResult: " + std::to_string(r.sweep->vocab_sizes.size()) + " sizes>";
      });
  m.def("compare", &compare, py::arg("arguments"), py::arg("progress"));
  m.def("sweep", &sweep, py::arg("arguments"), py::arg("progress"));
}

}  // namespace tokenlab::python
