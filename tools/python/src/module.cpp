// tokenlab._tokenlab: the Python module over the C++ library (pybind11).
//
// The Python package (tools/python/tokenlab/__init__.py) passes its keyword
// arguments here as a dict; keywords.hpp converts them into the application
// layer's typed requests (framework/app), whose option tables also give the
// package its signatures, and the requests run through the same workflows as
// the CLI's: the same options, defaults, ranges and checks. Long work
// (training, counting, encode_batch, compare) runs with the GIL released
// (progress.hpp); Ctrl-C stops it by an exception through the plugin and is
// raised in Python as the KeyboardInterrupt it was.
//
// One file per part of the API: counts.cpp (WordCounts, count), tokenizer.cpp
// (Tokenizer, load, train; encode_batch.cpp), compare.cpp (compare, sweep and
// their results); this file registers the errors, plugins and option tables.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "compare.hpp"
#include "counts.hpp"
#include "errors.hpp"
#include "keywords.hpp"
#include "registry.hpp"
#include "tokenizer.hpp"
#include "tokenlab/app/option_tables.hpp"
#include "tokenlab/app/usage_error.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/plugin_abi.hpp"
#include "vocabulary.hpp"

namespace py = pybind11;
using namespace tokenlab;
using namespace tokenlab::app;
using namespace tokenlab::python;

PYBIND11_MODULE(_tokenlab, m) {
  m.doc() = "tokenlab's C++ library (the tokenlab package wraps this module)";
  m.attr("__version__") = TOKENLAB_VERSION;

  // ---- errors
  g_error = PyErr_NewExceptionWithDoc(
      "tokenlab.Error",
      "A tokenlab failure, with the message the CLI prints after 'error: '. Bad input "
      "(arguments, options, file contents) is also a ValueError (InputError), a file that "
      "cannot be read or written also an OSError (FileError).",
      PyExc_Exception, nullptr);
  py::tuple input_bases = py::make_tuple(py::handle(g_error), py::handle(PyExc_ValueError));
  g_input_error = PyErr_NewExceptionWithDoc("tokenlab.InputError",
                                            "Bad input: a tokenlab.Error and a ValueError.",
                                            input_bases.ptr(), nullptr);
  py::tuple file_bases = py::make_tuple(py::handle(g_error), py::handle(PyExc_OSError));
  g_file_error = PyErr_NewExceptionWithDoc(
      "tokenlab.FileError",
      "A file that cannot be read or written: a tokenlab.Error and an OSError.", file_bases.ptr(),
      nullptr);
  m.attr("Error") = py::handle(g_error);
  m.attr("InputError") = py::handle(g_input_error);
  m.attr("FileError") = py::handle(g_file_error);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const python::KeywordTypeError& e) {
      PyErr_SetString(PyExc_TypeError, e.what());
    } catch (const UsageError& e) {
      PyErr_SetString(g_input_error, e.what());
    } catch (const Error& e) {
      PyErr_SetString(is_file_problem(e.what()) ? g_file_error : g_input_error, e.what());
    }
  });

  // ---- plugins
  m.def(
      "plugins",
      [](const std::vector<std::string>& plugin_dirs) {
        py::list out;
        for (const auto& p : registry_for(plugin_dirs).plugins()) {
          std::vector<std::string> caps;
          if (p.capabilities & kCapabilitySampling) caps.emplace_back("sampling");
          if (p.capabilities & kCapabilityNBest) caps.emplace_back("nbest");
          if (p.capabilities & kCapabilityTrace) caps.emplace_back("trace");
          py::dict d;
          d["name"] = p.name;
          d["version"] = p.version;
          d["capabilities"] = caps;
          d["description"] = text(p.description);
          d["file"] = p.file.string();
          out.append(d);
        }
        return out;
      },
      py::arg("plugin_dirs"));
  m.def(
      "plugin_search_path",
      [](const std::vector<std::string>& plugin_dirs) {
        std::vector<std::string> out;
        for (const auto& d : plugin_search_path(plugin_dirs)) out.push_back(d.string());
        return out;
      },
      py::arg("plugin_dirs"));

  bind_counts(m);
  bind_tokenizer(m);
  bind_compare(m);
  bind_vocabulary(m);

  // ---- the option tables: what tokenlab/__init__.py makes signatures and docs of
  m.def(
      "parameters",
      [](const std::string& function) {
        if (function == "count") return python::parameters(count_table());
        if (function == "train") return python::parameters(train_table());
        if (function == "compare") return python::parameters(compare_table());
        if (function == "sweep") return python::parameters(sweep_table());
        if (function == "export") return python::parameters(export_table());
        throw py::value_error("no option table for '" + function + "'");
      },
      py::arg("function"),
      "[(keyword, default, required, help), ...]: the options of a function, from the "
      "application layer's one declaration of each (framework/app/src/option_tables.cpp).");
  m.def("python_keywords", &python_keywords,
        "{cli option name: keyword}: how a message naming --held-out is reworded for Python.");
}
