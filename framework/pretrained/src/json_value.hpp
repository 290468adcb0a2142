// A RapidJSON value with its JSON path, for readers whose every error must say
// where in the file it is ("tokenizer.json: model.merges[17]: expected ...").
//
// The path is kept as a chain of shared segments and spelled out only when an
// error needs it: a value of depth d costs one segment, not a copy of its d
// ancestors' names (a copied path made 10,000 nested Sequence normalizers take
// 1.95 GB). The readers also refuse nesting over kMaxJsonNesting before parsing.
#pragma once

#include <rapidjson/document.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tokenlab/error.hpp"

namespace tokenlab::json {

class Value {
  // One step of a path: ".name" or "[index]" after its parent's steps.
  struct Segment {
    std::shared_ptr<const Segment> parent;
    std::string name;  // a member name, or the whole path of a root given as text
    std::size_t index = 0;
    bool is_index = false;
  };

 public:
  Value(const rapidjson::Value& value, std::string path, const std::string& file)
      : value_(&value),
        path_(path.empty() ? nullptr
                           : std::make_shared<const Segment>(Segment{nullptr, std::move(path)})),
        file_(&file) {}

  /// The JSON path ("model.merges[17]"), spelled out now; "" for the document.
  [[nodiscard]] std::string path() const {
    std::vector<const Segment*> chain;
    for (const Segment* s = path_.get(); s; s = s->parent.get()) chain.push_back(s);
    std::string out;
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      if ((*it)->is_index) {
        out += "[" + std::to_string((*it)->index) + "]";
      } else {
        if (!out.empty()) out += '.';
        out += (*it)->name;
      }
    }
    return out;
  }
  [[nodiscard]] const rapidjson::Value& raw() const noexcept { return *value_; }
  [[noreturn]] void fail(const std::string& what) const {
    const std::string where = path();
    throw Error(*file_ + ": " + (where.empty() ? std::string("the document") : where) + ": " +
                what);
  }
  /// fail() for element i of this array, which the document need not hold (a
  /// list the parser streamed past it).
  [[noreturn]] void fail_at(std::size_t i, const std::string& what) const {
    Value(*value_, std::make_shared<const Segment>(Segment{path_, {}, i, true}), *file_).fail(what);
  }
  [[nodiscard]] bool is_null() const noexcept { return value_->IsNull(); }
  [[nodiscard]] bool is_object() const noexcept { return value_->IsObject(); }
  [[nodiscard]] bool is_array() const noexcept { return value_->IsArray(); }
  [[nodiscard]] bool is_string() const noexcept { return value_->IsString(); }

  [[nodiscard]] std::string_view string() const {
    if (!value_->IsString()) fail("expected a string, found " + kind());
    return {value_->GetString(), value_->GetStringLength()};
  }
  [[nodiscard]] bool boolean() const {
    if (!value_->IsBool()) fail("expected true or false, found " + kind());
    return value_->GetBool();
  }
  [[nodiscard]] double number() const {
    if (!value_->IsNumber()) fail("expected a number, found " + kind());
    return value_->GetDouble();
  }
  [[nodiscard]] std::uint64_t unsigned_integer() const {
    if (!value_->IsUint64()) fail("expected a non-negative integer, found " + kind());
    return value_->GetUint64();
  }
  [[nodiscard]] std::size_t size() const {
    if (!value_->IsArray()) fail("expected an array, found " + kind());
    return value_->Size();
  }
  [[nodiscard]] Value at(std::size_t i) const {
    return Value((*value_)[static_cast<rapidjson::SizeType>(i)],
                 std::make_shared<const Segment>(Segment{path_, {}, i, true}), *file_);
  }
  /// A member that must be there.
  [[nodiscard]] Value member(std::string_view name) const {
    auto v = find(name);
    if (!v) fail("the member \"" + std::string(name) + "\" is missing");
    return *v;
  }
  /// A member that may be absent; absent and null are both nullopt.
  [[nodiscard]] std::optional<Value> find(std::string_view name) const {
    if (!value_->IsObject()) fail("expected an object, found " + kind());
    const auto it = value_->FindMember(rapidjson::Value(
        rapidjson::StringRef(name.data(), static_cast<rapidjson::SizeType>(name.size()))));
    if (it == value_->MemberEnd() || it->value.IsNull()) return std::nullopt;
    return child(it->value, name);
  }
  /// The path of a member named name, spelled out.
  [[nodiscard]] std::string child_path(std::string_view name) const {
    const std::string here = path();
    return here.empty() ? std::string(name) : here + "." + std::string(name);
  }
  [[nodiscard]] bool boolean_or(std::string_view name, bool fallback) const {
    const auto v = find(name);
    return v ? v->boolean() : fallback;
  }
  [[nodiscard]] std::optional<std::string> optional_string(std::string_view name) const {
    const auto v = find(name);
    if (!v) return std::nullopt;
    return std::string(v->string());
  }
  /// Fails when the object has a member not in allowed: an option tokenlab does not
  /// implement must not be ignored silently.
  template <std::size_t N>
  void only_members(const std::string_view (&allowed)[N]) const {
    if (!value_->IsObject()) fail("expected an object, found " + kind());
    for (auto it = value_->MemberBegin(); it != value_->MemberEnd(); ++it) {
      const std::string_view name(it->name.GetString(), it->name.GetStringLength());
      bool known = false;
      for (const auto a : allowed) known = known || a == name;
      if (!known)
        child(it->value, name).fail("tokenlab does not implement this option of " + type_name());
    }
  }
  [[nodiscard]] std::string type_name() const {
    const auto t = find("type");
    return t && t->is_string() ? std::string(t->string()) : std::string("this component");
  }
  [[nodiscard]] std::string kind() const {
    switch (value_->GetType()) {
      case rapidjson::kNullType:
        return "null";
      case rapidjson::kFalseType:
      case rapidjson::kTrueType:
        return "a boolean";
      case rapidjson::kObjectType:
        return "an object";
      case rapidjson::kArrayType:
        return "an array";
      case rapidjson::kStringType:
        return "a string";
      case rapidjson::kNumberType:
        return "a number";
    }
    return "a value";
  }

