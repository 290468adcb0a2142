// A RapidJSON value with its JSON path, for readers whose every error must say
// where in the file it is ("tokenizer.json: model.merges[17]: expected ...").
#pragma once

#include <rapidjson/document.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "tokenlab/error.hpp"

namespace tokenlab::json {

class Value {
 public:
  Value(const rapidjson::Value& value, std::string path, const std::string& file)
      : value_(&value), path_(std::move(path)), file_(&file) {}

  [[nodiscard]] const std::string& path() const noexcept { return path_; }
  [[nodiscard]] const rapidjson::Value& raw() const noexcept { return *value_; }
  [[noreturn]] void fail(const std::string& what) const {
    throw Error(*file_ + ": " + (path_.empty() ? std::string("the document") : path_) + ": " +
                what);
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
                 path_ + "[" + std::to_string(i) + "]", *file_);
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
    return Value(it->value, child_path(name), *file_);
  }
  [[nodiscard]] std::string child_path(std::string_view name) const {
    return path_.empty() ? std::string(name) : path_ + "." + std::string(name);
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
        Value(it->value, child_path(name), *file_)
            .fail("tokenlab does not implement this option of " + type_name());
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

 private:
  const rapidjson::Value* value_;
  std::string path_;
  const std::string* file_;
};

}  // namespace tokenlab::json
