// tokenlab.Tokenizer, tokenlab.load() and tokenlab.train().
#include "tokenizer.hpp"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <optional>
#include <string>
#include <vector>

#include "counts.hpp"
#include "keywords.hpp"
#include "progress.hpp"
#include "registry.hpp"
#include "tokenlab/app/option_tables.hpp"
#include "tokenlab/app/workflows.hpp"
#include "tokenlab/atomic_file.hpp"
#include "tokenlab/train_options.hpp"
#include "tokenlab/vocabulary_segmenter.hpp"

namespace tokenlab::python {

using namespace tokenlab;
using namespace tokenlab::app;

namespace {

std::vector<TokenId> ids_from(const PyTokenizer& t, const py::iterable& ids) {
  const std::size_t vocabulary = t.encoder().vocabulary_size();
  std::vector<TokenId> out;
  for (const auto item : ids) {
    if (!PyLong_Check(item.ptr()) && !PyIndex_Check(item.ptr()))
      throw py::type_error("token ids must be int, not " +
                           std::string(py::str(py::type::handle_of(item).attr("__name__"))));
    const py::int_ value = py::reinterpret_steal<py::int_>(PyNumber_Index(item.ptr()));
    if (!value) throw py::error_already_set();
    const long long id = PyLong_AsLongLong(value.ptr());
    if (id == -1 && PyErr_Occurred()) PyErr_Clear();
    if (id < 0 || static_cast<unsigned long long>(id) >= vocabulary)
      throw Error("token id " + std::string(py::str(item)) + " is outside the vocabulary (size " +
                  std::to_string(vocabulary) + ")");
    out.push_back(static_cast<TokenId>(id));
  }
  return out;
}

py::list vocabulary(const PyTokenizer& t) {
  py::list out;
  const std::size_t n = t.encoder().vocabulary_size();
  for (std::size_t id = 0; id < n; ++id)
    out.append(text(t.encoder().display_piece(static_cast<TokenId>(id))));
  return out;
}

std::vector<TokenId> sample(const PyTokenizer& t, std::string_view line,
                            std::optional<double> dropout, std::optional<double> alpha,
                            std::uint64_t seed) {
  const Tokenizer& trained = t.trained_with(kCapabilitySampling, "sampling");
  if (dropout && !(*dropout >= 0.0 && *dropout <= 1.0))
    throw UsageError("dropout must be in [0, 1], got " + std::to_string(*dropout));
  if (alpha && !(*alpha >= 0.0))
    throw UsageError("alpha must be >= 0, got " + std::to_string(*alpha));
  SamplingOptions options;
  if (dropout) options.dropout = *dropout;
  if (alpha) options.alpha = *alpha;
  std::uint64_t rng = seed;
  std::vector<TokenId> ids;
  trained.for_each_word(line, [&](std::string_view word) {
    trained.segmenter().encode_sampled(word, options, rng, ids);
  });
  check_ids(ids, trained.vocabulary_size(), t.model.kind);
  return ids;
}

py::list nbest(const PyTokenizer& t, std::string_view word, std::size_t k) {
  if (k == 0 || k > kMaxNBest)
    throw UsageError("k must be from 1 to " + std::to_string(kMaxNBest) +
                     " (SentencePiece's limit too), not " + std::to_string(k));
  std::vector<std::vector<std::pair<std::vector<TokenId>, double>>> words;
  if (t.model.pretrained) {
    t.model.pretrained->for_each_nbest(word, k, [&](std::string_view, const auto& candidates) {
      auto& out = words.emplace_back();
      for (const auto& c : candidates) out.emplace_back(c.ids, c.score);
    });
  } else {
    const Tokenizer& trained = t.trained_with(kCapabilityNBest, "n-best segmentation");
    trained.for_each_word(word, [&](std::string_view w) {
      auto& out = words.emplace_back();
      for (auto& c : trained.segmenter().nbest(w, k)) {
        check_ids(c.ids, trained.vocabulary_size(), t.model.kind);
        out.emplace_back(std::move(c.ids), c.score);
      }
    });
  }
  if (words.size() != 1)
    throw UsageError("nbest takes one word, and '" + std::string(word) + "' makes " +
                     std::to_string(words.size()) + " (call it for each word)");
  py::list out;
  for (const auto& [ids, score] : words.front()) out.append(py::make_tuple(id_list(ids), score));
  return out;
}

TokenizerPtr load(const std::string& path, const std::string& format,
                  const std::vector<std::string>& plugin_dirs) {
  const PluginRegistry& registry = registry_for(plugin_dirs);
  auto t = std::make_shared<PyTokenizer>();
  {
    py::gil_scoped_release release;
    t->model = load_any_model(path, registry, format);
  }
  return t;
}

TokenizerPtr train(const py::dict& arguments, const py::object& callback) {
  TrainRequest train;
  apply_keywords(train_table(), train, arguments, counts_object(train.given_counts));
  const PluginRegistry& registry = registry_for(train.plugin_dirs);
  std::shared_ptr<Segmenter> segmenter = prepare_training(registry, train);
  std::vector<std::string> notes;
  const NoteFn note = [&](const std::string& n) { notes.push_back(n); };
  PythonProgress progress(callback);
  PythonObserver observer(progress);
  auto tokenizer = progress.run([&] {
    WordCounts counts = training_counts(
        train,
        [&](std::uint64_t bytes) {
          progress.report("counting: " + std::to_string(bytes >> 20) + " MiB", std::nullopt);
        },
        note);
    progress.report("training " + train.algorithm, 0.0, false);
    return std::make_shared<const Tokenizer>(
        train_tokenizer(segmenter, train, counts, &observer, note));
  });
  for (const auto& n : notes)
    py::print(text(n), py::arg("file") = py::module_::import("sys").attr("stderr"));
  auto t = std::make_shared<PyTokenizer>();
  t->model.trained = tokenizer;
  t->model.encoder = tokenizer;
  t->model.kind = train.algorithm;
  return t;
}

std::vector<std::string> export_model(const PyTokenizer& t, const std::string& path,
                                      const py::dict& arguments) {
  ExportRequest request;
  apply_keywords(export_table(), request, arguments);
  request.check(false);
  if (!t.model.trained)
    throw Error("export writes models tokenlab trained; this is a '" + t.model.kind +
                "' file already");
  check_writable(path);
  std::vector<std::string> notes;
  const ExportedModel exported = export_tokenizer(
      *t.model.trained, request, path, [&](const std::string& n) { notes.push_back(n); });
  write_file_atomically(path, [&](std::ostream& out) { out << exported.written; });
  return notes;
}

}  // namespace

namespace {

using TokenizerClass = py::class_<PyTokenizer, TokenizerPtr>;

// Text to ids and back: encode, tokens, decode, batches, sampling and n-best.
void bind_encoding(TokenizerClass& c) {
  c.def(
       "encode",
       [](const PyTokenizer& t, const py::handle& line) {
         return t.ids(encode_one(t, utf8_of(line, "text")));
       },
       py::arg("text"), "The token ids of one line of text (no special tokens added).")
      .def(
          "tokens",
          [](const PyTokenizer& t, const py::handle& line) {
            const auto ids = encode_one(t, utf8_of(line, "text"));
            py::list out;
            for (TokenId id : ids) out.append(text(t.encoder().display_piece(id)));
            return out;
          },
          py::arg("text"),
          "The tokens of one line of text as readable strings (what 'tokenlab encode "
          "--pieces' prints).")
      .def(
          "decode",
          [](const PyTokenizer& t, const py::iterable& ids) {
            const auto list = ids_from(t, ids);
            return text(t.encoder().decode(list));
          },
          py::arg("ids"), "The text of token ids; an id outside the vocabulary raises InputError.")
      .def("encode_batch", &encode_batch, py::arg("texts"), py::arg("threads") = 0,
           py::arg("numpy") = false,
           "Encodes each text on threads threads (0 = all cores) with the GIL released; results "
           "in input order, as a list of id lists, or with numpy=True as (ids, offsets): one "
           "uint32 array of every id and an int64 array where text i is "
           "ids[offsets[i]:offsets[i + 1]].")
      .def(
          "_time_encode_batch",
          [](const PyTokenizer& t, const std::vector<std::string>& lines, unsigned threads) {
            // For tools/bench/bench-python: the C++ library's encode_batch alone, in
            // this process (the lines were copied before the clock starts).
            py::gil_scoped_release release;
            const auto start = std::chrono::steady_clock::now();
            const auto encoded = t.encoder().encode_batch(lines, capped_threads(threads));
            return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
          },
          py::arg("lines"), py::arg("threads") = 0)
      .def(
          "sample",
          [](const PyTokenizer& t, const py::handle& line, std::optional<double> dropout,
             std::optional<double> alpha, std::uint64_t seed) {
            return t.ids(sample(t, utf8_of(line, "text"), dropout, alpha, seed));
          },
          py::arg("text"), py::arg("dropout") = py::none(), py::arg("alpha") = py::none(),
          py::arg("seed") = 0,
          "A sampled segmentation of text, as 'tokenlab encode --dropout/--alpha --seed': "
          "BPE-dropout probability dropout (BPE), inverse temperature alpha (unigram). Needs the "
          "sampling capability.")
      .def(
          "nbest",
          [](const PyTokenizer& t, const py::handle& word, std::size_t k) {
            return nbest(t, utf8_of(word, "word"), k);
          },
          py::arg("word"), py::arg("k") = 5,
          "The k best segmentations of one word as (ids, score) pairs, best first, as "
          "'tokenlab nbest'. Needs the nbest capability (unigram, SentencePiece unigram).");
}

// What the model is and where it goes: its size, kind, capabilities,
// vocabulary, save and export.
void bind_model(TokenizerClass& c) {
  c.def_property_readonly(
       "vocab_size", [](const PyTokenizer& t) { return t.encoder().vocabulary_size(); },
       "One past the largest id: the rows of an embedding matrix.")
      .def_property_readonly(
          "kind", [](const PyTokenizer& t) { return t.model.kind; },
          "The plugin that trained it ('bpe', ...) or the real tokenizer's format.")
      .def_property_readonly(
          "capabilities",
          [](const PyTokenizer& t) {
            std::vector<std::string> caps;
            if (!t.model.trained) {
              if (t.model.pretrained && t.model.pretrained->pipeline().model->type() == "unigram")
                caps.emplace_back("nbest");
              return caps;
            }
            const Capabilities bits = t.model.trained->segmenter().capabilities();
            if (bits & kCapabilitySampling) caps.emplace_back("sampling");
            if (bits & kCapabilityNBest) caps.emplace_back("nbest");
            if (bits & kCapabilityTrace) caps.emplace_back("trace");
            return caps;
          })
      .def_property_readonly("unknown_id",
                             [](const PyTokenizer& t) { return t.encoder().unknown_id(); })
      .def("vocabulary", &vocabulary,
           "Every token, by id, as readable text (byte-level pieces shown as their bytes).")
      .def(
          "save",
          [](const PyTokenizer& t, const std::filesystem::path& path) {
            if (!t.model.trained)
              throw Error("save writes models tokenlab trained; this '" + t.model.kind +
                          "' tokenizer is its own file already ('tokenlab import' makes a .tkl "
                          "of it)");
            check_writable(path);
            t.model.trained->save(path);
          },
          py::arg("path"), "Saves a model tokenlab trained as a .tkl file (written atomically).")
      .def(
          "export",
          [](const PyTokenizer& t, const std::filesystem::path& path, const py::object& format,
             const py::object& approximate, const py::object& dropout) {
            py::dict arguments;
            arguments["format"] = format;
            arguments["approximate"] = approximate;
            arguments["dropout"] = dropout;
            for (const auto& n : export_model(t, path.string(), arguments))
              py::print(text(n), py::arg("file") = py::module_::import("sys").attr("stderr"));
          },
          py::arg("path"), py::arg("format"), py::arg("approximate") = false,
          py::arg("dropout") = false,
          "Writes the model for another library, as 'tokenlab export': format is "
          "'tokenizer.json', 'tiktoken', 'tiktoken-json', 'sentencepiece' or 'vocab.txt'. "
          "approximate writes a BPE as tiktoken or sentencepiece even where their merge rule may "
          "encode some text differently; dropout writes a BPE's default dropout into "
          "tokenizer.json.")
      .def("__repr__", [](const PyTokenizer& t) {
        return "<tokenlab.Tokenizer " + t.model.kind + ", " +
               std::to_string(t.encoder().vocabulary_size()) + " ids>";
      });
}

}  // namespace

void bind_tokenizer(py::module_& m) {
  TokenizerClass c(
      m, "Tokenizer",
      "A tokenizer: trained by tokenlab.train, or read by tokenlab.load (a .tkl model or a real "
      "model's tokenizer file). Immutable and safe to use from many threads.");
  bind_encoding(c);
  bind_model(c);
  m.def("load", &load, py::arg("path"), py::arg("format"), py::arg("plugin_dirs"));
  m.def("train", &train, py::arg("arguments"), py::arg("progress"));
}

}  // namespace tokenlab::python
