// Every code point through HF's BertNormalizer and BertPreTokenizer.
// usage: node bert_characters.js cased|uncased LINES_OUT COUNTS_OUT
// Writes one line "a<c>a" per code point (surrogates, NUL, line feed and carriage
// return excluded: they cannot be a line's content), and the word counts HF's
// pipeline gives for those lines, as "word<TAB>count", sorted by bytes.
const fs = require("fs");
const path = require("path");
const modules = process.env.TOKENLAB_REFERENCES_MODULES;
const hf = require(modules ? path.join(modules, "@anush008/tokenizers") : "@anush008/tokenizers");

const [casing, linesOut, countsOut] = process.argv.slice(2);
const normalizer = hf.bertNormalizer({ lowercase: casing === "uncased" });
const preTokenizer = hf.bertPreTokenizer();
const lines = [];
const counts = new Map();
for (let cp = 1; cp < 0x110000; cp++) {
  if ((cp >= 0xd800 && cp <= 0xdfff) || cp === 0x0a || cp === 0x0d) continue;
  const line = "a" + String.fromCodePoint(cp) + "a";
  lines.push(line);
  for (const [word] of preTokenizer.preTokenizeString(normalizer.normalizeString(line)))
    counts.set(word, (counts.get(word) || 0) + 1);
}
fs.writeFileSync(linesOut, lines.join("\n") + "\n");
const rows = [...counts].map(([w, n]) => [Buffer.from(w, "utf8"), n]);
rows.sort((a, b) => Buffer.compare(a[0], b[0]));
fs.writeFileSync(countsOut, rows.map(([w, n]) => w.toString("utf8") + "\t" + n).join("\n") + "\n");
