#include "lab_api.hpp"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <new>
#include <unordered_set>

#include "bpe_walkthrough.hpp"
#include "lab_assets.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/json_nesting.hpp"
#include "tokenlab/utf8.hpp"

namespace tokenlab::lab {

namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

void string(Writer& w, std::string_view text) {
  // Display pieces may hold bytes that are not UTF-8 (a byte-level piece that
  // cuts a character); JSON must be text.
  const std::string valid = utf8::replace_invalid(text);
  w.String(valid.data(), static_cast<rapidjson::SizeType>(valid.size()));
}

Response json_response(const std::function<void(Writer&)>& body) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  body(w);
  return {200, "application/json", std::string(buffer.GetString(), buffer.GetSize())};
}

// 404 names an unknown tokenizer (and what there is).
class NotFound : public Error {
 public:
  using Error::Error;
};
class TooLarge : public Error {
 public:
  using Error::Error;
};
// 503: the deadline passed; the client may try again, or ask for less.
class Unavailable : public Error {
 public:
  using Error::Error;
};

// An answer that may grow with the request: written in parts, with its size
// checked after each, so that a request for too much is refused before the
// buffer holds much more than kMaxResponseBytes.
class LargeAnswer {
 public:
  LargeAnswer(const Request& request, std::size_t max_bytes)
      : request_(request), max_bytes_(max_bytes), writer_(buffer_) {}
  Writer& writer() { return writer_; }
  // Between parts: throws TooLarge past the size limit, Unavailable past the deadline.
  void check() const {
    if (buffer_.GetSize() > max_bytes_)
      throw TooLarge("the answer would be over " + std::to_string(max_bytes_) +
                     " bytes: ask for a shorter text, fewer tokenizers or fewer merges");
    check_deadline(request_);
  }
  static void check_deadline(const Request& request) {
    if (std::chrono::steady_clock::now() > request.deadline)
      throw Unavailable("the request took too long and was given up: ask for less");
  }
  Response response() {
    check();
    return {200, "application/json", std::string(buffer_.GetString(), buffer_.GetSize())};
  }

 private:
  const Request& request_;
  const std::size_t max_bytes_;
  rapidjson::StringBuffer buffer_;
  Writer writer_;
};

// A request body's JSON object; a 400 Error names what is wrong.
class Body {
 public:
  explicit Body(const std::string& text) {
    // Before Parse, which recurses once per level: 120,000 `[` overflow the stack.
    check_json_nesting(text, kMaxRequestNesting, "the request body");
    document_.Parse(text.c_str(), text.size());
    if (document_.HasParseError())
      throw Error("the request body is not JSON: byte " +
                  std::to_string(document_.GetErrorOffset()) + ": " +
                  rapidjson::GetParseError_En(document_.GetParseError()));
    if (!document_.IsObject()) throw Error("the request body must be a JSON object");
  }
  [[nodiscard]] bool has(const char* key) const { return document_.HasMember(key); }
  [[nodiscard]] std::string text(const char* key) const {
    const auto it = document_.FindMember(key);
    if (it == document_.MemberEnd()) throw Error(std::string("'") + key + "' is missing");
    if (!it->value.IsString()) throw Error(std::string("'") + key + "' must be a string");
    return {it->value.GetString(), it->value.GetStringLength()};
  }
  [[nodiscard]] std::uint64_t number(const char* key, std::uint64_t fallback,
                                     std::uint64_t max) const {
    const auto it = document_.FindMember(key);
    if (it == document_.MemberEnd()) return fallback;
    if (!it->value.IsUint64() || it->value.GetUint64() > max)
      throw Error(std::string("'") + key + "' must be a whole number from 0 to " +
                  std::to_string(max));
    return it->value.GetUint64();
  }
  [[nodiscard]] std::vector<std::string> names(const char* key) const {
    std::vector<std::string> out;
    const auto it = document_.FindMember(key);
    if (it == document_.MemberEnd()) return out;
    if (!it->value.IsArray()) throw Error(std::string("'") + key + "' must be a list of names");
    for (const auto& v : it->value.GetArray()) {
      if (!v.IsString()) throw Error(std::string("'") + key + "' must be a list of names");
      out.emplace_back(v.GetString(), v.GetStringLength());
    }
    return out;
  }

