// File: payload.hpp
// The archives a segmenter's model payload is written and read with
// (Segmenter::save/load): Boost.Serialization binary archives, made safe for
// untrusted input.
//
//   struct MyPayload {  // what the model saves, with serialize() as Boost wants it
//     bool lowercase = false;
//     std::vector<double> scores;
//     tokenlab::Vocabulary vocabulary;
//     template <class Archive>
//     void serialize(Archive& ar, unsigned /*version*/) {
//       ar & BOOST_SERIALIZATION_NVP(lowercase) & BOOST_SERIALIZATION_NVP(scores) &
//           BOOST_SERIALIZATION_NVP(vocabulary);
//     }
//   };
//   BOOST_CLASS_VERSION(MyPayload, 0)  // at global scope; see "Versions" below
//
//   void MySegmenter::save(std::ostream& out) const {
//     PayloadOArchive ar(out, "mine", kFormatVersion);  // tag: plugin name + version
//     ar << boost::serialization::make_nvp("model", payload_);
//   }
//   void MySegmenter::load(std::istream& in) {
//     PayloadIArchive ar(in, "mine", kFormatVersion);   // throws unless the tag matches
//     MyPayload payload;
//     ar >> boost::serialization::make_nvp("model", payload);
//     ar.finish();                                      // throws if bytes are left over
//     ...validate payload (ar.fail("why") on bad values), only then commit it...
//   }
//
// Threat model: a model file is untrusted input. Anyone can recompute its CRC, so
// every byte of a payload may be chosen by an attacker. A stock binary_iarchive
// allocates whatever size a corrupt payload claims and loads any byte into a bool.
// PayloadIArchive derives from Boost's binary_iarchive_impl (as Boost's manual
// describes for derived archives) and adds:
//   - the whole payload is read into memory first (read_model_file bounds it by the
//     file size), so every collection size and string length is checked against the
//     bytes that remain *before* anything is allocated: a collection may claim at
//     most one element per byte left, a string at most the bytes left; a payload of
//     n bytes never makes a container allocate more than n elements;
//   - a bool, and the tracking flag of a class, is one byte that must be 0 or 1
//     (0 for the tracking flag: see "Values only");
//   - a class version newer than this build's BOOST_CLASS_VERSION is refused;
//   - the payload starts with a tag (a magic, the plugin name and a format version)
//     so that a payload under another plugin's header, or from an older build, fails
//     with a message naming both;
//   - finish() rejects trailing bytes, so a loader consumes exactly its payload;
//   - every failure is a tokenlab::Error naming the plugin and the field (the names
//     of BOOST_SERIALIZATION_NVP / make_nvp, e.g. "vocabulary.pieces[]").
// What the archive cannot check is meaning (ids in range, scores finite, ...): the
// plugin validates those before committing the model.
//
// Values only: the archives serialize values, never pointers (a pointer, or a smart
// pointer, is a compile-time error) and never track objects; classes are
// serialized non-polymorphically, without BOOST_CLASS_EXPORT (Boost.Serialization's
// registries are per shared library). Wide strings are not supported.
//
// Versions: the tag's format version is the whole payload's; bump it to refuse
// every older payload ("re-train or re-import the model"). BOOST_CLASS_VERSION(T, n)
// is one class's; bump it to change T's fields while still reading older payloads
// (serialize() receives the version a payload was written with and reads the fields
// that version had).
//
// Layout: the tag (4 bytes "TKLP", u64 length + plugin name, u32 format version,
// little-endian), then a Boost.Serialization binary archive with its header (the
// signature "serialization::archive", the archive library version, the sizes of
// int, long, float and double and the byte order, all checked on load), then the
// values as Boost writes them: fixed-width integers and IEEE doubles in the host's
// byte order (little-endian on every supported host), bools as one byte,
// strings and collections as a u64 count then the elements (a vector of other
// than numbers also has a u32 item version after its count); the first
// occurrence of a class (such a vector is one) is preceded by its tracking flag
// (u8, 0) and its class version (u32). docs/file-formats.md has each plugin's.
#pragma once

