// Reference encoder for real models' tokenizers, the other side of
// pretrained_exactness.sh: Hugging Face tokenizers (npm @anush008/tokenizers 0.6.0,
// HF tokenizers 0.22) on tokenizer.json files, and OpenAI's tiktoken (npm tiktoken
// 1.0.22, WASM). Writes what `tokenlab encode` writes, one line of space-separated
// ids per input line, so the two can be compared line by line, and times both
// libraries for the benchmarks.
//
// usage:
//   node pretrained_reference.js hf TOKENIZER_JSON IN OUT_IDS [OUT_DECODED]
//       HF encode without special tokens (add_special_tokens=false); optionally
//       writes decode(ids, skip_special_tokens=false) per line
//   node pretrained_reference.js tiktoken ENCODING IN OUT_IDS [OUT_DECODED]
//       tiktoken encode(line, "all") (every special token allowed) and decode;
//       ENCODING is gpt2, r50k_base, p50k_base, p50k_edit, cl100k_base or o200k_base
//       (get_encoding: the ranks built into the WASM), a path to an encoder JSON
//       (the package's encoders/*.json, or tokenlab export --format tiktoken-json),
//       or RANKS.tiktoken:NAME, a rank file with the pattern of encoding NAME
//   node pretrained_reference.js load-hf TOKENIZER_JSON
//       time Tokenizer.fromFile alone; prints "load SECONDS"
//   node pretrained_reference.js time-hf TOKENIZER_JSON IN
//   node pretrained_reference.js time-tiktoken ENCODING IN
//       time the encode loop alone, single-threaded, after loading and a warm-up;
//       prints "bytes tokens seconds MB/s" (MB = 10^6 bytes)
//
// Lines: IN is split on "\n" only ("\r" stays inside its line); a final "\n" does
// not start another line. An empty line gives an empty output line.
// Modules are found in $TOKENLAB_REFERENCES_MODULES (a node_modules directory), as
// in bert_reference.js, else through node's own resolution.
"use strict";
const fs = require("fs");
const path = require("path");

const modules = process.env.TOKENLAB_REFERENCES_MODULES;
const req = (name) => require(modules ? path.join(modules, name) : name);

const BATCH = 1024;           // lines per HF encodeBatch call
const WARMUP_LINES = 1000;    // lines encoded once before timing

function readLines(file) {
  const text = fs.readFileSync(file, "utf8");
  if (text === "") return { lines: [], bytes: 0 };
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return { lines, bytes: Buffer.byteLength(text, "utf8") };
}

// One output line per entry, each ended by "\n" (nothing at all for no lines).
function writeLines(file, lines) {
  fs.writeFileSync(file, lines.length ? lines.join("\n") + "\n" : "");
}

function report(bytes, tokens, seconds) {
  console.log(`${bytes} ${tokens} ${seconds.toFixed(3)} ${(bytes / 1e6 / seconds).toFixed(2)}`);
}

// ---- Hugging Face tokenizers --------------------------------------------------

function loadHf(file) {
  const { Tokenizer } = req("@anush008/tokenizers");
  return Tokenizer.fromFile(file);
}

async function hfEncodeAll(tokenizer, lines) {
  const ids = [];
  for (let i = 0; i < lines.length; i += BATCH) {
    const encodings = await tokenizer.encodeBatch(lines.slice(i, i + BATCH), {
      addSpecialTokens: false,
    });
    for (const e of encodings) ids.push(e.getIds());
  }
  return ids;
}

async function hf(tokenizerJson, inFile, outIds, outDecoded) {
  const tokenizer = loadHf(tokenizerJson);
  const { lines } = readLines(inFile);
  const ids = await hfEncodeAll(tokenizer, lines);
  writeLines(outIds, ids.map((row) => row.join(" ")));
  if (!outDecoded) return;
  const decoded = [];
  for (let i = 0; i < ids.length; i += BATCH) {
    decoded.push(...(await tokenizer.decodeBatch(ids.slice(i, i + BATCH), false)));
  }
  writeLines(outDecoded, decoded);
}