 private:
  rapidjson::Document document_;
};

const LabTokenizer& find_tokenizer(const LabCatalog& catalog, const std::string& name) {
  if (const LabTokenizer* t = catalog.find(name)) return *t;
  std::string known;
  for (const auto& t : catalog.all()) known += (known.empty() ? "" : ", ") + t.name();
  throw NotFound("no tokenizer is named '" + name + "' (loaded: " + known + ")");
}

// One member: "key": value.
void put(Writer& w, const char* key, std::string_view value) {
  w.Key(key);
  string(w, value);
}
void put(Writer& w, const char* key, std::uint64_t value) {
  w.Key(key);
  w.Uint64(value);
}
void put(Writer& w, const char* key, double value) {
  w.Key(key);
  w.Double(value);
}
void put(Writer& w, const char* key, bool value) {
  w.Key(key);
  w.Bool(value);
}

void pair_json(Writer& w, const PairCount& p) {
  w.StartObject();
  put(w, "left", p.left);
  put(w, "right", p.right);
  put(w, "count", p.count);
  w.EndObject();
}

void strings_json(Writer& w, const std::vector<std::string>& list) {
  w.StartArray();
  for (const auto& s : list) string(w, s);
  w.EndArray();
}

}  // namespace

void SweepState::set_progress(double fraction, const std::string& stage) {
  const std::lock_guard lock(mutex_);
  progress_ = fraction;
  stage_ = stage;
}

void SweepState::finish(std::vector<SweepPoint> points) {
  const std::lock_guard lock(mutex_);
  points_ = std::move(points);
  progress_ = 1.0;
  stage_ = "done";
  done_ = true;
}

void SweepState::fail(const std::string& message) {
  const std::lock_guard lock(mutex_);
  error_ = message;
  done_ = true;
}

std::string SweepState::json() const {
  const std::lock_guard lock(mutex_);
  return json_response([&](Writer& w) {
           w.StartObject();
           w.Key("status");
           w.String(!error_.empty() ? "failed" : done_ ? "ready" : "running");
           put(w, "progress", progress_);
           put(w, "stage", stage_);
           if (!error_.empty()) {
             put(w, "error", error_);
           }
           w.Key("points");
           w.StartArray();
           for (const SweepPoint& p : points_) {
             w.StartObject();
             put(w, "algorithm", p.algorithm);
             put(w, "vocab_size", p.vocab_size);
             put(w, "requested", p.requested);
             put(w, "tokens_per_word", p.tokens_per_word);
             put(w, "characters_per_token", p.characters_per_token);
             put(w, "unknown_rate", p.unknown_rate);
             put(w, "held_out_words", p.held_out_words);
             w.EndObject();
           }
           w.EndArray();
           w.EndObject();
         })
      .body;
}

Response error_response(int status, const std::string& message) {
  Response r = json_response([&](Writer& w) {
    w.StartObject();
    put(w, "error", message);
    w.EndObject();
  });
  r.status = status;
  return r;
}

LabApi::LabApi(const LabCatalog& catalog, const SegmenterSource& plugins, const SweepState& sweep,
               LabContent content, std::size_t max_response_bytes)
    : catalog_(catalog),
      plugins_(plugins),
      sweep_(sweep),
      content_(std::move(content)),
      max_response_bytes_(max_response_bytes) {}

Cost LabApi::cost(const Request& request) {
  if (request.method != "POST") return Cost::instant;
  const std::string path = request.target.substr(0, request.target.find('?'));
  if (path == "/api/bpe") return Cost::walkthrough;
  if (path == "/api/encode" || path == "/api/sample") return Cost::work;
  return Cost::instant;  // an error at once
}