#include <boost/archive/archive_exception.hpp>
#include <boost/archive/basic_archive.hpp>
#include <boost/archive/binary_iarchive_impl.hpp>
#include <boost/archive/binary_oarchive_impl.hpp>
#include <boost/mpl/bool.hpp>
#include <boost/serialization/array_optimization.hpp>
#include <boost/serialization/collection_size_type.hpp>
#include <boost/serialization/is_bitwise_serializable.hpp>
#include <boost/serialization/item_version_type.hpp>
#include <boost/serialization/level.hpp>
#include <boost/serialization/nvp.hpp>
#include <boost/serialization/string.hpp>
#include <boost/serialization/vector.hpp>
#include <boost/serialization/version.hpp>
#include <cstdint>
#include <istream>
#include <ostream>
#include <streambuf>
#include <string>
#include <string_view>
#include <type_traits>
#include <typeinfo>
#include <vector>

#include "tokenlab/export.hpp"

namespace tokenlab {

/// First bytes of every tagged payload (precede the plugin name and version).
inline constexpr char kPayloadMagic[4] = {'T', 'K', 'L', 'P'};
/// Longest plugin name a payload tag may carry.
inline constexpr std::uint64_t kMaxPayloadTag = 255;
/// The oldest Boost.Serialization archive library version a payload may declare:
/// Boost 1.74's, the first tokenlab wrote. Older versions take Boost's paths for
/// archives of 2010 and earlier, which read other field widths.
inline constexpr unsigned kMinPayloadLibraryVersion = 18;

class PayloadIArchive;
class PayloadOArchive;

namespace detail {

// Arrays of arithmetic types are read and written as one block, except bool, which
// goes one checked byte at a time.
struct PayloadArrayOptimization {
  template <class T>
  struct apply : boost::mpl::bool_<boost::serialization::is_bitwise_serializable<T>::value &&
                                   !std::is_same_v<std::remove_cv_t<T>, bool>> {};
};

template <class T>
inline constexpr bool kDependentFalse = false;

// The payload bytes of a PayloadIArchive and the field being read. A base class, so
// that it is built before the Boost archive base that reads from it.
class TOKENLAB_API PayloadSource : public std::streambuf {
 public:
  /// Bytes not read yet.
  [[nodiscard]] std::uint64_t remaining() const noexcept;
  /// Throws Error("malformed <plugin> model payload: <field>: <why>").
  [[noreturn]] void fail(const std::string& why) const;
  /// Throws Error if any byte is left unread.
  void finish() const;

 protected:
  PayloadSource(std::istream& in, std::string plugin);
  // Boost reads every byte through here: fewer bytes left than asked is an Error.
  std::streamsize xsgetn(char* out, std::streamsize size) override;
  // The plugin, the format version and the little-endian tag before Boost's header.
  void read_tag(std::uint32_t format_version);

  std::string plugin_;
  // The names (nvp) of the values being read, outermost first, for messages.
  std::vector<const char*> path_;

