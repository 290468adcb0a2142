// tokenlab._tokenlab: the Python module over the C++ library (pybind11).
//
// The Python package (tools/python/tokenlab/__init__.py) passes its keyword
// arguments here as a dict; keywords.hpp converts them into the application
// layer's typed requests (framework/app), whose option tables also give the
// package its signatures, and the requests run through the same workflows as
// the CLI's: the same options, defaults, ranges and checks. Long work (training, counting,
// encode_batch, compare) runs with the GIL released; progress callbacks take it back, run the
// Python callback and check for Ctrl-C, which stops the work by an exception through the plugin (a
// tokenlab::Error, whose type every module knows) and is raised in Python as the KeyboardInterrupt
// it was.
#include <dlfcn.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "keywords.hpp"
#include "tokenlab/app/any_model.hpp"
#include "tokenlab/app/option_tables.hpp"
#include "tokenlab/app/workflows.hpp"
#include "tokenlab/atomic_file.hpp"
#include "tokenlab/compare.hpp"
#include "tokenlab/compare_tables.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/interruption.hpp"
#include "tokenlab/parallel.hpp"
#include "tokenlab/plugin_registry.hpp"
#include "tokenlab/report.hpp"
#include "tokenlab/report_bundle.hpp"
#include "tokenlab/tokenizer.hpp"
#include "tokenlab/train_options.hpp"
#include "tokenlab/utf8.hpp"
#include "tokenlab/vocabulary_segmenter.hpp"
#include "tokenlab/word_counts.hpp"

namespace py = pybind11;
using namespace tokenlab;
using namespace tokenlab::app;
using tokenlab::python::apply_keywords;

namespace {

// ---------------------------------------------------------------- errors

PyObject* g_error = nullptr;        // tokenlab.Error
PyObject* g_input_error = nullptr;  // tokenlab.InputError(Error, ValueError)
PyObject* g_file_error = nullptr;   // tokenlab.FileError(Error, OSError)

// A tokenlab::Error is one type for every failure; its message says whether a
// file could not be read or written (the CLI's wording), which makes it an OSError.
bool is_file_problem(const std::string& message) {
  static const std::regex pattern(
      ": (cannot (open|read|write|create|replace|set the mode|load)|is a directory|no such "
      "(plugin )?file|not a directory|(report directory )?is not writable|read error)|No such "
      "file or "
      "directory|Permission denied");
  return std::regex_search(message, pattern);
}

// A Python string from bytes that should be UTF-8 (pieces of a byte-level model
// need not be): invalid sequences become U+FFFD.
py::str text(std::string_view bytes) {
  PyObject* s =
      PyUnicode_DecodeUTF8(bytes.data(), static_cast<Py_ssize_t>(bytes.size()), "replace");
  if (s == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(s);
}

// The UTF-8 of a str argument, without a copy (valid while the object lives).
std::string_view utf8_of(py::handle object, const char* what) {
  if (!PyUnicode_Check(object.ptr()))
    throw py::type_error(std::string(what) + " must be str, not " +
                         std::string(py::str(py::type::handle_of(object).attr("__name__"))));
  Py_ssize_t size = 0;
  const char* data = PyUnicode_AsUTF8AndSize(object.ptr(), &size);
  if (data == nullptr) throw py::error_already_set();
  return {data, static_cast<std::size_t>(size)};
}

// A list of ids. ints (optional) holds the int object of every id below its
// size, shared instead of making one per token (ints are immutable).
// The UTF-8 of a non-ASCII str from its characters, without the GIL (the str
// must be kept alive). False for a surrogate code point, which has no UTF-8.
bool python_utf8(PyObject* str, std::string& out) {
  out.clear();
  const int kind = PyUnicode_KIND(str);
  const void* data = PyUnicode_DATA(str);
  const auto length = static_cast<std::size_t>(PyUnicode_GET_LENGTH(str));
  out.reserve(length * 2);
  for (std::size_t i = 0; i < length; ++i) {
    const Py_UCS4 c = PyUnicode_READ(kind, data, i);
    if (c < 0x80) {
      out += static_cast<char>(c);
    } else if (c < 0x800) {
      out += static_cast<char>(0xC0 | (c >> 6));
      out += static_cast<char>(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
      if (c >= 0xD800 && c <= 0xDFFF) return false;
      out += static_cast<char>(0xE0 | (c >> 12));
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (c & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (c >> 18));
      out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (c & 0x3F));
    }
  }
  return true;
}

py::list id_list(const std::vector<TokenId>& ids, PyObject* ints = nullptr) {
  PyObject* list = PyList_New(static_cast<Py_ssize_t>(ids.size()));
  if (list == nullptr) throw py::error_already_set();
  auto out = py::reinterpret_steal<py::list>(list);
  const std::size_t known = ints != nullptr ? static_cast<std::size_t>(PyList_GET_SIZE(ints)) : 0;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    PyObject* value = nullptr;
    if (ids[i] < known) {
      value = PyList_GET_ITEM(ints, static_cast<Py_ssize_t>(ids[i]));
      Py_INCREF(value);
    } else {
      value = PyLong_FromUnsignedLong(ids[i]);
      if (value == nullptr) throw py::error_already_set();
    }
    PyList_SET_ITEM(list, static_cast<Py_ssize_t>(i), value);
  }
  return out;
}

// ---------------------------------------------------------------- interruption

// Progress from the library, with the GIL released around the work: each call
// takes the GIL, runs the Python callback and checks for signals. A Python
// error (KeyboardInterrupt from Ctrl-C, or the callback's own) is kept and the
// work is stopped with a tokenlab::Error; once the work has returned, the kept
// error is raised instead of whatever the library made of the stop.
class PythonProgress {
 public:
  explicit PythonProgress(py::object callback) : callback_(std::move(callback)) {}

  // With the GIL released: returns normally or throws tokenlab::Error to stop.
  // Without tell, only the signals are checked (a stage the user need not see).
  void report(const std::string& stage, std::optional<double> fraction, bool tell = true) {
    py::gil_scoped_acquire gil;
    if (error_) throw Error("stopped: " + stage);
    try {
      if (PyErr_CheckSignals() != 0) throw py::error_already_set();
      if (tell && !callback_.is_none())
        callback_(stage, fraction ? py::cast(*fraction) : py::object(py::none()));
    } catch (py::error_already_set& e) {
      error_ = std::move(e);
      throw Error("interrupted during " + stage);
    }
  }

