// File: plugin_abi.hpp
// The binary contract between the tokenlab host and a segmenter plugin.
//
// A plugin is a shared library exporting exactly one C symbol:
//
//   extern "C" const tokenlab_plugin_descriptor* tokenlab_plugin_entry() noexcept;
//
// which returns a pointer to a static descriptor. Write it with one macro, which
// reads everything from static constants of the segmenter class, so that each is
// written once:
//
//   class MySegmenter final : public tokenlab::Segmenter {
//    public:
//     static constexpr const char* kName = "mine";   // = the file's base name
//     static constexpr const char* kVersion = "0.1.0";
//     static constexpr const char* kDescription = "one line for `tokenlab plugins`";
//     static constexpr tokenlab::Capabilities kCapabilities = tokenlab::kCapabilityTrace;
//     std::string name() const override { return kName; }  // (VocabularySegmenter
//     ...                                                  //  writes these three)
//   };
//   TOKENLAB_DEFINE_PLUGIN(MySegmenter)
//
// The name must equal the library's base name (mine.so -> "mine"). The factory
// never throws: it returns nullptr and writes a message instead. Because C++
// objects (std::string, vtables) cross this boundary, host and plugin must be
// built by the same compiler and standard library; the toolchain fingerprint
// lets the host refuse a mismatch with a clear message instead of crashing.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <new>
#include <type_traits>

#include "tokenlab/segmenter.hpp"
#include "tokenlab/types.hpp"

/// Bump when the descriptor layout or the Segmenter vtable changes incompatibly.
#define TOKENLAB_PLUGIN_ABI_VERSION 1u

#define TOKENLAB_DETAIL_STR2(x) #x
#define TOKENLAB_DETAIL_STR(x) TOKENLAB_DETAIL_STR2(x)

#if defined(__clang__)
#define TOKENLAB_DETAIL_COMPILER "clang-" TOKENLAB_DETAIL_STR(__clang_major__)
#elif defined(__GNUC__)
#define TOKENLAB_DETAIL_COMPILER "gcc-" TOKENLAB_DETAIL_STR(__GNUC__)
#else
#define TOKENLAB_DETAIL_COMPILER "unknown"
#endif

#if defined(_GLIBCXX_USE_CXX11_ABI)
#define TOKENLAB_DETAIL_CXXABI "cxx11abi-" TOKENLAB_DETAIL_STR(_GLIBCXX_USE_CXX11_ABI)
#else
#define TOKENLAB_DETAIL_CXXABI "cxx11abi-na"
#endif

#if defined(_GLIBCXX_DEBUG)
#define TOKENLAB_DETAIL_DEBUGSTL "+debugstl"
#else
#define TOKENLAB_DETAIL_DEBUGSTL ""
#endif

// Sanitizer builds: a plugin built with ASan aborts a host built without it (the
// runtime must come first), and a sanitized host reports false positives in
// uninstrumented code. GCC defines __SANITIZE_*__; clang answers __has_feature.
// UBSan defines no macro: the project's sanitizer presets (asan, fuzz) define
// TOKENLAB_SANITIZE for every target (see tools/cmake/TokenlabPlugin.cmake).
#if defined(__has_feature)
#define TOKENLAB_DETAIL_HAS_FEATURE(x) __has_feature(x)
#else
#define TOKENLAB_DETAIL_HAS_FEATURE(x) 0
#endif

#if defined(__SANITIZE_ADDRESS__) || TOKENLAB_DETAIL_HAS_FEATURE(address_sanitizer)
#define TOKENLAB_DETAIL_ASAN "+asan"
#else
#define TOKENLAB_DETAIL_ASAN ""
#endif

#if defined(__SANITIZE_THREAD__) || TOKENLAB_DETAIL_HAS_FEATURE(thread_sanitizer)
#define TOKENLAB_DETAIL_TSAN "+tsan"
#else
#define TOKENLAB_DETAIL_TSAN ""
#endif

#if TOKENLAB_DETAIL_HAS_FEATURE(memory_sanitizer)
#define TOKENLAB_DETAIL_MSAN "+msan"
#else
#define TOKENLAB_DETAIL_MSAN ""
#endif

#if defined(TOKENLAB_SANITIZE)
#define TOKENLAB_DETAIL_SANITIZE "+sanitize"
#else
#define TOKENLAB_DETAIL_SANITIZE ""
#endif

