#include "tokenlab/corpus_spec.hpp"

#include <algorithm>
#include <system_error>

#include "tokenlab/default_corpus.hpp"
#include "tokenlab/error.hpp"

namespace tokenlab {

namespace {

void resolve_parallel(const CorpusSpec& spec, CompareOptions& options) {
  const std::string& dir = spec.parallel_dir;
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) throw Error(dir + ": not a directory");
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.path().extension() == ".txt") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  const auto& wanted = spec.languages;
  for (const auto& f : files) {
    const std::string language = f.stem().string();
    if (wanted.empty() || std::find(wanted.begin(), wanted.end(), language) != wanted.end())
      options.languages.push_back({language, {f.string()}});
  }
  for (const auto& w : wanted) {
    const bool found = std::any_of(options.languages.begin(), options.languages.end(),
                                   [&](const LanguageCorpus& l) { return l.language == w; });
    if (!found) throw Error(dir + ": no file " + w + ".txt");
  }
  if (options.languages.size() < 2) throw Error(dir + ": needs at least two LANG.txt files");
  options.aligned = true;
}

void resolve_files(const CorpusSpec& spec, CompareOptions& options) {
  for (const auto& entry : spec.corpus) {
    if (entry.language.empty()) {
      options.corpus_files.push_back(entry.file);
      continue;
    }
    auto it = std::find_if(options.languages.begin(), options.languages.end(),
                           [&](const LanguageCorpus& l) { return l.language == entry.language; });
    if (it == options.languages.end()) it = options.languages.insert(it, {entry.language, {}});
    it->files.push_back(entry.file);
  }
  if (!options.languages.empty() && !options.corpus_files.empty())
    throw Error("label every corpus with LANG=FILE, or none");
  if (options.languages.size() == 1) {
    options.corpus_files = options.languages.front().files;
    options.languages.clear();
  }
}

}  // namespace

CorpusEntry parse_corpus_entry(const std::string& text) {
  const auto eq = text.find('=');
  const bool labelled =
      eq != std::string::npos && eq > 0 && text.substr(0, eq).find('/') == std::string::npos;
  if (!labelled) return {"", text};
  return {text.substr(0, eq), text.substr(eq + 1)};
}

void resolve_corpora(const CorpusSpec& spec, CompareOptions& options) {
  if (!spec.parallel_dir.empty()) {
    if (!spec.corpus.empty()) throw Error("give a corpus or a parallel directory, not both");
    resolve_parallel(spec, options);
  } else {
    resolve_files(spec, options);
  }
}

std::optional<std::filesystem::path> use_default_corpus(CompareOptions& options) {
  if (!options.corpus_files.empty() || !options.languages.empty()) return std::nullopt;
  const auto path = ensure_default_corpus();
  options.corpus_files = {path.string()};
  return path;
}

}  // namespace tokenlab
