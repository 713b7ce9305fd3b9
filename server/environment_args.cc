#include "server/environment_args.h"

#include <algorithm>
#include <cstdlib>
#include <string_view>

namespace arrayhub {
namespace {

// Whether the command line gives option --name itself ("--name value" or "--name=value"),
// up to a "--" that ends the options.
bool NamedOnCommandLine(std::string_view name, int argc, const char* const* argv) {
  const std::string flag = "--" + std::string(name);
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--") break;
    if (arg == flag || arg.starts_with(flag + "=")) return true;
  }
  return false;
}

}  // namespace

EnvironmentArgs WithEnvironment(const CLI::App& app, int argc, const char* const* argv) {
  EnvironmentArgs result;
  result.args.emplace_back(argc > 0 ? argv[0] : "arrayhubd");
  for (const CLI::Option* option : app.get_options()) {
    const std::string variable = option->get_envname();
    if (variable.empty() || option->get_lnames().empty()) continue;
    const char* value = std::getenv(variable.c_str());
    if (value == nullptr || *value == '\0') continue;
    const std::string& name = option->get_lnames().front();
    if (NamedOnCommandLine(name, argc, argv)) continue;
    result.args.push_back("--" + name + "=" + value);
    result.variables.push_back(variable);
  }
  for (int i = 1; i < argc; ++i) result.args.emplace_back(argv[i]);
  return result;
}

}  // namespace arrayhub
