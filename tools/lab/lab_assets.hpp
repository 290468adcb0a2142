// File: lab_assets.hpp
// The page's files, compiled into the binary (assets/*, embedded by CMake), so
// the server reads nothing from disk by request path.
#pragma once

#include <optional>
#include <string_view>

namespace tokenlab::lab {

struct Asset {
  std::string_view content_type;
  std::string_view body;
};

/// The asset served at path ("/", "/lab.js", "/lab.css"), or nullopt.
std::optional<Asset> find_asset(std::string_view path);

}  // namespace tokenlab::lab
