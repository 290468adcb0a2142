// File: corpus_spec.hpp
// The corpora of a comparison as a user names them, turned into CompareOptions:
// unlabelled files, LANG=FILE entries, or a directory of line-aligned parallel
// text, and the bundled default corpus when nothing is named.
//
//   CorpusSpec spec{.corpus = {parse_corpus_entry("en=en.txt"), {"hi", "hi.txt"}}};
//   resolve_corpora(spec, options);                  // fills options' corpora
//   if (const auto path = use_default_corpus(options)) ...  // nothing named: the bundled one
//
// Shared by every front end (the CLI's compare and sweep, the Python module), so
// each reads "LANG=FILE" and --parallel directories the same way.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "tokenlab/compare.hpp"
#include "tokenlab/export.hpp"

namespace tokenlab {

/// One corpus a user names: a file, or a file labelled with its language.
struct CorpusEntry {
  std::string language;  // empty: unlabelled
  std::string file;
  bool operator==(const CorpusEntry&) const = default;
};

/// "LANG=FILE" or "FILE" as the command line writes them. A LANG holds no '/',
/// so "dir/a=b.txt" is a file.
TOKENLAB_API CorpusEntry parse_corpus_entry(const std::string& text);

struct CorpusSpec {
  /// Unlabelled entries (one corpus, possibly several files) or labelled ones
  /// (several languages); not both kinds.
  std::vector<CorpusEntry> corpus{};
  /// A directory of line-aligned LANG.txt files (parallel text: parity); excludes corpus.
  std::string parallel_dir{};
  /// With parallel_dir: the languages to use, in any order (empty: every LANG.txt).
  std::vector<std::string> languages{};
};

/// Fills options.corpus_files, options.languages and options.aligned from spec.
/// A single LANG=FILE language counts as an unlabelled corpus. Throws Error
/// naming the directory or the entry that is wrong: both kinds of corpus given,
/// unlabelled and labelled entries mixed, a missing parallel directory or
/// language file, fewer than two parallel languages.
TOKENLAB_API void resolve_corpora(const CorpusSpec& spec, CompareOptions& options);

/// If options name no corpus, makes the bundled default corpus the corpus
/// (ensure_default_corpus(): extracted once, then cached) and returns its path.
TOKENLAB_API std::optional<std::filesystem::path> use_default_corpus(CompareOptions& options);

}  // namespace tokenlab
