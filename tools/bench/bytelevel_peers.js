// The native and WebAssembly tiktoken peers of tools/bench/bench-bytelevel.
//
//   node bytelevel_peers.js tiktoken-rs ENCODING IN   native tiktoken-rs (npm
//       tiktoken-rs-node-linux-x64-gnu 1.0.6: getEncoding(name).encode(text))
//   node bytelevel_peers.js tiktoken ENCODING IN      npm tiktoken 1.0.22 (WASM)
//
// Encodes IN line by line (split on "\n", as `tokenlab encode` reads it) and
// prints "bytes tokens cpu-seconds MB/s" for the encode loop alone: the CPU time
// (user + system) of this process from the first line to the last, after loading
// the encoding and encoding one short warm-up string. Single-threaded (both
// libraries encode on the calling thread). MB = 10^6 bytes.
// Modules come from $TOKENLAB_REFERENCES_MODULES, as tests/references' scripts,
// else from the reference cache tools/scripts/fetch-references fills.
"use strict";
const fs = require("fs");
const os = require("os");
const path = require("path");

const modules =
  process.env.TOKENLAB_REFERENCES_MODULES ||
  path.join(os.homedir(), ".cache", "tokenlab", "references", "node_modules");

function load(library, encoding) {
  if (!fs.existsSync(modules)) {
    console.error(`bytelevel_peers.js: ${modules} does not exist; run tools/scripts/fetch-references ` +
                  "or set TOKENLAB_REFERENCES_MODULES to its node_modules");
    process.exit(2);
  }
  if (library === "tiktoken-rs") {
    const dir = path.join(modules, "tiktoken-rs-node-linux-x64-gnu");
    const rs = require(path.join(dir, "tiktoken-rs-node.linux-x64-gnu.node"));
    const enc = rs.getEncoding(encoding);
    return (line) => enc.encode(line).length;
  }
  if (library === "tiktoken") {
    const enc = require(path.join(modules, "tiktoken")).get_encoding(encoding);
    return (line) => enc.encode(line).length;
  }
  throw new Error(`unknown library ${library}: tiktoken-rs or tiktoken`);
}

function main() {
  const [library, encoding, file] = process.argv.slice(2);
  if (!file) {
    console.error("usage: node bytelevel_peers.js tiktoken-rs|tiktoken ENCODING IN");
    process.exit(2);
  }
  const encode = load(library, encoding);
  const text = fs.readFileSync(file, "utf8");
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  encode("warm up: 123 words, and more");
  const before = process.cpuUsage();
  let tokens = 0;
  for (const line of lines) tokens += encode(line);
  const used = process.cpuUsage(before);
  const seconds = (used.user + used.system) / 1e6;
  const bytes = Buffer.byteLength(text, "utf8");
  console.log(`${bytes} ${tokens} ${seconds.toFixed(3)} ${(bytes / 1e6 / seconds).toFixed(2)}`);
}

main();
