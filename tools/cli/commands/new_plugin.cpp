// tokenlab new-plugin NAME [DIR]: a ready-to-build out-of-tree plugin, made from
// plugins/example (compiled into the CLI), with the name consistent everywhere.
#include <filesystem>
#include <iostream>
#include <string>

#include "cli.hpp"
#include "plugin_template.hpp"
#include "tokenlab/atomic_file.hpp"
#include "tokenlab/conformance.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/plugin_registry.hpp"

namespace tokenlab::cli {

namespace {

// A plugin name is a C++ identifier fragment and a file name: [a-z][a-z0-9_]*.
bool valid_plugin_name(const std::string& name) {
  if (name.empty() || name.size() > 64 || name[0] < 'a' || name[0] > 'z') return false;
  for (const char c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  return true;
}

// "syllable_split" -> "SyllableSplit"
std::string camel_case(const std::string& name) {
  std::string out;
  bool upper = true;
  for (const char c : name) {
    if (c == '_') {
      upper = true;
      continue;
    }
    out += upper && c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c;
    upper = false;
  }
  return out;
}

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at)) {
    text.replace(at, from.size(), to);
    at += to.size();
  }
  return text;
}

// The example's description replaced by a placeholder that says to replace it
// (check-plugin warns while it is there); text without one is returned as it is.
std::string placeholder_description(std::string text, const std::string& name) {
  const std::size_t key = text.find("kDescription =");
  const std::size_t open = key == std::string::npos ? key : text.find('"', key);
  const std::size_t close = open == std::string::npos ? open : text.find('"', open + 1);
  if (close == std::string::npos) return text;
  return text.replace(open, close + 1 - open,
                      "\"TODO: say in one line what " + name + " does (" +
                          std::string(kNewPluginPlaceholder) + ")\"");
}

// The example with its names replaced: class, namespace, then every "ngram".
std::string rename(std::string_view text, const std::string& name) {
  std::string out(text);
  out = replace_all(out, "NgramSegmenter", camel_case(name) + "Segmenter");
  out = replace_all(out, "ngram_example", name + "_plugin");
  out = replace_all(out, "ngram", name);
  return placeholder_description(std::move(out), name);
}

std::string readme(const std::string& name) {
  return "# " + name +
         ": a tokenlab plugin\n\n"
         "Made by `tokenlab new-plugin " +
         name +
         "` from tokenlab's example plugin (greedy longest match over\n"
         "frequent character n-grams). Replace `train()` and `encode()` in `" +
         name +
         ".cpp` with your\nalgorithm; `VocabularySegmenter` does the rest (vocabulary, special "
         "tokens, decoding,\nchecked save and load). Replace `kDescription`'s placeholder too, "
         "with one line saying\nwhat it does (check-plugin warns until you do). See tokenlab's "
         "docs/writing-a-plugin.md.\n\n"
         "```sh\n"
         "cmake -S . -B build -DCMAKE_PREFIX_PATH=<tokenlab install prefix>\n"
         "cmake --build build\n"
         "tokenlab check-plugin build/" +
         name +
         ".so\n"
         "tokenlab compare --plugin-dir build --algorithms bpe," +
         name +
         " --corpus some.txt\n"
         "```\n\n"
         "The name `" +
         name + "` appears in `" + name +
         ".cpp` (`kName`) and in `CMakeLists.txt`\n"
         "(`PLUGIN_NAME`); the registry refuses a plugin whose file name and `kName` differ.\n";
}

}  // namespace

int cmd_new_plugin(const std::vector<std::string>& args) {
  std::string name;
  std::string dir;
  std::vector<std::string> plugin_dirs;
  po::options_description desc("options");
  desc.add_options()("name", po::value(&name)->required(), "plugin name: [a-z][a-z0-9_]*")(
      "dir", po::value(&dir), "directory to create (default ./NAME)")(
      "plugin-dir", po::value(&plugin_dirs), "extra plugin directory (repeatable)");
  po::positional_options_description positional;
  positional.add("name", 1).add("dir", 1);
  po::variables_map vm;
  if (!parse("new-plugin", "NAME [DIR]", desc, positional, args, vm)) return kExitOk;
  if (!valid_plugin_name(name))
    throw UsageError("plugin name '" + name +
                     "': expected a lowercase letter, then letters, digits or _ (at most 64)");
  PluginRegistry registry;
  load_plugins(registry, plugin_dirs);
  if (registry.has(name))
    throw Error("a plugin named '" + name +
                "' is already installed: the registry needs unique names, choose another");
  const std::filesystem::path target = dir.empty() ? name : dir;
  std::error_code ec;
  if (std::filesystem::exists(target, ec) && !std::filesystem::is_empty(target, ec))
    throw Error(target.string() + ": exists and is not empty; give a new directory");
  std::filesystem::create_directories(target, ec);
  if (ec) throw Error(target.string() + ": cannot create: " + ec.message());
  const auto write = [&](const std::string& file, const std::string& text) {
    write_file_atomically(target / file, [&](std::ostream& out) { out << text; });
  };
  write(name + ".cpp", rename(kTemplateSource, name));
  write("CMakeLists.txt", rename(kTemplateCMake, name));
  write("README.md", readme(name));
  std::cout << "created " << (target / (name + ".cpp")).string() << ", CMakeLists.txt and README.md"
            << "\nbuild and check it:\n  cmake -S " << target.string() << " -B "
            << (target / "build").string()
            << " -DCMAKE_PREFIX_PATH=<tokenlab install prefix>\n  cmake --build "
            << (target / "build").string() << "\n  tokenlab check-plugin "
            << (target / "build" / (name + ".so")).string() << '\n';
  return kExitOk;
}

}  // namespace tokenlab::cli
