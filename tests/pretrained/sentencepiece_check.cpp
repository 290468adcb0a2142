// sentencepiece_check: tokenlab's reading of SentencePiece .model files against
// SentencePiece itself (spm_encode / spm_decode on the PATH, Debian's 0.1.97).
//
// usage: sentencepiece_check [--show N] [--work DIR] [--random-ids N] MODEL TEXT...
//
// For each TEXT (one sentence per line, split on '\n' as std::getline does),
//   * spm_encode --model=MODEL --output_format=id < TEXT gives the reference ids;
//   * spm_decode --model=MODEL --input_format=id on those ids gives the reference text;
//   * tokenlab's PretrainedTokenizer::load(MODEL, "sentencepiece") encodes each line
//     and decodes the reference ids of each line;
// and prints one line per TEXT:
//   MODEL TEXT lines=N encode_diff=A decode_diff=B tokens=T tokenlab_MB/s=X
// with the first N differing lines of each kind (--show, default 3) on stderr.
// Then (unless --random-ids 0) it decodes N lines of random ids (default 2000,
// fixed seed, biased towards the low ids where control, unknown and byte
// pieces sit) with both and prints
//   MODEL random-ids lines=N decode_diff=B
// Exit status: 0 when nothing differs, 1 when something does, 2 on a usage or
// I/O error, 77 when spm_encode or spm_decode is not installed (a skipped test).
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "tokenlab/error.hpp"
#include "tokenlab/pretrained/pretrained_tokenizer.hpp"

namespace {

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// std::getline's lines: split on '\n'; a final '\n' does not start another line.
std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = text.find('\n', start);
    if (end == std::string::npos) {
      lines.push_back(text.substr(start));
      break;
    }
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (const char c : s) {
    if (c == '\'')
      q += "'\\''";
    else
      q += c;
  }
  return q + "'";
}

bool on_path(const char* program) {
  const std::string command = std::string("command -v ") + program + " >/dev/null 2>&1";
  return std::system(command.c_str()) == 0;
}

void run(const std::string& command) {
  const int status = std::system(command.c_str());
  if (status != 0) throw std::runtime_error("failed (" + std::to_string(status) + "): " + command);
}

std::string join_ids(const std::vector<tokenlab::TokenId>& ids) {
  std::string s;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (i > 0) s += ' ';
    s += std::to_string(ids[i]);
  }
  return s;
}

std::vector<tokenlab::TokenId> parse_ids(const std::string& line) {
  std::vector<tokenlab::TokenId> ids;
  std::istringstream in(line);
  unsigned long id = 0;
  while (in >> id) ids.push_back(static_cast<tokenlab::TokenId>(id));
  return ids;
}

