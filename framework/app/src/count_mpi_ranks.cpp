// The MPI half of count_mpi.hpp, built as a module of its own
// (lib/tokenlab/libtokenlab_count_mpi_ranks.so) that count_across_ranks loads
// only when a launcher started the process: linked into the CLI, Open MPI and
// the libraries under it (open-pal, open-rte, hwloc, libevent: eight shared
// objects) were mapped and relocated at the start of every command, about 2 ms
// of CPU each time, for the one command that runs under mpirun.
#include <mpi.h>

#include <algorithm>
#include <boost/config.hpp>
#include <boost/mpi/collectives.hpp>
#include <boost/mpi/communicator.hpp>
#include <boost/mpi/environment.hpp>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <optional>
#include <queue>
#include <string_view>

#include "count_mpi_entry.hpp"
#include "tokenlab/app/count_mpi.hpp"
#include "tokenlab/atomic_file.hpp"
#include "tokenlab/corpus.hpp"
#include "tokenlab/counting.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/keyed_counts.hpp"
#include "tokenlab/normalizer.hpp"
#include "tokenlab/pre_tokenizer.hpp"
#include "tokenlab/word_counts.hpp"

namespace tokenlab::app {

namespace {

namespace mpi = boost::mpi;

// One piece of the corpus: a line-aligned byte range of a plain file, or a
// whole compressed file. Pieces are numbered in corpus order.
struct Piece {
  CorpusRange range;
};

constexpr std::uint64_t kWholeFile = std::numeric_limits<std::uint64_t>::max();

bool is_compressed(const std::string& file) {
  return file.ends_with(".gz") || file.ends_with(".xz");
}

// Cuts the corpus into about four pieces per rank, between 1 MiB and 256 MiB
// each, so that ranks stay busy and one piece's table stays small. The cuts do
// not change the result: keys stay in corpus order however the corpus is cut.
std::vector<Piece> plan_pieces(const std::vector<std::string>& corpus, int ranks) {
  std::uint64_t plain_bytes = 0;
  for (const auto& file : corpus) {
    if (file == "-")
      throw Error("standard input cannot be shared by MPI ranks: give the corpus as files");
    std::error_code ec;
    const std::filesystem::path path(file);
    if (!std::filesystem::exists(path, ec)) throw Error(file + ": no such file");
    if (std::filesystem::is_directory(path, ec))
      throw Error(file + ": is a directory, not a corpus file");
    if (!is_compressed(file) && std::filesystem::is_regular_file(path, ec))
      plain_bytes += std::filesystem::file_size(path, ec);
  }
  std::uint64_t piece_bytes =
      std::clamp<std::uint64_t>(plain_bytes / (4 * static_cast<std::uint64_t>(ranks)),
                                std::uint64_t{1} << 20, std::uint64_t{256} << 20);
  // Tests cut small corpora into many small pieces, to put cuts everywhere.
  if (const auto forced = first_integer({"TOKENLAB_MPI_PIECE_BYTES"}); forced && *forced > 0)
    piece_bytes = static_cast<std::uint64_t>(*forced);
  std::vector<Piece> pieces;
  for (const auto& file : corpus) {
    // A compressed file cannot be cut, nor a FIFO or a device: one piece each.
    std::error_code ec;
    const bool cuttable = !is_compressed(file) && std::filesystem::is_regular_file(file, ec);
    const std::uint64_t size = cuttable ? std::filesystem::file_size(file, ec) : 0;
    if (!cuttable || ec || size <= piece_bytes) {
      pieces.push_back({CorpusRange{file}});
      continue;
    }
    for (std::uint64_t begin = 0; begin < size; begin += piece_bytes) {
      const bool last = begin + piece_bytes >= size;
      // The last piece reads to the end, whatever the file holds by then.
      pieces.push_back({CorpusRange{file, begin, last ? kWholeFile : begin + piece_bytes}});
    }
  }
  return pieces;
}

// The rank that owns a word, from the hash's low bits: KeyedCounts places words
// by the high 32, which stay spread over every rank's table.
int owner_of(std::string_view word, int ranks) {
  return static_cast<int>((WordCounts::hash(word) & 0xFFFFFFFFu) %
                          static_cast<std::uint64_t>(ranks));
}

// Entries on the wire: word length (u32), word bytes, count (u64), key (u64).
void append_entry(std::vector<char>& out, std::string_view word, std::uint64_t count,
                  OccurrenceKey key) {
  const auto length = static_cast<std::uint32_t>(word.size());
  const std::size_t at = out.size();
  out.resize(at + 4 + word.size() + 16);
  std::memcpy(out.data() + at, &length, 4);
  std::memcpy(out.data() + at + 4, word.data(), word.size());
  std::memcpy(out.data() + at + 4 + word.size(), &count, 8);
  std::memcpy(out.data() + at + 12 + word.size(), &key, 8);
}

// Reads the entry at data[at...]; advances at.
KeyedEntry read_entry(const char* data, std::size_t& at) {
  std::uint32_t length = 0;
  std::memcpy(&length, data + at, 4);
  KeyedEntry entry;
  entry.word.assign(data + at + 4, length);
  std::memcpy(&entry.count, data + at + 4 + length, 8);
  std::memcpy(&entry.first, data + at + 12 + length, 8);
  at += 20 + length;
  return entry;
}

// Agreement on failure: every rank passes its error ("" if none) and learns the
// lowest failing rank and its message. A collective, so all ranks must call it
// at the same point.
struct Failure {
  int rank = 0;
  std::string message;
};

std::optional<Failure> first_failure(const mpi::communicator& world, const std::string& error) {
  const int mine = error.empty() ? world.size() : world.rank();
  const int first = mpi::all_reduce(world, mine, mpi::minimum<int>());
  if (first == world.size()) return std::nullopt;
  std::string message = error;
  mpi::broadcast(world, message, first);
  return Failure{first, message};
}

int report(const mpi::communicator& world, const Failure& failure) {
  if (world.rank() == 0)
    std::cerr << "error: " << failure.message << " (rank " << failure.rank << " of " << world.size()
              << ")\n";
  return kRankFailed;
}

// Sends every rank its share of buffers (one per destination) and adds what this
// rank receives to owned. A collective: every failure before the last transfer
// is agreed on, so that all ranks throw together or none does.
void exchange(const mpi::communicator& world, const std::vector<std::vector<char> >& buffers,
              KeyedCounts& owned) {
  constexpr auto kMpiMax = static_cast<std::size_t>(std::numeric_limits<int>::max());
  const int ranks = world.size();
  std::vector<int> send_sizes(static_cast<std::size_t>(ranks));
  std::size_t send_total = 0;
  for (std::size_t r = 0; r < buffers.size(); ++r) {
    send_total += buffers[r].size();
    send_sizes[r] = static_cast<int>(std::min(buffers[r].size(), kMpiMax));
  }
  std::vector<int> receive_sizes;
  mpi::all_to_all(world, send_sizes, receive_sizes);
  std::size_t receive_total = 0;
  for (const int size : receive_sizes) receive_total += static_cast<std::size_t>(size);
  const bool fits = mpi::all_reduce(world, send_total <= kMpiMax && receive_total <= kMpiMax,
                                    std::logical_and<>());
  if (!fits)  // MPI counts bytes in an int
    throw Error("one round's words exceed 2 GiB on a rank: use more ranks");
  std::vector<int> send_offsets(static_cast<std::size_t>(ranks));
  std::vector<int> receive_offsets(static_cast<std::size_t>(ranks));
  std::vector<char> sent;
  sent.reserve(send_total);
  std::size_t received_so_far = 0;
  for (std::size_t r = 0; r < buffers.size(); ++r) {
    send_offsets[r] = static_cast<int>(sent.size());
    sent.insert(sent.end(), buffers[r].begin(), buffers[r].end());
    receive_offsets[r] = static_cast<int>(received_so_far);
    received_so_far += static_cast<std::size_t>(receive_sizes[r]);
  }
  std::vector<char> received(receive_total);
  MPI_Alltoallv(sent.data(), send_sizes.data(), send_offsets.data(), MPI_BYTE, received.data(),
                receive_sizes.data(), receive_offsets.data(), MPI_BYTE,
                static_cast<MPI_Comm>(world));
  for (std::size_t at = 0; at < received.size();) {
    const KeyedEntry entry = read_entry(received.data(), at);
    owned.add(entry.word, entry.count, entry.first);
  }
}

constexpr int kBatchTag = 7;
constexpr std::size_t kBatchBytes = std::size_t{4} << 20;

// Rank 0's view of another rank's sorted entries, received in batches.
class RemoteStream {
 public:
  RemoteStream(const mpi::communicator& world, int source) : world_(world), source_(source) {}
  // The next entry, or false when the source has sent its last batch.
  bool next(KeyedEntry& entry) {
    if (at_ == batch_.size()) {
      if (finished_) return false;
      MPI_Status status;
      MPI_Probe(source_, kBatchTag, static_cast<MPI_Comm>(world_), &status);
      int size = 0;
      MPI_Get_count(&status, MPI_BYTE, &size);
      batch_.resize(static_cast<std::size_t>(size));
      MPI_Recv(batch_.data(), size, MPI_BYTE, source_, kBatchTag, static_cast<MPI_Comm>(world_),
               MPI_STATUS_IGNORE);
      at_ = 0;
      if (size == 0) {  // an empty batch ends the stream
        finished_ = true;
        return false;
      }
    }
    entry = read_entry(batch_.data(), at_);
    return true;
  }

