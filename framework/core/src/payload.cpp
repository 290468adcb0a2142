// The payload archives (payload.hpp): their checks, and the one instantiation of
// Boost's binary archive templates for them, which every plugin links.
#include "tokenlab/payload.hpp"

#include <boost/archive/detail/archive_serializer_map.hpp>
#include <boost/archive/impl/archive_serializer_map.ipp>
#include <boost/archive/impl/basic_binary_iarchive.ipp>
#include <boost/archive/impl/basic_binary_iprimitive.ipp>
#include <boost/archive/impl/basic_binary_oarchive.ipp>
#include <boost/archive/impl/basic_binary_oprimitive.ipp>
#include <boost/core/demangle.hpp>
#include <cstring>
#include <iterator>

#include "tokenlab/error.hpp"

namespace boost::archive {
template class detail::archive_serializer_map<tokenlab::PayloadOArchive>;
template class basic_binary_oprimitive<tokenlab::PayloadOArchive, char, std::char_traits<char>>;
template class basic_binary_oarchive<tokenlab::PayloadOArchive>;
template class binary_oarchive_impl<tokenlab::PayloadOArchive, char, std::char_traits<char>>;
template class detail::archive_serializer_map<tokenlab::PayloadIArchive>;
template class basic_binary_iprimitive<tokenlab::PayloadIArchive, char, std::char_traits<char>>;
template class basic_binary_iarchive<tokenlab::PayloadIArchive>;
template class binary_iarchive_impl<tokenlab::PayloadIArchive, char, std::char_traits<char>>;
}  // namespace boost::archive

namespace tokenlab {

namespace {

static_assert(sizeof(bool) == 1, "bools are one byte in a payload");

constexpr auto kFlags = boost::archive::no_header | boost::archive::no_codecvt;

void put_le(std::string& out, std::uint64_t value, int width) {
  for (int i = 0; i < width; ++i) out += static_cast<char>((value >> (8 * i)) & 0xFF);
}

// What Boost's binary header starts with: the signature as a std::size_t length
// and its bytes.
std::string boost_signature() {
  const char* signature = boost::archive::BOOST_ARCHIVE_SIGNATURE();
  const std::size_t length = std::strlen(signature);
  std::string out(sizeof length, '\0');
  std::memcpy(out.data(), &length, sizeof length);
  return out + signature;
}

}  // namespace

namespace detail {

PayloadSource::PayloadSource(std::istream& in, std::string plugin) : plugin_(std::move(plugin)) {
  try {
    data_.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  } catch (const std::exception& e) {
    fail(std::string("cannot read the payload: ") + e.what());
  }
  if (in.bad()) fail("read error");
  setg(data_.data(), data_.data(), data_.data() + data_.size());
}

std::uint64_t PayloadSource::remaining() const noexcept {
  return static_cast<std::uint64_t>(egptr() - gptr());
}

void PayloadSource::fail(const std::string& why) const {
  std::string where;
  for (const char* name : path_) {
    if (std::strcmp(name, "item") == 0) {  // Boost's name for a collection's element
      where += "[]";
      continue;
    }
    if (!where.empty()) where += '.';
    where += name;
  }
  throw Error("malformed " + plugin_ +
              " model payload: " + (where.empty() ? why : where + ": " + why));
}

void PayloadSource::finish() const {
  if (remaining() != 0)
    fail(std::to_string(remaining()) + " unexpected bytes after the end of the model");
}

std::streamsize PayloadSource::xsgetn(char* out, std::streamsize size) {
  if (size <= 0) return 0;
  const auto wanted = static_cast<std::uint64_t>(size);
  if (wanted > remaining())
    fail("truncated: " + std::to_string(wanted) + " bytes needed, " + std::to_string(remaining()) +
         " left");
  std::memcpy(out, gptr(), static_cast<std::size_t>(size));
  setg(eback(), gptr() + size, egptr());
  return size;
}

std::uint64_t PayloadSource::tag_u64(const char* what) {
  path_.assign(1, what);
  unsigned char bytes[8];
  sgetn(reinterpret_cast<char*>(bytes), sizeof bytes);
  path_.clear();
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < sizeof bytes; ++i) value |= std::uint64_t{bytes[i]} << (8 * i);
  return value;
}

void PayloadSource::read_tag(std::uint32_t format_version) {
  if (data_.size() < sizeof kPayloadMagic ||
      std::memcmp(data_.data(), kPayloadMagic, sizeof kPayloadMagic) != 0) {
    if (data_.size() >= 4 && data_[0] >= 1 && data_[0] <= 3 && data_[1] == 0 && data_[2] == 0 &&
        data_[3] == 0)
      fail("payload written by an older tokenlab (format " + std::to_string(int{data_[0]}) +
           ", without a plugin tag); re-train or re-import the model");
    fail("payload has no plugin tag (not a tokenlab payload)");
  }
  gbump(static_cast<int>(sizeof kPayloadMagic));
  const std::uint64_t length = tag_u64("plugin tag");
  if (length > kMaxPayloadTag) fail("plugin tag: implausible length " + std::to_string(length));
  std::string tag(static_cast<std::size_t>(length), '\0');
  path_.assign(1, "plugin tag");
  sgetn(tag.data(), static_cast<std::streamsize>(tag.size()));
  path_.clear();
  if (tag != plugin_)
    fail("the payload belongs to plugin '" + tag + "' (the model header and the payload disagree)");
  // The format version is a u32: the low half of what tag_u64 would read.
  unsigned char bytes[4];
  path_.assign(1, "format version");
  sgetn(reinterpret_cast<char*>(bytes), sizeof bytes);
  path_.clear();
  std::uint32_t found = 0;
  for (std::size_t i = 0; i < sizeof bytes; ++i) found |= std::uint32_t{bytes[i]} << (8 * i);
  if (found != format_version)
    fail("unsupported format version " + std::to_string(found) + " (this build reads " +
         std::to_string(format_version) + "); re-train or re-import the model");
}

}  // namespace detail