  // With the GIL held, after the work: a kept Python error is raised.
  void raise_if_stopped() {
    if (error_) {
      py::error_already_set e = std::move(*error_);
      error_.reset();
      throw e;
    }
  }

  // Runs work with the GIL released; raises the kept error if there is one.
  template <class Fn>
  auto run(Fn&& work) {
    try {
      py::gil_scoped_release release;
      return work();
    } catch (...) {
      raise_if_stopped();
      throw;
    }
  }

 private:
  py::object callback_;
  std::optional<py::error_already_set> error_;
};

class PythonObserver final : public TrainingObserver {
 public:
  explicit PythonObserver(PythonProgress& progress) : progress_(progress) {}
  void on_progress(std::string_view stage, double fraction) override {
    progress_.report(std::string(stage), fraction);
  }
  void on_message(std::string_view message) override {
    py::gil_scoped_acquire gil;
    py::print(text(message), py::arg("file") = py::module_::import("sys").attr("stderr"));
  }

 private:
  PythonProgress& progress_;
};

// ---------------------------------------------------------------- plugins

std::filesystem::path module_directory() {
  Dl_info info{};
  if (::dladdr(reinterpret_cast<void*>(&module_directory), &info) == 0 || info.dli_fname == nullptr)
    return {};
  return std::filesystem::path(info.dli_fname).parent_path();
}

// --plugin-dir entries, then $TOKENLAB_PLUGIN_PATH, then the plugins installed
// (or built) with this module: the CLI's order, relative to the module instead
// of the executable (which is Python's).
std::vector<std::filesystem::path> plugin_search_path(const std::vector<std::string>& dirs) {
  std::vector<std::filesystem::path> path(dirs.begin(), dirs.end());
  if (const char* env = std::getenv("TOKENLAB_PLUGIN_PATH"); env != nullptr) {
    std::string_view rest(env);
    while (!rest.empty()) {
      const auto colon = rest.find(':');
      if (colon != 0) path.emplace_back(std::string(rest.substr(0, colon)));
      if (colon == std::string_view::npos) break;
      rest.remove_prefix(colon + 1);
    }
  }
  if (const auto dir = module_directory(); !dir.empty())
    path.push_back((dir / TOKENLAB_PYTHON_PLUGIN_DIR).lexically_normal());
  return path;
}

// One registry per search path, never destroyed: every segmenter it created
// (in any Tokenizer Python holds) needs its library loaded until the end.
const PluginRegistry& registry_for(const std::vector<std::string>& dirs) {
  static std::mutex mutex;
  static auto* registries = new std::map<std::vector<std::filesystem::path>, PluginRegistry*>();
  const auto path = plugin_search_path(dirs);
  std::lock_guard lock(mutex);
  auto& slot = (*registries)[path];
  if (slot == nullptr) {
    auto* registry = new PluginRegistry();
    registry->load_search_path(path);
    slot = registry;
    for (const auto& e : registry->load_errors())
      if (PyErr_WarnEx(PyExc_RuntimeWarning, ("tokenlab: " + e).c_str(), 1) < 0)
        throw py::error_already_set();
  }
  return *slot;
}

// ---------------------------------------------------------------- word counts

using CountsPtr = std::shared_ptr<WordCounts>;

struct CountsIterator {
  CountsPtr counts;
  std::size_t next = 0;
};

py::list most_common(const WordCounts& counts, std::optional<std::size_t> n) {
  const auto& entries = counts.entries();
  std::vector<std::size_t> order(entries.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  const std::size_t k = std::min(n.value_or(entries.size()), entries.size());
  // Ties keep first-occurrence order, as collections.Counter does.
  const auto by_count = [&](std::size_t a, std::size_t b) {
    return entries[a].count != entries[b].count ? entries[a].count > entries[b].count : a < b;
  };
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k), order.end(),
                    by_count);
  py::list out;
  for (std::size_t i = 0; i < k; ++i)
    out.append(py::make_tuple(text(entries[order[i]].word), entries[order[i]].count));
  return out;
}

CountsPtr count(const py::dict& arguments, const py::object& callback) {
  CountRequest request;
  apply_keywords(count_table(), request, arguments);
  request.pipeline.resolve();
  const auto& corpus = request.corpus;
  const auto& pipeline = request.pipeline;
  if (corpus.empty()) throw UsageError("give the corpus to count");
  PythonProgress progress(callback);
  return progress.run([&] {
    return std::make_shared<WordCounts>(
        count_corpus_files(corpus, pipeline, [&](std::uint64_t bytes) {
          progress.report("counting: " + std::to_string(bytes >> 20) + " MiB", std::nullopt);
        }));
  });
}

// ---------------------------------------------------------------- tokenizers

struct PyTokenizer {
  AnyModel model;
  // The int of every id, made at the first encode (with the GIL held).
  mutable py::object ints;

  [[nodiscard]] const TextEncoder& encoder() const { return *model.encoder; }

  // id_list with the shared ints.
  [[nodiscard]] py::list ids(const std::vector<TokenId>& values) const {
    if (!ints) {
      const std::size_t n = encoder().vocabulary_size();
      py::list all(static_cast<py::ssize_t>(n));
      for (std::size_t i = 0; i < n; ++i) {
        PyObject* value = PyLong_FromSize_t(i);
        if (value == nullptr) throw py::error_already_set();
        PyList_SET_ITEM(all.ptr(), static_cast<Py_ssize_t>(i), value);
      }
      ints = std::move(all);
    }
    return id_list(values, ints.ptr());
  }

  // The trained tokenizer with the capability, or the CLI's message.
  [[nodiscard]] const Tokenizer& trained_with(Capabilities capability, const char* what) const {
    if (!model.trained || !(model.trained->segmenter().capabilities() & capability))
      throw Error("'" + model.kind + "' does not support " + what);
    return *model.trained;
  }
};

using TokenizerPtr = std::shared_ptr<PyTokenizer>;

// How often a thread waiting for encoding workers looks for Ctrl-C.
constexpr std::chrono::milliseconds kSignalPoll{50};

// With the GIL held: raises KeyboardInterrupt (or a signal handler's exception)
// when a signal arrived. Python runs handlers only on the main thread, and only
// when asked: a thread waiting on C++ work must ask.
bool signal_pending() {
  return PyErr_CheckSignals() != 0;
}

