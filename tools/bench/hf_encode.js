// Encodes a file line by line with a saved Hugging Face tokenizer (batch API, threads
// from RAYON_NUM_THREADS) and counts the tokens.
// usage: node hf_encode.js TOKENIZER.json TEXT
// Prints "encode_seconds <s> tokens <n> bytes <b>". TOKENLAB_HF_MODULE as in hf_train.js.
const fs = require("fs");
const { Tokenizer } = require(process.env.TOKENLAB_HF_MODULE || "@anush008/tokenizers");

async function main() {
  const [model, textFile] = process.argv.slice(2);
  const tokenizer = Tokenizer.fromFile(model);
  const text = fs.readFileSync(textFile, "utf8");
  const lines = text.split("\n").filter((l) => l.length > 0);
  const start = process.hrtime.bigint();
  let tokens = 0;
  let failed = 0;
  const batch = 1024;
  for (let i = 0; i < lines.length; i += batch) {
    const slice = lines.slice(i, i + batch);
    try {
      const encodings = await tokenizer.encodeBatch(slice, { addSpecialTokens: false });
      for (const e of encodings) tokens += e.getLength();
    } catch (error) {
      // A model without an unknown token (HF's default Unigram trainer) cannot encode
      // unseen characters: count such lines as failures instead of giving up.
      for (const line of slice) {
        try {
          tokens += (await tokenizer.encode(line, null, { addSpecialTokens: false })).getLength();
        } catch (e) {
          failed += 1;
        }
      }
    }
  }
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  console.log(`encode_seconds ${seconds.toFixed(3)} tokens ${tokens} bytes ${Buffer.byteLength(text)} failed_lines ${failed}`);
}
main().catch((e) => {
  console.error(e);
  process.exit(1);
});
