// Hugging Face's decoders (tokenizers/src/decoders/*.rs), each a rewrite of
// the list of token strings; the tokenizer joins what the last one leaves.
#include <unordered_map>

#include "tokenlab/alphabet.hpp"
#include "tokenlab/pretrained/components.hpp"
#include "tokenlab/utf8.hpp"

namespace tokenlab {
namespace {

// String::from_utf8_lossy: each maximal ill-formed subpart becomes U+FFFD.
std::string lossy(std::string_view bytes) {
  return utf8::replace_invalid(bytes);
}

class ByteLevelDecoder final : public DecoderStep {
 public:
  ByteLevelDecoder() {
    const auto& alphabet = byte_level_alphabet();
    for (int b = 0; b < 256; ++b) byte_of_[alphabet[b]] = static_cast<unsigned char>(b);
  }
  void decode(std::vector<std::string>& tokens) const override {
    std::string bytes;
    for (const auto& token : tokens) {
      const std::size_t mark = bytes.size();
      bool all_mapped = true;
      for (std::size_t i = 0; i < token.size();) {
        const std::size_t length = utf8::sequence_length(token, i);
        const auto it = byte_of_.find(utf8::decode_at(token, i));
        if (length == 0 || it == byte_of_.end()) {
          all_mapped = false;
          break;
        }
        bytes += static_cast<char>(it->second);
        i += length;
      }
      if (!all_mapped) {  // HF keeps such a token's own bytes
        bytes.resize(mark);
        bytes += token;
      }
    }
    tokens.assign(1, lossy(bytes));
  }
  [[nodiscard]] std::string describe() const override { return "ByteLevel"; }

 private:
  std::unordered_map<char32_t, unsigned char> byte_of_;
};

class MetaspaceDecoder final : public DecoderStep {
 public:
  MetaspaceDecoder(char32_t replacement, PrependScheme scheme)
      : replacement_(replacement), scheme_(scheme) {}
  void decode(std::vector<std::string>& tokens) const override {
    for (std::size_t t = 0; t < tokens.size(); ++t) {
      std::string out;
      const std::string& token = tokens[t];
      for (std::size_t i = 0; i < token.size();) {
        const std::size_t length = std::max<std::size_t>(1, utf8::sequence_length(token, i));
        if (utf8::sequence_length(token, i) != 0 && utf8::decode_at(token, i) == replacement_) {
          if (!(t == 0 && scheme_ != PrependScheme::never)) out += ' ';
        } else {
          out.append(token, i, length);
        }
        i += length;
      }
      tokens[t] = std::move(out);
    }
  }
  [[nodiscard]] std::string describe() const override { return "Metaspace"; }

 private:
  char32_t replacement_;
  PrependScheme scheme_;
};

class WordPieceDecoder final : public DecoderStep {
 public:
  WordPieceDecoder(std::string prefix, bool cleanup)
      : prefix_(std::move(prefix)), cleanup_(cleanup) {}
  void decode(std::vector<std::string>& tokens) const override {
    for (std::size_t i = 0; i < tokens.size(); ++i) {
      std::string& token = tokens[i];
      if (i != 0) {
        if (token.starts_with(prefix_))
          token.erase(0, prefix_.size());
        else
          token.insert(0, " ");
      }
      if (cleanup_) token = cleanup(token);
    }
  }
  [[nodiscard]] std::string describe() const override {
    return "WordPiece(\"" + prefix_ + "\"" + (cleanup_ ? ", cleanup" : "") + ")";
  }

