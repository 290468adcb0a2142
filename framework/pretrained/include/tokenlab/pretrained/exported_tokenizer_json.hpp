// File: pretrained/exported_tokenizer_json.hpp
// A tokenizer.json that `tokenlab export` wrote, read back into what it was
// written from: the model in neutral form and the normalizer and pre-tokenizer
// settings it was exported with.
//
//   const ExportedTokenizerJson e = read_exported_tokenizer_json(content, "bpe.json");
//   e.model.kind == ModelKind::bpe; e.pre_tokenizer.to_string() == "whitespace/prefix"
//
// The exact inverse of write_tokenizer_json: a file is accepted only when
// writing what was read gives the same JSON, so a file another library wrote or
// one edited by hand, whose pipeline no tokenlab settings give, is refused with
// an Error naming the file and what differs. What the export cannot carry comes
// back as the export left it: a BPE model's dropout is 0 unless it was exported
// with it, and a character model reads back as the BPE model without merges that
// it was written as.
#pragma once

#include <string>
#include <string_view>

#include "tokenlab/model_description.hpp"
#include "tokenlab/normalizer.hpp"
#include "tokenlab/pre_tokenizer.hpp"
#include "tokenlab/pretrained/export.hpp"

namespace tokenlab {

struct ExportedTokenizerJson {
  ModelDescription model;
  NormalizerOptions normalizer;
  PreTokenizerOptions pre_tokenizer;
};

/// content: the whole file; source names it in messages.
TOKENLAB_PRETRAINED_API ExportedTokenizerJson
read_exported_tokenizer_json(std::string_view content, const std::string& source);

}  // namespace tokenlab
