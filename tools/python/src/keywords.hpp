// File: keywords.hpp
// The Python side of an option table (framework/app/option_table.hpp): keyword
// arguments converted straight into a request's typed fields, with the table's
// ranges checked and messages that name the keyword; and each table's
// parameters (keyword, default, help) from which tokenlab/__init__.py makes the
// functions' signatures and docstrings.
#pragma once

#include <pybind11/pybind11.h>

#include <charconv>
#include <cmath>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "tokenlab/app/program_options.hpp"
#include "tokenlab/app/requests.hpp"
#include "tokenlab/app/usage_error.hpp"

namespace tokenlab::python {

namespace py = pybind11;
using app::OptionInfo;

/// Thrown for a value of the wrong Python type (raised as TypeError).
struct KeywordTypeError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

inline std::string argument(const OptionInfo& info) {
  return "argument '" + info.python_keyword() + "'";
}

inline std::string type_name(py::handle value) {
  return py::str(py::type::handle_of(value).attr("__name__"));
}

/// A str, or an os.PathLike as os.fspath gives it.
inline std::string text_of(py::handle value, const OptionInfo& info) {
  if (py::isinstance<py::str>(value)) return value.cast<std::string>();
  if (py::hasattr(value, "__fspath__")) {
    py::object path = py::module_::import("os").attr("fspath")(value);
    if (py::isinstance<py::str>(path)) return path.cast<std::string>();
  }
  throw KeywordTypeError(argument(info) + " must be a str or a path, not " + type_name(value));
}

/// An option value of a dict ({"units": "bytes"}): Python's str(), but true/false for bools,
/// as the CLI spells them.
inline std::string option_text(py::handle value) {
  if (py::isinstance<py::bool_>(value)) return value.cast<bool>() ? "true" : "false";
  if (py::hasattr(value, "__fspath__"))
    return py::str(py::module_::import("os").attr("fspath")(value));
  return py::str(value);
}

/// Items of a list argument: one str/path, or an iterable of them.
inline std::vector<py::handle> items_of(py::handle value) {
  std::vector<py::handle> items;
  if (py::isinstance<py::str>(value) || py::isinstance<py::bytes>(value) ||
      py::hasattr(value, "__fspath__") || !py::isinstance<py::iterable>(value)) {
    items.push_back(value);
    return items;
  }
  for (py::handle item : py::reinterpret_borrow<py::iterable>(value)) items.push_back(item);
  return items;
}

/// The CLI's message for a number out of range, naming the keyword.
template <class T>
[[noreturn]] void out_of_range(const std::string& shown, const OptionInfo& info) {
  std::ostringstream message;
  message << "the value '" << shown << "' for " << argument(info) << " is invalid: expected "
          << (std::is_integral_v<T> ? "an integer" : "a number") << " in ["
          << app::bound_as<T>(info.min) << ", " << app::bound_as<T>(info.max) << "]";
  throw app::UsageError(message.str());
}

/// A number from an int, a float or a str (as the CLI parses it), range-checked.
template <class T>
T number_of(py::handle value, const OptionInfo& info) {
  // True is not a count: refused as the CLI refuses "--vocab-size true".
  if (py::isinstance<py::bool_>(value)) out_of_range<T>(py::str(value), info);
  const T min = app::bound_as<T>(info.min);
  const T max = app::bound_as<T>(info.max);
  if (py::isinstance<py::str>(value)) {
    const std::string token = value.cast<std::string>();
    T parsed{};
    const auto [ptr, ec] = std::from_chars(token.data(), token.data() + token.size(), parsed);
    if (ec != std::errc() || ptr != token.data() + token.size() || token.empty() ||
        !(parsed >= min && parsed <= max))
      out_of_range<T>(token, info);
    return parsed;
  }
  const std::string shown = py::str(value);
  if constexpr (std::is_integral_v<T>) {
    if (!py::isinstance<py::int_>(value)) {
      if (py::isinstance<py::float_>(value)) out_of_range<T>(shown, info);
      throw KeywordTypeError(argument(info) + " must be an int, not " + type_name(value));
    }
    // Compared as Python ints: no C++ conversion can wrap a negative or a huge one.
    if (value < py::int_(min) || value > py::int_(max)) out_of_range<T>(shown, info);
    return value.cast<T>();
  } else {
    if (!py::isinstance<py::int_>(value) && !py::isinstance<py::float_>(value))
      throw KeywordTypeError(argument(info) + " must be a number, not " + type_name(value));
    const double number = value.cast<double>();
    if (!(number >= min && number <= max)) out_of_range<T>(shown, info);
    return static_cast<T>(number);
  }
}

inline void from_python(py::handle value, const OptionInfo& info, std::string& out) {
  out = text_of(value, info);
}

inline void from_python(py::handle value, const OptionInfo& info, bool& out) {
  if (!py::isinstance<py::bool_>(value))
    throw KeywordTypeError(argument(info) + " must be a bool, not " + type_name(value));
  out = value.cast<bool>();
}

template <class T>
requires std::is_arithmetic_v<T> &&
    (!std::is_same_v<T, bool>)void from_python(py::handle value, const OptionInfo& info, T& out) {
  out = number_of<T>(value, info);
}

inline void from_python(py::handle value, const OptionInfo& info, std::vector<std::string>& out) {
  out.clear();
  for (py::handle item : items_of(value)) out.push_back(text_of(item, info));
}

inline void from_python(py::handle value, const OptionInfo& info, std::vector<std::size_t>& out) {
  out.clear();
  if (py::isinstance<py::str>(value)) {
    for (const auto& item : app::split_list(value.cast<std::string>()))
      out.push_back(number_of<std::size_t>(py::str(item), info));
    return;
  }
  for (py::handle item : items_of(value)) out.push_back(number_of<std::size_t>(item, info));
}

inline bool is_mapping(py::handle value) {
  return py::isinstance<py::dict>(value) ||
         py::isinstance(value, py::module_::import("collections.abc").attr("Mapping"));
}

inline py::dict dict_of(py::handle value, const OptionInfo& info, const char* shape) {
  if (!is_mapping(value))
    throw KeywordTypeError(argument(info) + " must be a dict " + shape + ", not " +
                           type_name(value));
  return py::dict(py::reinterpret_borrow<py::object>(value));
}

inline void from_python(py::handle value, const OptionInfo& info,
                        std::vector<app::NamedPath>& out) {
  out.clear();
  for (auto [name, path] : dict_of(value, info, "{name: path}"))
    out.push_back({text_of(name, info), text_of(path, info)});
}

// Files (FILE or LANG=FILE, as on the command line), or {language: file or files}.
inline void from_python(py::handle value, const OptionInfo& info, std::vector<CorpusEntry>& out) {
  out.clear();
  if (is_mapping(value)) {
    for (auto [language, files] : dict_of(value, info, "{language: files}"))
      for (py::handle file : items_of(files))
        out.push_back({text_of(language, info), text_of(file, info)});
    return;
  }
  for (py::handle item : items_of(value)) out.push_back(parse_corpus_entry(text_of(item, info)));
}

inline void from_python(py::handle value, const OptionInfo& info, app::KeyValueMap& out) {
  out.clear();
  for (auto [key, item] : dict_of(value, info, "{key: value}"))
    out[text_of(key, info)] = option_text(item);
}

// {"bpe": {"units": "bytes"}}, or the CLI's "ALGO:key=value" items.
inline void from_python(py::handle value, const OptionInfo& info, app::PluginOptionMap& out) {
  out.clear();
  if (!is_mapping(value)) {
    for (py::handle item : items_of(value)) app::parse_option_text(text_of(item, info), info, out);
    return;
  }
  for (auto [plugin, options] : dict_of(value, info, "{plugin: {key: value}}"))
    for (auto [key, item] : dict_of(options, info, "{plugin: {key: value}}"))
      out[text_of(plugin, info)][text_of(key, info)] = option_text(item);
}

// A list ([] for none), or the CLI's comma-separated string.
inline void from_python(py::handle value, const OptionInfo& info, app::OptionalList& out) {
  out.emplace();
  if (py::isinstance<py::str>(value)) {
    *out = app::split_list(value.cast<std::string>());
    return;
  }
  for (py::handle item : items_of(value)) out->push_back(text_of(item, info));
}

/// Called first for each keyword; returns true when it took the value itself
/// (counts=WordCounts, which no table can declare).
using KeywordHook = std::function<bool(const std::string& keyword, py::handle value)>;

/// Sets request's fields from keyword arguments; None leaves the default.
/// An unknown keyword is a TypeError (the Python layer's signature already
/// refuses them; this guards direct calls).
template <class Request>
void apply_keywords(const app::OptionTable<Request>& table, Request& request,
                    const py::dict& arguments, const KeywordHook& hook = {}) {
  for (auto [key, value] : arguments) {
    const std::string keyword = py::str(key);
    if (value.is_none()) continue;
    if (hook && hook(keyword, value)) continue;
    const auto* spec = table.find_keyword(keyword);
    if (spec == nullptr) throw KeywordTypeError("unexpected keyword argument '" + keyword + "'");
    std::visit([&](const auto& field) { from_python(value, spec->info, field(request)); },
               spec->field);
  }
}

/// A default as Python shows it: None for an empty string or list.
template <class T>
py::object default_of(const T& value) {
  if constexpr (std::is_same_v<T, std::string>) {
    return value.empty() ? py::none() : py::object(py::str(value));
  } else if constexpr (std::is_same_v<T, bool>) {
    return py::bool_(value);
  } else if constexpr (std::is_arithmetic_v<T>) {
    return py::cast(value);
  } else if constexpr (std::is_same_v<T, std::vector<std::size_t>>) {
    if (value.empty()) return py::none();
    py::list list;
    for (const auto v : value) list.append(v);
    return list;
  } else {
    return py::none();
  }
}

/// [(keyword, default, required, help), ...] in the table's order.
template <class Request>
py::list parameters(const app::OptionTable<Request>& table) {
  Request defaults{};
  py::list out;
  for (const auto& spec : table.specs())
    std::visit(
        [&](const auto& field) {
          out.append(py::make_tuple(spec.info.python_keyword(), default_of(field(defaults)),
                                    spec.info.required, spec.info.help));
        },
        spec.field);
  return out;
}

}  // namespace tokenlab::python