 private:
  static void replace_all(std::string& s, std::string_view from, std::string_view to) {
    for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
      s.replace(at, from.size(), to);
  }
  static std::string cleanup(std::string s) {
    static constexpr std::pair<std::string_view, std::string_view> kRules[] = {
        {" .", "."},   {" ?", "?"},     {" !", "!"},    {" ,", ","},
        {" ' ", "'"},  {" n't", "n't"}, {" 'm", "'m"},  {" do not", " don't"},
        {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"}};
    for (const auto& [from, to] : kRules) replace_all(s, from, to);
    return s;
  }
  std::string prefix_;
  bool cleanup_;
};

class ByteFallbackDecoder final : public DecoderStep {
 public:
  void decode(std::vector<std::string>& tokens) const override {
    std::vector<std::string> out;
    out.reserve(tokens.size());
    std::string pending;
    const auto flush = [&] {
      if (pending.empty()) return;
      if (!utf8::find_invalid(pending))
        out.push_back(pending);
      else
        for (std::size_t i = 0; i < pending.size(); ++i) out.emplace_back("\xEF\xBF\xBD");
      pending.clear();
    };
    for (auto& token : tokens) {
      // HF parses the hex with u8::from_str_radix: either case.
      if (const auto byte = byte_fallback_value(token, HexDigits::either_case)) {
        pending += static_cast<char>(*byte);
        continue;
      }
      flush();
      out.push_back(std::move(token));
    }
    flush();
    tokens = std::move(out);
  }
  [[nodiscard]] std::string describe() const override { return "ByteFallback"; }
};

class FuseDecoder final : public DecoderStep {
 public:
  void decode(std::vector<std::string>& tokens) const override {
    std::string joined;
    for (const auto& t : tokens) joined += t;
    tokens.assign(1, std::move(joined));
  }
  [[nodiscard]] std::string describe() const override { return "Fuse"; }
};

class StripDecoder final : public DecoderStep {
 public:
  StripDecoder(char32_t content, std::size_t start, std::size_t stop)
      : content_(content), start_(start), stop_(stop) {}
  void decode(std::vector<std::string>& tokens) const override {
    for (auto& token : tokens) {
      std::vector<std::string_view> chars = utf8::split_code_points(token);
      std::size_t start_cut = 0;
      for (std::size_t i = 0; i < std::min(start_, chars.size()); ++i) {
        if (utf8::decode_at(chars[i], 0) != content_) break;
        start_cut = i + 1;
      }
      std::size_t stop_cut = chars.size();
      for (std::size_t i = 0; i < stop_ && i < chars.size(); ++i) {
        const std::size_t index = chars.size() - i - 1;
        if (utf8::decode_at(chars[index], 0) != content_) break;
        stop_cut = index;
      }
      std::string out;
      for (std::size_t i = start_cut; i < stop_cut; ++i) out += chars[i];
      token = std::move(out);
    }
  }
  [[nodiscard]] std::string describe() const override {
    std::string c;
    utf8::append(c, content_);
    return "Strip(\"" + c + "\", " + std::to_string(start_) + ", " + std::to_string(stop_) + ")";
  }

 private:
  char32_t content_;
  std::size_t start_, stop_;
};

class ReplaceDecoder final : public DecoderStep {
 public:
  ReplaceDecoder(std::string pattern, bool is_regex, std::string content)
      : normalizer_(make_replace_normalizer(std::move(pattern), is_regex, std::move(content))) {}
  void decode(std::vector<std::string>& tokens) const override {
    for (auto& token : tokens) normalizer_->apply(token);
  }
  [[nodiscard]] std::string describe() const override { return normalizer_->describe(); }

 private:
  std::unique_ptr<NormalizerStep> normalizer_;
};

class BpeSuffixDecoder final : public DecoderStep {
 public:
  explicit BpeSuffixDecoder(std::string suffix) : suffix_(std::move(suffix)) {}
  void decode(std::vector<std::string>& tokens) const override {
    for (std::size_t i = 0; i < tokens.size(); ++i) {
      const std::string replacement = i + 1 == tokens.size() ? "" : " ";
      std::string& t = tokens[i];
      for (std::size_t at = t.find(suffix_); !suffix_.empty() && at != std::string::npos;
           at = t.find(suffix_, at + replacement.size()))
        t.replace(at, suffix_.size(), replacement);
    }
  }
  [[nodiscard]] std::string describe() const override { return "BPEDecoder(\"" + suffix_ + "\")"; }

 private:
  std::string suffix_;
};

}  // namespace

std::unique_ptr<DecoderStep> make_byte_level_decoder() {
  return std::make_unique<ByteLevelDecoder>();
}
std::unique_ptr<DecoderStep> make_metaspace_decoder(char32_t replacement, PrependScheme scheme) {
  return std::make_unique<MetaspaceDecoder>(replacement, scheme);
}
std::unique_ptr<DecoderStep> make_wordpiece_decoder(std::string prefix, bool cleanup) {
  return std::make_unique<WordPieceDecoder>(std::move(prefix), cleanup);
}
std::unique_ptr<DecoderStep> make_byte_fallback_decoder() {
  return std::make_unique<ByteFallbackDecoder>();
}
std::unique_ptr<DecoderStep> make_fuse_decoder() {
  return std::make_unique<FuseDecoder>();
}
std::unique_ptr<DecoderStep> make_strip_decoder(char32_t content, std::size_t start,
                                                std::size_t stop) {
  return std::make_unique<StripDecoder>(content, start, stop);
}
std::unique_ptr<DecoderStep> make_replace_decoder(std::string pattern, bool is_regex,
                                                  std::string content) {
  return std::make_unique<ReplaceDecoder>(std::move(pattern), is_regex, std::move(content));
}
std::unique_ptr<DecoderStep> make_bpe_suffix_decoder(std::string suffix) {
  return std::make_unique<BpeSuffixDecoder>(std::move(suffix));
}

}  // namespace tokenlab