/// Compiler family and major version, C++ ABI, debug-STL flag and sanitizers:
/// what must match for std:: types and vtables to be shared safely, e.g.
/// "gcc-12/cxx11abi-1" or "gcc-12/cxx11abi-1+asan+sanitize".
#define TOKENLAB_TOOLCHAIN_FINGERPRINT                                         \
  TOKENLAB_DETAIL_COMPILER "/" TOKENLAB_DETAIL_CXXABI TOKENLAB_DETAIL_DEBUGSTL \
      TOKENLAB_DETAIL_ASAN TOKENLAB_DETAIL_TSAN TOKENLAB_DETAIL_MSAN TOKENLAB_DETAIL_SANITIZE

/// The tokenlab release a plugin is built against. TrainOptions, WordCounts,
/// Vocabulary and the Segmenter interface cross the plugin boundary by layout, so
/// the registry requires the plugin's to equal its own. The framework's build
/// checks that it equals project(VERSION) in CMakeLists.txt.
#define TOKENLAB_PLUGIN_TOKENLAB_VERSION "0.1.0"

extern "C" {

/// Factory: returns a new segmenter owned by the caller, or nullptr after writing a
/// NUL-terminated message into error (capacity error_size). Never throws.
typedef tokenlab::Segmenter* (*tokenlab_make_segmenter_fn)(char* error, std::size_t error_size);

struct tokenlab_plugin_descriptor {
  std::uint32_t abi_version;   // TOKENLAB_PLUGIN_ABI_VERSION of the plugin's build
  std::uint32_t struct_size;   // sizeof(tokenlab_plugin_descriptor) of the plugin's build
  const char* name;            // equals the library's base name
  const char* version;         // the plugin's own version, e.g. "1.2.0"
  const char* description;     // one line
  const char* toolchain;       // TOKENLAB_TOOLCHAIN_FINGERPRINT
  std::uint64_t capabilities;  // tokenlab::Capability bits
  tokenlab_make_segmenter_fn make_segmenter;
  // Appended fields: struct_size tells whether the plugin's build has them.
  const char* tokenlab_version;  // TOKENLAB_PLUGIN_TOKENLAB_VERSION of the plugin's build
};

typedef const tokenlab_plugin_descriptor* (*tokenlab_plugin_entry_fn)();

}  // extern "C"

#define TOKENLAB_PLUGIN_ENTRY_SYMBOL "tokenlab_plugin_entry"

namespace tokenlab {

/// The static constants TOKENLAB_DEFINE_PLUGIN reads from a segmenter class.
template <class T>
concept PluginSegmenter = std::is_base_of_v<Segmenter, T> && requires {
  { T::kName } -> std::convertible_to<const char*>;
  { T::kVersion } -> std::convertible_to<const char*>;
  { T::kDescription } -> std::convertible_to<const char*>;
  { T::kCapabilities } -> std::convertible_to<std::uint64_t>;
};

namespace detail {

template <PluginSegmenter T>
Segmenter* make_plugin_segmenter(char* error, std::size_t error_size) noexcept {
  try {
    return new T();
  } catch (const std::exception& e) {
    std::snprintf(error, error_size, "%s", e.what());
  } catch (...) {
    std::snprintf(error, error_size, "unknown exception in factory");
  }
  return nullptr;
}

template <PluginSegmenter T>
inline const tokenlab_plugin_descriptor kPluginDescriptor = {
    TOKENLAB_PLUGIN_ABI_VERSION,
    static_cast<std::uint32_t>(sizeof(tokenlab_plugin_descriptor)),
    T::kName,
    T::kVersion,
    T::kDescription,
    TOKENLAB_TOOLCHAIN_FINGERPRINT,
    static_cast<std::uint64_t>(T::kCapabilities),
    &make_plugin_segmenter<T>,
    TOKENLAB_PLUGIN_TOKENLAB_VERSION};

}  // namespace detail

/// The descriptor TOKENLAB_DEFINE_PLUGIN(T) exports; PluginRegistry::add_static
/// takes it directly (a plugin linked into the program, or a test's segmenter).
template <PluginSegmenter T>
const tokenlab_plugin_descriptor* plugin_descriptor() noexcept {
  return &detail::kPluginDescriptor<T>;
}

}  // namespace tokenlab

/// Defines the plugin's exported entry point; name, version, description and
/// capabilities come from SegmenterType::kName, kVersion, kDescription and
/// kCapabilities. Use it once per shared library.
#define TOKENLAB_DEFINE_PLUGIN(SegmenterType)                                         \
  extern "C" __attribute__((visibility("default"))) const tokenlab_plugin_descriptor* \
  tokenlab_plugin_entry() noexcept {                                                  \
    return ::tokenlab::plugin_descriptor<SegmenterType>();                            \
  }