Response LabApi::handle(const Request& request) const {
  const std::string path = request.target.substr(0, request.target.find('?'));
  const auto only = [&](const char* method) {
    if (request.method != method)
      throw std::pair<int, std::string>(405, path + " takes " + method + ", not " + request.method);
  };
  try {
    if (path.starts_with("/api/")) {
      if (path == "/api/tokenizers") {
        only("GET");
        return tokenizers();
      }
      if (path == "/api/sweep") {
        only("GET");
        return {200, "application/json", sweep_.json()};
      }
      if (request.body.size() > kMaxBodyBytes)
        return error_response(
            413, "the request body is over " + std::to_string(kMaxBodyBytes) + " bytes");
      if (path == "/api/encode") {
        only("POST");
        return encode(request);
      }
      if (path == "/api/bpe") {
        only("POST");
        return bpe(request);
      }
      if (path == "/api/sample") {
        only("POST");
        return sample(request);
      }
      return error_response(404, "no endpoint " + path);
    }
    if (path.starts_with("/fonts/")) {
      only("GET");
      for (const LabFile& font : content_.fonts)
        if (path == "/fonts/" + font.name) return {200, font.content_type, font.body};
      return error_response(404,
                            "the lab has no font " + path.substr(7) + " (Debian: fonts-noto-core)");
    }
    if (const auto asset = find_asset(path)) {
      only("GET");
      return {200, std::string(asset->content_type), std::string(asset->body)};
    }
    return error_response(404, "nothing is served at " + path);
  } catch (const std::pair<int, std::string>& status) {
    return error_response(status.first, status.second);
  } catch (const NotFound& e) {
    return error_response(404, e.what());
  } catch (const TooLarge& e) {
    return error_response(413, e.what());
  } catch (const Unavailable& e) {
    return error_response(503, e.what());
  } catch (const std::bad_alloc&) {
    // Not the client's mistake (400), and the message would say nothing.
    return error_response(503, "the lab ran out of memory for this request: ask for less");
  } catch (const std::exception& e) {
    return error_response(400, e.what());
  }
}

Response LabApi::tokenizers() const {
  return json_response([&](Writer& w) {
    w.StartObject();
    w.Key("tokenizers");
    w.StartArray();
    for (const LabTokenizer& t : catalog_.all()) {
      w.StartObject();
      put(w, "name", t.name());
      put(w, "algorithm", t.algorithm());
      put(w, "pretrained", t.pretrained());
      put(w, "vocab_size", t.vocabulary_size());
      put(w, "sampling", t.can_sample());
      w.EndObject();
    }
    w.EndArray();
    w.Key("opening_texts");
    strings_json(w, content_.opening_texts);
    w.Key("multilingual_texts");
    w.StartArray();
    for (const LabText& t : content_.multilingual_texts) {
      w.StartObject();
      put(w, "language", t.language);
      put(w, "text", t.text);
      w.EndObject();
    }
    w.EndArray();
    w.Key("fonts");
    w.StartArray();
    for (const LabFile& f : content_.fonts) string(w, f.name);
    w.EndArray();
    put(w, "max_text_bytes", kMaxTextBytes);
    w.EndObject();
  });
}

