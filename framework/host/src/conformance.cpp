#include "tokenlab/conformance.hpp"

#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <set>
#include <span>
#include <sstream>
#include <thread>

#include "tokenlab/alphabet.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/normalizer.hpp"
#include "tokenlab/parallel.hpp"
#include "tokenlab/plugin_registry.hpp"
#include "tokenlab/pre_tokenizer.hpp"
#include "tokenlab/vocabulary_segmenter.hpp"
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

std::vector<TokenId> encode_one(const Segmenter& s, std::string_view word) {
  std::vector<TokenId> ids(1, kSentinel);
  s.encode(word, ids);
  if (ids.empty() || ids.front() != kSentinel)
    throw Error(
        "expected encode() to append to its output, but it cleared or overwrote it (word '" +
        std::string(word) + "')");
  ids.erase(ids.begin());
  return ids;
}

std::vector<std::vector<TokenId>> encode_all(const Segmenter& s,
                                             const std::vector<std::string>& words) {
  std::vector<std::vector<TokenId>> out;
  out.reserve(words.size());
  for (const auto& w : words) out.push_back(encode_one(s, w));
  return out;
}

std::vector<std::string> words_of(const WordCounts& counts) {
  std::vector<std::string> out;
  for (const auto& e : counts.entries()) out.push_back(e.word);
  return out;
}

// Words the training corpus never saw: unseen scripts and symbols, alone and mixed
// into seen text, and unseen combinations of seen characters.
const std::vector<std::string>& unseen_words() {
  static const std::vector<std::string> words = {
      "\u2581\u10E5\u10D0\u10E0\u10D7\u10E3\u10DA\u10D8",  // Georgian
      "\u2581\uD55C\uAD6D\uC5B4",                          // Hangul
      "\u2581\u16A0\u16A2\u16A6",                          // runes
      "\u2581\U0001F980",                                  // an emoji not in the corpus
      "\u2581\u03A8",                                      // one unseen character
      "\u2581low\u0416\u01B7est",                          // unseen characters inside a seen word
      "\u2581zqxjv",
      "\u2581newestwiderlowest",
      "\u2581987654321",
      "\u2581\u00DF\u1E9E\u00E6\u0153",
  };
  return words;
}

bool contains_id(const std::vector<TokenId>& ids, std::optional<TokenId> id) {
  return id && std::find(ids.begin(), ids.end(), *id) != ids.end();
}

std::string show_ids(const std::vector<TokenId>& ids) {
  std::string out;
  for (std::size_t i = 0; i < ids.size() && i < 12; ++i)
    out += (i ? " " : "") + std::to_string(ids[i]);
  if (ids.size() > 12) out += " ...";
  return "[" + out + "]";
}

// The first id out of range in any of the encodings, described, or "".
std::string first_bad_id(const std::vector<std::vector<TokenId>>& encodings,
                         const std::vector<std::string>& words, std::size_t size) {
  for (std::size_t w = 0; w < encodings.size(); ++w)
    for (std::size_t i = 0; i < encodings[w].size(); ++i)
      if (encodings[w][i] >= size)
        return "expected every id < " + std::to_string(size) + " (the vocabulary size), got " +
               std::to_string(encodings[w][i]) + " at position " + std::to_string(i) +
               " of the ids of '" + words[w] + "'";
  return {};
}

}  // namespace

const std::vector<std::string>& conformance_checks() {
  static const std::vector<std::string> names = {
      "creates a segmenter",
      "name, version and capabilities match the plugin descriptor",
      "trains on a small multilingual corpus",
      "encode() appends each word's ids to its output",
      "every id is below the vocabulary size, for seen and unseen words",
      "each id decodes to text of its own piece",
      "decode(encode(w)) == w when no unknown token appears",
      "unseen words and characters are encoded, not dropped",
      "training is deterministic: identical model bytes at 1 and 2 threads",
      "save then load gives identical encodings",
      "load rejects garbage with an error, not a crash",
      "concurrent encoding equals serial encoding",
      "the empty word encodes to no tokens",
      "a 1 MB single word encodes",
      "an unknown option is rejected with a message naming it",
  };
  return names;
}

namespace {

class Suite {
 public:
  Suite(const ConformanceListener& listener) : listener_(listener) {}

