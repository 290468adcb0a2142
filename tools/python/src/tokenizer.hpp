// File: tokenizer.hpp
// tokenlab.Tokenizer: any model (trained, imported or a real tokenizer's file)
// with its ids as Python ints.
#pragma once

#include <pybind11/pybind11.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "text.hpp"
#include "tokenlab/app/any_model.hpp"
#include "tokenlab/error.hpp"

namespace tokenlab::python {

namespace py = pybind11;

struct PyTokenizer {
  AnyModel model;
  // The int of every id, made at the first encode (with the GIL held).
  mutable py::object ints;

  [[nodiscard]] const TextEncoder& encoder() const { return *model.encoder; }

  // id_list with the shared ints.
  [[nodiscard]] py::list ids(const std::vector<TokenId>& values) const {
    if (!ints) {
      const std::size_t n = encoder().vocabulary_size();
      py::list all(static_cast<py::ssize_t>(n));
      for (std::size_t i = 0; i < n; ++i) {
        PyObject* value = PyLong_FromSize_t(i);
        if (value == nullptr) throw py::error_already_set();
        PyList_SET_ITEM(all.ptr(), static_cast<Py_ssize_t>(i), value);
      }
      ints = std::move(all);
    }
    return id_list(values, ints.ptr());
  }

  // The trained tokenizer with the capability, or the CLI's message.
  [[nodiscard]] const Tokenizer& trained_with(Capabilities capability, const char* what) const {
    if (!model.trained || !(model.trained->segmenter().capabilities() & capability))
      throw Error("'" + model.kind + "' does not support " + what);
    return *model.trained;
  }
};

using TokenizerPtr = std::shared_ptr<PyTokenizer>;

/// Tokenizer.encode: one line's ids (a long line encoded on a worker, so that
/// Ctrl-C is answered).
std::vector<TokenId> encode_one(const PyTokenizer& t, std::string_view line);

/// Tokenizer.encode_batch: every line encoded on threads, as lists or one NumPy array.
py::object encode_batch(const PyTokenizer& t, const py::handle& texts, unsigned threads,
                        bool numpy);

/// Registers Tokenizer, load() and train().
void bind_tokenizer(py::module_& m);

}  // namespace tokenlab::python
