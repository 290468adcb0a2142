// Tokenizer.encode_batch: the lines read in place with the GIL released,
// encoded on threads in chunks, turned into lists while the next chunks encode.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "progress.hpp"
#include "tokenizer.hpp"
#include "tokenlab/app/requests.hpp"
#include "tokenlab/parallel.hpp"
#include "tokenlab/utf8.hpp"

namespace tokenlab::python {

using namespace tokenlab;
using namespace tokenlab::app;

// Long lines on a worker thread, so that Ctrl-C is answered.
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

namespace {

// One chunk's lines as lists of ints, stored in out from slot line on; returns
// the next slot. ends[i] is line i's end in ids. ints holds the shared int of
// every id of the vocabulary (PyTokenizer::ids).
std::size_t store_lists(const py::list& out, std::size_t line, const std::vector<TokenId>& ids,
                        const std::vector<std::size_t>& ends, PyObject* ints) {
  const auto known = static_cast<std::size_t>(PyList_GET_SIZE(ints));
  std::size_t begin = 0;
  for (const std::size_t end : ends) {
    PyObject* list = PyList_New(static_cast<Py_ssize_t>(end - begin));
    if (list == nullptr) throw py::error_already_set();
    PyList_SET_ITEM(out.ptr(), static_cast<Py_ssize_t>(line++), list);
    for (std::size_t k = begin; k < end; ++k) {
      const TokenId id = ids[k];
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
  return line;
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
      line = store_lists(out, line, encoded_chunk.ids, encoded_chunk.ends, ints);
      // When the workers are ahead, this thread never waits: look for a Ctrl-C
      // between chunks too, or it is answered only once every list is built.
      if (signal_pending()) throw py::error_already_set();
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
}  // namespace

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

}  // namespace tokenlab::python
