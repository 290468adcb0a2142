// File: text.hpp
// Strings and id lists between C++ and Python: UTF-8 bytes to str (invalid
// sequences replaced), str to UTF-8 without a copy where Python has it, ids to lists.
#pragma once

#include <pybind11/pybind11.h>

#include <string>
#include <string_view>
#include <vector>

#include "tokenlab/types.hpp"

namespace tokenlab::python {

namespace py = pybind11;

// A Python string from bytes that should be UTF-8 (pieces of a byte-level model
// need not be): invalid sequences become U+FFFD.
inline py::str text(std::string_view bytes) {
  PyObject* s =
      PyUnicode_DecodeUTF8(bytes.data(), static_cast<Py_ssize_t>(bytes.size()), "replace");
  if (s == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(s);
}

// The UTF-8 of a str argument, without a copy (valid while the object lives).
inline std::string_view utf8_of(py::handle object, const char* what) {
  if (!PyUnicode_Check(object.ptr()))
    throw py::type_error(std::string(what) + " must be str, not " +
                         std::string(py::str(py::type::handle_of(object).attr("__name__"))));
  Py_ssize_t size = 0;
  const char* data = PyUnicode_AsUTF8AndSize(object.ptr(), &size);
  if (data == nullptr) throw py::error_already_set();
  return {data, static_cast<std::size_t>(size)};
}

// A list of ids. ints (optional) holds the int object of every id below its
// size, shared instead of making one per token (ints are immutable).
// The UTF-8 of a non-ASCII str from its characters, without the GIL (the str
// must be kept alive). False for a surrogate code point, which has no UTF-8.
inline bool python_utf8(PyObject* str, std::string& out) {
  out.clear();
  const int kind = PyUnicode_KIND(str);
  const void* data = PyUnicode_DATA(str);
  const auto length = static_cast<std::size_t>(PyUnicode_GET_LENGTH(str));
  out.reserve(length * 2);
  for (std::size_t i = 0; i < length; ++i) {
    const Py_UCS4 c = PyUnicode_READ(kind, data, i);
    if (c < 0x80) {
      out += static_cast<char>(c);
    } else if (c < 0x800) {
      out += static_cast<char>(0xC0 | (c >> 6));
      out += static_cast<char>(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
      if (c >= 0xD800 && c <= 0xDFFF) return false;
      out += static_cast<char>(0xE0 | (c >> 12));
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (c & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (c >> 18));
      out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (c & 0x3F));
    }
  }
  return true;
}

inline py::list id_list(const std::vector<TokenId>& ids, PyObject* ints = nullptr) {
  PyObject* list = PyList_New(static_cast<Py_ssize_t>(ids.size()));
  if (list == nullptr) throw py::error_already_set();
  auto out = py::reinterpret_steal<py::list>(list);
  const std::size_t known = ints != nullptr ? static_cast<std::size_t>(PyList_GET_SIZE(ints)) : 0;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    PyObject* value = nullptr;
    if (ids[i] < known) {
      value = PyList_GET_ITEM(ints, static_cast<Py_ssize_t>(ids[i]));
      Py_INCREF(value);
    } else {
      value = PyLong_FromUnsignedLong(ids[i]);
      if (value == nullptr) throw py::error_already_set();
    }
    PyList_SET_ITEM(list, static_cast<Py_ssize_t>(i), value);
  }
  return out;
}

}  // namespace tokenlab::python
