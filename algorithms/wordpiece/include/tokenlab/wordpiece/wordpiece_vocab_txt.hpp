// File: wordpiece_vocab_txt.hpp
// The BERT vocab.txt format: one token per line, UTF-8, id = line number from 0.
//
//   std::ifstream in("vocab.txt");
//   std::vector<std::string> tokens = read_vocab_txt(in, "vocab.txt");
//   tokens[100];                        // "[UNK]" in bert-base-uncased
//   write_vocab_txt(std::cout, tokens); // the same bytes back (LF line ends)
//
// Reading accepts LF or CRLF line ends and a missing final newline, and rejects
// (with an Error naming the file and line) empty tokens, invalid UTF-8 and
// duplicate tokens, since any of them would make ids ambiguous.
#pragma once

#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

namespace tokenlab::wordpiece {

/// Reads all tokens of a vocab.txt stream; name is used in error messages.
[[nodiscard]] std::vector<std::string> read_vocab_txt(std::istream& in, const std::string& name);

/// Writes one token per line in the given (id) order. Throws Error if a token is
/// empty or holds a line break, since it could not be read back.
void write_vocab_txt(std::ostream& out, const std::vector<std::string>& tokens);

/// True for tokens BERT vocabularies reserve rather than match in text:
/// "[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "[unused17]", "<S>", "<unk>"...
/// i.e. [name] or <name> where name is ASCII letters, digits and '_' only.
[[nodiscard]] bool is_reserved_token(std::string_view token) noexcept;

}  // namespace tokenlab::wordpiece
