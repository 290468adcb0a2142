// Trains a Hugging Face tokenizers model from Node (npm @anush008/tokenizers), with
// the model's default trainer and the whitespace pre-tokenizer (\w+|[^\w\s]+).
// usage: node hf_train.js wordlevel|bpe|wordpiece|unigram CORPUS OUT.json
// Threads: set RAYON_NUM_THREADS. Prints "train_seconds <s>" on stdout.
// TOKENLAB_HF_MODULE: the package to load instead (a path to npm `tokenizers` 0.23.2,
// HF's official binding, which bench-train and bench-count use when it is cached).
const { Tokenizer, WordLevel, BPE, WordPiece, Unigram, whitespacePreTokenizer } = require(process.env.TOKENLAB_HF_MODULE || "@anush008/tokenizers");

const [kind, corpus, out] = process.argv.slice(2);
const models = {
  wordlevel: () => WordLevel.empty(),
  bpe: () => BPE.empty(),
  wordpiece: () => WordPiece.empty(),
  unigram: () => Unigram.empty(),
};
if (!models[kind] || !corpus || !out) {
  console.error("usage: node hf_train.js wordlevel|bpe|wordpiece|unigram CORPUS OUT.json");
  process.exit(2);
}
const tokenizer = new Tokenizer(models[kind]());
tokenizer.setPreTokenizer(whitespacePreTokenizer());
const start = process.hrtime.bigint();
tokenizer.train([corpus]);
const seconds = Number(process.hrtime.bigint() - start) / 1e9;
tokenizer.save(out);
console.log(`train_seconds ${seconds.toFixed(3)} vocab ${tokenizer.getVocabSize()}`);