// Runs work(stop) on a new thread while this one (the GIL released) waits,
// looking for signals every kSignalPoll; on one, sets stop, waits for the work
// to notice (it checks between pieces or chunks), and raises the Python error.
// The work's own exception is rethrown.
template <class Work>
void run_interruptibly(Work&& work) {
  std::atomic<bool> stop{false};
  std::mutex mutex;
  std::condition_variable finished;
  bool done = false;
  std::exception_ptr error;
  std::thread worker([&] {
    try {
      InterruptionScope scope(stop);
      work(stop);
    } catch (...) {
      error = std::current_exception();
    }
    {
      std::lock_guard lock(mutex);
      done = true;
    }
    finished.notify_all();
  });
  bool interrupted = false;
  for (;;) {
    {
      py::gil_scoped_release release;
      std::unique_lock lock(mutex);
      if (finished.wait_for(lock, kSignalPoll, [&] { return done; })) break;
    }
    if (signal_pending()) {
      interrupted = true;
      stop = true;
      py::gil_scoped_release release;
      std::unique_lock lock(mutex);
      finished.wait(lock, [&] { return done; });
      break;
    }
  }
  worker.join();
  if (interrupted) throw py::error_already_set();
  if (error) std::rethrow_exception(error);
}

std::vector<TokenId> encode_one(const PyTokenizer& t, std::string_view line) {
  std::vector<TokenId> ids;
  if (line.size() < 4096) {
    t.encoder().encode(line, ids);
  } else {
    // Long enough to take a while: on a worker, so that Ctrl-C is answered.
    const TextEncoder& encoder = t.encoder();
    run_interruptibly([&](const std::atomic<bool>&) { encoder.encode(line, ids); });
  }
  return ids;
}

// encode_batch's lists. Filling millions of list slots needs the GIL, so it
// cannot run on the encoding threads; instead this thread (holding the GIL)
// turns each chunk into lists as soon as it is encoded, while the workers
// encode the next chunks: the two overlap instead of following one another.
// chunk(c) gives a chunk with ids, ends (each line's end in ids) and bad.
template <class Encode, class ChunkOf>
py::object lists_while_encoding(const PyTokenizer& t, PyObject** items, std::size_t n,
                                std::size_t chunk_count, unsigned threads, const Encode& encode,
                                const ChunkOf& chunk) {
  if (!t.ints) (void)t.ids({});
  PyObject* ints = t.ints.ptr();
  const auto known = static_cast<std::size_t>(PyList_GET_SIZE(ints));
  py::list out(static_cast<py::ssize_t>(n));
  // Each new list is a container the cyclic collector tracks: tens of thousands of
  // them set off collections that walk every list so far. Lists of ints hold no
  // cycles, so collection waits until they are all made (as json.loads does).
  struct CollectorPause {
    int was_enabled = PyGC_Disable();
    ~CollectorPause() {
      if (was_enabled) PyGC_Enable();
    }
  } pause;

  std::mutex mutex;
  std::condition_variable encoded;
  std::vector<char> done(chunk_count, 0);
  std::size_t next = 0;
  bool stop = false;
  std::atomic<bool> interrupt{false};
  std::exception_ptr error;
  const auto worker = [&] {
    for (;;) {
      std::size_t c = 0;
      {
        std::lock_guard lock(mutex);
        if (stop || next == chunk_count) return;
        c = next++;
      }
      try {
        InterruptionScope scope(interrupt);
        encode(c);
      } catch (const Interrupted&) {
        // Stopped by finish(): whatever made it stop (a Ctrl-C, a bad text found
        // in an earlier chunk) is raised by the main thread, not this.
      } catch (...) {
        std::lock_guard lock(mutex);
        if (!error) error = std::current_exception();
        stop = true;
      }
      {
        std::lock_guard lock(mutex);
        done[c] = 1;
      }
      encoded.notify_all();
    }
  };
  std::vector<std::thread> pool;
  const auto finish = [&] {  // stops and joins the workers, the GIL released
    py::gil_scoped_release release;
    interrupt = true;  // a chunk being encoded stops at its next check
    {
      std::lock_guard lock(mutex);
      stop = true;
    }
    for (auto& thread : pool) thread.join();
    pool.clear();
  };
  try {
    for (unsigned i = 0; i < std::max(1u, threads); ++i) pool.emplace_back(worker);
    std::size_t line = 0;
    for (std::size_t c = 0; c < chunk_count; ++c) {
      bool ready = false;
      while (!ready) {
        {
          // Other Python threads run while this one waits; the lock goes before the
          // GIL comes back, so workers never wait on a thread waiting for the GIL.
          py::gil_scoped_release release;
          std::unique_lock lock(mutex);
          ready = encoded.wait_for(lock, kSignalPoll, [&] { return done[c] != 0 || error; });
        }
        // Ctrl-C: the workers stop after their chunk (finish(), below).
        if (!ready && signal_pending()) throw py::error_already_set();
      }
      {
        std::lock_guard lock(mutex);
        if (error) break;
      }
      const auto& encoded_chunk = chunk(c);
      if (encoded_chunk.bad != SIZE_MAX) break;  // raised below, once the workers stop
      std::size_t begin = 0;
      for (const std::size_t end : encoded_chunk.ends) {
        PyObject* list = PyList_New(static_cast<Py_ssize_t>(end - begin));
        if (list == nullptr) throw py::error_already_set();
        PyList_SET_ITEM(out.ptr(), static_cast<Py_ssize_t>(line++), list);
        for (std::size_t k = begin; k < end; ++k) {
          const TokenId id = encoded_chunk.ids[k];
          PyObject* value = nullptr;
          if (id < known) {
            value = PyList_GET_ITEM(ints, static_cast<Py_ssize_t>(id));
            Py_INCREF(value);
          } else if ((value = PyLong_FromUnsignedLong(id)) == nullptr) {
            throw py::error_already_set();
          }
          PyList_SET_ITEM(list, static_cast<Py_ssize_t>(k - begin), value);
        }
        begin = end;
      }
    }
  } catch (...) {
    finish();
    throw;
  }
  finish();
  if (error) std::rethrow_exception(error);
  for (std::size_t c = 0; c < chunk_count; ++c)
    if (chunk(c).bad != SIZE_MAX) (void)utf8_of(items[chunk(c).bad], "every text");  // raises
  return out;
}