  // Runs the next check: fn(detail) returns whether it passed. Returns the result.
  template <class Fn>
  bool run(Fn&& fn) {
    const std::string& name = conformance_checks().at(results_.size());
    if (listener_.on_start) listener_.on_start(name);
    ConformanceCheck result{name, false, {}};
    try {
      result.passed = fn(result.detail);
    } catch (const std::exception& e) {
      result.detail = std::string("threw: ") + e.what();
    } catch (...) {
      result.detail = "threw something that is not a std::exception";
    }
    results_.push_back(result);
    if (listener_.on_result) listener_.on_result(result);
    return result.passed;
  }

  // After a fatal failure: every check not run yet is reported as skipped.
  std::vector<ConformanceCheck> skip_rest() {
    const std::string reason = "skipped: '" + results_.back().check + "' failed";
    for (std::size_t i = results_.size(); i < conformance_checks().size(); ++i) {
      results_.push_back({conformance_checks()[i], false, reason, true});
      if (listener_.on_result) listener_.on_result(results_.back());
    }
    return std::move(results_);
  }
  std::vector<ConformanceCheck> done() { return std::move(results_); }

 private:
  const ConformanceListener& listener_;
  std::vector<ConformanceCheck> results_;
};

}  // namespace

namespace {

// The checks, in conformance_checks() order, on one plugin: each returns whether
// it passed and leaves its detail in d. The first three and encode are fatal:
// the others need a trained segmenter and its encodings.
class ConformanceRun {
 public:
  ConformanceRun(const PluginRegistry& registry, std::string plugin_name)
      : registry_(registry),
        plugin_name_(std::move(plugin_name)),
        counts_(conformance_counts(PreTokenizer())),
        words_(words_of(counts_)) {
    options_.vocab_size = 300;
    options_.threads = 1;
  }

 private:
  [[nodiscard]] const Vocabulary& vocabulary() const { return segmenter_->vocabulary(); }
  [[nodiscard]] std::optional<TokenId> unknown() const { return vocabulary().unknown_id(); }

  bool creates(std::string& d) {
    segmenter_ = registry_.create(plugin_name_);
    if (!segmenter_) {
      d = "expected a segmenter, the factory gave none";
      return false;
    }
    d = segmenter_->name() + " " + segmenter_->version();
    return true;
  }

  bool descriptor_matches(std::string& d) {
    const PluginInfo& info = registry_.info(plugin_name_);
    const std::string got_name = segmenter_->name();
    const std::string got_version = segmenter_->version();
    const Capabilities got_caps = segmenter_->capabilities();
    std::vector<std::string> wrong;
    if (got_name != info.name)
      wrong.push_back("name() '" + got_name + "', expected '" + info.name + "'");
    if (got_version != info.version)
      wrong.push_back("version() '" + got_version + "', expected '" + info.version + "'");
    if (got_caps != info.capabilities)
      wrong.push_back("capabilities() " + std::to_string(got_caps) + ", expected " +
                      std::to_string(info.capabilities));
    if (info.description.empty()) wrong.push_back("the description is empty, expected one line");
    for (const auto& w : wrong) d += (d.empty() ? "" : "; ") + w;
    if (!wrong.empty())
      d += " (the descriptor's values; declare kName, kVersion, kCapabilities once)";
    return wrong.empty();
  }

  bool trains(std::string& d) {
    segmenter_->train(counts_, options_, nullptr);
    const std::size_t size = segmenter_->vocabulary().size();
    d = "vocabulary size " + std::to_string(size);
    if (size == 0 || size > options_.vocab_size) {
      d = "expected a vocabulary of 1.." + std::to_string(options_.vocab_size) + " entries, got " +
          std::to_string(size);
      return false;
    }
    return true;
  }

  bool encodes(std::string& d) {
    encodings_ = encode_all(*segmenter_, words_);
    unseen_ = encode_all(*segmenter_, unseen_words());
    d = std::to_string(encodings_.size()) + " words";
    return true;
  }

  bool ids_in_range(std::string& d) {
    d = first_bad_id(encodings_, words_, vocabulary().size());
    if (d.empty()) d = first_bad_id(unseen_, unseen_words(), vocabulary().size());
    ids_in_range_ = d.empty();  // the next check needs it
    return ids_in_range_;
  }

