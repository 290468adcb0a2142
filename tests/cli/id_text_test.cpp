// The id text `tokenlab encode` writes: decimal ids, one space apart, a
// newline after the line's last; the same digits std::to_string gives, built
// from digit pairs below 10^7 and by std::to_chars past it.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "commands/id_text.hpp"

using tokenlab::TokenId;
using tokenlab::cli::IdText;

namespace {

std::string spelled_by_to_string(const std::vector<TokenId>& ids) {
  std::string out;
  for (std::size_t i = 0; i < ids.size(); ++i) out += (i ? " " : "") + std::to_string(ids[i]);
  return out + "\n";
}

}  // namespace

TEST_CASE("ids of every digit count are written as std::to_string spells them", "[id-text]") {
  // Every length from one digit to eight, at both ends of each, and the largest id.
  std::vector<TokenId> ids;
  for (TokenId power = 1; power <= 10'000'000; power *= 10) {
    ids.push_back(power - 1);
    ids.push_back(power);
    ids.push_back(power + 1);
  }
  ids.push_back(16'777'215);  // TokenTable's largest id
  const IdText text;
  std::string out = "kept ";
  text.append_line(ids, out);
  CHECK(out == "kept " + spelled_by_to_string(ids));
}

TEST_CASE("every id below ten million is spelled as std::to_string spells it", "[id-text]") {
  const IdText text;
  std::size_t wrong = 0;
  std::vector<TokenId> line(1);
  std::string out;
  for (TokenId id = 0; id < 10'000'000; id += id < 100'000 ? 1 : 7) {
    line[0] = id;
    out.clear();
    text.append_line(line, out);
    if (out != std::to_string(id) + "\n") ++wrong;
  }
  CHECK(wrong == 0);
}

TEST_CASE("an empty line of ids is an empty line, and lines follow each other", "[id-text]") {
  const IdText text;
  std::string out;
  text.append_line({}, out);
  text.append_line({15, 339}, out);
  text.append_line({7}, out);
  CHECK(out == "\n15 339\n7\n");
}
