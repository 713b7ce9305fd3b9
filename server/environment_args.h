// Options set in the environment, as command-line arguments: one precedence whatever the CLI11
// version. The order is flag > environment variable > config file > default. CLI11 2.1 (Debian
// 12) reads the config file before the environment and lets the file win, so arrayhubd does not
// leave the environment to CLI11: a variable becomes "--name=value" ahead of the real
// arguments, unless the command line names that option itself, and the config file then fills
// only what is still unset.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace arrayhub {

struct EnvironmentArgs {
  std::vector<std::string> args;       // argv[0], the environment's options, then argv[1...].
  std::vector<std::string> variables;  // Names of the variables used, for error messages.
};

// For every option of `app` with an envname whose variable is set and not empty.
EnvironmentArgs WithEnvironment(const CLI::App& app, int argc, const char* const* argv);

}  // namespace arrayhub