  bool ids_decode_to_own_piece(std::string& d) {
    if (!ids_in_range_) {
      d = "not checked: ids out of range";
      return false;
    }
    // An id must stand for its own piece: decode of the id alone is text found in
    // piece(id) (pieces may carry decoration, as WordPiece's ##). Ids shifted by
    // one, say, decode to a neighbour's text. Specials and byte pieces are exempt.
    const auto bytes = byte_fallback_ids(vocabulary());
    const std::set<TokenId> exempt(bytes.begin(), bytes.end());
    std::set<TokenId> seen;
    for (const auto& ids : encodings_) seen.insert(ids.begin(), ids.end());
    for (const TokenId id : seen) {
      if (vocabulary().is_special(id) || exempt.count(id) > 0) continue;
      const std::string text = segmenter_->decode(std::span<const TokenId>(&id, 1));
      if (text.empty() || vocabulary().piece(id).find(text) == std::string::npos) {
        d = "expected id " + std::to_string(id) + " to decode to text of its piece '" +
            vocabulary().piece(id) + "', got '" + text + "'";
        return false;
      }
    }
    d = std::to_string(seen.size()) + " distinct ids";
    return true;
  }

  bool round_trips(std::string& d) {
    std::size_t checked = 0;
    for (std::size_t i = 0; i < encodings_.size(); ++i) {
      if (contains_id(encodings_[i], unknown())) continue;
      ++checked;
      const std::string back = segmenter_->decode(encodings_[i]);
      if (back != words_[i]) {
        d = "expected '" + words_[i] + "' back, got '" + back + "' from ids " +
            show_ids(encodings_[i]);
        return false;
      }
    }
    d = std::to_string(checked) + " of " + std::to_string(encodings_.size()) +
        " words without unknown tokens";
    if (checked == 0) d = "expected some words without unknown tokens, every word had one";
    return checked > 0;
  }

  bool unseen_encoded(std::string& d) {
    // Each unseen word must come back whole, or hold the unknown token where text
    // could not be represented: an encoder that skips what it does not know fails.
    for (std::size_t i = 0; i < unseen_.size(); ++i) {
      const std::string& word = unseen_words()[i];
      if (unseen_[i].empty()) {
        d = "expected ids for unseen word '" + word + "', got none";
        return false;
      }
      if (contains_id(unseen_[i], unknown())) continue;
      const std::string back = segmenter_->decode(unseen_[i]);
      if (back != word) {
        d = "expected unseen word '" + word + "' back, or the unknown token, got '" + back +
            "' from ids " + show_ids(unseen_[i]);
        return false;
      }
    }
    d = std::to_string(unseen_.size()) + " unseen words";
    return true;
  }

  bool deterministic_training(std::string& d) {
    auto other = registry_.create(plugin_name_);
    TrainOptions two = options_;
    two.threads = 2;
    other->train(counts_, two, nullptr);
    const bool same = saved_bytes(*other) == saved_bytes(*segmenter_);
    if (!same) d = "expected the same save() bytes at threads=1 and threads=2, they differ";
    return same;
  }

  bool save_load(std::string& d) {
    std::stringstream buffer;
    segmenter_->save(buffer);
    auto loaded = registry_.create(plugin_name_);
    loaded->load(buffer);
    if (loaded->vocabulary().pieces() != vocabulary().pieces()) {
      d = "expected the same vocabulary after load, it differs";
      return false;
    }
    if (encode_all(*loaded, words_) != encodings_ ||
        encode_all(*loaded, unseen_words()) != unseen_) {
      d = "expected the same encodings after load, they differ";
      return false;
    }
    return true;
  }

  bool rejects_garbage(std::string& d) {
    auto loaded = registry_.create(plugin_name_);
    std::istringstream garbage("this is not a model payload at all");
    try {
      loaded->load(garbage);
    } catch (const std::exception& e) {
      d = e.what();
      return true;
    }
    d = "expected load() to throw on garbage, it returned normally";
    return false;
  }