// encode_batch: the lines' UTF-8 read in place (no copy), encoded with the GIL
// released in chunks of 256 lines over threads (as TextEncoder::encode_batch
// splits them), each chunk's ids in one buffer; then lists or one NumPy array.
py::object encode_batch(const PyTokenizer& t, const py::handle& texts, unsigned threads,
                        bool numpy) {
  threads = resolve_threads(capped_threads(threads));
  if (PyUnicode_Check(texts.ptr())) throw py::type_error("texts must be a list of str, not a str");
  if (!PySequence_Check(texts.ptr())) throw py::type_error("texts must be a sequence of str");
  // A tuple of the items, not the list itself (PySequence_Fast): the text is read
  // with the GIL released, while another thread may clear or edit the list; the
  // tuple holds a reference to every str until the call returns.
  const auto sequence = py::reinterpret_steal<py::object>(PySequence_Tuple(texts.ptr()));
  if (!sequence) throw py::error_already_set();
  // An ASCII str, or one whose UTF-8 Python made already, is read in place; the
  // others are converted by the worker threads, from the str's own characters
  // (a str never changes).
  const auto n = static_cast<std::size_t>(PyTuple_GET_SIZE(sequence.ptr()));
  PyObject** items = &PyTuple_GET_ITEM(sequence.ptr(), 0);
  std::vector<std::string_view> lines(n);
  std::vector<PyObject*> to_convert(n, nullptr);
  for (std::size_t i = 0; i < n; ++i) {
    PyObject* item = items[i];
    if (!PyUnicode_Check(item)) (void)utf8_of(item, "every text");  // the TypeError
    if (PyUnicode_IS_ASCII(item))
      lines[i] = {static_cast<const char*>(PyUnicode_DATA(item)),
                  static_cast<std::size_t>(PyUnicode_GET_LENGTH(item))};
    else
      to_convert[i] = item;
  }
  struct Chunk {
    std::vector<TokenId> ids;
    std::vector<std::size_t> ends;  // of each line in ids
    std::string utf8;               // the line being converted
    std::size_t bad = SIZE_MAX;     // a line with a lone surrogate: Python says why
  };
  constexpr std::size_t kChunk = 256;
  std::vector<Chunk> chunks((n + kChunk - 1) / kChunk);
  const TextEncoder& encoder = t.encoder();
  const auto encode_chunk = [&](std::size_t c) {
    Chunk& chunk = chunks[c];
    const std::size_t end = std::min(n, (c + 1) * kChunk);
    chunk.ends.reserve(end - c * kChunk);
    for (std::size_t i = c * kChunk; i < end; ++i) {
      std::string_view line = lines[i];
      if (to_convert[i] != nullptr) {
        if (!python_utf8(to_convert[i], chunk.utf8)) {
          chunk.bad = std::min(chunk.bad, i);
          continue;
        }
        line = chunk.utf8;
      }
      encoder.encode(line, chunk.ids);
      chunk.ends.push_back(chunk.ids.size());
    }
  };
  if (!numpy)
    return lists_while_encoding(t, items, n, chunks.size(), threads, encode_chunk,
                                [&](std::size_t c) -> const Chunk& { return chunks[c]; });
  run_interruptibly([&](const std::atomic<bool>& stop) {
    parallel_for(chunks.size(), threads, [&](std::size_t c) {
      if (stop) return;  // Ctrl-C: the chunks not begun are skipped
      InterruptionScope scope(stop);
      encode_chunk(c);
    });
  });
  for (const Chunk& chunk : chunks)
    if (chunk.bad != SIZE_MAX) (void)utf8_of(items[chunk.bad], "every text");  // raises
  // NumPy: every id in one array, and offsets: line i is ids[offsets[i]:offsets[i + 1]].
  try {
    py::module_::import("numpy");
  } catch (py::error_already_set& e) {
    // Only a missing NumPy is "needs NumPy": a KeyboardInterrupt that arrived
    // during the import is the user's Ctrl-C, and goes on as itself.
    if (!e.matches(PyExc_ImportError)) throw;
    throw py::import_error("encode_batch(numpy=True) needs NumPy (Debian: python3-numpy)");
  }
  std::size_t total = 0;
  for (const Chunk& chunk : chunks) total += chunk.ids.size();
  py::array_t<std::uint32_t> ids(static_cast<py::ssize_t>(total));
  py::array_t<std::int64_t> offsets(static_cast<py::ssize_t>(n + 1));
  std::uint32_t* out = ids.mutable_data();
  std::int64_t* off = offsets.mutable_data();
  std::size_t at = 0;
  std::size_t line = 0;
  off[0] = 0;
  for (const Chunk& chunk : chunks) {
    std::copy(chunk.ids.begin(), chunk.ids.end(), out + at);
    for (const std::size_t end : chunk.ends) off[++line] = static_cast<std::int64_t>(at + end);
    at += chunk.ids.size();
  }
  return py::make_tuple(ids, offsets);
}

std::vector<TokenId> ids_from(const PyTokenizer& t, const py::iterable& ids) {
  const std::size_t vocabulary = t.encoder().vocabulary_size();
  std::vector<TokenId> out;
  for (const auto item : ids) {
    if (!PyLong_Check(item.ptr()) && !PyIndex_Check(item.ptr()))
      throw py::type_error("token ids must be int, not " +
                           std::string(py::str(py::type::handle_of(item).attr("__name__"))));
    const py::int_ value = py::reinterpret_steal<py::int_>(PyNumber_Index(item.ptr()));
    if (!value) throw py::error_already_set();
    const long long id = PyLong_AsLongLong(value.ptr());
    if (id == -1 && PyErr_Occurred()) PyErr_Clear();
    if (id < 0 || static_cast<unsigned long long>(id) >= vocabulary)
      throw Error("token id " + std::string(py::str(item)) + " is outside the vocabulary (size " +
                  std::to_string(vocabulary) + ")");
    out.push_back(static_cast<TokenId>(id));
  }
  return out;
}

py::list vocabulary(const PyTokenizer& t) {
  py::list out;
  const std::size_t n = t.encoder().vocabulary_size();
  for (std::size_t id = 0; id < n; ++id)
    out.append(text(t.encoder().display_piece(static_cast<TokenId>(id))));
  return out;
}

