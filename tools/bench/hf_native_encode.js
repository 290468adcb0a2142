// Times HF tokenizers 0.23.2 (npm `tokenizers`, HF's official native binding) on
// a file, line by line, as tests/references/pretrained_reference.js times the
// older binding: load, encode the first 1,000 lines once (warm-up), then time
// encodeBatch over every line in batches of 1,024, without special tokens.
// Threads come from RAYON_NUM_THREADS (1 for one thread).
//
// usage: node hf_native_encode.js TOKENIZER_JSON TEXT [IDS_OUT]
// Prints "bytes tokens cpu_seconds wall_seconds": cpu is the process's user+sys
// time over the timed loop (every thread, rayon's included), so a loaded machine
// inflates it less than wall time. IDS_OUT, if given, gets one line of ids per
// line (untimed second pass), for checking that every tool gives the same ids.
// Lines: split on "\n" only; a final "\n" does not start another line.
"use strict";
const fs = require("fs");
const path = require("path");

const modules = process.env.TOKENLAB_REFERENCES_MODULES;
const { Tokenizer } = require(modules ? path.join(modules, "tokenizers") : "tokenizers");

const BATCH = 1024;
const WARMUP_LINES = 1000;

async function encodeAll(tokenizer, lines, onEncoding) {
  for (let i = 0; i < lines.length; i += BATCH) {
    const encodings = await tokenizer.encodeBatch(lines.slice(i, i + BATCH), {
      addSpecialTokens: false,
    });
    for (const e of encodings) onEncoding(e);
  }
}

async function main() {
  const [model, textFile, idsOut] = process.argv.slice(2);
  if (!textFile) throw new Error("usage: node hf_native_encode.js TOKENIZER_JSON TEXT [IDS_OUT]");
  const tokenizer = Tokenizer.fromFile(model);
  const text = fs.readFileSync(textFile, "utf8");
  const lines = text === "" ? [] : text.split("\n");
  if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  await encodeAll(tokenizer, lines.slice(0, WARMUP_LINES), () => {});
  let tokens = 0;
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  await encodeAll(tokenizer, lines, (e) => (tokens += e.getLength()));
  const wall = Number(process.hrtime.bigint() - start) / 1e9;
  const used = process.cpuUsage(cpu);
  const cpuSeconds = (used.user + used.system) / 1e6;
  console.log(`${Buffer.byteLength(text)} ${tokens} ${cpuSeconds.toFixed(3)} ${wall.toFixed(3)}`);
  if (!idsOut) return;
  const out = [];
  await encodeAll(tokenizer, lines, (e) => out.push(e.getIds().join(" ")));
  fs.writeFileSync(idsOut, out.length ? out.join("\n") + "\n" : "");
}

main().catch((e) => {
  console.error(e.stack || String(e));
  process.exit(1);
});
