// File: option_table.hpp
// One declaration of each option of a request: its command-line name, its
// Python keyword, its help, its valid range, and where in the request its
// value lives. The default is the request's own member initializer. From a
// table the CLI builds its Program_options description (program_options.hpp)
// and the Python module its keyword arguments and signature
// (tools/python/src/keywords.cpp), so neither front end re-parses the other's
// strings and both check the same ranges.
//
//   OptionTable<TrainRequest> table;
//   table.add({.name = "vocab-size", .short_name = 'v', .help = "..."},
//             &TrainRequest::train, &TrainOptions::vocab_size)
//        .range(1, kMaxVocabSize);
#pragma once

#include <cstddef>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <variant>
#include <vector>

#include "tokenlab/corpus_spec.hpp"

namespace tokenlab::app {

/// NAME=FILE (compare --tokenizer gpt4o=tokenizer.json; Python {"gpt4o": path}).
struct NamedPath {
  std::string name;
  std::string path;
  bool operator==(const NamedPath&) const = default;
};

/// Per-plugin extra options: "bpe" -> {"units": "bytes"} (--option bpe:units=bytes).
using PluginOptionMap = std::map<std::string, std::map<std::string, std::string>>;

/// An algorithm's extra options: {"units": "bytes"} (train --option units=bytes).
using KeyValueMap = std::map<std::string, std::string>;

/// A comma-separated list whose absence means something (the algorithm's own
/// special tokens, every plugin): nullopt when not given, {} when given empty.
using OptionalList = std::optional<std::vector<std::string>>;

/// How a string list option is written: one item per value, or items separated
/// by commas in one value ("--languages en,hi").
enum class ListSyntax { repeated, comma_separated };

/// Everything about an option but where its value lives.
struct OptionInfo {
  /// The CLI's spelling, without dashes: "vocab-size".
  std::string name;
  /// -v; 0 for none.
  char short_name = 0;
  /// The Python keyword; empty: name with '-' spelled '_'.
  std::string keyword{};
  std::string help{};
  bool required = false;
  /// Print "(=default)" in --help; false where the help text says it in words.
  bool show_default = true;
  /// A value for a list option may hold several items ("--corpus a.txt b.txt").
  bool multitoken = false;
  ListSyntax list_syntax = ListSyntax::repeated;
  /// Inclusive numeric range, checked by both front ends.
  double min = 0;
  double max = std::numeric_limits<double>::infinity();

  [[nodiscard]] std::string python_keyword() const;
};

template <class Request, class T>
using FieldOf = std::function<T&(Request&)>;

/// The value types an option can have; each front end converts every one.
template <class Request>
using Field =
    std::variant<FieldOf<Request, std::string>, FieldOf<Request, bool>,
                 FieldOf<Request, std::size_t>, FieldOf<Request, unsigned>,
                 FieldOf<Request, double>, FieldOf<Request, std::vector<std::string>>,
                 FieldOf<Request, std::vector<std::size_t>>,
                 FieldOf<Request, std::vector<NamedPath>>,
                 FieldOf<Request, std::vector<CorpusEntry>>, FieldOf<Request, PluginOptionMap>,
                 FieldOf<Request, KeyValueMap>, FieldOf<Request, OptionalList>>;

template <class Request>
struct OptionSpec {
  OptionInfo info;
  Field<Request> field;
};

/// The type a member pointer points at: int for int Foo::*.
template <class MemberPointer>
struct MemberType;
template <class Member, class Owner>
struct MemberType<Member Owner::*> {
  using type = Member;
};

/// object.*first.*rest...: the field at the end of a path of member pointers.
template <class Object, class First, class... Rest>
auto& follow(Object& object, First first, Rest... rest) {
  if constexpr (sizeof...(Rest) == 0)
    return object.*first;
  else
    return follow(object.*first, rest...);
}

template <class Request>
class OptionTable {
 public:
  /// Declares an option whose value is request.*path[0].*path[1]...:
  /// add(info, &TrainRequest::train, &TrainOptions::vocab_size).
  template <class... Path>
  OptionTable& add(OptionInfo info, Path... path) {
    using Last = std::tuple_element_t<sizeof...(Path) - 1, std::tuple<Path...>>;
    using Value = typename MemberType<Last>::type;
    specs_.push_back({std::move(info), FieldOf<Request, Value>([path...](Request& r) -> Value& {
                        return follow(r, path...);
                      })});
    return *this;
  }

  /// The numeric range of the option declared last.
  OptionTable& range(double min, double max = std::numeric_limits<double>::infinity()) {
    specs_.back().info.min = min;
    specs_.back().info.max = max;
    return *this;
  }

  /// Declares every option of a part of the request (the pipeline settings
  /// several requests embed), the part being request.*part.
  template <class Part, class Owner>
  OptionTable& include(const OptionTable<Part>& table, Part Owner::*part) {
    for (const auto& spec : table.specs())
      std::visit(
          [&](const auto& inner) {
            using Value = std::remove_reference_t<decltype(inner(std::declval<Part&>()))>;
            specs_.push_back(
                {spec.info, FieldOf<Request, Value>(
                                [inner, part](Request& r) -> Value& { return inner(r.*part); })});
          },
          spec.field);
    return *this;
  }

  [[nodiscard]] const std::vector<OptionSpec<Request>>& specs() const { return specs_; }

  /// The option a Python keyword sets, or nullptr.
  [[nodiscard]] const OptionSpec<Request>* find_keyword(std::string_view keyword) const {
    for (const auto& spec : specs_)
      if (spec.info.python_keyword() == keyword) return &spec;
    return nullptr;
  }

 private:
  std::vector<OptionSpec<Request>> specs_;
};

}  // namespace tokenlab::app