std::vector<TokenId> sample(const PyTokenizer& t, std::string_view line,
                            std::optional<double> dropout, std::optional<double> alpha,
                            std::uint64_t seed) {
  const Tokenizer& trained = t.trained_with(kCapabilitySampling, "sampling");
  if (dropout && !(*dropout >= 0.0 && *dropout <= 1.0))
    throw UsageError("dropout must be in [0, 1], got " + std::to_string(*dropout));
  if (alpha && !(*alpha >= 0.0))
    throw UsageError("alpha must be >= 0, got " + std::to_string(*alpha));
  SamplingOptions options;
  if (dropout) options.dropout = *dropout;
  if (alpha) options.alpha = *alpha;
  std::uint64_t rng = seed;
  std::vector<TokenId> ids;
  trained.for_each_word(line, [&](std::string_view word) {
    trained.segmenter().encode_sampled(word, options, rng, ids);
  });
  check_ids(ids, trained.vocabulary_size(), t.model.kind);
  return ids;
}

py::list nbest(const PyTokenizer& t, std::string_view word, std::size_t k) {
  if (k == 0 || k > kMaxNBest)
    throw UsageError("k must be from 1 to " + std::to_string(kMaxNBest) +
                     " (SentencePiece's limit too), not " + std::to_string(k));
  std::vector<std::vector<std::pair<std::vector<TokenId>, double>>> words;
  if (t.model.pretrained) {
    t.model.pretrained->for_each_nbest(word, k, [&](std::string_view, const auto& candidates) {
      auto& out = words.emplace_back();
      for (const auto& c : candidates) out.emplace_back(c.ids, c.score);
    });
  } else {
    const Tokenizer& trained = t.trained_with(kCapabilityNBest, "n-best segmentation");
    trained.for_each_word(word, [&](std::string_view w) {
      auto& out = words.emplace_back();
      for (auto& c : trained.segmenter().nbest(w, k)) {
        check_ids(c.ids, trained.vocabulary_size(), t.model.kind);
        out.emplace_back(std::move(c.ids), c.score);
      }
    });
  }
  if (words.size() != 1)
    throw UsageError("nbest takes one word, and '" + std::string(word) + "' makes " +
                     std::to_string(words.size()) + " (call it for each word)");
  py::list out;
  for (const auto& [ids, score] : words.front()) out.append(py::make_tuple(id_list(ids), score));
  return out;
}

TokenizerPtr load(const std::string& path, const std::string& format,
                  const std::vector<std::string>& plugin_dirs) {
  const PluginRegistry& registry = registry_for(plugin_dirs);
  auto t = std::make_shared<PyTokenizer>();
  {
    py::gil_scoped_release release;
    t->model = load_any_model(path, registry, format);
  }
  return t;
}

// counts=WordCounts: the table declares counts files; a table in memory is
// taken here.
python::KeywordHook counts_object(std::shared_ptr<const WordCounts>& given) {
  return [&given](const std::string& keyword, py::handle value) {
    if (keyword != "counts" || !py::isinstance<WordCounts>(value)) return false;
    given = value.cast<CountsPtr>();
    return true;
  };
}

TokenizerPtr train(const py::dict& arguments, const py::object& callback) {
  TrainRequest train;
  apply_keywords(train_table(), train, arguments, counts_object(train.given_counts));
  const PluginRegistry& registry = registry_for(train.plugin_dirs);
  std::shared_ptr<Segmenter> segmenter = prepare_training(registry, train);
  std::vector<std::string> notes;
  const NoteFn note = [&](const std::string& n) { notes.push_back(n); };
  PythonProgress progress(callback);
  PythonObserver observer(progress);
  auto tokenizer = progress.run([&] {
    WordCounts counts = training_counts(
        train,
        [&](std::uint64_t bytes) {
          progress.report("counting: " + std::to_string(bytes >> 20) + " MiB", std::nullopt);
        },
        note);
    progress.report("training " + train.algorithm, 0.0, false);
    return std::make_shared<const Tokenizer>(
        train_tokenizer(segmenter, train, counts, &observer, note));
  });
  for (const auto& n : notes)
    py::print(text(n), py::arg("file") = py::module_::import("sys").attr("stderr"));
  auto t = std::make_shared<PyTokenizer>();
  t->model.trained = tokenizer;
  t->model.encoder = tokenizer;
  t->model.kind = train.algorithm;
  return t;
}

std::vector<std::string> export_model(const PyTokenizer& t, const std::string& path,
                                      const py::dict& arguments) {
  ExportRequest request;
  apply_keywords(export_table(), request, arguments);
  request.check(false);
  if (!t.model.trained)
    throw Error("export writes models tokenlab trained; this is a '" + t.model.kind +
                "' file already");
  check_writable(path);
  std::vector<std::string> notes;
  const ExportedModel exported = export_tokenizer(
      *t.model.trained, request, path, [&](const std::string& n) { notes.push_back(n); });
  write_file_atomically(path, [&](std::ostream& out) { out << exported.written; });
  return notes;
}

// ---------------------------------------------------------------- compare and sweep

py::object cell_value(const std::string& cell, ColumnKind kind) {
  if (kind == ColumnKind::text) return text(cell);
  if (cell.empty() || cell == "-") return py::none();
  try {
    std::size_t used = 0;
    if (kind == ColumnKind::integer) {
      const long long v = std::stoll(cell, &used);
      if (used == cell.size()) return py::int_(v);
    } else {
      const double v = std::stod(cell, &used);
      if (used == cell.size()) return py::float_(v);
    }
  } catch (const std::exception&) {
  }
  return text(cell);
}

py::list table_rows(const ReportTable& table) {
  py::list rows;
  for (const auto& row : table.rows) {
    py::dict d;
    for (std::size_t c = 0; c < table.columns.size(); ++c)
      d[text(table.columns[c].name)] =
          cell_value(c < row.size() ? row[c] : std::string(), table.columns[c].kind);
    rows.append(d);
  }
  return rows;
}

std::vector<std::string> table_columns(const ReportTable& table) {
  std::vector<std::string> names;
  for (const auto& c : table.columns) names.push_back(c.name);
  return names;
}

std::string terminal_text(const ReportTable& table) {
  std::ostringstream out;
  write_terminal(out, table);
  return std::move(out).str();
}

