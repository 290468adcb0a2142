// Encodes a file line by line with a saved Hugging Face tokenizer (batch API, threads
// from RAYON_NUM_THREADS) and counts the tokens.
// usage: node hf_encode.js TOKENIZER.json TEXT
// Prints "encode_seconds <s> tokens <n> bytes <b>".
const fs = require("fs");
const { Tokenizer } = require("@anush008/tokenizers");

async function main() {
  const [model, textFile] = process.argv.slice(2);
  const tokenizer = Tokenizer.fromFile(model);
  const text = fs.readFileSync(textFile, "utf8");
  const lines = text.split("\n").filter((l) => l.length > 0);
  const start = process.hrtime.bigint();
  let tokens = 0;
  const batch = 1024;
  for (let i = 0; i < lines.length; i += batch) {
    const encodings = await tokenizer.encodeBatch(lines.slice(i, i + batch), { addSpecialTokens: false });
    for (const e of encodings) tokens += e.getLength();
  }
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  console.log(`encode_seconds ${seconds.toFixed(3)} tokens ${tokens} bytes ${Buffer.byteLength(text)}`);
}
main().catch((e) => {
  console.error(e);
  process.exit(1);
});