PayloadOArchive::PayloadOArchive(std::ostream& out, std::string_view plugin,
                                 std::uint32_t format_version)
    : Base(out, kFlags), plugin_(plugin) {
  std::string tag(kPayloadMagic, sizeof kPayloadMagic);
  put_le(tag, plugin.size(), 8);
  tag += plugin;
  put_le(tag, format_version, 4);
  try {
    save_binary(tag.data(), tag.size());
    Base::init(boost::archive::no_codecvt);  // Boost's header
  } catch (const boost::archive::archive_exception& e) {
    fail(e.what());
  }
}

void PayloadOArchive::fail(const std::string& why) const {
  throw Error("cannot write the " + plugin_ + " model payload: " + why);
}

void PayloadOArchive::save_override(const boost::archive::tracking_type& t) {
  if (t) fail("a class has object tracking on (BOOST_CLASS_TRACKING): a payload holds values");
  Base::save_override(t);
}

PayloadIArchive::PayloadIArchive(std::istream& in, std::string plugin, std::uint32_t format_version)
    : detail::PayloadSource(in, std::move(plugin)),
      Base(static_cast<std::streambuf&>(static_cast<detail::PayloadSource&>(*this)), kFlags) {
  read_tag(format_version);
  static const std::string signature = boost_signature();
  if (remaining() < signature.size() ||
      std::memcmp(gptr(), signature.data(), signature.size()) != 0)
    fail(
        "no Boost.Serialization archive after the tag: written by an older tokenlab? "
        "re-train or re-import the model");
  try {
    Base::init(boost::archive::no_codecvt);  // Boost's header
  } catch (const boost::archive::archive_exception& e) {
    using boost::archive::archive_exception;
    const unsigned library = get_library_version();
    if (e.code == archive_exception::unsupported_version)
      fail("written by a newer Boost.Serialization (archive library version " +
           std::to_string(library) + "; this build reads up to " +
           std::to_string(unsigned{boost::archive::BOOST_ARCHIVE_VERSION()}) + ")");
    if (e.code == archive_exception::incompatible_native_format)
      fail(std::string("written on a machine with other type sizes or byte order (") + e.what() +
           ")");
    fail(e.what());
  }
  if (const unsigned library = get_library_version(); library < kMinPayloadLibraryVersion)
    fail("archive library version " + std::to_string(library) +
         " predates tokenlab's payloads (version " + std::to_string(kMinPayloadLibraryVersion) +
         " and later)");
}

void PayloadIArchive::load_override(boost::serialization::collection_size_type& t) {
  Base::load_override(t);
  const std::uint64_t count = t;
  if (count > remaining())
    fail("a collection of " + std::to_string(count) + " elements exceeds the " +
         std::to_string(remaining()) + " bytes left in the payload");
}

void PayloadIArchive::load_override(boost::archive::version_type& t) {
  Base::load_override(t);
  const unsigned version = t;
  if (class_.type != nullptr && version > class_.version)
    fail(boost::core::demangle(class_.type->name()) + " has class version " +
         std::to_string(version) + ", newer than this build reads (" +
         std::to_string(class_.version) + "): written by a newer build of the plugin");
}

void PayloadIArchive::load_override(boost::archive::tracking_type& t) {
  std::uint8_t flag = 0;
  load(flag);
  if (flag != 0)
    fail("object tracking flag " + std::to_string(flag) + " (a payload holds values only)");
  t = boost::archive::tracking_type(false);
}

void PayloadIArchive::load(bool& t) {
  std::uint8_t byte = 0;
  load(byte);
  if (byte > 1) fail(std::to_string(byte) + " is not a boolean (0 or 1)");
  t = byte == 1;
}

void PayloadIArchive::load(std::string& s) {
  std::size_t length = 0;
  load(length);
  if (length > remaining())
    fail("a string of " + std::to_string(length) + " bytes exceeds the " +
         std::to_string(remaining()) + " bytes left in the payload");
  s.resize(length);
  if (length > 0) load_binary(s.data(), length);
}

}  // namespace tokenlab