  bool concurrent_encoding(std::string& d) {
    // Many threads, started together, encode many words in different orders and
    // compare every word with the serial result: shared mutable state shows.
    std::vector<std::string> many = words_;
    many.insert(many.end(), unseen_words().begin(), unseen_words().end());
    for (std::size_t i = 0; i < words_.size(); ++i)
      for (std::size_t j = 0; j < words_.size(); j += 7)
        many.push_back(words_[i] + words_[j].substr(words_[j].rfind(kBoundaryMarker, 0) == 0
                                                        ? sizeof kBoundaryMarker - 1
                                                        : 0));
    const auto serial = encode_all(*segmenter_, many);
    constexpr unsigned kThreads = 16;
    std::atomic<unsigned> ready{0};
    std::vector<std::string> mismatch(kThreads);
    // parallel_for joins every thread before an exception leaves, so a throwing
    // plugin fails this check instead of terminating the checker.
    parallel_for(kThreads, kThreads, [&](std::size_t t) {
      ready.fetch_add(1);  // start together, but never wait for a thread that cannot start
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
      while (ready.load() < kThreads && std::chrono::steady_clock::now() < deadline)
        std::this_thread::yield();
      for (int round = 0; round < 4 && mismatch[t].empty(); ++round)
        for (std::size_t k = 0; k < many.size(); ++k) {
          const std::size_t w = (k + t * many.size() / kThreads) % many.size();
          if (encode_one(*segmenter_, many[w]) != serial[w]) {
            mismatch[t] = "expected ids " + show_ids(serial[w]) + " for '" + many[w] +
                          "' (serial), thread " + std::to_string(t) + " got others";
            break;
          }
        }
    });
    for (const auto& m : mismatch)
      if (!m.empty()) {
        d = m;
        return false;
      }
    d = std::to_string(kThreads) + " threads x " + std::to_string(many.size()) + " words";
    return true;
  }

  bool empty_word(std::string& d) {
    const auto ids = encode_one(*segmenter_, "");
    const std::string back = segmenter_->decode(ids);
    d = std::to_string(ids.size()) + " ids";
    if (!ids.empty() || !back.empty())
      d = "expected no ids and empty text, got " + std::to_string(ids.size()) + " ids";
    return ids.empty() && back.empty();
  }

  bool long_word(std::string& d) {
    std::string word(kBoundaryMarker);
    while (word.size() < (1u << 20)) word += "lowestnewerwider";
    const auto ids = encode_one(*segmenter_, word);
    const bool has_unknown = contains_id(ids, unknown());
    d = std::to_string(ids.size()) + " ids";
    if (ids.empty()) {
      d = "expected ids, got none";
      return false;
    }
    if (const auto bad = first_bad_id({ids}, {"(the 1 MB word)"}, vocabulary().size());
        !bad.empty()) {
      d = bad;
      return false;
    }
    if (!has_unknown && segmenter_->decode(ids) != word) {
      d = "expected the word back (no unknown token), decode differs";
      return false;
    }
    return true;
  }

  bool unknown_option(std::string& d) {
    auto other = registry_.create(plugin_name_);
    TrainOptions bad = options_;
    bad.extra["no_such_option"] = "1";
    try {
      other->train(counts_, bad, nullptr);
    } catch (const Error& e) {
      d = e.what();
      if (d.find("no_such_option") != std::string::npos && d.find("valid") != std::string::npos)
        return true;
      d = "expected the message to name no_such_option and the valid options, got: " + d;
      return false;
    }
    d = "expected train() to throw tokenlab::Error for no_such_option=1, it accepted it";
    return false;
  }

 public:
  struct Step {
    bool (ConformanceRun::*check)(std::string&);
    bool fatal;
  };
  static constexpr Step kSteps[] = {
      {&ConformanceRun::creates, true},
      {&ConformanceRun::descriptor_matches, false},
      {&ConformanceRun::trains, true},
      {&ConformanceRun::encodes, true},
      {&ConformanceRun::ids_in_range, false},
      {&ConformanceRun::ids_decode_to_own_piece, false},
      {&ConformanceRun::round_trips, false},
      {&ConformanceRun::unseen_encoded, false},
      {&ConformanceRun::deterministic_training, false},
      {&ConformanceRun::save_load, false},
      {&ConformanceRun::rejects_garbage, false},
      {&ConformanceRun::concurrent_encoding, false},
      {&ConformanceRun::empty_word, false},
      {&ConformanceRun::long_word, false},
      {&ConformanceRun::unknown_option, false},
  };

