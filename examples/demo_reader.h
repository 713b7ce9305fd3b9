// The demo's second process: attaches by name the array the first one published and reads it
// where it lies, then checks it against the first process's host reference.
#pragma once

#include <string>

#include "demo_reference.h"

namespace demo {

// On the CUDA backend the array's device memory is mapped into this process (CUDA IPC); on the
// CPU backend, which has no device memory to map, the daemon copies it once into this
// process's shared memory. Prints each step; returns the exit status (1: the data differs).
int RunReader(const std::string& address, const std::string& name, const Checksum& want);

}  // namespace demo