// Control characters and invalid bytes shown as \xNN, so a diff is readable.
std::string visible(const std::string& s, std::size_t limit = 300) {
  std::string v;
  for (std::size_t i = 0; i < s.size() && i < limit; ++i) {
    const auto b = static_cast<unsigned char>(s[i]);
    if (b < 0x20 || b == 0x7F) {
      static constexpr char kHex[] = "0123456789ABCDEF";
      v += "\\x";
      v += kHex[b >> 4];
      v += kHex[b & 15];
    } else {
      v += s[i];
    }
  }
  if (s.size() > limit) v += "...";
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t show = 3;
  std::filesystem::path work;
  std::size_t random_lines = 2000;
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--show" && i + 1 < argc)
      show = std::stoul(argv[++i]);
    else if (a == "--work" && i + 1 < argc)
      work = argv[++i];
    else if (a == "--random-ids" && i + 1 < argc)
      random_lines = std::stoul(argv[++i]);
    else
      args.push_back(a);
  }
  if (args.size() < 2) {
    std::cerr
        << "usage: sentencepiece_check [--show N] [--work DIR] [--random-ids N] MODEL TEXT...\n";
    return 2;
  }
  if (!on_path("spm_encode") || !on_path("spm_decode")) {
    std::cout << "SKIPPED: spm_encode/spm_decode not found (Debian package sentencepiece)\n";
    return 77;
  }
  const std::string model = args[0];
  bool cleanup = false;
  if (work.empty()) {
    char pattern[] = "/tmp/sentencepiece_check.XXXXXX";
    if (!mkdtemp(pattern)) {
      std::cerr << "error: mkdtemp failed\n";
      return 2;
    }
    work = pattern;
    cleanup = true;
  }
  int status = 0;
  try {
    const tokenlab::PretrainedTokenizer tokenizer =
        tokenlab::PretrainedTokenizer::load(model, "sentencepiece");
    for (std::size_t t = 1; t < args.size(); ++t) {
      const std::string& text_path = args[t];
      const std::filesystem::path ids_path = work / "reference.ids";
      const std::filesystem::path decoded_path = work / "reference.decoded";
      run("spm_encode --model=" + shell_quote(model) + " --output_format=id < " +
          shell_quote(text_path) + " > " + shell_quote(ids_path.string()));
      run("spm_decode --model=" + shell_quote(model) + " --input_format=id < " +
          shell_quote(ids_path.string()) + " > " + shell_quote(decoded_path.string()));
      const std::vector<std::string> lines = split_lines(read_file(text_path));
      const std::vector<std::string> reference_ids = split_lines(read_file(ids_path));
      const std::vector<std::string> reference_text = split_lines(read_file(decoded_path));
      if (reference_ids.size() != lines.size() || reference_text.size() != lines.size())
        throw std::runtime_error(text_path + ": " + std::to_string(lines.size()) + " lines, but " +
                                 std::to_string(reference_ids.size()) + " from spm_encode and " +
                                 std::to_string(reference_text.size()) + " from spm_decode");

      std::vector<std::vector<tokenlab::TokenId>> ours(lines.size());
      std::size_t bytes = 0;
      std::size_t tokens = 0;
      const auto start = std::chrono::steady_clock::now();
      for (std::size_t i = 0; i < lines.size(); ++i) {
        tokenizer.encode(lines[i], ours[i]);
        bytes += lines[i].size();
        tokens += ours[i].size();
      }
      const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

      std::size_t encode_diff = 0;
      std::size_t decode_diff = 0;
      for (std::size_t i = 0; i < lines.size(); ++i) {
        const std::string got = join_ids(ours[i]);
        if (got != reference_ids[i]) {
          if (encode_diff++ < show)
            std::cerr << "encode differs, " << text_path << ":" << i + 1
                      << "\n  text: " << visible(lines[i])
                      << "\n  spm:  " << visible(reference_ids[i]) << "\n  ours: " << got << "\n";
        }
        std::string decoded;
        try {
          decoded = tokenizer.decode(parse_ids(reference_ids[i]));
        } catch (const std::exception& e) {
          decoded = std::string("<error: ") + e.what() + ">";
        }
        if (decoded != reference_text[i]) {
          if (decode_diff++ < show)
            std::cerr << "decode differs, " << text_path << ":" << i + 1
                      << "\n  ids:  " << visible(reference_ids[i])
                      << "\n  spm:  " << visible(reference_text[i])
                      << "\n  ours: " << visible(decoded) << "\n";
        }
      }
      char rate[32];
      std::snprintf(rate, sizeof rate, "%.2f", seconds > 0 ? bytes / 1e6 / seconds : 0.0);
      std::cout << model << " " << text_path << " lines=" << lines.size()
                << " encode_diff=" << encode_diff << " decode_diff=" << decode_diff
                << " tokens=" << tokens << " tokenlab_MB/s=" << rate << std::endl;
      if (encode_diff != 0 || decode_diff != 0) status = 1;
    }

    if (random_lines > 0) {
      const std::filesystem::path ids_path = work / "random.ids";
      const std::filesystem::path decoded_path = work / "random.decoded";
      const auto size = static_cast<std::uint32_t>(tokenizer.vocabulary_size());
      std::mt19937 rng(12345);
      std::vector<std::vector<tokenlab::TokenId>> lines(random_lines);
      {
        std::ofstream out(ids_path, std::ios::binary);
        for (auto& ids : lines) {
          const std::uint32_t length = rng() % 24;
          while (ids.size() < length) {
            const std::uint32_t id =
                rng() % 2 == 0 ? rng() % std::min<std::uint32_t>(size, 300) : rng() % size;
            // spm_decode's output is read back by lines: nothing that decodes to "\n".
            const std::string token = tokenizer.token(id);
            if (token == "<0x0A>" || token.find('\n') != std::string::npos) continue;
            ids.push_back(id);
          }
          out << join_ids(ids) << "\n";
        }
      }
      run("spm_decode --model=" + shell_quote(model) + " --input_format=id < " +
          shell_quote(ids_path.string()) + " > " + shell_quote(decoded_path.string()));
      const std::vector<std::string> reference_text = split_lines(read_file(decoded_path));
      if (reference_text.size() != lines.size())
        throw std::runtime_error("spm_decode gave " + std::to_string(reference_text.size()) +
                                 " lines for " + std::to_string(lines.size()) + " lines of ids");
      std::size_t decode_diff = 0;
      for (std::size_t i = 0; i < lines.size(); ++i) {
        const std::string decoded = tokenizer.decode(lines[i]);
        if (decoded != reference_text[i] && decode_diff++ < show)
          std::cerr << "decode of random ids differs, line " << i + 1
                    << "\n  ids:  " << join_ids(lines[i])
                    << "\n  spm:  " << visible(reference_text[i])
                    << "\n  ours: " << visible(decoded) << "\n";
      }
      std::cout << model << " random-ids lines=" << lines.size() << " decode_diff=" << decode_diff
                << std::endl;
      if (decode_diff != 0) status = 1;
    }
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    status = 2;
  }
  if (cleanup) {
    std::error_code ec;
    std::filesystem::remove_all(work, ec);
  }
  return status;
}