async function timeHf(tokenizerJson, inFile) {
  const tokenizer = loadHf(tokenizerJson);
  const { lines, bytes } = readLines(inFile);
  await hfEncodeAll(tokenizer, lines.slice(0, WARMUP_LINES));
  const start = process.hrtime.bigint();
  let tokens = 0;
  for (let i = 0; i < lines.length; i += BATCH) {
    const encodings = await tokenizer.encodeBatch(lines.slice(i, i + BATCH), {
      addSpecialTokens: false,
    });
    for (const e of encodings) tokens += e.getLength();
  }
  report(bytes, tokens, Number(process.hrtime.bigint() - start) / 1e9);
}

// ---- tiktoken -----------------------------------------------------------------

function loadTiktoken(encoding) {
  const tiktoken = req("tiktoken");
  if (encoding.endsWith(".json")) {
    const json = JSON.parse(fs.readFileSync(encoding, "utf8"));
    return new tiktoken.Tiktoken(json.bpe_ranks, json.special_tokens, json.pat_str);
  }
  // RANKS.tiktoken:NAME: a rank file with the pattern of tiktoken's encoding NAME,
  // as a user pairs an exported rank file with tiktoken's pattern (no specials).
  const ranks = encoding.match(/^(.*\.tiktoken):(\w+)$/);
  if (ranks) {
    const own = JSON.parse(
      fs.readFileSync(require.resolve(path.join(modules || "", "tiktoken", "encoders",
        `${ranks[2]}.json`)), "utf8"));
    return new tiktoken.Tiktoken(fs.readFileSync(ranks[1], "utf8"), {}, own.pat_str);
  }
  return tiktoken.get_encoding(encoding);
}

function tiktokenRun(encoding, inFile, outIds, outDecoded) {
  const enc = loadTiktoken(encoding);
  const { lines } = readLines(inFile);
  const ids = lines.map((line) => enc.encode(line, "all"));
  writeLines(outIds, ids.map((row) => row.join(" ")));
  if (outDecoded) {
    // decode gives bytes; a line's tokens always make whole UTF-8 characters, so
    // the bytes are written as they are.
    const parts = [];
    for (const row of ids) parts.push(Buffer.from(enc.decode(row)), Buffer.from("\n"));
    fs.writeFileSync(outDecoded, Buffer.concat(parts));
  }
  enc.free();
}

function timeTiktoken(encoding, inFile) {
  const enc = loadTiktoken(encoding);
  const { lines, bytes } = readLines(inFile);
  for (const line of lines.slice(0, WARMUP_LINES)) enc.encode(line, "all");
  const start = process.hrtime.bigint();
  let tokens = 0;
  for (const line of lines) tokens += enc.encode(line, "all").length;
  report(bytes, tokens, Number(process.hrtime.bigint() - start) / 1e9);
  enc.free();
}

function timeHfLoad(file) {
  const start = process.hrtime.bigint();
  loadHf(file);
  console.log(`load ${(Number(process.hrtime.bigint() - start) / 1e9).toFixed(3)}`);
}

// ---- main ---------------------------------------------------------------------

const USAGE = `usage: node pretrained_reference.js
  hf TOKENIZER_JSON IN OUT_IDS [OUT_DECODED]
  tiktoken ENCODING|ENCODER_JSON|RANKS.tiktoken:ENCODING IN OUT_IDS [OUT_DECODED]
  load-hf TOKENIZER_JSON
  time-hf TOKENIZER_JSON IN
  time-tiktoken ENCODING|ENCODER_JSON IN`;

async function main() {
  const [command, ...args] = process.argv.slice(2);
  const arity = { hf: [3, 4], tiktoken: [3, 4], "time-hf": [2, 2], "time-tiktoken": [2, 2],
                  "load-hf": [1, 1] };
  const range = arity[command];
  if (!range || args.length < range[0] || args.length > range[1]) {
    console.error(USAGE);
    process.exit(2);
  }
  if (command.startsWith("time-") || command === "load-hf") {
    // Single-threaded: HF's encodeBatch would otherwise spread a batch over rayon's
    // threads. Both variables are read when the library first needs them, after
    // this point.
    process.env.TOKENIZERS_PARALLELISM = "false";
    process.env.RAYON_NUM_THREADS = "1";
  }
  if (command === "hf") await hf(...args);
  else if (command === "tiktoken") tiktokenRun(...args);
  else if (command === "time-hf") await timeHf(...args);
  else if (command === "load-hf") timeHfLoad(...args);
  else timeTiktoken(...args);
}

main().catch((e) => {
  console.error(e.stack || String(e));
  process.exit(1);
});