  /// Throws Error naming the file, the object's path and the name when an object
  /// anywhere in this value has two members of one name. RapidJSON keeps both and
  /// FindMember returns the first, while serde (HF) takes the last or refuses:
  /// a file that means two things must not be read as one of them silently.
  /// Recursive: callers check the nesting (kMaxJsonNesting) first. except, when
  /// given, is a value inside this one that the caller checks itself (a
  /// vocabulary object, whose reader refuses a token given twice as it goes).
  void refuse_duplicate_members(const rapidjson::Value* except = nullptr) const {
    std::vector<Segment> where;  // the offender's path, innermost step first
    std::string name;
    if (!find_duplicate(*value_, except, where, name)) return;
    std::shared_ptr<const Segment> path = path_;
    for (auto it = where.rbegin(); it != where.rend(); ++it)
      path = std::make_shared<const Segment>(Segment{path, it->name, it->index, it->is_index});
    Value(*value_, std::move(path), *file_)
        .fail("the member \"" + name +
              "\" appears more than once (a JSON object's names must be distinct)");
  }

 private:
  Value(const rapidjson::Value& value, std::shared_ptr<const Segment> path, const std::string& file)
      : value_(&value), path_(std::move(path)), file_(&file) {}
  [[nodiscard]] Value child(const rapidjson::Value& value, std::string_view name) const {
    return Value(value, std::make_shared<const Segment>(Segment{path_, std::string(name)}), *file_);
  }

  // Allocates nothing on the way down: a merges array has 200,000 entries.
  static bool find_duplicate(const rapidjson::Value& raw, const rapidjson::Value* except,
                             std::vector<Segment>& where, std::string& name) {
    if (&raw == except) return false;
    if (raw.IsArray()) {
      for (rapidjson::SizeType i = 0; i < raw.Size(); ++i)
        if ((raw[i].IsObject() || raw[i].IsArray()) &&
            find_duplicate(raw[i], except, where, name)) {
          where.push_back(Segment{nullptr, {}, i, true});
          return true;
        }
      return false;
    }
    if (!raw.IsObject()) return false;
    // Sorted by hash, not by name: a vocabulary object has 200,000 names spread over
    // a 33 MB file, and comparing them in a sort's order missed the cache so often
    // that it added a third to loading GPT-4o's tokenizer.json. Each name is read
    // once, in file order; names compare only where their hashes are equal.
    std::vector<std::pair<std::size_t, std::string_view>> names;
    names.reserve(raw.MemberCount());
    for (auto it = raw.MemberBegin(); it != raw.MemberEnd(); ++it) {
      const std::string_view text(it->name.GetString(), it->name.GetStringLength());
      names.emplace_back(std::hash<std::string_view>{}(text), text);
    }
    std::sort(names.begin(), names.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    for (std::size_t i = 0; i + 1 < names.size(); ++i)
      for (std::size_t j = i + 1; j < names.size() && names[j].first == names[i].first; ++j)
        if (names[j].second == names[i].second) {
          name = std::string(names[i].second);
          return true;
        }
    for (auto it = raw.MemberBegin(); it != raw.MemberEnd(); ++it)
      if ((it->value.IsObject() || it->value.IsArray()) &&
          find_duplicate(it->value, except, where, name)) {
        where.push_back(
            Segment{nullptr, std::string(it->name.GetString(), it->name.GetStringLength())});
        return true;
      }
    return false;
  }

  const rapidjson::Value* value_;
  std::shared_ptr<const Segment> path_;  // null for the document itself
  const std::string* file_;
};

}  // namespace tokenlab::json
