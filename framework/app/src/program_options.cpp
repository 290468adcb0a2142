#include "tokenlab/app/program_options.hpp"

#include "tokenlab/app/requests.hpp"

namespace tokenlab::app {

namespace {

std::string flag(const OptionInfo& info) {
  return "--" + info.name;
}

}  // namespace

void parse_option_text(const std::string& text, const OptionInfo& info,
                       std::vector<NamedPath>& value) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw UsageError(flag(info) + " expects NAME=FILE, got '" + text + "'");
  value.push_back({text.substr(0, eq), text.substr(eq + 1)});
}

void parse_option_text(const std::string& text, const OptionInfo&,
                       std::vector<CorpusEntry>& value) {
  value.push_back(parse_corpus_entry(text));
}

void parse_option_text(const std::string& text, const OptionInfo& info, PluginOptionMap& value) {
  const auto colon = text.find(':');
  if (colon == std::string::npos || colon == 0)
    throw UsageError(flag(info) + " expects ALGO:key=value, got '" + text + "'");
  parse_option_text(text.substr(colon + 1), info, value[text.substr(0, colon)]);
}

void parse_option_text(const std::string& text, const OptionInfo& info, KeyValueMap& value) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    throw UsageError(flag(info) + " expects key=value, got '" + text + "'");
  const std::string key = text.substr(0, eq);
  const std::string given = text.substr(eq + 1);
  const auto [it, inserted] = value.emplace(key, given);
  if (!inserted)
    throw UsageError(flag(info) + " " + key + " given twice ('" + it->second + "' and '" + given +
                     "')");
}

void parse_option_text(const std::string& text, const OptionInfo&, OptionalList& value) {
  if (!value) value.emplace();
  for (auto& item : split_list(text)) value->push_back(std::move(item));
}

}  // namespace tokenlab::app
