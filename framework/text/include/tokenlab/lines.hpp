// File: lines.hpp
// The lines of a text held in memory, as a range-v3 view of string_views into it.
//
//   for (const auto& [number, line] : numbered_lines(content))   // number from 1
//     if (line.empty()) continue; else parse(line, source + ": line " + std::to_string(number));
//   auto widths = lines_of(text) | ranges::views::transform(&std::string_view::size);
//
// Lines end at '\n', which they do not include; a last line without one counts,
// and a text that ends with '\n' has no empty line after it. A '\r' before the
// '\n' stays in the line (strip_cr removes it): the readers decide what a CR means.
// Each step is one memchr, so a view costs what the hand-written loop did.
// The view does not own the text: the text must outlive it and its lines.
#pragma once

#include <cstddef>
#include <cstring>
#include <string_view>

#include <range/v3/view/facade.hpp>
#include <range/v3/view/iota.hpp>
#include <range/v3/view/zip.hpp>

namespace tokenlab {

class LineView : public ranges::view_facade<LineView> {
 public:
  LineView() = default;
  explicit LineView(std::string_view text) noexcept : text_(text) {}

 private:
  friend ranges::range_access;

  class cursor {
   public:
    cursor() = default;
    explicit cursor(std::string_view text) noexcept : text_(text) { find_end(); }

    [[nodiscard]] std::string_view read() const noexcept {
      return text_.substr(begin_, end_ - begin_);
    }
    void next() noexcept {
      begin_ = end_ + 1;
      find_end();
    }
    [[nodiscard]] bool equal(ranges::default_sentinel_t) const noexcept {
      return begin_ >= text_.size();
    }
    [[nodiscard]] bool equal(const cursor& other) const noexcept { return begin_ == other.begin_; }

   private:
    void find_end() noexcept {
      if (begin_ >= text_.size()) return;
      const void* newline = std::memchr(text_.data() + begin_, '\n', text_.size() - begin_);
      end_ = newline != nullptr
                 ? static_cast<std::size_t>(static_cast<const char*>(newline) - text_.data())
                 : text_.size();
    }

    std::string_view text_;
    std::size_t begin_ = 0;
    std::size_t end_ = 0;
  };

  [[nodiscard]] cursor begin_cursor() const noexcept { return cursor(text_); }

  std::string_view text_;
};

/// The lines of text (see above).
[[nodiscard]] inline LineView lines_of(std::string_view text) noexcept {
  return LineView(text);
}

/// (line number from 1, line) pairs, for messages that name the line.
[[nodiscard]] inline auto numbered_lines(std::string_view text) {
  return ranges::views::zip(ranges::views::iota(std::size_t{1}), lines_of(text));
}

/// The line without a trailing '\r' (a CRLF file's line end).
[[nodiscard]] inline std::string_view strip_cr(std::string_view line) noexcept {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

}  // namespace tokenlab