Response LabApi::encode(const Request& request) const {
  const Body body(request.body);
  const std::string text = body.text("text");
  if (text.size() > kMaxTextBytes)
    throw TooLarge("the text is " + std::to_string(text.size()) + " bytes; the lab takes " +
                   std::to_string(kMaxTextBytes) + " at most");
  std::vector<const LabTokenizer*> chosen;
  if (body.has("tokenizers")) {
    const std::vector<std::string> names = body.names("tokenizers");
    // Each name costs a whole encoding and answer: 15,000 copies of one name
    // in a 245 KB body made 3.7 GB.
    if (names.size() > catalog_.all().size())
      throw TooLarge(std::to_string(names.size()) + " tokenizer names, but the lab has " +
                     std::to_string(catalog_.all().size()) + " tokenizers");
    std::unordered_set<const LabTokenizer*> seen;
    for (const auto& name : names) {
      const LabTokenizer* t = &find_tokenizer(catalog_, name);
      if (seen.insert(t).second) chosen.push_back(t);
    }
  } else {
    for (const auto& t : catalog_.all()) chosen.push_back(&t);
  }
  // One tokenizer's chips at a time, so that memory holds one of them and the
  // answer so far.
  LargeAnswer answer(request, max_response_bytes_);
  Writer& w = answer.writer();
  w.StartObject();
  w.Key("results");
  w.StartArray();
  for (const LabTokenizer* t : chosen) {
    answer.check();
    const Chips c = t->chips(text);
    std::size_t unknown = 0;
    w.StartObject();
    put(w, "name", t->name());
    w.Key("tokens");
    w.StartArray();
    for (const Chip& chip : c.tokens) {
      w.StartArray();  // [id, text, word, flags]: compact, the page reads it
      w.Uint(chip.id);
      string(w, chip.text);
      w.Uint64(chip.word);
      w.Uint((chip.unknown ? 1U : 0U) | (chip.byte_fallback ? 2U : 0U));
      w.EndArray();
      unknown += chip.unknown ? 1 : 0;
    }
    w.EndArray();
    put(w, "token_count", c.tokens.size());
    put(w, "word_count", c.words);
    put(w, "characters", c.characters);
    put(w, "unknown", unknown);
    put(w, "characters_per_token",
        static_cast<double>(c.tokens.empty() ? 0.0
                                             : static_cast<double>(c.characters) /
                                                   static_cast<double>(c.tokens.size())));
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return answer.response();
}

Response LabApi::bpe(const Request& request) const {
  const Body body(request.body);
  const std::string words =
      body.has("words") ? body.text("words") : "low:5 lower:2 newest:6 widest:3 wider:2";
  if (words.size() > kMaxBpeWordsBytes)
    throw TooLarge("the word list is over " + std::to_string(kMaxBpeWordsBytes) + " bytes");
  const std::string encode = body.has("encode") ? body.text("encode") : "";
  if (encode.size() > kMaxWordBytes)
    throw TooLarge("the word to encode is over " + std::to_string(kMaxWordBytes) + " bytes");
  if (encode.find_first_of(" \t\n:") != std::string::npos)
    throw Error("'encode' must be one word, without a count");
  LargeAnswer answer(request, max_response_bytes_);
  const BpeWalkthrough walk = walk_bpe(plugins_, words, body.number("merges", 10, 500), encode,
                                       [&] { LargeAnswer::check_deadline(request); });
  Writer& w = answer.writer();
  w.StartObject();
  put(w, "start_tokens", walk.start_tokens);
  put(w, "start_symbols", walk.start_symbols);
  w.Key("alphabet");
  strings_json(w, walk.alphabet);
  w.Key("encoded_at_start");
  strings_json(w, walk.encoded_at_start);
  put(w, "note", walk.note);
  put(w, "pairs_shown", std::uint64_t{kMaxPairsShown});
  w.Key("steps");
  w.StartArray();
  for (const BpeStep& s : walk.steps) {
    answer.check();
    w.StartObject();
    put(w, "index", s.index);
    w.Key("merged");
    pair_json(w, s.merged);
    put(w, "tokens", s.tokens);
    put(w, "vocabulary", s.vocabulary);
    w.Key("pairs");
    w.StartArray();
    for (const auto& p : s.pairs) {
      w.StartObject();
      put(w, "left", p.left);
      put(w, "right", p.right);
      put(w, "count", p.count);
      put(w, "first_word", p.first_word);
      put(w, "first_position", std::uint64_t{p.first_position});
      w.EndObject();
    }
    w.EndArray();
    put(w, "pairs_total", s.pairs_total);
    w.Key("tied");
    w.StartArray();
    for (const auto& p : s.tied) pair_json(w, p);
    w.EndArray();
    put(w, "tied_total", s.tied_total);
    w.Key("encoded");
    strings_json(w, s.encoded);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return answer.response();
}

Response LabApi::sample(const Request& request) const {
  const Body body(request.body);
  const LabTokenizer& t = find_tokenizer(catalog_, body.text("tokenizer"));
  const std::string word = body.text("word");
  if (word.size() > kMaxWordBytes)
    throw TooLarge("the word is over " + std::to_string(kMaxWordBytes) + " bytes");
  const auto samples =
      t.sample(word, body.number("count", 10, 100), body.number("seed", 1, UINT32_MAX));
  return json_response([&](Writer& w) {
    w.StartObject();
    w.Key("samples");
    w.StartArray();
    for (const auto& s : samples) strings_json(w, s);
    w.EndArray();
    w.EndObject();
  });
}

}  // namespace tokenlab::lab
