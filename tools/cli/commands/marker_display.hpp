// File: commands/marker_display.hpp
// How trace and nbest show a piece: a suffix boundary marker as textbooks print it.
#pragma once

#include <string>

#include "tokenlab/pre_tokenizer.hpp"

namespace tokenlab::cli {

/// text with each suffix-style marker "▁" shown as "</w>"; other styles unchanged.
std::string show(const std::string& text, MarkerStyle marker);

}  // namespace tokenlab::cli
