// The output formats, by extension.
#include "cli/outputs/sink.hpp"

#include <filesystem>

#include "cli/config/config_node.hpp"
#include "cli/outputs/h5_sink.hpp"

namespace lb::cli {

std::string sink_format_error(const std::string& path) {
  const std::string file = std::filesystem::path(path).filename().string();
  if (std::filesystem::path(path).extension() == ".h5") return "";
  if (file == ".h5")
    return "output '" + echo(path) + "': expected a name before .h5 (\".h5\" alone names a hidden file without an extension)";
  return "output '" + echo(path) + "': expected a file name ending in .h5";
}

std::unique_ptr<Sink> open_sink(const std::string& path) {
  if (const std::string why = sink_format_error(path); !why.empty()) throw ConfigError(why);
  return std::make_unique<H5Sink>(path);
}

}  // namespace lb::cli