py::object to_pandas(const ReportTable& table) {
  py::module_ pandas;
  try {
    pandas = py::module_::import("pandas");
  } catch (py::error_already_set&) {
    throw py::import_error("to_pandas() needs pandas (Debian: python3-pandas)");
  }
  return pandas.attr("DataFrame")(table_rows(table), py::arg("columns") = table_columns(table));
}

std::vector<std::string> bundle_paths(const ReportBundle& bundle) {
  for (const auto& w : bundle.warnings)
    if (PyErr_WarnEx(PyExc_RuntimeWarning, ("tokenlab: " + w).c_str(), 1) < 0)
      throw py::error_already_set();
  std::vector<std::string> files;
  for (const auto& f : bundle.files) files.push_back(f.string());
  return files;
}

void make_report_dir(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec || !std::filesystem::is_directory(dir))
    throw Error(dir + ": cannot create report directory" +
                (ec ? ": " + ec.message() : std::string()));
}

struct PyCompareResult {
  std::shared_ptr<const CompareResult> result;
};
struct PySweepResult {
  std::shared_ptr<const SweepResult> sweep;
};

// compare and sweep: the request from keyword arguments, resolved as the
// CLI resolves it; notes (the default corpus) are printed on sys.stderr.
template <class Request, class Run>
auto run_experiment(const app::OptionTable<Request>& table, const py::dict& arguments,
                    const py::object& callback, Run&& run) {
  Request experiment;
  apply_keywords(table, experiment, arguments, counts_object(experiment.given_counts));
  const PluginRegistry& registry = registry_for(experiment.plugin_dirs);
  std::vector<std::string> notes;
  resolve_experiment(experiment, registry, [&](const std::string& n) { notes.push_back(n); });
  for (const auto& n : notes)
    py::print(text(n), py::arg("file") = py::module_::import("sys").attr("stderr"));
  PythonProgress progress(callback);
  const ProgressFn report = [&](const std::string& stage, double fraction) {
    progress.report(stage, fraction);
  };
  auto result = progress.run([&] { return run(registry, experiment, report); });
  if (!experiment.report_dir.empty()) result.write(experiment.report_dir);
  return result;
}

struct CompareRun {
  PyCompareResult value;
  void write(const std::string& dir) const {
    (void)bundle_paths(write_compare_reports(dir, *value.result));
  }
};
struct SweepRun {
  PySweepResult value;
  void write(const std::string& dir) const {
    (void)bundle_paths(write_sweep_reports(dir, *value.sweep));
  }
};

PyCompareResult compare(const py::dict& arguments, const py::object& callback) {
  return run_experiment(compare_table(), arguments, callback,
                        [](const PluginRegistry& registry, const CompareRequest& request,
                           const ProgressFn& report) {
                          return CompareRun{{std::make_shared<const CompareResult>(
                              run_compare(registry, request.options, report))}};
                        })
      .value;
}

PySweepResult sweep(const py::dict& arguments, const py::object& callback) {
  return run_experiment(sweep_table(), arguments, callback,
                        [](const PluginRegistry& registry, const SweepRequest& request,
                           const ProgressFn& report) {
                          return SweepRun{{std::make_shared<const SweepResult>(
                              run_sweep(registry, request.options, request.vocab_sizes, report))}};
                        })
      .value;
}

}  // namespace