 private:
  const mpi::communicator& world_;
  int source_;
  std::vector<char> batch_;
  std::size_t at_ = 0;
  bool finished_ = false;
};

void send_sorted(const mpi::communicator& world, const std::vector<KeyedEntry>& sorted) {
  std::vector<char> batch;
  const auto flush = [&] {
    MPI_Send(batch.data(), static_cast<int>(batch.size()), MPI_BYTE, 0, kBatchTag,
             static_cast<MPI_Comm>(world));
    batch.clear();
  };
  for (const KeyedEntry& e : sorted) {
    append_entry(batch, e.word, e.count, e.first);
    if (batch.size() >= kBatchBytes) flush();
  }
  if (!batch.empty()) flush();
  flush();  // the empty batch: the end
}

// Rank 0: merges its own sorted entries with every other rank's stream by key
// and writes the TSV save_tsv would write.
void write_merged(const mpi::communicator& world, std::vector<KeyedEntry>& own, bool escaped,
                  const std::string& settings, std::ostream& out) {
  out << kTsvHeader;
  if (escaped) out << " escaped";
  if (!settings.empty()) out << ' ' << settings;
  out << '\n';
  std::vector<RemoteStream> remotes;
  remotes.reserve(static_cast<std::size_t>(world.size()));
  for (int r = 1; r < world.size(); ++r) remotes.emplace_back(world, r);
  // heads[s]: the next entry of source s (0 = this rank, r = rank r).
  std::vector<KeyedEntry> heads(static_cast<std::size_t>(world.size()));
  std::size_t own_at = 0;
  const auto advance = [&](std::size_t source) {
    if (source == 0) {
      if (own_at == own.size()) return false;
      heads[0] = std::move(own[own_at++]);
      return true;
    }
    return remotes[source - 1].next(heads[source]);
  };
  using Head = std::pair<OccurrenceKey, std::size_t>;
  std::priority_queue<Head, std::vector<Head>, std::greater<> > queue;
  for (std::size_t s = 0; s < heads.size(); ++s)
    if (advance(s)) queue.emplace(heads[s].first, s);
  std::string line;
  while (!queue.empty()) {
    const std::size_t s = queue.top().second;
    queue.pop();
    line.clear();
    append_tsv_line(line, heads[s].word, heads[s].count, escaped);
    out.write(line.data(), static_cast<std::streamsize>(line.size()));
    if (advance(s)) queue.emplace(heads[s].first, s);
  }
}

}  // namespace

int count_across_ranks_in_module(const std::vector<std::string>& corpus,
                                 const PipelineOptions& pipeline, const std::string& output) {
  // No abort on an exception: failures are agreed on and every rank returns.
  mpi::environment environment(false);
  mpi::communicator world;
  const int ranks = world.size();
  const int rank = world.rank();
  const auto start = std::chrono::steady_clock::now();

  std::string error;
  std::vector<Piece> pieces;
  try {
    pieces = plan_pieces(corpus, ranks);
  } catch (const std::exception& e) {
    error = e.what();
  }
  if (const auto failure = first_failure(world, error)) return report(world, *failure);

  const Normalizer normalizer(pipeline.normalizer());
  const PreTokenizer pre_tokenizer(pipeline.pre_tokenizer_options());
  KeyedCounts owned;
  std::uint64_t non_empty_lines = 0;
  const std::size_t rounds =
      (pieces.size() + static_cast<std::size_t>(ranks) - 1) / static_cast<std::size_t>(ranks);
  for (std::size_t round = 0; round < rounds; ++round) {
    const std::size_t piece =
        round * static_cast<std::size_t>(ranks) + static_cast<std::size_t>(rank);
    std::vector<std::vector<char> > buffers(static_cast<std::size_t>(ranks));
    try {
      if (piece < pieces.size()) {
        CorpusReader reader = CorpusReader::of_range(
            pieces[piece].range,
            CorpusOptions{.invalid_utf8 = pipeline.invalid_utf8_policy(), .allow_empty = true});
        const WordCounts counts = count_words(reader, normalizer, pre_tokenizer,
                                              CountOptions{.threads = pipeline.threads});
        non_empty_lines += reader.non_empty_lines();
        const auto& entries = counts.entries();
        for (std::size_t i = 0; i < entries.size(); ++i)
          append_entry(buffers[static_cast<std::size_t>(owner_of(entries[i].word, ranks))],
                       entries[i].word, entries[i].count, occurrence_key(piece, i));
      }
    } catch (const std::exception& e) {
      error = e.what();
    }
    if (const auto failure = first_failure(world, error)) return report(world, *failure);
    try {
      exchange(world, buffers, owned);
    } catch (const std::exception& e) {
      error = e.what();
    }
    if (const auto failure = first_failure(world, error)) return report(world, *failure);
  }

  const std::uint64_t all_lines = mpi::all_reduce(world, non_empty_lines, std::plus<>());
  if (all_lines == 0) {
    std::string names;
    for (const auto& f : corpus) names += (names.empty() ? "" : ", ") + f;
    return report(world, {0, "corpus is empty (no non-empty line): " + names});
  }
  std::vector<KeyedEntry> sorted = std::move(owned).take_sorted();
  const bool escaped_here = std::any_of(
      sorted.begin(), sorted.end(), [](const KeyedEntry& e) { return tsv_needs_escaping(e.word); });
  const bool escaped = mpi::all_reduce(world, escaped_here, std::logical_or<>());
  std::uint64_t total_here = 0;
  for (const KeyedEntry& e : sorted) total_here += e.count;
  const std::uint64_t distinct =
      mpi::all_reduce(world, std::uint64_t{sorted.size()}, std::plus<>());
  const std::uint64_t total = mpi::all_reduce(world, total_here, std::plus<>());

  if (rank != 0) {
    send_sorted(world, sorted);
    world.barrier();  // rank 0 has written (or failed and aborted)
    return kRankOk;
  }
  try {
    const auto write = [&](std::ostream& out) {
      write_merged(world, sorted, escaped, pipeline.counts_settings(), out);
    };
    if (output.empty() || output == "-") {
      write(std::cout);
      std::cout.flush();
      if (!std::cout) throw Error("<stdout>: write failed");
    } else {
      write_file_atomically(output, write);
    }
  } catch (const std::exception& e) {
    // The other ranks may be waiting to send: nothing but an abort frees them.
    // The temporary output was removed before the exception reached here.
    std::cerr << "error: " << e.what() << '\n';
    MPI_Abort(static_cast<MPI_Comm>(world), kRankFailed);
  }
  world.barrier();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cerr << distinct << " distinct words, " << total << " occurrences, " << ranks << " ranks, "
            << seconds << " s -> " << output << '\n';
  return kRankOk;
}

}  // namespace tokenlab::app

extern "C" BOOST_SYMBOL_EXPORT int tokenlab_count_across_ranks(
    const std::vector<std::string>* corpus, const tokenlab::app::PipelineOptions* pipeline,
    const std::string* output) {
  return tokenlab::app::count_across_ranks_in_module(*corpus, *pipeline, *output);
}