 private:
  std::uint64_t tag_u64(const char* what);
  std::string data_;
};

}  // namespace detail

/// Writes a payload: the tag, then a Boost binary archive. Use as any Boost
/// output archive (ar << value, ar & value). Throws Error on a write error.
class TOKENLAB_API PayloadOArchive final
    : public boost::archive::binary_oarchive_impl<PayloadOArchive, char, std::char_traits<char>> {
  using Base = boost::archive::binary_oarchive_impl<PayloadOArchive, char, std::char_traits<char>>;
  using Primitive =
      boost::archive::basic_binary_oprimitive<PayloadOArchive, char, std::char_traits<char>>;

 public:
  /// Writes the tag (kPayloadMagic, the plugin name and the format version) and
  /// Boost's archive header.
  PayloadOArchive(std::ostream& out, std::string_view plugin, std::uint32_t format_version);

  using use_array_optimization = detail::PayloadArrayOptimization;

 protected:
  friend class boost::archive::detail::interface_oarchive<PayloadOArchive>;
  friend class boost::archive::basic_binary_oarchive<PayloadOArchive>;
  friend class boost::archive::basic_binary_oprimitive<PayloadOArchive, char,
                                                       std::char_traits<char>>;
  friend class boost::archive::save_access;

  template <class T>
  void save_override(const T& t) {
    try {
      Base::save_override(t);
    } catch (const boost::archive::archive_exception& e) {
      fail(e.what());
    }
  }
  template <class T>
  void save_override(T* const&) {
    static_assert(detail::kDependentFalse<T>,
                  "a model payload holds values: serialize what the pointer points to");
  }
  // Object tracking is for pointers; PayloadIArchive refuses it.
  void save_override(const boost::archive::tracking_type& t);

  using Primitive::save;
  void save(const std::wstring&) = delete;
  void save(const char*) = delete;
  void save(const wchar_t*) = delete;

 private:
  [[noreturn]] void fail(const std::string& why) const;
  std::string plugin_;
};

/// Reads a payload written by PayloadOArchive, checked (see the file comment). Use
/// as any Boost input archive (ar >> value, ar & value); every failure throws Error.
class TOKENLAB_API PayloadIArchive final
    : private detail::PayloadSource,
      public boost::archive::binary_iarchive_impl<PayloadIArchive, char, std::char_traits<char>> {
  using Base = boost::archive::binary_iarchive_impl<PayloadIArchive, char, std::char_traits<char>>;
  using Primitive =
      boost::archive::basic_binary_iprimitive<PayloadIArchive, char, std::char_traits<char>>;

 public:
  /// Reads all of in, then the tag and Boost's header; throws Error unless the tag
  /// names plugin and format_version and the header is one this build reads.
  PayloadIArchive(std::istream& in, std::string plugin, std::uint32_t format_version);

  using detail::PayloadSource::fail;
  using detail::PayloadSource::finish;
  using detail::PayloadSource::remaining;

  using use_array_optimization = detail::PayloadArrayOptimization;

 protected:
  friend class boost::archive::detail::interface_iarchive<PayloadIArchive>;
  friend class boost::archive::basic_binary_iarchive<PayloadIArchive>;
  friend class boost::archive::basic_binary_iprimitive<PayloadIArchive, char,
                                                       std::char_traits<char>>;
  friend class boost::archive::load_access;

  // Every value passes here. A class with class information (the default) has its
  // version in the preamble Boost reads first: load_override(version_type&) checks
  // it against this build's.
  template <class T>
  void load_override(T& t) {
    const ClassLimit outer = class_;
    if constexpr (std::is_class_v<T>) {
      if constexpr (boost::serialization::implementation_level<T>::value >=
                    boost::serialization::object_class_info)
        class_ = {boost::serialization::version<T>::value, &typeid(T)};
    }
    try {
      Base::load_override(t);
    } catch (const boost::archive::archive_exception& e) {
      fail(e.what());
    }
    class_ = outer;
  }
  template <class T>
  void load_override(const boost::serialization::nvp<T>& t) {
    // Boost's own names (a collection's count and item version) say nothing new.
    constexpr bool kNamed = !std::is_same_v<T, boost::serialization::collection_size_type> &&
                            !std::is_same_v<T, boost::serialization::item_version_type>;
    if constexpr (kNamed) path_.push_back(t.name());
    Base::load_override(t);
    if constexpr (kNamed) path_.pop_back();
  }
  template <class T>
  void load_override(T*&) {
    static_assert(detail::kDependentFalse<T>,
                  "a model payload holds values: serialize what the pointer points to");
  }
  void load_override(boost::serialization::collection_size_type& t);
  void load_override(boost::archive::version_type& t);
  void load_override(boost::archive::tracking_type& t);

  using Primitive::load;
  void load(bool& t);
  void load(std::string& s);
  void load(std::wstring&) = delete;
  void load(char*) = delete;
  void load(wchar_t*) = delete;

 private:
  struct ClassLimit {
    unsigned version = 0;
    const std::type_info* type = nullptr;
  };
  ClassLimit class_;
};

}  // namespace tokenlab

BOOST_SERIALIZATION_USE_ARRAY_OPTIMIZATION(tokenlab::PayloadOArchive)
BOOST_SERIALIZATION_USE_ARRAY_OPTIMIZATION(tokenlab::PayloadIArchive)