PYBIND11_MODULE(_tokenlab, m) {
  m.doc() = "tokenlab's C++ library (the tokenlab package wraps this module)";
  m.attr("__version__") = TOKENLAB_VERSION;

  // ---- errors
  g_error = PyErr_NewExceptionWithDoc(
      "tokenlab.Error",
      "A tokenlab failure, with the message the CLI prints after 'error: '. Bad input "
      "(arguments, options, file contents) is also a ValueError (InputError), a file that "
      "cannot be read or written also an OSError (FileError).",
      PyExc_Exception, nullptr);
  py::tuple input_bases = py::make_tuple(py::handle(g_error), py::handle(PyExc_ValueError));
  g_input_error = PyErr_NewExceptionWithDoc("tokenlab.InputError",
                                            "Bad input: a tokenlab.Error and a ValueError.",
                                            input_bases.ptr(), nullptr);
  py::tuple file_bases = py::make_tuple(py::handle(g_error), py::handle(PyExc_OSError));
  g_file_error = PyErr_NewExceptionWithDoc(
      "tokenlab.FileError",
      "A file that cannot be read or written: a tokenlab.Error and an OSError.", file_bases.ptr(),
      nullptr);
  m.attr("Error") = py::handle(g_error);
  m.attr("InputError") = py::handle(g_input_error);
  m.attr("FileError") = py::handle(g_file_error);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const python::KeywordTypeError& e) {
      PyErr_SetString(PyExc_TypeError, e.what());
    } catch (const UsageError& e) {
      PyErr_SetString(g_input_error, e.what());
    } catch (const Error& e) {
      PyErr_SetString(is_file_problem(e.what()) ? g_file_error : g_input_error, e.what());
    }
  });

  // ---- plugins
  m.def(
      "plugins",
      [](const std::vector<std::string>& plugin_dirs) {
        py::list out;
        for (const auto& p : registry_for(plugin_dirs).plugins()) {
          std::vector<std::string> caps;
          if (p.capabilities & kCapabilitySampling) caps.emplace_back("sampling");
          if (p.capabilities & kCapabilityNBest) caps.emplace_back("nbest");
          if (p.capabilities & kCapabilityTrace) caps.emplace_back("trace");
          py::dict d;
          d["name"] = p.name;
          d["version"] = p.version;
          d["capabilities"] = caps;
          d["description"] = text(p.description);
          d["file"] = p.file.string();
          out.append(d);
        }
        return out;
      },
      py::arg("plugin_dirs"));
  m.def(
      "plugin_search_path",
      [](const std::vector<std::string>& plugin_dirs) {
        std::vector<std::string> out;
        for (const auto& d : plugin_search_path(plugin_dirs)) out.push_back(d.string());
        return out;
      },
      py::arg("plugin_dirs"));

  // ---- word counts
  py::class_<CountsIterator>(m, "_CountsIterator")
      .def("__iter__", [](py::object self) { return self; })
      .def("__next__", [](CountsIterator& it) {
        const auto& entries = it.counts->entries();
        if (it.next >= entries.size()) throw py::stop_iteration();
        const auto& e = entries[it.next++];
        return py::make_tuple(text(e.word), e.count);
      });
  py::class_<WordCounts, CountsPtr>(
      m, "WordCounts",
      "Distinct pre-tokenized words with their counts, in first-occurrence order (what a "
      "trainer sees of a corpus). Iterating gives (word, count) pairs; counts[word] is 0 for "
      "a word it does not hold; a + b merges (refused for counts made with other settings).")
      .def(py::init<>())
      .def("__len__", &WordCounts::size)
      .def("__iter__",
           [](const CountsPtr& c) {
             return CountsIterator{c, 0};
           })
      .def("__getitem__", [](const WordCounts& c,
                             const py::str& word) { return c.count_of(utf8_of(word, "the word")); })
      .def("__contains__",
           [](const WordCounts& c, const py::object& word) {
             return PyUnicode_Check(word.ptr()) && c.count_of(utf8_of(word, "the word")) > 0;
           })
      .def_property_readonly("total", &WordCounts::total)
      .def_property_readonly("settings", &WordCounts::settings)
      .def("most_common", &most_common, py::arg("n") = py::none(),
           "The n most frequent (word, count) pairs, ties in first-occurrence order (all if n "
           "is None).")
      .def(
          "save",
          [](const WordCounts& c, const std::filesystem::path& path) {
            check_writable(path);
            c.save_tsv(path);
          },
          py::arg("path"), "Writes the counts TSV of 'tokenlab count' (atomically).")
      .def_static(
          "load",
          [](const std::filesystem::path& path) {
            py::gil_scoped_release release;
            return std::make_shared<WordCounts>(WordCounts::load_tsv(path));
          },
          py::arg("path"), "Reads a counts TSV written by save() or 'tokenlab count'.")
      .def("__add__",
           [](const WordCounts& a, const WordCounts& b) {
             auto sum = std::make_shared<WordCounts>(a);
             sum->merge(b);
             return sum;
           })
      .def("__iadd__",
           [](const CountsPtr& a, const WordCounts& b) {
             a->merge(b);
             return a;
           })
      .def("__repr__", [](const WordCounts& c) {
        return "<tokenlab.WordCounts: " + std::to_string(c.size()) + " distinct words, " +
               std::to_string(c.total()) + " occurrences>";
      });
  m.def("count", &count, py::arg("arguments"), py::arg("progress"));

  // ---- tokenizers
  py::class_<PyTokenizer, TokenizerPtr>(
      m, "Tokenizer",
      "A tokenizer: trained by tokenlab.train, or read by tokenlab.load (a .tkl model or a real "
      "model's tokenizer file). Immutable and safe to use from many threads.")
      .def(
          "encode",
          [](const PyTokenizer& t, const py::handle& line) {
            return t.ids(encode_one(t, utf8_of(line, "text")));
          },
          py::arg("text"), "The token ids of one line of text (no special tokens added).")
      .def(
          "tokens",
          [](const PyTokenizer& t, const py::handle& line) {
            const auto ids = encode_one(t, utf8_of(line, "text"));
            py::list out;
            for (TokenId id : ids) out.append(text(t.encoder().display_piece(id)));
            return out;
          },
          py::arg("text"),
          "The tokens of one line of text as readable strings (what 'tokenlab encode "
          "--pieces' prints).")
      .def(
          "decode",
          [](const PyTokenizer& t, const py::iterable& ids) {
            const auto list = ids_from(t, ids);
            return text(t.encoder().decode(list));
          },
          py::arg("ids"), "The text of token ids; an id outside the vocabulary raises InputError.")
      .def("encode_batch", &encode_batch, py::arg("texts"), py::arg("threads") = 0,
           py::arg("numpy") = false,
           "Encodes each text on threads threads (0 = all cores) with the GIL released; results "
           "in input order, as a list of id lists, or with numpy=True as (ids, offsets): one "
           "uint32 array of every id and an int64 array where text i is "
           "ids[offsets[i]:offsets[i + 1]].")
      .def(
          "_time_encode_batch",
          [](const PyTokenizer& t, const std::vector<std::string>& lines, unsigned threads) {
            // For tools/bench/bench-python: the C++ library's encode_batch alone, in
            // this process (the lines were copied before the clock starts).
            py::gil_scoped_release release;
            const auto start = std::chrono::steady_clock::now();
            const auto encoded = t.encoder().encode_batch(lines, capped_threads(threads));
            return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
          },
          py::arg("lines"), py::arg("threads") = 0)
      .def_property_readonly(
          "vocab_size", [](const PyTokenizer& t) { return t.encoder().vocabulary_size(); },
          "One past the largest id: the rows of an embedding matrix.")
      .def_property_readonly(
          "kind", [](const PyTokenizer& t) { return t.model.kind; },
          "The plugin that trained it ('bpe', ...) or the real tokenizer's format.")
      .def_property_readonly(
          "capabilities",
          [](const PyTokenizer& t) {
            std::vector<std::string> caps;
            if (!t.model.trained) {
              if (t.model.pretrained && t.model.pretrained->pipeline().model->type() == "unigram")
                caps.emplace_back("nbest");
              return caps;
            }
            const Capabilities c = t.model.trained->segmenter().capabilities();
            if (c & kCapabilitySampling) caps.emplace_back("sampling");
            if (c & kCapabilityNBest) caps.emplace_back("nbest");
            if (c & kCapabilityTrace) caps.emplace_back("trace");
            return caps;
          })
      .def_property_readonly("unknown_id",
                             [](const PyTokenizer& t) { return t.encoder().unknown_id(); })
      .def("vocabulary", &vocabulary,
           "Every token, by id, as readable text (byte-level pieces shown as their bytes).")
      .def(
          "save",
          [](const PyTokenizer& t, const std::filesystem::path& path) {
            if (!t.model.trained)
              throw Error("save writes models tokenlab trained; this '" + t.model.kind +
                          "' tokenizer is its own file already ('tokenlab import' makes a .tkl "
                          "of it)");
            check_writable(path);
            t.model.trained->save(path);
          },
          py::arg("path"), "Saves a model tokenlab trained as a .tkl file (written atomically).")
      .def(
          "export",
          [](const PyTokenizer& t, const std::filesystem::path& path, const py::object& format,
             const py::object& approximate, const py::object& dropout) {
            py::dict arguments;
            arguments["format"] = format;
            arguments["approximate"] = approximate;
            arguments["dropout"] = dropout;
            for (const auto& n : export_model(t, path.string(), arguments))
              py::print(text(n), py::arg("file") = py::module_::import("sys").attr("stderr"));
          },
          py::arg("path"), py::arg("format"), py::arg("approximate") = false,
          py::arg("dropout") = false,
          "Writes the model for another library, as 'tokenlab export': format is "
          "'tokenizer.json', 'tiktoken', 'tiktoken-json', 'sentencepiece' or 'vocab.txt'. "
          "approximate writes a BPE as tiktoken or sentencepiece even where their merge rule may "
          "encode some text differently; dropout writes a BPE's default dropout into "
          "tokenizer.json.")
      .def(
          "sample",
          [](const PyTokenizer& t, const py::handle& line, std::optional<double> dropout,
             std::optional<double> alpha, std::uint64_t seed) {
            return t.ids(sample(t, utf8_of(line, "text"), dropout, alpha, seed));
          },
          py::arg("text"), py::arg("dropout") = py::none(), py::arg("alpha") = py::none(),
          py::arg("seed") = 0,
          "A sampled segmentation of text, as 'tokenlab encode --dropout/--alpha --seed': "
          "BPE-dropout probability dropout (BPE), inverse temperature alpha (unigram). Needs the "
          "sampling capability.")
      .def(
          "nbest",
          [](const PyTokenizer& t, const py::handle& word, std::size_t k) {
            return nbest(t, utf8_of(word, "word"), k);
          },
          py::arg("word"), py::arg("k") = 5,
          "The k best segmentations of one word as (ids, score) pairs, best first, as "
          "'tokenlab nbest'. Needs the nbest capability (unigram, SentencePiece unigram).")
      .def("__repr__", [](const PyTokenizer& t) {
        return "<tokenlab.Tokenizer " + t.model.kind + ", " +
               std::to_string(t.encoder().vocabulary_size()) + " ids>";
      });
  m.def("load", &load, py::arg("path"), py::arg("format"), py::arg("plugin_dirs"));
  m.def("train", &train, py::arg("arguments"), py::arg("progress"));

  // ---- compare and sweep
  py::class_<PyCompareResult>(
      m, "CompareResult",
      "The result of tokenlab.compare: rows (dicts with compare.csv's columns), to_pandas(), "
      "write_report(dir); str() is the CLI's table.")
      .def_property_readonly(
          "rows", [](const PyCompareResult& r) { return table_rows(comparison_table(*r.result)); })
      .def_property_readonly(
          "columns",
          [](const PyCompareResult& r) { return table_columns(comparison_table(*r.result)); })
      .def_property_readonly("fairness_rows",
                             [](const PyCompareResult& r) {
                               return r.result->languages.size() > 1
                                          ? table_rows(fairness_table(*r.result))
                                          : py::list();
                             })
      .def_property_readonly(
          "pooled_rows",
          [](const PyCompareResult& r) {
            return r.result->pooled.empty() ? py::list() : table_rows(pooled_table(*r.result));
          })
      .def("to_pandas",
           [](const PyCompareResult& r) { return to_pandas(comparison_table(*r.result)); })
      .def(
          "write_report",
          [](const PyCompareResult& r, const std::filesystem::path& dir) {
            make_report_dir(dir.string());
            return bundle_paths(write_compare_reports(dir, *r.result));
          },
          py::arg("dir"))
      .def("__str__",
           [](const PyCompareResult& r) { return terminal_text(comparison_table(*r.result)); })
      .def("__repr__", [](const PyCompareResult& r) {
        return "<tokenlab.CompareResult: " + std::to_string(r.result->rows.size()) + " rows>";
      });
  py::class_<PySweepResult>(
      m, "SweepResult",
      "The result of tokenlab.sweep: rows (dicts with sweep.csv's columns), runs (a "
      "CompareResult per size), to_pandas(), write_report(dir).")
      .def_property_readonly(
          "rows", [](const PySweepResult& r) { return table_rows(sweep_table(*r.sweep)); })
      .def_property_readonly(
          "columns", [](const PySweepResult& r) { return table_columns(sweep_table(*r.sweep)); })
      .def_property_readonly("vocab_sizes",
                             [](const PySweepResult& r) { return r.sweep->vocab_sizes; })
      .def_property_readonly(
          "runs",
          [](const PySweepResult& r) {
            std::vector<PyCompareResult> runs;
            for (const auto& run : r.sweep->runs)
              runs.push_back({std::shared_ptr<const CompareResult>(r.sweep, &run)});
            return runs;
          })
      .def("to_pandas", [](const PySweepResult& r) { return to_pandas(sweep_table(*r.sweep)); })
      .def(
          "write_report",
          [](const PySweepResult& r, const std::filesystem::path& dir) {
            make_report_dir(dir.string());
            return bundle_paths(write_sweep_reports(dir, *r.sweep));
          },
          py::arg("dir"))
      .def("__str__", [](const PySweepResult& r) { return terminal_text(sweep_table(*r.sweep)); })
      .def("__repr__", [](const PySweepResult& r) {
        return "<tokenlab.SweepResult: " + std::to_string(r.sweep->vocab_sizes.size()) + " sizes>";
      });
  m.def("compare", &compare, py::arg("arguments"), py::arg("progress"));
  m.def("sweep", &sweep, py::arg("arguments"), py::arg("progress"));

  // ---- the option tables: what tokenlab/__init__.py makes signatures and docs of
  m.def(
      "parameters",
      [](const std::string& function) {
        if (function == "count") return python::parameters(count_table());
        if (function == "train") return python::parameters(train_table());
        if (function == "compare") return python::parameters(compare_table());
        if (function == "sweep") return python::parameters(sweep_table());
        if (function == "export") return python::parameters(export_table());
        throw py::value_error("no option table for '" + function + "'");
      },
      py::arg("function"),
      "[(keyword, default, required, help), ...]: the options of a function, from the "
      "application layer's one declaration of each (framework/app/src/option_tables.cpp).");
  m.def("python_keywords", &python_keywords,
        "{cli option name: keyword}: how a message naming --held-out is reworded for Python.");
}
