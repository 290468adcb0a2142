// tokenlab.WordCounts (a word counts table, as tokenlab count writes it) and
// tokenlab.count().
#include "counts.hpp"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "progress.hpp"
#include "text.hpp"
#include "tokenlab/app/option_tables.hpp"
#include "tokenlab/app/workflows.hpp"
#include "tokenlab/atomic_file.hpp"

namespace tokenlab::python {

using namespace tokenlab;
using namespace tokenlab::app;

namespace {

struct CountsIterator {
  CountsPtr counts;
  std::size_t next = 0;
};

py::list most_common(const WordCounts& counts, std::optional<std::size_t> n) {
  const auto& entries = counts.entries();
  std::vector<std::size_t> order(entries.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  const std::size_t k = std::min(n.value_or(entries.size()), entries.size());
  // Ties keep first-occurrence order, as collections.Counter does.
  const auto by_count = [&](std::size_t a, std::size_t b) {
    return entries[a].count != entries[b].count ? entries[a].count > entries[b].count : a < b;
  };
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k), order.end(),
                    by_count);
  py::list out;
  for (std::size_t i = 0; i < k; ++i)
    out.append(py::make_tuple(text(entries[order[i]].word), entries[order[i]].count));
  return out;
}

CountsPtr count(const py::dict& arguments, const py::object& callback) {
  CountRequest request;
  apply_keywords(count_table(), request, arguments);
  request.pipeline.resolve();
  const auto& corpus = request.corpus;
  const auto& pipeline = request.pipeline;
  if (corpus.empty()) throw UsageError("give the corpus to count");
  PythonProgress progress(callback);
  return progress.run([&] {
    return std::make_shared<WordCounts>(
        count_corpus_files(corpus, pipeline, [&](std::uint64_t bytes) {
          progress.report("counting: " + std::to_string(bytes >> 20) + " MiB", std::nullopt);
        }));
  });
}

}  // namespace

// counts=WordCounts: the table declares counts files; a table in memory is
// taken here.
python::KeywordHook counts_object(std::shared_ptr<const WordCounts>& given) {
  return [&given](const std::string& keyword, py::handle value) {
    if (keyword != "counts" || !py::isinstance<WordCounts>(value)) return false;
    given = value.cast<CountsPtr>();
    return true;
  };
}

void bind_counts(py::module_& m) {
  py::class_<CountsIterator>(m, "_CountsIterator")
      .def("__iter__", [](py::object self) { return self; })
      .def("__next__", [](CountsIterator& it) {
        const auto& entries = it.counts->entries();
        if (it.next >= entries.size()) throw py::stop_iteration();
        const auto& e = entries[it.next++];
        return py::make_tuple(text(e.word), e.count);
      });
  py::class_<WordCounts, CountsPtr>(
      m, "WordCounts",
      "Distinct pre-tokenized words with their counts, in first-occurrence order (what a "
      "trainer sees of a corpus). Iterating gives (word, count) pairs; counts[word] is 0 for "
      "a word it does not hold; a + b merges (refused for counts made with other settings).")
      .def(py::init<>())
      .def("__len__", &WordCounts::size)
      .def("__iter__",
           [](const CountsPtr& c) {
             return CountsIterator{c, 0};
           })
      .def("__getitem__", [](const WordCounts& c,
                             const py::str& word) { return c.count_of(utf8_of(word, "the word")); })
      .def("__contains__",
           [](const WordCounts& c, const py::object& word) {
             return PyUnicode_Check(word.ptr()) && c.count_of(utf8_of(word, "the word")) > 0;
           })
      .def_property_readonly("total", &WordCounts::total)
      .def_property_readonly("settings", &WordCounts::settings)
      .def("most_common", &most_common, py::arg("n") = py::none(),
           "The n most frequent (word, count) pairs, ties in first-occurrence order (all if n "
           "is None).")
      .def(
          "save",
          [](const WordCounts& c, const std::filesystem::path& path) {
            check_writable(path);
            c.save_tsv(path);
          },
          py::arg("path"), "Writes the counts TSV of 'tokenlab count' (atomically).")
      .def_static(
          "load",
          [](const std::filesystem::path& path) {
            py::gil_scoped_release release;
            return std::make_shared<WordCounts>(WordCounts::load_tsv(path));
          },
          py::arg("path"), "Reads a counts TSV written by save() or 'tokenlab count'.")
      .def("__add__",
           [](const WordCounts& a, const WordCounts& b) {
             auto sum = std::make_shared<WordCounts>(a);
             sum->merge(b);
             return sum;
           })
      .def("__iadd__",
           [](const CountsPtr& a, const WordCounts& b) {
             a->merge(b);
             return a;
           })
      .def("__repr__", [](const WordCounts& c) {
        return "<tokenlab.WordCounts: " + std::to_string(c.size()) + " distinct words, " +
               std::to_string(c.total()) + " occurrences>";
      });
  m.def("count", &count, py::arg("arguments"), py::arg("progress"));
}

}  // namespace tokenlab::python
