// Trains a tokenizer.json template with Hugging Face tokenizers' own trainer
// (npm @anush008/tokenizers 0.6.0, HF tokenizers 0.22: Tokenizer.train(files),
// which uses the model's default trainer: BpeTrainer or WordPieceTrainer with
// vocab_size 30000, no special tokens) and saves the result as HF writes it.
//
// usage: node hf_train_template.js TEMPLATE.json CORPUS OUT.json
"use strict";
const fs = require("fs");
const path = require("path");

const modules = process.env.TOKENLAB_REFERENCES_MODULES;
const hf = require(modules ? path.join(modules, "@anush008/tokenizers") : "@anush008/tokenizers");
const [template, corpus, out] = process.argv.slice(2);
if (!template || !corpus || !out) {
  console.error("usage: node hf_train_template.js TEMPLATE.json CORPUS OUT.json");
  process.exit(2);
}
// The trainer's progress bars go to stdout; keep stdout for the caller.
const tokenizer = hf.Tokenizer.fromString(fs.readFileSync(template, "utf8"));
tokenizer.train([corpus]);
tokenizer.save(out, true);
