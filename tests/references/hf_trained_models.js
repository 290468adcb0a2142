// Trains the tokenizer.json files that pretrained_exactness.sh's hf-trained group
// reads: Hugging Face tokenizers' own trainers (npm @anush008/tokenizers 0.6.0, HF
// tokenizers 0.22) for WordPiece, Unigram, BPE and WordLevel, each with its
// default trainer settings and the Whitespace pre-tokenizer.
//
// usage: node hf_trained_models.js CORPUS OUT_DIR
// writes OUT_DIR/hf-{wordpiece,unigram,bpe,wordlevel}.json (kept if present).
//
// The npm binding's train() takes no trainer options, so its files have no unknown
// token, and HF fails on any text with a character the corpus lacked. A user trains
// with special_tokens=[unk]; that file is what this script writes: the unknown
// token at id 0, every other id one higher (for Unigram, <unk> first with score 0
// and unk_id 0), exactly as the trainer lays out its special tokens.
"use strict";
const fs = require("fs");
const path = require("path");

const modules = process.env.TOKENLAB_REFERENCES_MODULES;
const req = (name) => require(modules ? path.join(modules, name) : name);
const hf = req("@anush008/tokenizers");

const [corpus, outDir] = process.argv.slice(2);
if (!corpus || !outDir) {
  console.error("usage: node hf_trained_models.js CORPUS OUT_DIR");
  process.exit(2);
}

const kinds = {
  wordpiece: { make: () => hf.WordPiece.empty(), unk: "[UNK]" },
  unigram: { make: () => hf.Unigram.empty(), unk: "<unk>" },
  bpe: { make: () => hf.BPE.empty(), unk: "<unk>" },
  wordlevel: { make: () => hf.WordLevel.empty(), unk: "<unk>" },
};

// The unknown token at id 0, as the trainer puts special tokens first.
function withUnknown(json, unk) {
  const model = json.model;
  if (model.type === "Unigram") {
    model.vocab.unshift([unk, 0.0]);
    model.unk_id = 0;
  } else {
    const vocab = { [unk]: 0 };
    for (const [token, id] of Object.entries(model.vocab)) vocab[token] = id + 1;
    model.vocab = vocab;
    model.unk_token = unk;
  }
  for (const added of json.added_tokens) added.id += 1;
  json.added_tokens.unshift({
    id: 0, content: unk, single_word: false, lstrip: false, rstrip: false,
    normalized: false, special: true,
  });
  return json;
}

fs.mkdirSync(outDir, { recursive: true });
for (const [kind, { make, unk }] of Object.entries(kinds)) {
  const out = path.join(outDir, `hf-${kind}.json`);
  if (fs.existsSync(out)) continue;
  const start = process.hrtime.bigint();
  const tokenizer = new hf.Tokenizer(make());
  tokenizer.setPreTokenizer(hf.whitespacePreTokenizer());
  tokenizer.train([corpus]);
  const raw = `${out}.raw`;
  tokenizer.save(raw);
  const json = withUnknown(JSON.parse(fs.readFileSync(raw, "utf8")), unk);
  fs.writeFileSync(`${out}.tmp`, JSON.stringify(json));
  fs.renameSync(`${out}.tmp`, out);
  fs.unlinkSync(raw);
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  console.log(`hf-${kind}: trained in ${seconds.toFixed(1)} s, ${tokenizer.getVocabSize()} tokens`);
}
