// The vocabulary studies of compare --audit and --agreement on tokenizers loaded
// in Python (tokenlab.audit, tokenlab.agreement): the same functions, the same
// names, dicts with the report tables' figures.
#include "vocabulary.hpp"

#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "text.hpp"
#include "tokenizer.hpp"
#include "tokenlab/tokenizer_agreement.hpp"
#include "tokenlab/vocabulary_audit.hpp"

namespace tokenlab::python {

namespace {

py::dict audit_dict(const VocabularyAudit& a) {
  py::dict d;
  d["ids"] = a.ids;
  d["entries"] = a.entries;
  d["single_byte"] = a.single_byte;
  d["partial_utf8"] = a.partial_utf8;
  d["unreachable"] = a.unreachable;
  d["reachability_tested"] = a.reachability_tested;
  d["special"] = a.special;
  d["added"] = a.added;
  d["byte_fallback"] = a.byte_fallback;
  d["continuation"] = a.continuation;
  d["never_used"] = a.evaluated ? py::object(py::int_(a.never_used)) : py::object(py::none());
  d["words"] = a.words;
  d["strr"] = a.words > 0 ? py::object(py::float_(a.retention())) : py::object(py::none());
  d["strr_space"] =
      a.words > 0 ? py::object(py::float_(a.retention_spaced())) : py::object(py::none());
  py::list examples;
  for (const auto& e : a.unreachable_examples) examples.append(text(e));
  d["unreachable_examples"] = examples;
  return d;
}

py::list matrix(const TokenizerAgreement& m, const std::vector<double>& values) {
  py::list rows;
  const std::size_t n = m.labels.size();
  for (std::size_t i = 0; i < n; ++i) {
    py::list row;
    for (std::size_t j = 0; j < n; ++j) row.append(values[i * n + j]);
    rows.append(row);
  }
  return rows;
}

py::dict agreement_dict(const TokenizerAgreement& m) {
  py::dict d;
  py::list labels;
  for (const auto& l : m.labels) labels.append(text(l));
  d["labels"] = labels;
  d["jaccard"] = matrix(m, m.jaccard);
  d["word_agreement"] = matrix(m, m.word_agreement);
  d["boundary_f1"] = matrix(m, m.boundary_f1);
  d["words"] = m.words;
  return d;
}

VocabularyAudit audit(const PyTokenizer& t, const std::vector<std::string>& lines,
                      const std::vector<std::string>& words, unsigned threads) {
  py::gil_scoped_release release;
  return audit_vocabulary(t.encoder(),
                          {.evaluation_lines = lines, .word_list = words, .threads = threads});
}

py::dict agreement(const py::dict& tokenizers, const std::vector<std::string>& lines,
                   unsigned threads) {
  std::vector<std::string> labels;
  std::vector<TokenizerPtr> held;
  std::vector<const TextEncoder*> encoders;
  for (const auto& [name, value] : tokenizers) {
    labels.push_back(py::cast<std::string>(name));
    held.push_back(py::cast<TokenizerPtr>(value));
    encoders.push_back(&held.back()->encoder());
  }
  TokenizerAgreement m;
  {
    py::gil_scoped_release release;
    m = compare_tokenizers(labels, encoders, lines, threads);
  }
  return agreement_dict(m);
}

}  // namespace

void bind_vocabulary(py::module_& m) {
  m.def(
      "audit",
      [](const TokenizerPtr& t, const std::vector<std::string>& lines,
         const std::vector<std::string>& words,
         unsigned threads) { return audit_dict(audit(*t, lines, words, threads)); },
      py::arg("tokenizer"), py::arg("lines") = std::vector<std::string>(),
      py::arg("words") = std::vector<std::string>(), py::arg("threads") = 0);
  m.def("agreement", &agreement, py::arg("tokenizers"), py::arg("lines"), py::arg("threads") = 0);
}

py::dict audit_as_dict(const VocabularyAudit& a) {
  return audit_dict(a);
}

py::dict agreement_as_dict(const TokenizerAgreement& m) {
  return agreement_dict(m);
}

}  // namespace tokenlab::python
