// File: plugin_checks.hpp
// What a host checks in what a plugin did, wherever it runs plugin code: the size
// of a trained vocabulary, and how an exception that escaped the plugin is named.
//
//   segmenter->train(counts, options, &observer);
//   check_vocabulary_size(*segmenter, options.vocab_size);  // Error when larger
//
//   catch (const std::exception& e) {
//     std::cerr << describe_exception(e);  // "std::bad_optional_access: bad optional access"
//   }
//
// tokenlab train and compare call check_vocabulary_size after every training, so
// no plugin's oversized vocabulary reaches a model file or a comparison table; the
// conformance suite (conformance.hpp) checks the same rule, and more, before that.
#pragma once

#include <cstddef>
#include <exception>
#include <string>

#include "tokenlab/export.hpp"

namespace tokenlab {

class Segmenter;

/// The exception's dynamic type, demangled, then its message:
/// "std::bad_optional_access: bad optional access", "tokenlab::Error: unknown
/// option 'x' ...". What a plugin threw is named even when it is not an Error.
[[nodiscard]] TOKENLAB_API std::string describe_exception(const std::exception& e);

/// Throws Error when segmenter's vocabulary holds more entries than requested
/// (TrainOptions::vocab_size, special tokens included), naming the plugin, the
/// requested and the actual size. Fewer entries are allowed: a corpus may support
/// fewer, and a plugin then says why through TrainingObserver::on_message.
TOKENLAB_API void check_vocabulary_size(const Segmenter& segmenter, std::size_t requested);

}  // namespace tokenlab
