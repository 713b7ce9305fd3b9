// ThreadSanitizer builds only. Debian's abseil is not built with TSan, so TSan cannot see the
// happens-before edges absl::Mutex creates and reports every access guarded by one as a race.
// This file defines absl::Mutex's lock and unlock functions in the test executable, where
// they take precedence over the shared library's: each calls the library's own function
// (found with dlsym(RTLD_NEXT)) and tells TSan about the acquire or release. Reader locks
// are annotated like writer locks, which orders readers among themselves too: readers do not
// write, so no race between them can be hidden.
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/base/options.h"
#include "absl/synchronization/mutex.h"

extern "C" void __tsan_acquire(void* addr);
extern "C" void __tsan_release(void* addr);

namespace {

using Method = void (*)(absl::Mutex*);

#define AH_STRINGIFY_INNER(x) #x
#define AH_STRINGIFY(x) AH_STRINGIFY_INNER(x)

// The library's definition of absl::Mutex::<name>(), by its mangled name in abseil's inline
// namespace.
Method Real(const std::string& name) {
  const std::string ns = AH_STRINGIFY(ABSL_OPTION_INLINE_NAMESPACE_NAME);
  const std::string symbol = "_ZN4absl" + std::to_string(ns.size()) + ns + "5Mutex" +
                             std::to_string(name.size()) + name + "Ev";
  auto* method = reinterpret_cast<Method>(dlsym(RTLD_NEXT, symbol.c_str()));
  if (method == nullptr) {
    std::fprintf(stderr, "tsan_absl_mutex: %s not found\n", symbol.c_str());
    std::abort();
  }
  return method;
}

}  // namespace

namespace absl {
ABSL_NAMESPACE_BEGIN

void Mutex::Lock() {
  static const Method real = Real("Lock");
  real(this);
  __tsan_acquire(this);
}

void Mutex::Unlock() {
  static const Method real = Real("Unlock");
  __tsan_release(this);
  real(this);
}

void Mutex::ReaderLock() {
  static const Method real = Real("ReaderLock");
  real(this);
  __tsan_acquire(this);
}

void Mutex::ReaderUnlock() {
  static const Method real = Real("ReaderUnlock");
  __tsan_release(this);
  real(this);
}

ABSL_NAMESPACE_END
}  // namespace absl