 private:
  const PluginRegistry& registry_;
  const std::string plugin_name_;
  const WordCounts counts_;
  const std::vector<std::string> words_;
  TrainOptions options_;
  std::unique_ptr<Segmenter> segmenter_;
  std::vector<std::vector<TokenId>> encodings_;  // of words_
  std::vector<std::vector<TokenId>> unseen_;     // of unseen_words()
  bool ids_in_range_ = false;
};

}  // namespace

std::vector<ConformanceCheck> run_conformance(const PluginRegistry& registry,
                                              const std::string& plugin_name,
                                              const ConformanceListener& listener) {
  static_assert(std::size(ConformanceRun::kSteps) == 15);
  Suite suite(listener);
  ConformanceRun run(registry, plugin_name);
  for (const ConformanceRun::Step& step : ConformanceRun::kSteps)
    if (!suite.run([&](std::string& d) { return (run.*step.check)(d); }) && step.fatal)
      return suite.skip_rest();
  return suite.done();
}

namespace {

// One line per event through the pipe: S <name> | R <p|f|s> <name> <detail>, with
// tabs between fields; tabs and newlines in the text become spaces.
std::string clean(std::string text) {
  std::replace(text.begin(), text.end(), '\n', ' ');
  std::replace(text.begin(), text.end(), '\t', ' ');
  return text;
}

void write_all(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

std::string describe_status(int status) {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const char* abbrev = sigabbrev_np(sig);
    const char* text = strsignal(sig);
    return "the plugin crashed: signal " + std::to_string(sig) + " (" +
           (abbrev ? "SIG" + std::string(abbrev) + ", " : std::string()) +
           (text ? text : "unknown") + ")";
  }
  if (WIFEXITED(status))
    return "the plugin ended the checker with exit code " + std::to_string(WEXITSTATUS(status));
  return "the checker stopped abnormally";
}

}  // namespace

std::vector<ConformanceCheck> run_conformance_isolated(const PluginRegistry& registry,
                                                       const std::string& plugin_name) {
  int fds[2];
  if (::pipe(fds) != 0) return run_conformance(registry, plugin_name);
  const pid_t child = ::fork();
  if (child < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return run_conformance(registry, plugin_name);
  }
  if (child == 0) {
    ::close(fds[0]);
    // A crash must end the child, not run a handler the parent installed (a test
    // framework's, say): the parent reports the signal.
    for (const int sig : {SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL}) std::signal(sig, SIG_DFL);
    ConformanceListener listener;
    listener.on_start = [&](const std::string& name) { write_all(fds[1], "S\t" + name + "\n"); };
    listener.on_result = [&](const ConformanceCheck& r) {
      write_all(fds[1], std::string("R\t") +
                            (r.skipped  ? "s"
                             : r.passed ? "p"
                                        : "f") +
                            "\t" + r.check + "\t" + clean(r.detail) + "\n");
    };
    try {
      run_conformance(registry, plugin_name, listener);
    } catch (...) {
      ::_exit(3);
    }
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string data;
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(fds[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    data.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  std::vector<ConformanceCheck> results;
  std::string running;
  std::istringstream lines(data);
  for (std::string line; std::getline(lines, line);) {
    std::vector<std::string> f;
    std::size_t start = 0;
    for (std::size_t tab; (tab = line.find('\t', start)) != std::string::npos; start = tab + 1)
      f.push_back(line.substr(start, tab - start));
    f.push_back(line.substr(start));
    if (f.size() == 2 && f[0] == "S") running = f[1];
    if (f.size() == 4 && f[0] == "R") {
      results.push_back({f[2], f[1] == "p", f[3], f[1] == "s"});
      running.clear();
    }
  }
  const bool clean_exit = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  if (clean_exit && results.size() == conformance_checks().size()) return results;
  // The child died: the running check failed, the rest never ran.
  const std::string why = describe_status(status);
  if (running.empty() && results.size() < conformance_checks().size())
    running = conformance_checks()[results.size()];
  if (!running.empty()) results.push_back({running, false, why + " during this check"});
  for (std::size_t i = results.size(); i < conformance_checks().size(); ++i)
    results.push_back({conformance_checks()[i], false, "skipped: the plugin crashed", true});
  return results;
}

}  // namespace tokenlab
