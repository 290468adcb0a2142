#include "tokenlab/conformance.hpp"

#include <algorithm>
#include <sstream>

#include "tokenlab/error.hpp"
#include "tokenlab/normalizer.hpp"
#include "tokenlab/parallel.hpp"
#include "tokenlab/plugin_registry.hpp"
#include "tokenlab/pre_tokenizer.hpp"
#include "tokenlab/word_counts.hpp"

namespace tokenlab {

namespace {

// A small multilingual corpus: Latin, Cyrillic, Greek, Devanagari, CJK, Arabic,
// digits, punctuation and emoji, so plugins meet multi-byte text from the start.
constexpr const char* kCorpus[] = {
    "In the beginning God created the heavens and the earth.",
    "The earth was formless and empty. Darkness was on the surface of the deep.",
    "God said, \"Let there be light,\" and there was light.",
    "Lower, lowest, newer, newest, wider, widest: the textbook words of byte-pair encoding.",
    "Tokenizers split 12,345 words into 67.8% fewer pieces -- or do they?",
    "В начале сотворил Бог небо и землю.",
    "Ἐν ἀρχῇ ἐποίησεν ὁ θεὸς τὸν οὐρανὸν καὶ τὴν γῆν.",
    "आरम्भ में परमेश्वर ने आकाश और पृथ्वी की सृष्टि की।",
    "起初，神创造天地。地是空虚混沌，渊面黑暗。",
    "في البدء خلق الله السماوات والأرض.",
    "Emoji too: 🙂 👍🏽 and a family 👨‍👩‍👧 in one line.",
    "The quick brown fox jumps over the lazy dog; the lazy dog sleeps.",
};

WordCounts conformance_counts(const PreTokenizer& pre_tokenizer) {
  Normalizer normalizer;
  WordCounts counts;
  std::string scratch;
  for (int repeat = 0; repeat < 3; ++repeat)
    for (const char* line : kCorpus)
      pre_tokenizer.split(normalizer.normalize(line), scratch,
                          [&](std::string_view w) { counts.add(w); });
  return counts;
}

std::string saved_bytes(const Segmenter& s) {
  std::ostringstream out;
  s.save(out);
  return std::move(out).str();
}

// encode() must append: the ids of each word go after whatever the caller already
// holds (a Tokenizer encodes a whole line into one vector). A sentinel in front
// catches implementations that clear or overwrite the output.
constexpr TokenId kSentinel = 0xFFFFFFFFu;

std::vector<std::vector<TokenId>> encode_all(const Segmenter& s, const WordCounts& counts) {
  std::vector<std::vector<TokenId>> out;
  out.reserve(counts.size());
  std::vector<TokenId> ids;
  for (const auto& e : counts.entries()) {
    ids.assign(1, kSentinel);
    s.encode(e.word, ids);
    if (ids.empty() || ids.front() != kSentinel)
      throw Error("encode() must append to its output, but it cleared or overwrote it");
    out.emplace_back(ids.begin() + 1, ids.end());
  }
  return out;
}

}  // namespace

std::vector<ConformanceCheck> run_conformance(const PluginRegistry& registry,
                                              const std::string& plugin_name) {
  std::vector<ConformanceCheck> results;
  const auto record = [&](std::string check, bool passed, std::string detail = {}) {
    results.push_back({std::move(check), passed, std::move(detail)});
    return passed;
  };
  const auto attempt = [&](const std::string& check, auto&& fn) {
    try {
      std::string detail;
      const bool ok = fn(detail);
      return record(check, ok, detail);
    } catch (const std::exception& e) {
      return record(check, false, std::string("threw: ") + e.what());
    } catch (...) {
      return record(check, false, "threw something that is not a std::exception");
    }
  };

  PreTokenizer pre_tokenizer;
  const WordCounts counts = conformance_counts(pre_tokenizer);
  TrainOptions options;
  options.vocab_size = 300;
  options.threads = 1;

  std::unique_ptr<Segmenter> segmenter;
  if (!attempt("creates a segmenter", [&](std::string& d) {
        segmenter = registry.create(plugin_name);
        d = segmenter->name() + " " + segmenter->version();
        return segmenter->name() == plugin_name;
      }))
    return results;
  if (!attempt("trains on a small multilingual corpus", [&](std::string& d) {
        segmenter->train(counts, options, nullptr);
        d = "vocabulary size " + std::to_string(segmenter->vocabulary().size());
        return !segmenter->vocabulary().empty() &&
               segmenter->vocabulary().size() <= options.vocab_size;
      }))
    return results;

  std::vector<std::vector<TokenId>> encodings;
  if (!attempt("encode() appends each word's ids to its output", [&](std::string& d) {
        encodings = encode_all(*segmenter, counts);
        d = std::to_string(encodings.size()) + " words";
        return true;
      }))
    return results;
  attempt("vocabulary ids are dense and lookups agree both ways", [&](std::string& d) {
    const auto& v = segmenter->vocabulary();
    for (TokenId id = 0; id < v.size(); ++id)
      if (v.find(v.piece(id)) != id) {
        d = "piece of id " + std::to_string(id) + " maps back to another id";
        return false;
      }
    return true;
  });
  attempt("every id is below the vocabulary size", [&](std::string& d) {
    for (const auto& ids : encodings)
      for (const TokenId id : ids)
        if (id >= segmenter->vocabulary().size()) {
          d = "id " + std::to_string(id) + " >= " + std::to_string(segmenter->vocabulary().size());
          return false;
        }
    return true;
  });
  attempt("decode(encode(w)) == w when no unknown token appears", [&](std::string& d) {
    const auto unknown = segmenter->vocabulary().unknown_id();
    std::size_t checked = 0;
    for (std::size_t i = 0; i < encodings.size(); ++i) {
      const auto& ids = encodings[i];
      if (unknown && std::find(ids.begin(), ids.end(), *unknown) != ids.end()) continue;
      ++checked;
      const std::string back = segmenter->decode(ids);
      if (back != counts.entries()[i].word) {
        d = "'" + counts.entries()[i].word + "' came back as '" + back + "'";
        return false;
      }
    }
    d = std::to_string(checked) + " of " + std::to_string(encodings.size()) +
        " words without unknown tokens";
    return checked > 0;
  });
  attempt("training is deterministic: identical model bytes at 1 and 2 threads",
          [&](std::string& d) {
            auto other = registry.create(plugin_name);
            TrainOptions two = options;
            two.threads = 2;
            other->train(counts, two, nullptr);
            const bool same = saved_bytes(*other) == saved_bytes(*segmenter);
            if (!same) d = "save() bytes differ";
            return same;
          });
  attempt("save then load gives identical encodings", [&](std::string& d) {
    std::stringstream buffer;
    segmenter->save(buffer);
    auto loaded = registry.create(plugin_name);
    loaded->load(buffer);
    const bool same = encode_all(*loaded, counts) == encodings &&
                      loaded->vocabulary().pieces() == segmenter->vocabulary().pieces();
    if (!same) d = "encodings or vocabulary differ after load";
    return same;
  });
  attempt("load rejects garbage with an error, not a crash", [&](std::string& d) {
    auto loaded = registry.create(plugin_name);
    std::istringstream garbage("this is not a model payload at all");
    try {
      loaded->load(garbage);
    } catch (const std::exception& e) {
      d = e.what();
      return true;
    }
    d = "load() accepted garbage";
    return false;
  });
  attempt("concurrent encoding equals serial encoding", [&](std::string& d) {
    // parallel_for joins every thread before an exception leaves, so a throwing
    // plugin fails this check instead of terminating the checker.
    std::vector<std::vector<std::vector<TokenId>>> per_thread(8);
    parallel_for(per_thread.size(), static_cast<unsigned>(per_thread.size()), [&](std::size_t t) {
      for (int round = 0; round < 20; ++round) per_thread[t] = encode_all(*segmenter, counts);
    });
    for (const auto& out : per_thread)
      if (out != encodings) {
        d = "a thread saw different ids";
        return false;
      }
    return true;
  });
  attempt("the empty word encodes to no tokens", [&](std::string& d) {
    std::vector<TokenId> ids;
    segmenter->encode("", ids);
    d = std::to_string(ids.size()) + " ids";
    return ids.empty() && segmenter->decode(ids).empty();
  });
  attempt("a 1 MB single word encodes", [&](std::string& d) {
    std::string word(kBoundaryMarker);
    while (word.size() < (1u << 20)) word += "lowestnewerwider";
    std::vector<TokenId> ids;
    segmenter->encode(word, ids);
    const auto unknown = segmenter->vocabulary().unknown_id();
    const bool has_unknown = unknown && std::find(ids.begin(), ids.end(), *unknown) != ids.end();
    d = std::to_string(ids.size()) + " ids";
    return !ids.empty() && (has_unknown || segmenter->decode(ids) == word);
  });
  attempt("an unknown option is rejected with a message naming it", [&](std::string& d) {
    auto other = registry.create(plugin_name);
    TrainOptions bad = options;
    bad.extra["no_such_option"] = "1";
    try {
      other->train(counts, bad, nullptr);
    } catch (const Error& e) {
      d = e.what();
      return d.find("no_such_option") != std::string::npos && d.find("valid") != std::string::npos;
    }
    d = "train() accepted no_such_option=1";
    return false;
  });
  return results;
}

}  // namespace tokenlab
