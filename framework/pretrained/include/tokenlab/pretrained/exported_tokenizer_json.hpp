// File: pretrained/exported_tokenizer_json.hpp
// A tokenizer.json that `tokenlab export` wrote, read back into what it was
// written from: the model in neutral form and the normalizer and pre-tokenizer
// settings it was exported with.
//
//   const ExportedTokenizerJson e = read_exported_tokenizer_json(content, "bpe.json");
//   e.model.kind == ModelKind::bpe; e.pre_tokenizer.to_string() == "whitespace/prefix"
//
// The exact inverse of write_tokenizer_json: a file is accepted only when
// writing what was read gives the same JSON. One that another library wrote, or
// whose pipeline was edited (a normalizer, pre-tokenizer, decoder or
// post-processor that no tokenlab settings export to), is refused with an Error
// naming the file and what differs; the model part is the model the file
// describes, whatever its pieces, merges or scores. What the export does not
// carry comes back as the export left it: a BPE's dropout is 0, and a character
// model reads back as the BPE without merges that it was written as.
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
