// File: default_corpus.hpp
// The bundled default corpus: the World English Bible (public domain), extracted
// once from Debian's sword-text-web module with diatheke into a cache directory.
#pragma once

#include <filesystem>
#include <iosfwd>

#include "tokenlab/cache_directory.hpp"
#include "tokenlab/export.hpp"

namespace tokenlab {

/// <cache>/web-bible-v2.txt
TOKENLAB_API std::filesystem::path default_corpus_path();
/// Returns default_corpus_path(), extracting it first if missing. Throws Error
/// explaining how to install diatheke and sword-text-web when they are absent.
TOKENLAB_API std::filesystem::path ensure_default_corpus();

/// Cleans `diatheke -f plain -o f` output: drops "Book c:v: " prefixes, bracketed
/// footnotes, lines with markup, the module name line, psalm titles the module
/// repeats before later verses, and everything after Revelation 22:21 (the glossary); collapses
/// spaces. Returns the number of lines written.
TOKENLAB_API std::size_t clean_diatheke_output(std::istream& in, std::ostream& out);

}  // namespace tokenlab
