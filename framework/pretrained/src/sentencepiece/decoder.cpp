// SentencePiece's decoder (sentencepiece_processor.cc).
#include "sentencepiece/decoder.hpp"

#include <utility>

#include "precompiled.hpp"
#include "tokenlab/utf8.hpp"

namespace tokenlab::sentencepiece_detail {
namespace {

// SentencePieceProcessor::Decode: control pieces vanish, the unknown piece is
// unk_surface (" ⁇ "), runs of byte pieces become their bytes (each ill-formed
// byte U+FFFD), "▁" becomes a space, and the first "▁" of the text goes (every
// leading one with remove_extra_whitespaces); then the denormalizer, if any.
class SpmDecoder final : public DecoderStep {
 public:
  SpmDecoder(std::shared_ptr<const SpmVocabulary> vocabulary, std::string unknown_surface,
             bool add_dummy_prefix, bool remove_extra_whitespaces,
             std::unique_ptr<SpmNormalizer> denormalizer)
      : vocabulary_(std::move(vocabulary)),
        unknown_surface_(std::move(unknown_surface)),
        add_dummy_prefix_(add_dummy_prefix),
        remove_extra_whitespaces_(remove_extra_whitespaces),
        denormalizer_(std::move(denormalizer)) {}

  void decode(std::vector<std::string>& tokens) const override {
    const SpmVocabulary& v = *vocabulary_;
    std::string text;
    std::string bytes;
    const auto flush_bytes = [&] {
      for (std::size_t i = 0; i < bytes.size();) {
        const std::size_t length = utf8::sequence_length(bytes, i);
        if (length == 0) {
          text += detail::kReplacementCharacter;
          ++i;
        } else {
          text.append(bytes, i, length);
          i += length;
        }
      }
      bytes.clear();
    };
    bool at_start = true;  // is_bos_ws
    bool start_space_seen = false;
    for (const std::string& token : tokens) {
      const TokenId id = v.piece_to_id(token);
      const PieceType type = v.types[id];
      if (type == PieceType::byte) {
        bytes += static_cast<char>(v.byte_of[id]);
        continue;
      }
      flush_bytes();
      if (start_space_seen || !text.empty()) at_start = false;
      if (type == PieceType::control) {
        start_space_seen = false;
        continue;
      }
      if (type == PieceType::unknown) {
        // The piece of the unknown id itself; any other text would be kept.
        text += v.pieces[id] == token ? unknown_surface_ : token;
        start_space_seen = false;
        continue;
      }
      std::string_view piece = token;
      bool consumed = false;
      if (at_start && (add_dummy_prefix_ || remove_extra_whitespaces_)) {
        if (piece.starts_with(kSpaceSymbol)) {
          piece.remove_prefix(kSpaceSymbol.size());
          consumed = true;
        }
        if (remove_extra_whitespaces_) consumed = false;
      }
      for (std::size_t from = 0;;) {
        const std::size_t space = piece.find(kSpaceSymbol, from);
        if (space == std::string_view::npos) {
          text.append(piece.substr(from));
          break;
        }
        text.append(piece.substr(from, space - from));
        text += ' ';
        from = space + kSpaceSymbol.size();
      }
      start_space_seen = consumed;
    }
    flush_bytes();
    if (denormalizer_) {
      std::string denormalized;
      denormalizer_->normalize(text, denormalized);
      text.swap(denormalized);
    }
    tokens.clear();
    tokens.push_back(std::move(text));
  }

  [[nodiscard]] std::string describe() const override {
    std::string d = "SentencePiece decoder";
    if (denormalizer_) d += " with " + denormalizer_->describe();
    return d;
  }

 private:
  std::shared_ptr<const SpmVocabulary> vocabulary_;
  std::string unknown_surface_;
  bool add_dummy_prefix_;
  bool remove_extra_whitespaces_;
  std::unique_ptr<SpmNormalizer> denormalizer_;
};

}  // namespace

std::unique_ptr<DecoderStep> make_decoder(std::shared_ptr<const SpmVocabulary> vocabulary,
                                          std::string unknown_surface, bool add_dummy_prefix,
                                          bool remove_extra_whitespaces,
                                          std::unique_ptr<SpmNormalizer> denormalizer) {
  return std::make_unique<SpmDecoder>(std::move(vocabulary), std::move(unknown_surface),
                                      add_dummy_prefix, remove_extra_whitespaces,
                                      std::move(denormalizer));
}

}  // namespace tokenlab::sentencepiece_detail
