#include "hf/training_words.hpp"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <mutex>
#include <string_view>
#include <unordered_map>

#include "tokenlab/error.hpp"
#include "tokenlab/parallel.hpp"
#include "tokenlab/utf8.hpp"

namespace tokenlab::hf {
namespace {

struct StringHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const noexcept {
    return std::hash<std::string_view>{}(s);
  }
};
using Counts = std::unordered_map<std::string, std::uint64_t, StringHash, std::equal_to<>>;

std::string read_whole(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot read the corpus file");
  std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw Error(path + ": error while reading the corpus file");
  return content;
}

// Chunks of about kChunk bytes that end after a '\n' (or at the end).
std::vector<std::string_view> chunks_of(std::string_view text) {
  constexpr std::size_t kChunk = 1 << 20;
  std::vector<std::string_view> chunks;
  while (!text.empty()) {
    std::size_t end = std::min(text.size(), kChunk);
    const std::size_t newline = text.find('\n', end - 1);
    end = newline == std::string_view::npos ? text.size() : newline + 1;
    chunks.push_back(text.substr(0, end));
    text.remove_prefix(end);
  }
  return chunks;
}

void count_chunk(const PretrainedTokenizer& tokenizer, std::string_view chunk, Counts& counts) {
  while (!chunk.empty()) {
    const std::size_t newline = chunk.find('\n');
    const std::size_t end = newline == std::string_view::npos ? chunk.size() : newline + 1;
    tokenizer.for_each_piece(chunk.substr(0, end), [&](std::string_view piece, bool) {
      const auto it = counts.find(piece);
      if (it != counts.end())
        ++it->second;
      else
        counts.emplace(std::string(piece), 1);
    });
    chunk.remove_prefix(end);
  }
}

}  // namespace

std::vector<HfWordCount> count_training_words(const PretrainedTokenizer& tokenizer,
                                              const std::vector<std::string>& files,
                                              unsigned threads) {
  Counts total;
  std::mutex merge_lock;
  for (const std::string& file : files) {
    const std::string content = read_whole(file);
    if (const auto bad = utf8::find_invalid(content)) {
      const auto line = 1 + std::count(content.begin(),
                                       content.begin() + static_cast<std::ptrdiff_t>(*bad), '\n');
      throw Error(file + ":" + std::to_string(line) + ": not valid UTF-8 (byte " +
                  std::to_string(*bad) + "); HF's trainer refuses such a file too");
    }
    const std::vector<std::string_view> chunks = chunks_of(content);
    parallel_for(chunks.size(), threads, [&](std::size_t c) {
      Counts local;
      count_chunk(tokenizer, chunks[c], local);
      const std::lock_guard<std::mutex> hold(merge_lock);
      if (total.empty()) {
        total = std::move(local);
        return;
      }
      for (auto& [word, count] : local) total[word] += count;
    });
  }
  std::vector<HfWordCount> words;
  words.reserve(total.size());
  for (auto& [word, count] : total) words.push_back({word, count});
  return words;
}

}  // namespace tokenlab::hf
