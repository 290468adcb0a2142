// File: program_options.hpp
// The CLI's side of an option table: a Boost.Program_options description whose
// every value is parsed into the request as it is read, with the table's range
// checked and its help and default shown.
//
//   CompareRequest request;
//   po::options_description desc("options");
//   add_options(desc, compare_table(), request);
//   po::store(po::command_line_parser(argv).options(desc).run(), vm);
//   po::notify(vm);                      // request now holds the values
#pragma once

#include <boost/make_shared.hpp>
#include <boost/program_options.hpp>
#include <charconv>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "tokenlab/app/option_table.hpp"
#include "tokenlab/app/usage_error.hpp"

namespace tokenlab::app {

namespace po = boost::program_options;

/// A numeric option (or a list of them) whose every value is checked against
/// [min, max] as it is parsed. Boost would read "-1" into an unsigned as 2^64-1;
/// here it is a usage error that gives the valid range.
template <class T, class Element = T>
class RangedValue : public po::typed_value<T> {
 public:
  RangedValue(T* target, Element min, Element max)
      : po::typed_value<T>(target), min_(min), max_(max) {}

  void xparse(boost::any& store, const std::vector<std::string>& tokens) const override {
    if constexpr (std::is_same_v<T, Element>) {
      if (tokens.size() != 1) throw po::invalid_option_value("");
      store = boost::any(parse_one(tokens.front()));
    } else {
      if (store.empty()) store = boost::any(T());
      T& list = boost::any_cast<T&>(store);
      // "768 4096", "768,4096" and repeated options all give [768, 4096].
      for (const auto& token : tokens) {
        std::size_t begin = 0;
        for (;;) {
          const std::size_t comma = token.find(',', begin);
          list.push_back(parse_one(token.substr(begin, comma - begin)));
          if (comma == std::string::npos) break;
          begin = comma + 1;
        }
      }
    }
  }

 private:
  Element parse_one(const std::string& token) const {
    Element value{};
    const char* first = token.data();
    const char* last = first + token.size();
    const auto [ptr, ec] = std::from_chars(first, last, value);
    if (ec != std::errc() || ptr != last || first == last || !(value >= min_ && value <= max_)) {
      std::ostringstream message;
      message << "the value '" << token << "' for option '%canonical_option%' is invalid: expected "
              << (std::is_integral_v<Element> ? "an integer" : "a number") << " in [" << min_
              << ", " << max_ << "]";
      throw po::error_with_option_name(message.str());
    }
    return value;
  }

  Element min_;
  Element max_;
};

/// ranged(&n, 1, 100): a numeric option stored in n, valid from 1 to 100.
template <class T>
RangedValue<T>* ranged(T* target, T min, T max = std::numeric_limits<T>::max()) {
  return new RangedValue<T>(target, min, max);
}

/// A table's bound (a double) as the option's own type: the bound a message prints.
template <class T>
T bound_as(double bound) {
  if constexpr (std::is_integral_v<T>) {
    if (bound >= static_cast<double>(std::numeric_limits<T>::max()))
      return std::numeric_limits<T>::max();
    return bound <= 0 ? T{0} : static_cast<T>(bound);
  } else {
    return static_cast<T>(bound);
  }
}

/// Parses one command-line value of a structured option (NAME=FILE,
/// LANG=FILE, ALGO:key=value, key=value, a comma-separated list) into value,
/// adding to what earlier occurrences gave. Throws UsageError naming --option.
void parse_option_text(const std::string& text, const OptionInfo& info,
                       std::vector<NamedPath>& value);
void parse_option_text(const std::string& text, const OptionInfo& info,
                       std::vector<CorpusEntry>& value);
void parse_option_text(const std::string& text, const OptionInfo& info, PluginOptionMap& value);
void parse_option_text(const std::string& text, const OptionInfo& info, KeyValueMap& value);
void parse_option_text(const std::string& text, const OptionInfo& info, OptionalList& value);

/// A structured option's value, parsed by parse_option_text. Not a
/// po::typed_value: that would instantiate Boost's lexical_cast parsing for
/// types it cannot stream.
template <class T>
class StructuredValue : public po::value_semantic_codecvt_helper<char> {
 public:
  StructuredValue(T* target, OptionInfo info) : target_(target), info_(std::move(info)) {}

  [[nodiscard]] std::string name() const override { return "arg"; }
  [[nodiscard]] unsigned min_tokens() const override { return 1; }
  [[nodiscard]] unsigned max_tokens() const override {
    return info_.multitoken ? std::numeric_limits<unsigned>::max() : 1;
  }
  [[nodiscard]] bool is_composing() const override { return false; }
  [[nodiscard]] bool is_required() const override { return info_.required; }
  bool apply_default(boost::any&) const override { return false; }
  void notify(const boost::any& store) const override {
    if (!store.empty()) *target_ = boost::any_cast<const T&>(store);
  }

 protected:
  void xparse(boost::any& store, const std::vector<std::string>& tokens) const override {
    if (store.empty()) store = boost::any(T());
    for (const auto& token : tokens) parse_option_text(token, info_, boost::any_cast<T&>(store));
  }

 private:
  T* target_;
  OptionInfo info_;
};

/// The "(=default)" text --help shows for a value, or "" for none.
template <class T>
std::string default_text(const T& value) {
  if constexpr (std::is_same_v<T, std::string>) {
    return value;
  } else if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
    std::ostringstream out;
    out << value;
    return out.str();
  } else if constexpr (std::is_same_v<T, std::vector<std::size_t>>) {
    std::string text;
    for (const auto v : value) text += (text.empty() ? "" : ",") + std::to_string(v);
    return text;
  } else {
    return "";
  }
}

template <class T>
po::value_semantic* make_semantic(T& target, const OptionInfo& info) {
  if constexpr (std::is_same_v<T, bool>) {
    return po::bool_switch(&target);
  } else if constexpr (!std::is_same_v<T, std::string> && !std::is_arithmetic_v<T> &&
                       !std::is_same_v<T, std::vector<std::string>> &&
                       !std::is_same_v<T, std::vector<std::size_t>>) {
    return new StructuredValue<T>(&target, info);
  } else {
    po::typed_value<T>* value = nullptr;
    if constexpr (std::is_same_v<T, std::string> || std::is_same_v<T, std::vector<std::string>>)
      value = po::value(&target);
    else if constexpr (std::is_arithmetic_v<T>)
      value = new RangedValue<T>(&target, bound_as<T>(info.min), bound_as<T>(info.max));
    else
      value = new RangedValue<T, std::size_t>(&target, bound_as<std::size_t>(info.min),
                                              bound_as<std::size_t>(info.max));
    if (info.required) value->required();
    if (info.multitoken) value->multitoken();
    if (!info.required && info.show_default)
      if (const std::string text = default_text(target); !text.empty())
        value->default_value(target, text);
    return value;
  }
}

/// Adds every option of table to desc, each parsed into request (which must
/// outlive the parse). The request's current values are the defaults shown.
template <class Request>
void add_options(po::options_description& desc, const OptionTable<Request>& table,
                 Request& request) {
  for (const auto& spec : table.specs()) {
    const std::string name =
        spec.info.short_name != 0 ? spec.info.name + "," + spec.info.short_name : spec.info.name;
    std::visit(
        [&](const auto& field) {
          desc.add(boost::make_shared<po::option_description>(
              name.c_str(), make_semantic(field(request), spec.info), spec.info.help.c_str()));
        },
        spec.field);
  }
}

}  // namespace tokenlab::app
