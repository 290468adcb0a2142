#include "tokenlab/vocabulary_layout.hpp"

#include <algorithm>
#include <utility>

#include "tokenlab/error.hpp"
#include "tokenlab/utf8.hpp"

namespace tokenlab {

namespace {

bool listed(const std::vector<std::string>& list, const std::string& token) {
  return std::find(list.begin(), list.end(), token) != list.end();
}

// The unknown token's spelling in this list, inserting it first when the rule
// requires one; empty when the model has none.
std::string choose_unknown(std::vector<std::string>& specials, bool explicit_list,
                           const LayoutRule& rule, TrainingObserver* observer) {
  if (rule.unknown == UnknownToken::none || rule.unknown_spellings.empty()) return {};
  for (const auto& spelling : rule.unknown_spellings)
    if (listed(specials, spelling)) return spelling;
  if (rule.unknown == UnknownToken::when_listed && explicit_list) return {};
  specials.insert(specials.begin(), rule.unknown_spellings.front());
  if (explicit_list && specials.size() > 1 && observer != nullptr)
    observer->on_message(rule.plugin + ": added " + rule.unknown_spellings.front() +
                         " to the special tokens, first: the model needs an unknown token");
  return rule.unknown_spellings.front();
}

void add_specials(Vocabulary& vocabulary, const std::vector<std::string>& specials,
                  const std::string& unknown, const std::string& plugin) {
  for (const auto& s : specials) {
    if (s.empty()) throw Error(plugin + ": a special token is empty");
    if (vocabulary.contains(s)) throw Error(plugin + ": special token '" + s + "' given twice");
    vocabulary.add_special(s);
  }
  if (!unknown.empty()) vocabulary.set_unknown(*vocabulary.find(unknown));
}

void require_room(const TrainOptions& options, std::size_t needed, const std::string& plugin,
                  const std::string& what) {
  if (options.vocab_size < needed)
    throw Error(plugin + ": vocabulary size " + std::to_string(options.vocab_size) +
                " is too small: " + what + " need it to be at least " + std::to_string(needed));
}

std::size_t room_left(const TrainOptions& options, const Vocabulary& vocabulary) {
  return options.vocab_size - std::min(options.vocab_size, vocabulary.size());
}

// Step 2's automatic rule needs the whole alphabet's size before anything is placed.
bool wants_byte_pieces(const TrainOptions& options, const LayoutRule& rule,
                       const Vocabulary& vocabulary, std::size_t alphabet_size,
                       TrainingObserver* observer) {
  if (rule.byte_pieces != BytePieces::automatic) return rule.byte_pieces == BytePieces::on;
  // Step-limited runs (the textbook traces) keep the plain alphabet.
  if (options.max_steps != 0) return false;
  const std::size_t needed = vocabulary.size() + 256 + std::max<std::size_t>(alphabet_size, 1);
  if (options.vocab_size >= needed) return true;
  if (observer != nullptr)
    observer->on_message(rule.plugin + ": byte_fallback off: vocab_size " +
                         std::to_string(options.vocab_size) + " is below the " +
                         std::to_string(needed) +
                         " entries that the special tokens, 256 byte pieces and the alphabet need");
  return false;
}

}  // namespace

void lay_out_special_tokens(Vocabulary& vocabulary, const std::vector<std::string>& specials,
                            const LayoutRule& rule) {
  std::vector<std::string> list = specials;
  const std::string unknown = choose_unknown(list, true, rule, nullptr);
  add_specials(vocabulary, list, unknown, rule.plugin);
}

VocabularyLayout lay_out_vocabulary(const WordCounts& counts, const TrainOptions& options,
                                    const LayoutRule& rule, TrainingObserver* observer) {
  VocabularyLayout layout;
  Vocabulary& vocabulary = layout.vocabulary;

  // 1. Special tokens.
  std::vector<std::string> specials = options.special_tokens.value_or(rule.default_specials);
  const std::string unknown =
      choose_unknown(specials, options.special_tokens.has_value(), rule, observer);
  add_specials(vocabulary, specials, unknown, rule.plugin);
  require_room(options, specials.size() + 1, rule.plugin,
               "the " + std::to_string(specials.size()) + " special tokens");

  // The whole alphabet first: the automatic byte rule and the trimming message
  // both measure against it.
  const bool characters = rule.base == BaseUnits::characters || rule.base == BaseUnits::selected;
  const bool measure = characters || rule.byte_pieces == BytePieces::automatic;
  Alphabet whole;
  if (measure) whole = select_alphabet(counts, options.character_coverage, options.threads);
  layout.alphabet_wanted = whole.characters.size();

  // 2. Byte pieces.
  if (wants_byte_pieces(options, rule, vocabulary, whole.characters.size(), observer)) {
    require_room(options, vocabulary.size() + 257, rule.plugin,
                 "the special tokens and the 256 byte pieces");
    layout.first_byte_piece = static_cast<TokenId>(vocabulary.size());
    for (unsigned b = 0; b < 256; ++b) vocabulary.add(byte_fallback_piece(b));
  }

  // 3. The base alphabet.
  if (rule.base == BaseUnits::bytes) {
    require_room(options, vocabulary.size() + 256, rule.plugin,
                 "the special tokens and the 256 bytes");
    for (unsigned b = 0; b < 256; ++b)
      layout.base_ids.push_back(vocabulary.add_or_find(std::string(1, static_cast<char>(b))));
    return layout;
  }
  if (!characters) return layout;
  const std::size_t room = room_left(options, vocabulary);
  if (whole.characters.size() <= room) {
    layout.alphabet = std::move(whole);
  } else {
    // Never exceed vocab_size: keep the most frequent characters and say what it costs.
    layout.alphabet = select_alphabet(counts, options.character_coverage, options.threads, room);
    if (observer != nullptr)
      observer->on_message(rule.plugin + ": vocab_size " + std::to_string(options.vocab_size) +
                           " keeps only the " + std::to_string(layout.alphabet.characters.size()) +
                           " most frequent of " + std::to_string(layout.alphabet_wanted) +
                           " characters: the alphabet needs at least " +
                           std::to_string(vocabulary.size() + layout.alphabet_wanted) +
                           " entries; the other characters are " +
                           (layout.byte_fallback() ? "byte pieces" : "unknown"));
  }
  if (rule.base == BaseUnits::selected) return layout;
  std::string piece;
  for (const char32_t c : layout.alphabet.characters) {
    piece.clear();
    utf8::append(piece, c);
    layout.base_ids.push_back(vocabulary.add_or_find(piece));
  }
  return layout;
}

}  // namespace tokenlab
